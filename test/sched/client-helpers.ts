/**
 * Helpers for the client agent's tests: an agent with its client enabled (ACLs on, the
 * client registering with the management token), jobs of `/bin/sh -c …` tasks registered
 * through `POST /v1/jobs` and placed by the scheduler (as the reference: nothing else makes
 * allocations), stopping a job, and waits on an allocation's state.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClientConfig } from '../../src/services/sched/client/config.js';
import type { JsonReply } from '../helpers.js';
import { until } from '../processes.js';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';

/**
 * Starts an agent with a client: `raw_exec` enabled unless `drivers` says otherwise. A given
 * `dataDir` is kept by `stop()` (a restart test reuses it); a new one is removed.
 */
export async function startClientAgent(o: { drivers?: ClientConfig['drivers']; dataDir?: string } = {}): Promise<TestAgent> {
  const dataDir = o.dataDir ?? mkdtempSync(join(tmpdir(), 'cairn-client-'));
  const agent = await startAgent({
    dataDir,
    client: {
      servers: [],
      stateDir: join(dataDir, 'client'),
      allocDir: join(dataDir, 'alloc'),
      nodeClass: '',
      nodePool: 'default',
      meta: { rack: 'r1' },
      token: ROOT,
      drivers: o.drivers ?? { raw_exec: true, exec: true },
    },
  });
  return o.dataDir ? agent : { ...agent, stop: async () => (await agent.stop(), rmSync(dataDir, { recursive: true, force: true })) };
}

/**
 * The client settings most client tests share: an in-process client (no `servers`) keeping its
 * state and allocations under `dir`, `raw_exec` only, the management token. Spread it and add
 * the blocks a test needs (`consul`, `vault`, `template`).
 */
export function rawExecClient(dir: string): ClientConfig {
  return {
    servers: [],
    stateDir: join(dir, 'client'),
    allocDir: join(dir, 'alloc'),
    nodeClass: '',
    nodePool: 'default',
    meta: {},
    token: ROOT,
    drivers: { raw_exec: true, exec: false },
  };
}

/** The agent's node, once registered and `ready`. */
export async function readyNode(a: TestAgent): Promise<JsonReply> {
  return until('node ready', 10_000, async () => {
    const r = await call(a.url, 'GET', `/v1/node/${a.client!.nodeId}`, { token: ROOT });
    return r.status === 200 && r.json.Status === 'ready' ? r.json : undefined;
  });
}

/** A task running `/bin/sh -c script` on `driver`. */
export function shTask(name: string, script: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return { Name: name, Driver: 'raw_exec', Config: { command: '/bin/sh', args: ['-c', script] }, ...over };
}

/**
 * A job `id` of `type` with one group `g` of `tasks`, its `restart` policy (durations in ns)
 * and its `volumes` (the group's `Volumes`: name → volume request).
 */
export function job(
  id: string,
  tasks: Record<string, unknown>[],
  o: { type?: string; restart?: Record<string, unknown>; volumes?: Record<string, Record<string, unknown>> } = {},
): Record<string, unknown> {
  return {
    ID: id,
    Name: id,
    Namespace: 'default',
    Type: o.type ?? 'service',
    Priority: 50,
    TaskGroups: [{ Name: 'g', Count: 1, ...(o.restart && { RestartPolicy: o.restart }), ...(o.volumes && { Volumes: o.volumes }), Tasks: tasks }],
  };
}

/**
 * Registers `j` through `POST /v1/jobs` on the server at `a.url` (with `token`, the management
 * token by default) and waits for the scheduler to place its first allocation (on the
 * agent's node, the only one); its ID.
 */
export async function runJob(a: { url: string }, j: Record<string, unknown>, token = ROOT): Promise<string> {
  const r = await call(a.url, 'POST', '/v1/jobs', { token, body: { Job: j } });
  assert.equal(r.status, 200, r.text);
  return until(`an allocation of ${String(j.ID)}`, 15_000, async () => {
    const list = await call(a.url, 'GET', `/v1/job/${String(j.ID)}/allocations`, { token });
    return list.status === 200 && list.json.length > 0 ? (list.json[0].ID as string) : undefined;
  });
}

/**
 * Stops job `id` (`DELETE /v1/job/:id`, the user's `job stop`): the scheduler stops its
 * allocations and the client kills their tasks. Asserts the 200.
 */
export async function stopJob(a: { url: string }, id: string, token = ROOT): Promise<void> {
  const r = await call(a.url, 'DELETE', `/v1/job/${id}`, { token });
  assert.equal(r.status, 200, r.text);
}

/** The allocation (`GET /v1/allocation/:id`, with task states) once `ok` holds for it. */
export async function allocWhen(
  a: TestAgent,
  id: string,
  { what, ok, ms = 15_000 }: { what: string; ok: (alloc: JsonReply) => boolean; ms?: number },
): Promise<JsonReply> {
  return until(what, ms, async () => {
    const r = await call(a.url, 'GET', `/v1/allocation/${id}`, { token: ROOT });
    return r.status === 200 && ok(r.json) ? r.json : undefined;
  });
}

/** The event types of task `task` of `alloc`. */
export const eventTypes = (alloc: JsonReply, task: string): string[] => alloc.TaskStates[task].Events.map((e: { Type: string }) => e.Type);

/** A free TCP port on 127.0.0.1 (bound, then released). */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

/** A raw_exec task serving HTTP 200 `ok` on 127.0.0.1:`port` with Node, its PID written to `$CAIRN_TASK_DIR/pid`. */
export function httpTask(name: string, port: number, over: Record<string, unknown> = {}): Record<string, unknown> {
  const script = `require('fs').writeFileSync(process.env.CAIRN_TASK_DIR + '/pid', String(process.pid)); require('http').createServer((q, s) => s.end('ok')).listen(${port}, '127.0.0.1')`;
  return { Name: name, Driver: 'raw_exec', Config: { command: process.execPath, args: ['-e', script] }, Resources: { CPU: 20, MemoryMB: 32 }, ...over };
}
