/**
 * No healthy task stopped by an upstream outage (issue 26; reference/integration.md §8: the
 * reference restarts healthy tasks when its discovery agent goes away or comes back with its
 * checks critical): a task with an HTTP check and `check_restart { limit = 1 }` keeps running,
 * unrestarted, while the discovery agent beside its client is down for several check
 * intervals and after the agent comes back on the same data directory and address (its
 * registrations restored at their checks' initial status, critical, and the checks run
 * again: the client counts no reading of a check before it has run); its instance is
 * passing again. The task has a start-up grace, as users give one: without it, a check
 * that runs before the task listens restarts it (the reference does the same), which is
 * what failed this test in CI under load before it had one.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { until } from '../processes.js';
import { call as meshCall, startAgent as startMeshAgent, type TestAgent as MeshTestAgent } from '../mesh/helpers.js';
import { allocWhen, freePort, httpTask, runJob, stopJob } from './client-helpers.js';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';

const MESH_ROOT = '0c9b8a7d-6e5f-4a3b-8c2d-1e0f9a8b7c6d';

type Entry = { Service: { Port: number }; Checks: { CheckID: string; Status: string }[] };

describe('scheduler client: a discovery agent outage', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cairn-client-outage-'));
  const meshDir = join(dataDir, 'mesh');
  let meshAddress = '';
  let mesh: MeshTestAgent | undefined;
  let sched: TestAgent;
  const startMesh = async () => {
    mesh = await startMeshAgent({ initialManagement: MESH_ROOT }, { dataDir: meshDir, httpAddress: meshAddress }, { syncIntervalMs: 200 });
  };
  const passing = async (): Promise<Entry[]> => (await meshCall(mesh!.url, 'GET', '/v1/health/service/steady?passing', { token: MESH_ROOT })).json as Entry[];
  /** Waits for the instance to pass; failing, says what the task and the agent's checks went through. */
  const passingWithin = (what: string, ms: number, allocId: string) =>
    until(what, ms, async () => ((await passing()).length === 1 ? true : undefined)).catch(async (err: Error) => {
      const alloc = await call(sched.url, 'GET', `/v1/allocation/${allocId}`, { token: ROOT });
      const checks = await meshCall(mesh!.url, 'GET', '/v1/agent/checks', { token: MESH_ROOT });
      throw new Error(`${err.message}\ntask: ${JSON.stringify(alloc.json?.TaskStates?.t)}\nagent checks: ${checks.text}`);
    });

  before(async () => {
    // Port 0 the first time (no race for a port picked free); the agent comes back on the port it got.
    meshAddress = '127.0.0.1:0';
    await startMesh();
    meshAddress = new URL(mesh!.url).host;
    sched = await startAgent({
      dataDir,
      client: {
        servers: [],
        stateDir: join(dataDir, 'client'),
        allocDir: join(dataDir, 'alloc'),
        nodeClass: '',
        nodePool: 'default',
        meta: {},
        token: ROOT,
        drivers: { raw_exec: true, exec: false },
        consul: { address: `http://${meshAddress}`, token: MESH_ROOT, deregisterCriticalServiceAfter: '1m' },
      },
    });
  });
  after(async () => {
    await sched?.stop();
    await mesh?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('restarts no healthy task while the agent is away or when it comes back with its checks to run again', { timeout: 150_000 }, async () => {
    const port = await freePort();
    const allocId = await runJob(sched, {
      ID: 'steady',
      Type: 'service',
      TaskGroups: [
        {
          Name: 'g',
          RestartPolicy: { Attempts: 3, Interval: 600e9, Delay: 0.2e9, Mode: 'fail' },
          Tasks: [
            httpTask('t', port, {
              Services: [
                {
                  Name: 'steady',
                  PortLabel: String(port),
                  Checks: [{ Name: 'http', Type: 'http', Path: '/', Interval: 1e9, Timeout: 1e9 }],
                  // A start-up grace as users set one (the check is critical until its first run); no failures tolerated after it.
                  CheckRestart: { Limit: 1, Grace: 5e9 },
                },
              ],
            }),
          ],
        },
      ],
    });
    await passingWithin('the instance passing', 30_000, allocId);
    const pid = readFileSync(join(dataDir, 'alloc', allocId, 't', 'local', 'pid'), 'utf8');
    // The task started before it passed: past its start-up grace from here, every unhealthy reading would count.
    const serving = Date.now();
    await until('the start-up grace over', 10_000, () => (Date.now() - serving >= 5_500 ? true : undefined));

    // The agent goes away for several check intervals (the client reads the checks every second).
    await mesh!.close();
    const down = Date.now();
    await until('five check intervals of outage', 10_000, () => (Date.now() - down >= 5_000 ? true : undefined));
    // It comes back on the same data directory and address: its registrations are restored and their checks run again.
    await startMesh();
    await passingWithin('the instance passing again', 30_000, allocId);

    const alloc = await allocWhen(sched, allocId, { what: 'the allocation read', ok: () => true });
    assert.equal(alloc.TaskStates.t.State, 'running');
    assert.equal(alloc.TaskStates.t.Restarts, 0, JSON.stringify(alloc.TaskStates.t.Events));
    assert.equal(
      alloc.TaskStates.t.Events.some((e: { Type: string }) => e.Type === 'Restart Signaled'),
      false,
    );
    assert.equal(readFileSync(join(dataDir, 'alloc', allocId, 't', 'local', 'pid'), 'utf8'), pid, 'the same process serves');
    assert.equal((await call(sched.url, 'GET', `/v1/allocation/${allocId}`, { token: ROOT })).json.ClientStatus, 'running');
    await stopJob(sched, 'steady');
  });
});
