/**
 * Test helpers for the scheduler service: an agent on a temp data dir and a free port (ACLs
 * on, a known management token), and a small HTTP caller that keeps status, headers and the
 * raw and parsed body.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../src/kernel/log/logger.js';
import { startSchedAgent, type SchedAgent } from '../../src/services/sched/agent.js';
import type { SchedAgentConfig } from '../../src/services/sched/config.js';

/** The management token every test agent in the authoritative region starts with. */
export const ROOT = 'b1d3c5e7-0000-4000-8000-00000000a11a';

/** A running agent and its data dir; `stop()` closes it and removes the dir. */
export interface TestAgent extends SchedAgent {
  readonly dataDir: string;
  stop(): Promise<void>;
}

/**
 * Starts an agent on a fresh temp dir and port 0: region `global` (authoritative unless
 * `over` says otherwise), ACLs on, {@link ROOT} as a management token in the authoritative
 * region (pass `root: null` for a fresh, un-bootstrapped cluster).
 */
export async function startAgent(
  over: Partial<SchedAgentConfig> = {},
  o: { root?: string | null; now?: () => number; replicationWaitMs?: number; replicationBackoffMs?: number } = {},
): Promise<TestAgent> {
  const dataDir = over.dataDir ?? mkdtempSync(join(tmpdir(), 'cairn-sched-'));
  const config: SchedAgentConfig = {
    dataDir,
    region: 'global',
    datacenter: 'dc1',
    nodeName: 'test',
    logLevel: 'info',
    httpAddress: '127.0.0.1:0',
    authoritativeRegion: over.region ?? 'global',
    regionAddresses: {},
    acl: { enabled: true },
    eventBufferSize: 100,
    eventBroker: true,
    ...over,
  };
  const root = o.root === undefined ? ROOT : o.root;
  const agent = await startSchedAgent({
    config,
    log: silentLogger(),
    initialManagementToken: root ?? undefined,
    now: o.now,
    replicationWaitMs: o.replicationWaitMs,
    replicationBackoffMs: o.replicationBackoffMs,
  });
  return {
    ...agent,
    dataDir,
    stop: async () => {
      await agent.close();
      if (!over.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A reply: status, headers, raw text and JSON (undefined when the body is not JSON). */
export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly json: any;
}

/** Calls `method path` on `base` with `token` in `X-Sched-Token`, `body` as JSON (or `raw` text) and any extra `headers`. */
export async function call(
  base: string,
  method: string,
  path: string,
  o: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.token) headers['X-Sched-Token'] = o.token;
  const r = await fetch(base + path, { method, headers, body: o.raw ?? (o.body === undefined ? undefined : JSON.stringify(o.body)) });
  const text = await r.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: r.status, headers: r.headers, text, json };
}
