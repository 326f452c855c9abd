/**
 * Test helpers for the scheduler's placement tests: simulated client nodes registered over
 * HTTP (`PUT /v1/node/register`, ready, with the `raw_exec` driver and the given CPU and
 * memory), complete job documents with the reference's defaults, and `putJob`, which
 * registers a job through `POST /v1/jobs`.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { NS_PER_SECOND, type Evaluation, type Job, type TaskGroup } from '../../src/services/sched/jobs/types.js';
import { T } from '../../src/services/sched/state.js';
import type { SchedAgent } from '../../src/services/sched/agent.js';
import { call, ROOT } from './helpers.js';

/** Registers a ready node named `name` with `cpu` MHz and `memory` MiB and the `raw_exec` driver; `over` merges into the node. Returns its ID. */
export async function simNode(url: string, name: string, o: { cpu?: number; memory?: number; over?: Record<string, unknown> } = {}): Promise<string> {
  const id = randomUUID();
  const r = await call(url, 'PUT', '/v1/node/register', {
    token: ROOT,
    body: {
      Node: {
        ID: id,
        SecretID: randomUUID(),
        Datacenter: 'dc1',
        Name: name,
        HTTPAddr: '127.0.0.1:1',
        Status: 'ready',
        Attributes: { 'kernel.name': 'linux', 'driver.raw_exec': '1', 'unique.hostname': name },
        NodeResources: { Cpu: { CpuShares: o.cpu ?? 4000 }, Memory: { MemoryMB: o.memory ?? 8192 } },
        Drivers: { raw_exec: { Detected: true, Healthy: true, HealthDescription: 'Healthy', Attributes: null } },
        Meta: {},
        ...o.over,
      },
    },
  });
  assert.equal(r.status, 200, r.text);
  return id;
}

/** A task group `name` of `count` allocations, one `raw_exec` task asking `cpu` MHz (default 100) and `memory` MiB (default 300); `over` merges into the group. */
export function group(
  name: string,
  count: number,
  { cpu = 100, memory = 300, over = {} }: { cpu?: number; memory?: number; over?: Partial<TaskGroup> } = {},
): TaskGroup {
  return {
    Name: name,
    Count: count,
    Constraints: null,
    RestartPolicy: { Attempts: 2, Interval: 1800 * NS_PER_SECOND, Delay: 15 * NS_PER_SECOND, Mode: 'fail', RenderTemplates: false },
    ReschedulePolicy: { Attempts: 0, Interval: 0, Delay: 30 * NS_PER_SECOND, DelayFunction: 'exponential', MaxDelay: 3600 * NS_PER_SECOND, Unlimited: true },
    EphemeralDisk: { Sticky: false, SizeMB: 300, Migrate: false },
    Volumes: null,
    Meta: null,
    Tasks: [
      {
        Name: 't',
        Driver: 'raw_exec',
        User: '',
        Config: { command: '/bin/sleep', args: ['300'] },
        Env: null,
        Constraints: null,
        Resources: { CPU: cpu, Cores: 0, MemoryMB: memory, MemoryMaxMB: 0, DiskMB: null },
        Meta: null,
        KillTimeout: 5 * NS_PER_SECOND,
        KillSignal: 'SIGINT',
        LogConfig: { MaxFiles: 10, MaxFileSizeMB: 10, Disabled: false },
        VolumeMounts: null,
        Leader: false,
        Lifecycle: null,
      },
    ],
    ...over,
  };
}

/** A job `id` (type service unless `over` says otherwise) with `groups`. */
export function job(id: string, groups: TaskGroup[], over: Partial<Job> = {}): Job {
  return {
    ID: id,
    ParentID: '',
    Name: id,
    Namespace: 'default',
    Region: 'global',
    Type: 'service',
    Priority: 50,
    AllAtOnce: false,
    Datacenters: ['*'],
    NodePool: 'default',
    Constraints: null,
    Meta: null,
    Update: null,
    TaskGroups: groups,
    Stop: false,
    Status: 'pending',
    StatusDescription: '',
    Stable: false,
    Version: 0,
    SubmitTime: Date.now() * 1e6,
    CreateIndex: 0,
    ModifyIndex: 0,
    JobModifyIndex: 0,
    ...over,
  };
}

/** Registers `j` through `POST /v1/jobs` with the root token (asserting 200) and returns the evaluation ID the register created. */
export async function putJob(agent: SchedAgent, j: Job): Promise<string> {
  const r = await call(agent.url, 'POST', '/v1/jobs', { token: ROOT, body: { Job: j } });
  assert.equal(r.status, 200, r.text);
  return (r.json as { EvalID: string }).EvalID;
}

/** Polls `probe` every 20 ms until it returns a value other than undefined/false; fails after `ms` with `what`. */
export async function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** The evaluation `id` once it is no longer pending. */
export function settled(agent: SchedAgent, id: string): Promise<Evaluation> {
  return until(`evaluation ${id} to finish`, () => {
    const e = agent.state.get<Evaluation>(T.evals, id);
    return e && e.Status !== 'pending' ? e : undefined;
  });
}

/** An allocation as `GET /v1/allocation/:id` shows it. */
export interface AllocView {
  ID: string;
  Name: string;
  NodeID: string;
  NodeName: string;
  JobID: string;
  TaskGroup: string;
  DesiredStatus: string;
  DesiredDescription: string;
  ClientStatus: string;
  PreviousAllocation: string;
  NextAllocation: string;
  AllocatedResources: { Tasks: Record<string, { Cpu: { CpuShares: number }; Memory: { MemoryMB: number } }> } | null;
  DesiredTransition: { Migrate: boolean | null };
  FollowupEvalID: string;
  RescheduleTracker: { Events: { PrevAllocID: string; PrevNodeID: string }[] } | null;
}

/** Every allocation of job `jobId` (all namespaces the root token reads), read one by one over HTTP. */
export async function allocsOf(url: string, jobId: string): Promise<AllocView[]> {
  const list = await call(url, 'GET', '/v1/allocations?namespace=*', { token: ROOT });
  assert.equal(list.status, 200, list.text);
  const out: AllocView[] = [];
  for (const stub of list.json as { ID: string; JobID: string }[]) {
    if (stub.JobID !== jobId) continue;
    const r = await call(url, 'GET', `/v1/allocation/${stub.ID}`, { token: ROOT });
    assert.equal(r.status, 200, r.text);
    out.push(r.json);
  }
  return out;
}

/** Allocations the servers want running (`DesiredStatus: run`, client not finished). */
export const running = (allocs: AllocView[]): AllocView[] =>
  allocs.filter((a) => a.DesiredStatus === 'run' && !['complete', 'failed', 'lost'].includes(a.ClientStatus));
