/**
 * Helpers for the client agent's tests: an agent with its client enabled (ACLs on, the
 * client registering with the management token), jobs of `/bin/sh -c …` tasks, allocations
 * created with their job (the Cairn-only `PUT /v1/allocation` with `Job`), and waits on an
 * allocation's state.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClientConfig } from '../../src/services/sched/client/config.js';
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

/** The agent's node, once registered and `ready`. */
export async function readyNode(a: TestAgent): Promise<Record<string, any>> {
  return until('node ready', 10_000, async () => {
    const r = await call(a.url, 'GET', `/v1/node/${a.client!.nodeId}`, { token: ROOT });
    return r.status === 200 && r.json.Status === 'ready' ? r.json : undefined;
  });
}

/** A task running `/bin/sh -c script` on `driver`. */
export function shTask(name: string, script: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return { Name: name, Driver: 'raw_exec', Config: { command: '/bin/sh', args: ['-c', script] }, ...over };
}

/** A job `id` of `type` with one group `g` of `tasks` and `restart` policy (durations in ns). */
export function job(id: string, tasks: Record<string, unknown>[], o: { type?: string; restart?: Record<string, unknown> } = {}): Record<string, unknown> {
  return {
    ID: id,
    Name: id,
    Namespace: 'default',
    Type: o.type ?? 'service',
    Priority: 50,
    TaskGroups: [{ Name: 'g', Count: 1, ...(o.restart && { RestartPolicy: o.restart }), Tasks: tasks }],
  };
}

/** Creates an allocation of group `g` of `j` on the agent's node; its ID. */
export async function place(a: TestAgent, j: Record<string, unknown>): Promise<string> {
  const r = await call(a.url, 'PUT', '/v1/allocation', { token: ROOT, body: { Allocation: { NodeID: a.client!.nodeId, JobID: j.ID, TaskGroup: 'g', Job: j } } });
  assert.equal(r.status, 200, r.text);
  return r.json.ID as string;
}

/**
 * Registers `j` through `POST /v1/jobs` and waits for the scheduler to place its first
 * allocation (on the agent's node, the only one); its ID. Unlike {@link place}, the job is
 * stored, so the scheduler's later evaluations (stop, reschedule) see it.
 */
export async function runJob(a: TestAgent, j: Record<string, unknown>): Promise<string> {
  const r = await call(a.url, 'POST', '/v1/jobs', { token: ROOT, body: { Job: j } });
  assert.equal(r.status, 200, r.text);
  return until(`an allocation of ${String(j.ID)}`, 15_000, async () => {
    const list = await call(a.url, 'GET', `/v1/job/${String(j.ID)}/allocations`, { token: ROOT });
    return list.status === 200 && list.json.length > 0 ? (list.json[0].ID as string) : undefined;
  });
}

/** The allocation (`GET /v1/allocation/:id`, with task states) once `ok` holds for it. */
export async function allocWhen(a: TestAgent, id: string, what: string, ok: (alloc: Record<string, any>) => boolean, ms = 15_000): Promise<Record<string, any>> {
  return until(what, ms, async () => {
    const r = await call(a.url, 'GET', `/v1/allocation/${id}`, { token: ROOT });
    return r.status === 200 && ok(r.json) ? r.json : undefined;
  });
}

/** The event types of task `task` of `alloc`. */
export const eventTypes = (alloc: Record<string, any>, task: string): string[] => alloc.TaskStates[task].Events.map((e: { Type: string }) => e.Type);
