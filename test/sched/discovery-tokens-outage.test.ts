/**
 * A task's discovery login while the discovery service is down (issue 27 scope 4;
 * reference/integration.md §8.3): the task waits — pending, one `Task hook failed` event
 * naming the auth method — and the client retries with backoff, so the task starts with its
 * token once the service is up, instead of failing.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { MeshClient } from '../../src/sdk/index.js';
import { until } from '../processes.js';
import { call as meshCall, startAgent as startMeshAgent, type TestAgent as MeshTestAgent } from '../mesh/helpers.js';
import { allocWhen, freePort, readyNode, runJob, shTask, rawExecClient } from './client-helpers.js';
import { setUpWorkloadAuth } from './discovery-workloads.js';
import { startAgent, type TestAgent } from './helpers.js';

const MESH_ROOT = '3c2b1a0f-9e8d-4c7b-a6f5-e4d3c2b1a0f9';

type Event = { Type: string; Message: string };

describe('scheduler client: a discovery login waits out an outage', () => {
  const root = mkdtempSync(join(tmpdir(), 'cairn-disco-outage-'));
  let mesh: MeshTestAgent | undefined;
  let sched: TestAgent | undefined;
  after(async () => {
    await sched?.stop();
    await mesh?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('keeps the task pending with one event while the discovery service is down, then starts it with its token', { timeout: 90_000 }, async () => {
    const address = `127.0.0.1:${await freePort()}`;
    sched = await startAgent({
      dataDir: join(root, 'sched'),
      client: {
        ...rawExecClient(join(root, 'sched')),
        consul: { address: `http://${address}`, deregisterCriticalServiceAfter: '1m' },
      },
    });
    await readyNode(sched);
    // The discovery service's state is set up first, on another port: once it answers at
    // `address`, the login is admitted (a login refused by a missing auth method is final).
    const setup = await startMeshAgent({ initialManagement: MESH_ROOT }, { dataDir: join(root, 'mesh') });
    const setupAdmin = new MeshClient({ address: setup.url, token: MESH_ROOT });
    await setUpWorkloadAuth(setupAdmin, sched.url);
    await setupAdmin.close();
    await setup.stop();
    const allocId = await runJob(sched, {
      ID: 'waits',
      Type: 'service',
      TaskGroups: [{ Name: 'g', Count: 1, Tasks: [shTask('t', 'sleep 300', { Consul: {} })] }],
    });
    const waiting = await allocWhen(sched, allocId, {
      what: 'the login failure event',
      ok: (a) => (a.TaskStates?.t?.Events as Event[] | undefined)?.some((e) => e.Type === 'Task hook failed') === true,
      ms: 20_000,
    });
    assert.equal(waiting.TaskStates.t.State, 'pending');
    const event = (waiting.TaskStates.t.Events as Event[]).find((e) => e.Type === 'Task hook failed')!;
    assert.match(event.Message, /^consul: logging in at auth method "cairn-workloads" failed \(.+\); retrying$/);
    const tokenFile = join(root, 'sched', 'alloc', allocId, 't', 'secrets', 'consul_token');
    assert.equal(existsSync(tokenFile), false);

    mesh = await startMeshAgent({ initialManagement: MESH_ROOT }, { dataDir: join(root, 'mesh'), httpAddress: address });
    const running = await allocWhen(sched, allocId, { what: 'the task running', ok: (a) => a.TaskStates?.t?.State === 'running', ms: 45_000 });
    assert.equal((running.TaskStates.t.Events as Event[]).filter((e) => e.Type === 'Task hook failed').length, 1, 'told once');
    const secret = await until('the token written', 5_000, () => (existsSync(tokenFile) ? readFileSync(tokenFile, 'utf8') : undefined));
    assert.equal((await meshCall(mesh.url, 'GET', '/v1/acl/token/self', { token: secret })).status, 200);
  });
});
