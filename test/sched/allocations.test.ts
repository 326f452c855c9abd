/**
 * Allocations as the API reads them (reference/sched.md §5), placed by the scheduler from
 * jobs registered through `POST /v1/jobs` on a simulated client node, and namespaces over
 * HTTP: reads with the job snapshot, list stubs with namespace and prefix filters, the client
 * status report (statuses, task states, the node's secret or `node:write`), the allocation
 * stop (`alloc-lifecycle`, terminal allocations), ACL per namespace, the removed Cairn-only
 * routes answered as unknown paths; namespace CRUD with the reference's texts, `default` and
 * namespaces with live jobs or allocations not deletable.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { JsonReply } from '../helpers.js';
import { assertDenied, call, clientToken, ROOT, startAgent, type TestAgent } from './helpers.js';
import { group, job, putJob, settled, simNode, until, type AllocView } from './workloads.js';

describe('scheduler allocations and namespaces', () => {
  let a: TestAgent;
  let nodeID: string;
  const NODE_SECRET = randomUUID();
  /** `token` null: no token (the anonymous token). */
  const req = (method: string, path: string, body?: unknown, token: string | null = ROOT) => call(a.url, method, path, { token: token ?? undefined, body });
  /**
   * Registers job `id` (one group `app` of one allocation) in `namespace`, waits for the
   * scheduler's evaluation, and returns the placed allocation as `GET /v1/allocation/:id`
   * shows it, with the register's evaluation ID.
   */
  const place = async (namespace: string, id: string): Promise<{ alloc: AllocView & JsonReply; evalId: string }> => {
    const evalId = await putJob(a, job(id, [group('app', 1)], { Namespace: namespace }));
    assert.equal((await settled(a, evalId)).Status, 'complete');
    const stubs = (await req('GET', `/v1/job/${id}/allocations?namespace=${namespace}`)).json as { ID: string }[];
    assert.equal(stubs.length, 1);
    const read = await req('GET', `/v1/allocation/${stubs[0]!.ID}`);
    assert.equal(read.status, 200, read.text);
    return { alloc: read.json, evalId };
  };

  before(async () => {
    a = await startAgent();
    nodeID = await simNode(a.url, 'worker-1', { over: { SecretID: NODE_SECRET } });
    for (const ns of ['prod', 'dev']) assert.equal((await req('PUT', `/v1/namespace/${ns}`, { Name: ns, Description: `${ns} jobs` })).status, 200);
  });
  after(async () => {
    await a.stop();
  });

  it("reads an allocation the scheduler placed, with its job snapshot and the register's evaluation", async () => {
    const { alloc: got, evalId } = await place('prod', 'web');
    assert.match(got.ID, /^[0-9a-f-]{36}$/);
    assert.deepEqual(
      [got.Namespace, got.EvalID, got.Name, got.NodeID, got.NodeName, got.JobID, got.TaskGroup, got.DesiredStatus, got.ClientStatus],
      ['prod', evalId, 'web.app[0]', nodeID, 'worker-1', 'web', 'app', 'run', 'pending'],
    );
    assert.deepEqual([got.Job.ID, got.Job.Namespace, got.Job.TaskGroups[0].Tasks[0].Driver], ['web', 'prod', 'raw_exec']);
    assert.ok(got.CreateTime > 1e18, 'Unix nanoseconds');
    const again = await req('GET', `/v1/allocation/${got.ID}`);
    assert.deepEqual(again.json, got);
    assert.equal(again.headers.get('x-sched-index'), String(got.ModifyIndex));
    const nf = await req('GET', `/v1/allocation/${randomUUID()}`);
    assert.deepEqual([nf.status, nf.text], [404, 'alloc not found']);
  });

  it('answers the removed Cairn-only create and desired-status routes as unknown paths', async () => {
    const { alloc } = await place('default', 'removed');
    for (const method of ['PUT', 'POST']) {
      const create = await req(method, '/v1/allocation', { Allocation: { NodeID: nodeID, JobID: 'web', TaskGroup: 'app' } });
      assert.deepEqual([create.status, create.text], [404, '404 page not found\n'], `${method} /v1/allocation`);
      const desired = await req(method, `/v1/allocation/${alloc.ID}/desired-status`, { DesiredStatus: 'stop' });
      assert.deepEqual([desired.status, desired.text], [404, '404 page not found\n'], `${method} …/desired-status`);
    }
    assert.equal((await req('GET', `/v1/allocation/${alloc.ID}`)).json.DesiredStatus, 'run', 'nothing changed');
  });

  it('takes a client status report with its task states; refuses bad statuses and task states', async () => {
    const { alloc } = await place('default', 'reported');
    const id = alloc.ID;
    const bad = await req('POST', `/v1/allocation/${id}/client-status`, { ClientStatus: 'exploded' });
    assert.deepEqual([bad.status, bad.text], [400, 'invalid client status "exploded": must be one of pending, running, complete, failed, lost, unknown']);
    for (const TaskStates of [{ t: 'running' }, { t: { State: 5 } }, { t: [] }]) {
      const r = await req('POST', `/v1/allocation/${id}/client-status`, { ClientStatus: 'running', TaskStates });
      assert.deepEqual([r.status, r.text], [400, 'TaskStates must be an object of task states'], JSON.stringify(TaskStates));
    }
    assert.deepEqual((await req('GET', `/v1/allocation/${id}`)).json.ModifyIndex, alloc.ModifyIndex, 'nothing written');
    const state = { State: 'running', Failed: false, Restarts: 0, LastRestart: null, StartedAt: new Date().toISOString(), FinishedAt: null, Events: [] };
    const ok = await req('PUT', `/v1/allocation/${id}/client-status`, {
      ClientStatus: 'running',
      ClientDescription: 'Tasks are running',
      TaskStates: { t: state },
    });
    assert.equal(ok.status, 200, ok.text);
    assert.ok(ok.json.Index > alloc.ModifyIndex);
    assert.equal(ok.headers.get('x-sched-index'), String(ok.json.Index));
    const got = (await req('GET', `/v1/allocation/${id}`)).json;
    assert.deepEqual([got.ClientStatus, got.ClientDescription, got.DesiredStatus, got.TaskStates.t.State], ['running', 'Tasks are running', 'run', 'running']);
    assert.deepEqual([got.ModifyIndex, got.CreateIndex], [ok.json.Index, alloc.CreateIndex]);
    // A report without TaskStates keeps the stored ones.
    assert.equal((await req('POST', `/v1/allocation/${id}/client-status`, { ClientStatus: 'complete' })).status, 200);
    const done = (await req('GET', `/v1/allocation/${id}`)).json;
    assert.deepEqual([done.ClientStatus, done.TaskStates.t.State], ['complete', 'running']);
    const missing = await req('POST', `/v1/allocation/${randomUUID()}/client-status`, { ClientStatus: 'running' });
    assert.deepEqual([missing.status, missing.text], [404, 'alloc not found']);
  });

  it('lists stubs with their AllocatedResources on ?resources=true, without them otherwise', async () => {
    const { alloc } = await place('default', 'sized');
    const find = async (q: string) => ((await req('GET', `/v1/allocations${q}`)).json as Record<string, unknown>[]).find((a) => a.ID === alloc.ID)!;
    assert.equal('AllocatedResources' in (await find('')), false);
    const full = (await req('GET', `/v1/allocation/${alloc.ID}`)).json;
    assert.deepEqual((await find('?resources=true')).AllocatedResources, full.AllocatedResources);
    assert.ok(full.AllocatedResources.Tasks, 'the placed allocation has its tasks resources');
  });

  it("takes the allocation's health in its deployment from a client report; refuses a bad one", async () => {
    const { alloc } = await place('default', 'health');
    const id = alloc.ID;
    assert.equal((await req('GET', `/v1/allocation/${id}`)).json.DeploymentStatus, null);
    for (const [DeploymentStatus, text] of [
      [{ Healthy: 'yes' }, 'DeploymentStatus.Healthy must be a boolean'],
      [{ Healthy: true, Timestamp: 'noon' }, 'DeploymentStatus.Timestamp must be an RFC 3339 time'],
    ] as const) {
      const r = await req('POST', `/v1/allocation/${id}/client-status`, { ClientStatus: 'running', DeploymentStatus });
      assert.deepEqual([r.status, r.text], [400, text]);
    }
    const at = '2026-11-28T10:00:00Z';
    const ok = await req('POST', `/v1/allocation/${id}/client-status`, { ClientStatus: 'running', DeploymentStatus: { Healthy: true, Timestamp: at } });
    assert.equal(ok.status, 200, ok.text);
    const got = (await req('GET', `/v1/allocation/${id}`)).json;
    assert.deepEqual(got.DeploymentStatus, { Healthy: true, Timestamp: at, Canary: false, ModifyIndex: ok.json.Index });
    const stub = ((await req('GET', '/v1/allocations')).json as { ID: string; DeploymentStatus: unknown }[]).find((a) => a.ID === id);
    assert.deepEqual(stub?.DeploymentStatus, got.DeploymentStatus);
    // A report without it keeps the stored one.
    await req('POST', `/v1/allocation/${id}/client-status`, { ClientStatus: 'running' });
    assert.equal((await req('GET', `/v1/allocation/${id}`)).json.DeploymentStatus.Healthy, true);
  });

  it('stops an allocation with alloc-lifecycle in its namespace; a terminal one is 400', async () => {
    const prodWriter = (await clientToken(a.url, 'stop-prod-write', 'namespace "prod" { policy = "write" }')).secret;
    const { alloc: inDefault } = await place('default', 'stopped-elsewhere');
    assertDenied(await req('POST', `/v1/allocation/${inDefault.ID}/stop`, undefined, prodWriter), 'alloc-lifecycle in another namespace');
    assert.equal((await req('GET', `/v1/allocation/${inDefault.ID}`)).json.DesiredTransition.Migrate, null, 'nothing changed');

    const { alloc } = await place('prod', 'stopped');
    const r = await req('POST', `/v1/allocation/${alloc.ID}/stop`, undefined, prodWriter);
    assert.equal(r.status, 200, r.text);
    assert.equal((await settled(a, r.json.EvalID)).Status, 'complete');
    const got = (await req('GET', `/v1/allocation/${alloc.ID}`)).json;
    assert.deepEqual(
      [got.DesiredStatus, got.DesiredDescription, got.DesiredTransition.Migrate, got.ClientStatus],
      ['stop', 'alloc is being migrated', true, 'pending'],
    );
    const again = await req('PUT', `/v1/allocation/${alloc.ID}/stop`, undefined, prodWriter);
    assert.deepEqual([again.status, again.text], [400, 'alloc is already terminal']);
  });

  it('lists stubs per namespace (`*`: all readable) and by UUID prefix', async () => {
    const { alloc: p } = await place('prod', 'listed');
    await place('dev', 'api');
    const list = await req('GET', '/v1/allocations?namespace=prod');
    assert.equal(list.status, 200);
    assert.ok(list.json.every((s: { Namespace: string }) => s.Namespace === 'prod'));
    const stub = list.json.find((s: { ID: string }) => s.ID === p.ID);
    assert.deepEqual(Object.keys(stub), [
      'ID',
      'EvalID',
      'Name',
      'Namespace',
      'NodeID',
      'NodeName',
      'JobID',
      'JobType',
      'JobVersion',
      'TaskGroup',
      'DesiredStatus',
      'DesiredDescription',
      'ClientStatus',
      'ClientDescription',
      'DesiredTransition',
      'TaskStates',
      'DeploymentStatus',
      'FollowupEvalID',
      'NextAllocation',
      'RescheduleTracker',
      'PreemptedAllocations',
      'PreemptedByAllocation',
      'CreateIndex',
      'ModifyIndex',
      'CreateTime',
      'ModifyTime',
    ]);
    assert.deepEqual([stub.NodeName, stub.JobType, stub.JobID], ['worker-1', 'service', 'listed']);
    const defaults = (await req('GET', '/v1/allocations')).json;
    assert.ok(defaults.length > 0 && defaults.every((s: { Namespace: string }) => s.Namespace === 'default'));
    const everything = (await req('GET', '/v1/allocations?namespace=*')).json;
    assert.deepEqual(new Set(everything.map((s: { Namespace: string }) => s.Namespace)), new Set(['default', 'prod', 'dev']));
    const ids = everything.map((s: { ID: string }) => s.ID);
    assert.deepEqual(ids, [...ids].sort());
    const byPrefix = (await req('GET', `/v1/allocations?namespace=prod&prefix=${p.ID.slice(0, 8)}`)).json;
    assert.deepEqual(
      byPrefix.map((s: { ID: string }) => s.ID),
      [p.ID],
    );
    const odd = await req('GET', '/v1/allocations?prefix=abc');
    assert.deepEqual([odd.status, odd.text], [400, 'index error: Input (without hyphens) must be even length']);
  });

  it("checks namespace capabilities: read-job to read, the node's secret or node:write for client updates", async () => {
    const prodWriter = (await clientToken(a.url, 'prod-write', 'namespace "prod" { policy = "write" }')).secret;
    const prodReader = (await clientToken(a.url, 'prod-read', 'namespace "prod" { policy = "read" }')).secret;
    const nodeWriter = (await clientToken(a.url, 'alloc-node-write', 'node { policy = "write" }')).secret;
    const { alloc: made } = await place('prod', 'guarded');

    assert.equal((await req('GET', `/v1/allocation/${made.ID}`, undefined, prodReader)).status, 200);
    assertDenied(await req('GET', `/v1/allocation/${made.ID}`, undefined, nodeWriter));
    assertDenied(await req('GET', `/v1/allocation/${made.ID}`, undefined, null), 'anonymous');
    assertDenied(await req('GET', '/v1/allocations', undefined, prodReader), 'the default namespace is not readable');
    assert.equal((await req('GET', '/v1/allocations?namespace=prod', undefined, prodReader)).status, 200);
    const mine = (await req('GET', '/v1/allocations?namespace=*', undefined, prodReader)).json;
    assert.ok(mine.length > 0 && mine.every((s: { Namespace: string }) => s.Namespace === 'prod'), '`*` lists only readable namespaces');

    assertDenied(await req('POST', `/v1/allocation/${made.ID}/client-status`, { ClientStatus: 'running' }, prodWriter), 'a namespace token is not the node');
    assertDenied(await req('POST', `/v1/allocation/${made.ID}/client-status`, { ClientStatus: 'running' }, randomUUID()), 'another secret');
    assert.equal((await req('GET', `/v1/allocation/${made.ID}`)).json.ClientStatus, 'pending', 'nothing changed');
    assert.equal((await req('POST', `/v1/allocation/${made.ID}/client-status`, { ClientStatus: 'running' }, NODE_SECRET)).status, 200, "the node's own secret");
    assert.equal((await req('GET', `/v1/allocation/${made.ID}`)).json.ClientStatus, 'running');
    assert.equal((await req('POST', `/v1/allocation/${made.ID}/client-status`, { ClientStatus: 'complete' }, nodeWriter)).status, 200, 'node:write');
    assert.equal((await req('GET', `/v1/allocation/${made.ID}`)).json.ClientStatus, 'complete');
  });

  it("serves namespaces with the reference's texts", async () => {
    const list = await req('GET', '/v1/namespaces');
    assert.deepEqual(
      list.json.map((n: { Name: string }) => n.Name),
      ['default', 'dev', 'prod'],
    );
    const prod = await req('GET', '/v1/namespace/prod');
    assert.deepEqual(Object.keys(prod.json), [
      'Name',
      'Description',
      'Quota',
      'Capabilities',
      'NodePoolConfiguration',
      'Meta',
      'Hash',
      'CreateIndex',
      'ModifyIndex',
    ]);
    assert.equal(prod.json.Description, 'prod jobs');
    assert.equal(prod.headers.get('x-sched-index'), String(prod.json.ModifyIndex));
    assert.deepEqual(
      (await req('GET', '/v1/namespaces?prefix=p')).json.map((n: { Name: string }) => n.Name),
      ['prod'],
    );
    const nf = await req('GET', '/v1/namespace/nope');
    assert.deepEqual([nf.status, nf.text], [404, 'Namespace not found']);

    const created = await req('POST', '/v1/namespace', { Name: 'batch', Description: 'batch jobs', Meta: { team: 'data' } });
    assert.deepEqual([created.status, created.text, created.headers.get('content-type')], [200, '', null]);
    assert.ok(Number(created.headers.get('x-sched-index')) > 0);
    assert.deepEqual((await req('GET', '/v1/namespace/batch')).json.Meta, { team: 'data' });
    const mismatch = await req('PUT', '/v1/namespace/batch', { Name: 'other' });
    assert.deepEqual([mismatch.status, mismatch.text], [400, 'Namespace name does not match request path']);
    const badName = await req('PUT', '/v1/namespace', { Name: 'bad name!' });
    assert.deepEqual(
      [badName.status, badName.text],
      [400, 'Invalid namespace "bad name!": 1 error occurred:\n\t* invalid name "bad name!". Must match regex ^[a-zA-Z0-9-]{1,128}$\n\n'],
    );
    const both = await req('PUT', '/v1/namespace/x', { Name: 'x', Description: 'd'.repeat(257) });
    assert.deepEqual([both.status, both.text], [400, 'Invalid namespace "x": 1 error occurred:\n\t* description longer than 256\n\n']);
    const empty = await call(a.url, 'PUT', '/v1/namespace/x', { token: ROOT });
    assert.deepEqual([empty.status, empty.text], [400, 'Request body is empty']);

    const def = await req('DELETE', '/v1/namespace/default');
    assert.deepEqual([def.status, def.text], [400, 'can not delete default namespace']);
    const missing = await req('DELETE', '/v1/namespace/nope');
    assert.deepEqual([missing.status, missing.text], [404, 'namespace not found']);
    const running = await req('DELETE', '/v1/namespace/dev');
    assert.deepEqual([running.status, running.text], [409, 'namespace "dev" has non-terminal jobs in regions: [global]']);
    // Stopped, the job is dead once the scheduler stops its allocation; the client has not reported it finished yet.
    const stop = await req('DELETE', '/v1/job/api?namespace=dev');
    assert.equal(stop.status, 200, stop.text);
    await settled(a, stop.json.EvalID);
    await until('job api to be dead', async () => (await req('GET', '/v1/job/api?namespace=dev')).json.Status === 'dead');
    const busy = await req('DELETE', '/v1/namespace/dev');
    assert.deepEqual([busy.status, busy.text], [409, 'namespace "dev" has non-terminal allocations in regions: [global]']);
    for (const s of (await req('GET', '/v1/allocations?namespace=dev')).json) {
      assert.equal((await req('POST', `/v1/allocation/${s.ID}/client-status`, { ClientStatus: 'complete' })).status, 200);
    }
    const gone = await req('DELETE', '/v1/namespace/dev');
    assert.deepEqual([gone.status, gone.text], [200, '']);
    assert.equal((await req('GET', '/v1/namespace/dev')).status, 404);
    assert.equal((await req('DELETE', '/v1/namespace/batch')).status, 200);
  });

  it('needs management to write namespaces and any capability to see one', async () => {
    const prodReader = (await clientToken(a.url, 'ns-prod-read', 'namespace "prod" { policy = "read" }')).secret;
    assertDenied(await req('PUT', '/v1/namespace/team', { Name: 'team' }, prodReader));
    assertDenied(await req('DELETE', '/v1/namespace/prod', undefined, prodReader));
    assertDenied(await req('GET', '/v1/namespace/default', undefined, prodReader));
    assert.equal((await req('GET', '/v1/namespace/prod', undefined, prodReader)).status, 200);
    assert.deepEqual(
      (await req('GET', '/v1/namespaces', undefined, prodReader)).json.map((n: { Name: string }) => n.Name),
      ['prod'],
    );
    assert.deepEqual((await req('GET', '/v1/namespaces', undefined, null)).json, []);
  });
});
