/**
 * Allocations (the minimal model CSI claims use; reference/sched.md §5) and namespaces over
 * HTTP: create with validation texts, client and desired status updates, list stubs with
 * namespace and prefix filters, reads, ACL per namespace; namespace CRUD with the
 * reference's texts, `default` and namespaces with live allocations not deletable.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { assertDenied, call, clientToken, ROOT, startAgent, type TestAgent } from './helpers.js';

describe('scheduler allocations and namespaces', () => {
  let a: TestAgent;
  const nodeID = randomUUID();
  /** `token` null: no token (the anonymous token). */
  const req = (method: string, path: string, body?: unknown, token: string | null = ROOT) => call(a.url, method, path, { token: token ?? undefined, body });
  const alloc = (over: Record<string, unknown> = {}, token: string | null = ROOT) =>
    req('PUT', '/v1/allocation', { Allocation: { NodeID: nodeID, JobID: 'web', TaskGroup: 'app', ...over } }, token);

  before(async () => {
    a = await startAgent();
    const r = await req('PUT', '/v1/node/register', { Node: { ID: nodeID, SecretID: 's', Datacenter: 'dc1', Name: 'worker-1', Attributes: { 'os.name': 'linux' } } });
    assert.equal(r.status, 200, r.text);
    for (const ns of ['prod', 'dev']) assert.equal((await req('PUT', `/v1/namespace/${ns}`, { Name: ns, Description: `${ns} jobs` })).status, 200);
  });
  after(async () => {
    await a.stop();
  });

  it('creates an allocation with defaults and generated IDs', async () => {
    const r = await alloc({
      Namespace: 'prod',
      Volumes: { data: { Type: 'host', Source: 'vol-1', AccessMode: 'single-node-writer', AttachmentMode: 'file-system', PerAlloc: true } },
    });
    assert.equal(r.status, 200, r.text);
    const got = r.json;
    assert.match(got.ID, /^[0-9a-f-]{36}$/);
    assert.match(got.EvalID, /^[0-9a-f-]{36}$/);
    assert.deepEqual(
      [got.Namespace, got.Name, got.NodeID, got.NodeName, got.JobID, got.Job, got.TaskGroup, got.DesiredStatus, got.ClientStatus],
      ['prod', 'web.app[0]', nodeID, 'worker-1', 'web', null, 'app', 'run', 'pending'],
    );
    assert.deepEqual(got.Volumes.data, {
      Name: 'data', Type: 'host', Source: 'vol-1', ReadOnly: false, AccessMode: 'single-node-writer', AttachmentMode: 'file-system', MountOptions: null, PerAlloc: true,
    });
    assert.equal(r.headers.get('x-sched-index'), String(got.ModifyIndex));
    assert.ok(got.CreateTime > 1e18, 'Unix nanoseconds');
    const read = await req('GET', `/v1/allocation/${got.ID}`);
    assert.deepEqual(read.json, got);
    assert.equal(read.headers.get('x-sched-index'), String(got.ModifyIndex));

    const viaQuery = await call(a.url, 'PUT', '/v1/allocation?namespace=dev', { token: ROOT, body: { allocation: { nodeid: nodeID, jobid: 'api', taskgroup: 'g', name: 'api.g[3]' } } });
    assert.deepEqual([viaQuery.json.Namespace, viaQuery.json.Name], ['dev', 'api.g[3]']);
  });

  it('refuses bad allocations with clear 400 texts', async () => {
    const cases: [unknown, string][] = [
      [{}, 'missing allocation'],
      [{ Allocation: 'x' }, 'json: cannot unmarshal string into Go struct field structs.AllocationCreateRequest.Allocation of type struct'],
      [{ Allocation: { JobID: 'web', TaskGroup: 'app' } }, 'missing node ID'],
      [{ Allocation: { NodeID: nodeID, TaskGroup: 'app' } }, 'missing job ID'],
      [{ Allocation: { NodeID: nodeID, JobID: 'web' } }, 'missing task group'],
      [{ Allocation: { NodeID: nodeID, JobID: 'web', TaskGroup: 'app', DesiredStatus: 'going' } }, 'invalid desired status "going": must be one of run, stop, evict'],
      [{ Allocation: { NodeID: nodeID, JobID: 'web', TaskGroup: 'app', ClientStatus: 'dead' } }, 'invalid client status "dead": must be one of pending, running, complete, failed, lost, unknown'],
      [{ Allocation: { NodeID: randomUUID(), JobID: 'web', TaskGroup: 'app' } }, ''],
      [{ Allocation: { NodeID: nodeID, JobID: 'web', TaskGroup: 'app', Namespace: 'nowhere' } }, 'namespace "nowhere" does not exist'],
      [{ Allocation: { NodeID: nodeID, JobID: 'w', TaskGroup: 'a', Volumes: { v: { Type: 'nfs', Source: 'x' } } } }, 'volume "v": invalid volume type "nfs": must be one of host, csi'],
      [{ Allocation: { NodeID: nodeID, JobID: 'w', TaskGroup: 'a', Volumes: { v: { Type: 'csi', Source: '' } } } }, 'volume "v": volume has an empty source'],
      [{ Allocation: { NodeID: nodeID, JobID: 'w', TaskGroup: 'a', Volumes: { v: { Type: 'csi', Source: 'x', AccessMode: 'single-node-writer' } } } }, 'volume "v": CSI volumes must have an attachment mode'],
      [{ Allocation: { NodeID: nodeID, JobID: 'w', TaskGroup: 'a', Volumes: { v: { Type: 'csi', Source: 'x', AttachmentMode: 'file-system' } } } }, 'volume "v": CSI volumes must have an access mode'],
      [{ Allocation: { NodeID: nodeID, JobID: 'w', TaskGroup: 'a', Volumes: { v: { Type: 'csi', Source: 'x', AttachmentMode: 'disk', AccessMode: 'single-node-writer' } } } }, 'volume "v": invalid attachment mode "disk": must be one of file-system, block-device'],
      [{ Allocation: { NodeID: nodeID, JobID: 'w', TaskGroup: 'a', Volumes: { v: { Type: 'csi', Source: 'x', AttachmentMode: 'file-system', AccessMode: 'multi-node-reader-only' } } } }, 'volume "v": multi-node-reader-only volumes must be read-only'],
      [{ Allocation: { NodeID: nodeID, JobID: 'w', TaskGroup: 'a', Volumes: { v: { Type: 'csi', Source: 'x', AttachmentMode: 'block-device', AccessMode: 'single-node-writer', MountOptions: { FsType: 'ext4' } } } } }, 'volume "v": block devices cannot have mount options'],
    ];
    for (const [body, text] of cases) {
      const r = await req('PUT', '/v1/allocation', body);
      assert.equal(r.status, 400, JSON.stringify(body));
      if (text) assert.equal(r.text, text);
      else assert.match(r.text, /^node "[0-9a-f-]{36}" does not exist$/);
    }
    const empty = await call(a.url, 'PUT', '/v1/allocation', { token: ROOT });
    assert.deepEqual([empty.status, empty.text], [400, 'Request body is empty']);
  });

  it('updates client and desired status', async () => {
    const id = (await alloc()).json.ID;
    const bad = await req('POST', `/v1/allocation/${id}/client-status`, { ClientStatus: 'exploded' });
    assert.deepEqual([bad.status, bad.text], [400, 'invalid client status "exploded": must be one of pending, running, complete, failed, lost, unknown']);
    const ok = await req('POST', `/v1/allocation/${id}/client-status`, { ClientStatus: 'running', ClientDescription: 'Tasks are running' });
    assert.equal(ok.status, 200, ok.text);
    assert.ok(ok.json.Index > 0);
    const d = await req('PUT', `/v1/allocation/${id}/desired-status`, { DesiredStatus: 'stop', DesiredDescription: 'alloc is being stopped' });
    assert.equal(d.status, 200, d.text);
    const badDesired = await req('PUT', `/v1/allocation/${id}/desired-status`, { DesiredStatus: 'pause' });
    assert.deepEqual([badDesired.status, badDesired.text], [400, 'invalid desired status "pause": must be one of run, stop, evict']);
    const got = (await req('GET', `/v1/allocation/${id}`)).json;
    assert.deepEqual([got.ClientStatus, got.ClientDescription, got.DesiredStatus, got.DesiredDescription], ['running', 'Tasks are running', 'stop', 'alloc is being stopped']);
    assert.ok(got.ModifyIndex > got.CreateIndex);
    const missing = await req('POST', `/v1/allocation/${randomUUID()}/client-status`, { ClientStatus: 'running' });
    assert.deepEqual([missing.status, missing.text], [404, 'alloc not found']);
    const nf = await req('GET', `/v1/allocation/${randomUUID()}`);
    assert.deepEqual([nf.status, nf.text], [404, 'alloc not found']);
  });

  it('lists stubs per namespace (`*`: all readable) and by UUID prefix', async () => {
    const p = (await alloc({ Namespace: 'prod', JobID: 'listed' })).json;
    const list = await req('GET', '/v1/allocations?namespace=prod');
    assert.equal(list.status, 200);
    assert.ok(list.json.every((s: { Namespace: string }) => s.Namespace === 'prod'));
    const stub = list.json.find((s: { ID: string }) => s.ID === p.ID);
    assert.deepEqual(Object.keys(stub), [
      'ID', 'EvalID', 'Name', 'Namespace', 'NodeID', 'NodeName', 'JobID', 'JobType', 'JobVersion', 'TaskGroup', 'DesiredStatus', 'DesiredDescription',
      'ClientStatus', 'ClientDescription', 'DesiredTransition', 'TaskStates', 'DeploymentStatus', 'FollowupEvalID', 'NextAllocation', 'RescheduleTracker',
      'PreemptedAllocations', 'PreemptedByAllocation', 'CreateIndex', 'ModifyIndex', 'CreateTime', 'ModifyTime',
    ]);
    assert.equal(stub.NodeName, 'worker-1');
    const defaults = (await req('GET', '/v1/allocations')).json;
    assert.ok(defaults.length > 0 && defaults.every((s: { Namespace: string }) => s.Namespace === 'default'));
    const everything = (await req('GET', '/v1/allocations?namespace=*')).json;
    assert.deepEqual(new Set(everything.map((s: { Namespace: string }) => s.Namespace)), new Set(['default', 'prod', 'dev']));
    const ids = everything.map((s: { ID: string }) => s.ID);
    assert.deepEqual(ids, [...ids].sort());
    const byPrefix = (await req('GET', `/v1/allocations?namespace=prod&prefix=${p.ID.slice(0, 8)}`)).json;
    assert.deepEqual(byPrefix.map((s: { ID: string }) => s.ID), [p.ID]);
    const odd = await req('GET', '/v1/allocations?prefix=abc');
    assert.deepEqual([odd.status, odd.text], [400, 'index error: Input (without hyphens) must be even length']);
  });

  it('checks namespace capabilities: submit-job to create, read-job to read, alloc-lifecycle to stop, node:write for client updates', async () => {
    const prodWriter = (await clientToken(a.url, 'prod-write', 'namespace "prod" { policy = "write" }')).secret;
    const prodReader = (await clientToken(a.url, 'prod-read', 'namespace "prod" { policy = "read" }')).secret;
    const nodeWriter = (await clientToken(a.url, 'alloc-node-write', 'node { policy = "write" }')).secret;
    const made = await alloc({ Namespace: 'prod' }, prodWriter);
    assert.equal(made.status, 200, made.text);
    assertDenied(await alloc({ Namespace: 'dev' }, prodWriter), 'submit-job in another namespace');
    assertDenied(await alloc({ Namespace: 'prod' }, prodReader), 'read is not submit-job');
    assertDenied(await alloc({ Namespace: 'prod' }, null), 'anonymous');

    assert.equal((await req('GET', `/v1/allocation/${made.json.ID}`, undefined, prodReader)).status, 200);
    assertDenied(await req('GET', `/v1/allocation/${made.json.ID}`, undefined, nodeWriter));
    assertDenied(await req('GET', '/v1/allocations', undefined, prodReader), 'the default namespace is not readable');
    assert.equal((await req('GET', '/v1/allocations?namespace=prod', undefined, prodReader)).status, 200);
    const mine = (await req('GET', '/v1/allocations?namespace=*', undefined, prodReader)).json;
    assert.ok(mine.length > 0 && mine.every((s: { Namespace: string }) => s.Namespace === 'prod'), '`*` lists only readable namespaces');

    assertDenied(await req('POST', `/v1/allocation/${made.json.ID}/client-status`, { ClientStatus: 'running' }, prodWriter));
    assert.equal((await req('POST', `/v1/allocation/${made.json.ID}/client-status`, { ClientStatus: 'running' }, nodeWriter)).status, 200);
    assertDenied(await req('POST', `/v1/allocation/${made.json.ID}/desired-status`, { DesiredStatus: 'stop' }, prodReader));
    assert.equal((await req('POST', `/v1/allocation/${made.json.ID}/desired-status`, { DesiredStatus: 'stop' }, prodWriter)).status, 200);
  });

  it('serves namespaces with the reference\'s texts', async () => {
    const list = await req('GET', '/v1/namespaces');
    assert.deepEqual(list.json.map((n: { Name: string }) => n.Name), ['default', 'dev', 'prod']);
    const prod = await req('GET', '/v1/namespace/prod');
    assert.deepEqual(Object.keys(prod.json), ['Name', 'Description', 'Quota', 'Capabilities', 'NodePoolConfiguration', 'Meta', 'Hash', 'CreateIndex', 'ModifyIndex']);
    assert.equal(prod.json.Description, 'prod jobs');
    assert.equal(prod.headers.get('x-sched-index'), String(prod.json.ModifyIndex));
    assert.deepEqual((await req('GET', '/v1/namespaces?prefix=p')).json.map((n: { Name: string }) => n.Name), ['prod']);
    const nf = await req('GET', '/v1/namespace/nope');
    assert.deepEqual([nf.status, nf.text], [404, 'Namespace not found']);

    const created = await req('POST', '/v1/namespace', { Name: 'batch', Description: 'batch jobs', Meta: { team: 'data' } });
    assert.deepEqual([created.status, created.text, created.headers.get('content-type')], [200, '', null]);
    assert.ok(Number(created.headers.get('x-sched-index')) > 0);
    assert.deepEqual((await req('GET', '/v1/namespace/batch')).json.Meta, { team: 'data' });
    const mismatch = await req('PUT', '/v1/namespace/batch', { Name: 'other' });
    assert.deepEqual([mismatch.status, mismatch.text], [400, 'Namespace name does not match request path']);
    const badName = await req('PUT', '/v1/namespace', { Name: 'bad name!' });
    assert.deepEqual([badName.status, badName.text], [400, 'Invalid namespace "bad name!": 1 error occurred:\n\t* invalid name "bad name!". Must match regex ^[a-zA-Z0-9-]{1,128}$\n\n']);
    const both = await req('PUT', '/v1/namespace/x', { Name: 'x', Description: 'd'.repeat(257) });
    assert.deepEqual([both.status, both.text], [400, 'Invalid namespace "x": 1 error occurred:\n\t* description longer than 256\n\n']);
    const empty = await call(a.url, 'PUT', '/v1/namespace/x', { token: ROOT });
    assert.deepEqual([empty.status, empty.text], [400, 'Request body is empty']);

    const def = await req('DELETE', '/v1/namespace/default');
    assert.deepEqual([def.status, def.text], [400, 'can not delete default namespace']);
    const missing = await req('DELETE', '/v1/namespace/nope');
    assert.deepEqual([missing.status, missing.text], [404, 'namespace not found']);
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
    assert.deepEqual((await req('GET', '/v1/namespaces', undefined, prodReader)).json.map((n: { Name: string }) => n.Name), ['prod']);
    assert.deepEqual((await req('GET', '/v1/namespaces', undefined, null)).json, []);
  });
});
