/**
 * A registration the discovery agent could not take is retried with backoff (issue 26;
 * reference/integration.md §8.3, "retry indefinitely with backoff"): a client whose
 * discovery agent is down when its task starts says so once in the task's events, keeps the
 * task running, and registers the service within seconds of the agent coming up (1 s,
 * doubling to 30 s), not at its next 30 s reconcile.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { until } from '../processes.js';
import { call as meshCall, startAgent as startMeshAgent, type TestAgent as MeshTestAgent } from '../mesh/helpers.js';
import { allocWhen, freePort, httpTask, runJob, stopJob } from './client-helpers.js';
import { ROOT, startAgent, type TestAgent } from './helpers.js';

const MESH_ROOT = '7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d';

type Event = { Type: string; Message: string };

describe('scheduler client: a registration retried with backoff', () => {
  const root = mkdtempSync(join(tmpdir(), 'cairn-client-retry-'));
  const stops: (() => Promise<void>)[] = [];
  after(async () => {
    for (const stop of stops.reverse()) await stop();
    rmSync(root, { recursive: true, force: true });
  });

  /** A discovery agent on `dir`, at `address` (`127.0.0.1:0` the first time). */
  async function discovery(dir: string, address: string): Promise<MeshTestAgent> {
    const m = await startMeshAgent({ initialManagement: MESH_ROOT }, { dataDir: dir, httpAddress: address }, { syncIntervalMs: 200 });
    stops.push(() => m.stop());
    return m;
  }

  /** A server with a client in `dir` registering through the discovery agent at `address` with `token`. */
  async function scheduler(dir: string, address: string, token: string): Promise<TestAgent> {
    const a = await startAgent({
      dataDir: dir,
      client: {
        servers: [],
        stateDir: join(dir, 'client'),
        allocDir: join(dir, 'alloc'),
        nodeClass: '',
        nodePool: 'default',
        meta: {},
        token: ROOT,
        drivers: { raw_exec: true, exec: false },
        consul: { address: `http://${address}`, token, deregisterCriticalServiceAfter: '1m' },
      },
    });
    stops.push(() => a.stop());
    return a;
  }

  /** Runs job `id`: one task serving HTTP on a free port, its service `id` with an HTTP check; the allocation's ID. */
  async function serviceJob(sched: TestAgent, id: string): Promise<string> {
    const port = await freePort();
    const service = { Name: id, PortLabel: String(port), Checks: [{ Type: 'http', Path: '/', Interval: 1e9, Timeout: 1e9 }] };
    return runJob(sched, { ID: id, Type: 'service', TaskGroups: [{ Name: 'g', Tasks: [httpTask('t', port, { Services: [service] })] }] });
  }

  const failedEvent = (id: string) => (e: Event) => e.Type === 'Task hook failed' && e.Message.includes(`registering "${id}" failed`);
  const passing = async (mesh: MeshTestAgent, id: string) =>
    ((await meshCall(mesh.url, 'GET', `/v1/health/service/${id}?passing`, { token: MESH_ROOT })).json as unknown[]).length === 1 ? true : undefined;

  /** The allocation's task `t` kept running, unrestarted, and its events told the failure once. */
  async function toldOnce(sched: TestAgent, allocId: string, id: string): Promise<void> {
    const alloc = await allocWhen(sched, allocId, { what: 'the allocation read', ok: () => true });
    const events = alloc.TaskStates.t.Events as Event[];
    assert.equal(events.filter(failedEvent(id)).length, 1, JSON.stringify(events));
    assert.deepEqual([alloc.TaskStates.t.State, alloc.TaskStates.t.Restarts], ['running', 0]);
    await stopJob(sched, id);
  }

  it('registers once the discovery agent comes up, after one task event saying it failed', { timeout: 120_000 }, async () => {
    const dir = join(root, 'down');
    // The agent's address: taken on port 0 (no race for a port picked free), then the agent goes away.
    const first = await startMeshAgent({ initialManagement: MESH_ROOT }, { dataDir: join(dir, 'mesh'), httpAddress: '127.0.0.1:0' });
    const address = new URL(first.url).host;
    await first.close();
    const sched = await scheduler(dir, address, MESH_ROOT);
    const allocId = await serviceJob(sched, 'late');
    await allocWhen(sched, allocId, { what: 'the failed registration in the task events', ok: (a) => a.TaskStates?.t?.Events.some(failedEvent('late')) });

    // A few attempts fail meanwhile; then the agent comes up on its address and data directory.
    const down = Date.now();
    await until('three seconds of retries', 5_000, () => (Date.now() - down >= 3_000 ? true : undefined));
    const mesh = await discovery(join(dir, 'mesh'), address);
    // Before the client's next reconcile (30 s after its start).
    await until('the instance passing', 12_000, () => passing(mesh, 'late'));
    await toldOnce(sched, allocId, 'late');
  });

  it('registers within seconds once the agent stops refusing it (the token gets the right), after one task event', { timeout: 120_000 }, async () => {
    const dir = join(root, 'refused');
    const mesh = await discovery(join(dir, 'mesh'), '127.0.0.1:0');
    const root_ = (method: string, path: string, body: unknown) => meshCall(mesh.url, method, path, { token: MESH_ROOT, body });
    const readOnly = 'agent_prefix "" { policy = "read" }\nnode_prefix "" { policy = "read" }\nservice_prefix "" { policy = "read" }';
    const policy = await root_('PUT', '/v1/acl/policy', { Name: 'client', Rules: readOnly });
    assert.equal(policy.status, 200, policy.text);
    const token = await root_('PUT', '/v1/acl/token', { Policies: [{ ID: policy.json.ID }] });
    assert.equal(token.status, 200, token.text);
    const sched = await scheduler(dir, new URL(mesh.url).host, token.json.SecretID);
    const allocId = await serviceJob(sched, 'denied');
    await allocWhen(sched, allocId, { what: 'the refused registration in the task events', ok: (a) => a.TaskStates?.t?.Events.some(failedEvent('denied')) });

    // Refused a few times meanwhile; then the token's policy grants the services.
    const refused = Date.now();
    await until('three seconds of retries', 5_000, () => (Date.now() - refused >= 3_000 ? true : undefined));
    const granted = await root_('PUT', `/v1/acl/policy/${policy.json.ID}`, {
      Name: 'client',
      Rules: readOnly.replace('service_prefix "" { policy = "read" }', 'service_prefix "" { policy = "write" }'),
    });
    assert.equal(granted.status, 200, granted.text);
    // The backoff's next attempt (at most 8 s after the third), before the client's next reconcile (30 s after its start).
    await until('the instance passing', 12_000, () => passing(mesh, 'denied'));
    await toldOnce(sched, allocId, 'denied');
  });
});
