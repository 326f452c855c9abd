/**
 * Test helpers for the scheduler service: an agent on a temp data dir and a free port (ACLs
 * on, a known management token), a small HTTP caller that keeps status, headers and the
 * raw and parsed body, client tokens made through the API, and the 403 assertion.
 */
import assert from 'node:assert/strict';
import { silentLogger, type Logger } from '../../src/kernel/log/logger.js';
import { startSchedAgent, type SchedAgent, type SchedAgentOptions } from '../../src/services/sched/agent.js';
import type { SchedAgentConfig } from '../../src/services/sched/config.js';
import { apiCaller, type ApiCaller, stoppable, testDataDir } from '../helpers.js';

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
  o: {
    root?: string | null;
    now?: () => number;
    replicationWaitMs?: number;
    replicationBackoffMs?: number;
    csiConnect?: SchedAgentOptions['csiConnect'];
    log?: Logger;
    tokenReapIntervalMs?: number;
  } = {},
): Promise<TestAgent> {
  const dir = testDataDir(over.dataDir, 'cairn-sched-');
  const config: SchedAgentConfig = {
    dataDir: dir.path,
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
    log: o.log ?? silentLogger(),
    initialManagementToken: root ?? undefined,
    now: o.now,
    replicationWaitMs: o.replicationWaitMs,
    replicationBackoffMs: o.replicationBackoffMs,
    csiConnect: o.csiConnect,
    tokenReapIntervalMs: o.tokenReapIntervalMs,
  });
  return stoppable(agent, dir);
}

export type { Reply } from '../helpers.js';

/** Calls `method path` on `base` with `token` in `X-Sched-Token`, `body` as JSON (or `raw` text) and any extra `headers`. */
export const call: ApiCaller = apiCaller('X-Sched-Token');

/**
 * Makes a client token holding a new policy `name` with `rules`, both written through the API
 * on `base` with {@link ROOT}; returns the token's accessor and secret.
 */
export async function clientToken(base: string, name: string, rules: string): Promise<{ accessor: string; secret: string }> {
  const p = await call(base, 'PUT', `/v1/acl/policy/${name}`, { token: ROOT, body: { Name: name, Rules: rules } });
  assert.equal(p.status, 200, p.text);
  const t = await call(base, 'POST', '/v1/acl/token', { token: ROOT, body: { Name: name, Type: 'client', Policies: [name] } });
  assert.equal(t.status, 200, t.text);
  return { accessor: t.json.AccessorID, secret: t.json.SecretID };
}

/** Asserts that `r` is 403 `Permission denied` (every denial, reference/sched.md §1.3); `what` names the case. */
export function assertDenied(r: { status: number; text: string }, what = ''): void {
  assert.deepEqual([r.status, r.text], [403, 'Permission denied'], what);
}
