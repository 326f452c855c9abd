/**
 * Client nodes over HTTP (reference/sched.md §5, spec 002 "`Node` payload fields"):
 * registration with the reference's validation texts and defaults, status reports and node
 * events (10 kept), eligibility, drain, purge, list stubs with the UUID prefix rule, reads
 * without SecretID, and the `node:read` / `node:write` ACL.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { assertDenied, call, clientToken, ROOT, startAgent, type TestAgent } from './helpers.js';

/** A registration body for node `id` (secret `secret`), with `over` merged into the node. */
function nodeBody(id: string, secret: string, over: Record<string, unknown> = {}): { Node: Record<string, unknown> } {
  return {
    Node: {
      ID: id,
      SecretID: secret,
      Datacenter: 'dc1',
      Name: `node-${id.slice(0, 4)}`,
      HTTPAddr: '10.0.0.1:4646',
      Attributes: { 'os.name': 'ubuntu', 'os.version': '24.04', 'unique.network.ip-address': '10.0.0.1', 'nomad.version': '1.9.0', 'cpu.arch': 'amd64' },
      NodeResources: { Cpu: { CpuShares: 4000 } },
      Meta: { rack: 'r1' },
      ...over,
    },
  };
}

describe('scheduler nodes', () => {
  let a: TestAgent;
  /** `token` null: no token (the anonymous token). */
  const put = (path: string, body: unknown, token: string | null = ROOT) => call(a.url, 'PUT', path, { token: token ?? undefined, body });
  const post = (path: string, body: unknown, token: string | null = ROOT) => call(a.url, 'POST', path, { token: token ?? undefined, body });
  const get = (path: string, token: string | null = ROOT) => call(a.url, 'GET', path, { token: token ?? undefined });

  before(async () => {
    a = await startAgent();
  });
  after(async () => {
    await a.stop();
  });

  it("refuses bad registrations with the reference's texts, in its order", async () => {
    const id = randomUUID();
    const cases: [unknown, string][] = [
      [{}, 'missing node for client registration'],
      [{ Node: null }, 'missing node for client registration'],
      [nodeBody('', 's'), 'missing node ID for client registration'],
      [nodeBody(id, 's', { Datacenter: '' }), 'missing datacenter for client registration'],
      [nodeBody(id, 's', { Name: '' }), 'missing node name for client registration'],
      [nodeBody(id, 's', { Attributes: {} }), 'missing attributes for client registration'],
      [nodeBody(id, 's', { Attributes: null }), 'missing attributes for client registration'],
      [nodeBody(id, ''), 'missing node secret ID for client registration'],
      [nodeBody('not-a-uuid', 's'), 'invalid node ID "not-a-uuid": must be a UUID'],
      [nodeBody(id, 's', { NodePool: 'bad pool' }), 'invalid node pool: invalid name "bad pool", must match regex ^[a-zA-Z0-9-_]{1,128}$'],
      [nodeBody(id, 's', { NodePool: 'all' }), 'node is not allowed to register in node pool "all"'],
      [nodeBody(id, 's', { Status: 'running' }), 'invalid status for node'],
      [nodeBody(id, 's', { SchedulingEligibility: 'maybe' }), 'invalid scheduling eligibility "maybe"'],
      [nodeBody(id, 's', { Datacenter: 7 }), 'json: cannot unmarshal number into Go struct field structs.Node.Datacenter of type string'],
      [nodeBody(id, 's', { Attributes: { a: 1 } }), 'json: cannot unmarshal number into Go struct field structs.Node.Attributes.a of type string'],
    ];
    for (const [body, text] of cases) {
      const r = await put('/v1/node/register', body);
      assert.deepEqual([r.status, r.text], [400, text], JSON.stringify(body));
    }
    const empty = await call(a.url, 'PUT', '/v1/node/register', { token: ROOT });
    assert.deepEqual([empty.status, empty.text], [400, 'Request body is empty']);
    assert.equal((await get(`/v1/node/${id}`)).status, 404, 'nothing was written');
    assert.equal((await call(a.url, 'POST', '/v1/node/register', { token: ROOT, body: nodeBody(id, 's') })).status, 405);
  });

  it("registers with the reference's defaults and never shows the SecretID", async () => {
    const id = randomUUID();
    const secret = randomUUID();
    const r = await put('/v1/node/register', nodeBody(id, secret));
    assert.equal(r.status, 200, r.text);
    assert.ok(r.json.Index > 0);
    assert.equal(r.json.NodeModifyIndex, r.json.Index);
    assert.equal(r.headers.get('x-sched-index'), String(r.json.Index));
    assert.equal(r.json.EvalIDs, null);

    const n = await get(`/v1/node/${id}`);
    assert.equal(n.status, 200);
    assert.equal(n.headers.get('x-sched-index'), String(n.json.ModifyIndex));
    assert.ok(!n.text.includes(secret), 'the node secret never leaves the service');
    assert.equal(n.json.SecretID, undefined);
    assert.equal(n.json.Status, 'initializing');
    assert.equal(n.json.SchedulingEligibility, 'eligible');
    assert.equal(n.json.NodePool, 'default');
    assert.equal(n.json.Drain, false);
    assert.equal(n.json.DrainStrategy, null);
    assert.match(n.json.ComputedClass, /^v1:\d+$/);
    assert.deepEqual(
      n.json.Events.map((e: { Message: string; Subsystem: string }) => [e.Message, e.Subsystem]),
      [['Node registered', 'Cluster']],
    );
    assert.equal(n.json.Events[0].CreateIndex, r.json.Index);
    assert.equal(typeof n.json.StatusUpdatedAt, 'number');
    assert.deepEqual(n.json.Meta, { rack: 'r1' });

    // Re-registering with the same secret keeps events and eligibility; another secret is refused.
    await post(`/v1/node/${id}/eligibility`, { Eligibility: 'ineligible' });
    const again = await put('/v1/node/register', nodeBody(id, secret, { Status: 'ready', Name: 'renamed' }));
    assert.equal(again.status, 200, again.text);
    const n2 = (await get(`/v1/node/${id}`)).json;
    assert.deepEqual(
      [n2.Name, n2.Status, n2.SchedulingEligibility, n2.Events.length, n2.CreateIndex],
      ['renamed', 'ready', 'ineligible', 2, n.json.CreateIndex],
    );
    const stolen = await put('/v1/node/register', nodeBody(id, randomUUID()));
    assert.deepEqual([stolen.status, stolen.text], [400, 'node secret ID does not match. Not registering node.']);
  });

  it('reports status changes as node events and keeps the newest 10', async () => {
    const id = randomUUID();
    await put('/v1/node/register', nodeBody(id, 'sec'));
    const bad = await post(`/v1/node/${id}/status`, { Status: 'sleeping' });
    assert.deepEqual([bad.status, bad.text], [400, 'invalid status for node']);
    const missing = await post(`/v1/node/${randomUUID()}/status`, { Status: 'ready' });
    assert.deepEqual([missing.status, missing.text], [404, 'node not found']);

    const ready = await post(`/v1/node/${id}/status`, { Status: 'ready' });
    assert.equal(ready.status, 200);
    assert.ok(ready.json.Index > 0);
    const same = await post(`/v1/node/${id}/status`, { Status: 'ready' });
    assert.equal(same.json.Index, 0, 'an unchanged status writes nothing');
    await post(`/v1/node/${id}/status`, { Status: 'down' });
    await post(`/v1/node/${id}/status`, { status: 'ready' }); // field names match case-insensitively
    let n = (await get(`/v1/node/${id}`)).json;
    assert.deepEqual(
      n.Events.map((e: { Message: string }) => e.Message),
      ['Node registered', 'Node status changed to ready', 'Node heartbeat missed', 'Node reregistered by heartbeat'],
    );
    assert.equal(n.Status, 'ready');

    for (let i = 0; i < 8; i++) {
      const r = await post(`/v1/node/${id}/status`, {
        Status: 'ready',
        NodeEvent: { Message: `custom ${i}`, Subsystem: 'Driver', Details: { driver: 'docker' } },
      });
      assert.equal(r.status, 200, r.text);
    }
    n = (await get(`/v1/node/${id}`)).json;
    assert.equal(n.Events.length, 10);
    assert.equal(n.Events[0].Message, 'Node heartbeat missed', 'the two oldest were dropped');
    assert.deepEqual(n.Events[9], { ...n.Events[9], Message: 'custom 7', Subsystem: 'Driver', Details: { driver: 'docker' } });
  });

  it("sets eligibility with the reference's texts and events", async () => {
    const id = randomUUID();
    await put('/v1/node/register', nodeBody(id, 'sec'));
    const bad = await post(`/v1/node/${id}/eligibility`, { Eligibility: 'nope' });
    assert.deepEqual([bad.status, bad.text], [400, 'invalid scheduling eligibility "nope"']);
    const off = await put(`/v1/node/${id}/eligibility`, { Eligibility: 'ineligible' });
    assert.equal(off.status, 200);
    assert.ok(off.json.NodeModifyIndex > 0);
    assert.equal((await post(`/v1/node/${id}/eligibility`, { Eligibility: 'ineligible' })).json.Index, 0);
    await post(`/v1/node/${id}/eligibility`, { Eligibility: 'eligible' });
    const n = (await get(`/v1/node/${id}`)).json;
    assert.equal(n.SchedulingEligibility, 'eligible');
    assert.deepEqual(
      n.Events.slice(1).map((e: { Message: string }) => e.Message),
      ['Node marked as ineligible for scheduling', 'Node marked as eligible for scheduling'],
    );
  });

  it('drains: sets, updates and clears the strategy, ineligible while draining', async () => {
    const id = randomUUID();
    await put('/v1/node/register', nodeBody(id, 'sec'));
    const bad = await post(`/v1/node/${id}/drain`, { DrainSpec: { Deadline: '1h' } });
    assert.deepEqual([bad.status, bad.text], [400, 'json: cannot unmarshal string into Go struct field api.DrainSpec.Deadline of type int64']);

    const set = await post(`/v1/node/${id}/drain`, { DrainSpec: { Deadline: 3_600_000_000_000, IgnoreSystemJobs: true }, Meta: { reason: 'kernel' } });
    assert.equal(set.status, 200, set.text);
    let n = (await get(`/v1/node/${id}`)).json;
    assert.equal(n.Drain, true);
    assert.equal(n.SchedulingEligibility, 'ineligible');
    assert.equal(n.DrainStrategy.Deadline, 3_600_000_000_000);
    assert.equal(n.DrainStrategy.IgnoreSystemJobs, true);
    assert.equal(Date.parse(n.DrainStrategy.ForceDeadline) - Date.parse(n.DrainStrategy.StartedAt) >= 3_599_000, true);
    assert.deepEqual([n.LastDrain.Status, n.LastDrain.Meta], ['draining', { reason: 'kernel' }]);
    const startedAt = n.DrainStrategy.StartedAt;

    const refused = await post(`/v1/node/${id}/eligibility`, { Eligibility: 'eligible' });
    assert.deepEqual([refused.status, refused.text], [400, "can not set node's scheduling eligibility to eligible while it is draining"]);

    await post(`/v1/node/${id}/drain`, { DrainSpec: { Deadline: -1 } });
    n = (await get(`/v1/node/${id}`)).json;
    assert.deepEqual([n.DrainStrategy.StartedAt, n.DrainStrategy.ForceDeadline], [startedAt, '0001-01-01T00:00:00Z']);

    await post(`/v1/node/${id}/drain`, { DrainSpec: null });
    n = (await get(`/v1/node/${id}`)).json;
    assert.deepEqual([n.Drain, n.DrainStrategy, n.SchedulingEligibility, n.LastDrain.Status], [false, null, 'ineligible', 'canceled']);
    await post(`/v1/node/${id}/drain`, { DrainSpec: null, MarkEligible: true });
    n = (await get(`/v1/node/${id}`)).json;
    assert.equal(n.SchedulingEligibility, 'eligible');
    assert.deepEqual(
      n.Events.slice(1).map((e: { Message: string; Subsystem: string }) => `${e.Subsystem}: ${e.Message}`),
      ['Drain: Node drain strategy set', 'Drain: Node drain strategy updated', 'Drain: Node drain disabled'],
    );
  });

  it('purges a node; writes on a missing node are 404 `node not found`', async () => {
    const id = randomUUID();
    await put('/v1/node/register', nodeBody(id, 'sec'));
    const r = await call(a.url, 'POST', `/v1/node/${id}/purge`, { token: ROOT });
    assert.equal(r.status, 200);
    assert.ok(r.json.Index > 0);
    for (const [method, path, body] of [
      ['GET', `/v1/node/${id}`, undefined],
      ['PUT', `/v1/node/${id}/purge`, undefined],
      ['POST', `/v1/node/${id}/eligibility`, { Eligibility: 'eligible' }],
      ['POST', `/v1/node/${id}/drain`, { DrainSpec: null }],
    ] as const) {
      const x = await call(a.url, method, path, { token: ROOT, body });
      assert.deepEqual([x.status, x.text], [404, 'node not found'], path);
    }
  });

  it('lists stubs in ID order with ?prefix= (UUID prefix rule), ?resources= and ?os=, blocking on the nodes table', async () => {
    const ids = ['aa000000-0000-4000-8000-000000000001', 'aa110000-0000-4000-8000-000000000002', 'bb000000-0000-4000-8000-000000000003'];
    for (const id of ids) await put('/v1/node/register', nodeBody(id, 'sec', { NodeClass: 'gpu' }));
    const all = await get('/v1/nodes');
    assert.equal(all.status, 200);
    const listed = all.json.map((s: { ID: string }) => s.ID);
    assert.deepEqual(listed, [...listed].sort());
    const stub = all.json.find((s: { ID: string }) => s.ID === ids[0]);
    assert.deepEqual(stub, {
      Address: '10.0.0.1',
      ID: ids[0],
      Datacenter: 'dc1',
      Name: 'node-aa00',
      NodeClass: 'gpu',
      NodePool: 'default',
      Version: '1.9.0',
      Drain: false,
      SchedulingEligibility: 'eligible',
      Status: 'initializing',
      StatusDescription: '',
      Drivers: null,
      HostVolumes: null,
      LastDrain: null,
      CreateIndex: stub.CreateIndex,
      ModifyIndex: stub.ModifyIndex,
    });
    // Every listed ID has the prefix; of this test's nodes, the two `aa` ones in ID order (a random
    // node ID of another test of this agent may start with `aa` too: 1 in 256).
    const prefixed = (await get('/v1/nodes?prefix=aa')).json.map((s: { ID: string }) => s.ID) as string[];
    assert.ok(
      prefixed.every((id) => id.startsWith('aa')),
      prefixed.join(),
    );
    assert.deepEqual(
      prefixed.filter((id) => ids.includes(id)),
      ids.slice(0, 2),
    );
    assert.deepEqual(
      (await get('/v1/nodes?prefix=AA11')).json.map((s: { ID: string }) => s.ID),
      [ids[1]],
    );
    assert.deepEqual(
      (await get('/v1/nodes?prefix=bb000000-00')).json.map((s: { ID: string }) => s.ID),
      [ids[2]],
    );
    for (const [prefix, text] of [
      ['a', 'index error: Input (without hyphens) must be even length'],
      ['zz', "index error: Invalid UUID: encoding/hex: invalid byte: U+007A 'z'"],
      ['a-a-a-a-a-aa', 'index error: UUID should have maximum of 4 "-"; got 5'],
    ]) {
      const r = await get(`/v1/nodes?prefix=${prefix}`);
      assert.deepEqual([r.status, r.text], [400, text], prefix);
    }
    const rich = (await get(`/v1/nodes?prefix=${ids[2]}&resources=true&os=true`)).json[0];
    assert.deepEqual(rich.Attributes, { 'os.name': 'ubuntu', 'os.version': '24.04' });
    assert.deepEqual(rich.NodeResources, { Cpu: { CpuShares: 4000 } });
    const badBool = await get('/v1/nodes?resources=yes');
    assert.deepEqual(
      [badBool.status, badBool.text],
      [400, 'Failed to parse value of "resources" (yes) as a bool: strconv.ParseBool: parsing "yes": invalid syntax'],
    );

    const index = Number(all.headers.get('x-sched-index'));
    const started = Date.now();
    const blocked = get(`/v1/nodes?index=${index}&wait=5s`);
    await new Promise((r) => setTimeout(r, 100));
    await post(`/v1/node/${ids[0]}/status`, { Status: 'ready' });
    const woke = await blocked;
    assert.ok(Number(woke.headers.get('x-sched-index')) > index);
    assert.ok(Date.now() - started < 4000, 'the write woke the blocking read');
    assert.equal(woke.json.find((s: { ID: string }) => s.ID === ids[0]).Status, 'ready');
  });

  it('needs node:read to read and node:write to write', async () => {
    const reader = (await clientToken(a.url, 'node-reader', 'node { policy = "read" }')).secret;
    const writer = (await clientToken(a.url, 'node-writer', 'node { policy = "write" }')).secret;
    const nobody = (await clientToken(a.url, 'ns-only', 'namespace "default" { policy = "read" }')).secret;
    const id = randomUUID();
    assertDenied(await put('/v1/node/register', nodeBody(id, 'sec'), reader));
    assertDenied(await put('/v1/node/register', nodeBody(id, 'sec'), null));
    assert.equal((await put('/v1/node/register', nodeBody(id, 'sec'), writer)).status, 200);
    assert.equal((await get('/v1/nodes', reader)).status, 200);
    assert.equal((await get(`/v1/node/${id}`, writer)).status, 200, 'write implies read');
    assertDenied(await get('/v1/nodes', nobody));
    assertDenied(await get(`/v1/node/${id}`, nobody));
    assertDenied(await get('/v1/nodes', null));
    assertDenied(await get('/v1/nodes', 'b1d3c5e7-0000-4000-8000-00000000dead'));
    for (const [path, body] of [
      [`/v1/node/${id}/status`, { Status: 'ready' }],
      [`/v1/node/${id}/eligibility`, { Eligibility: 'ineligible' }],
      [`/v1/node/${id}/drain`, { DrainSpec: null }],
      [`/v1/node/${id}/purge`, undefined],
    ] as const) {
      assertDenied(await post(path, body, reader));
    }
    assert.equal((await post(`/v1/node/${id}/purge`, undefined, writer)).status, 200);
  });
});

describe('scheduler nodes with ACLs disabled', () => {
  it('lets anyone register and read', async () => {
    const a = await startAgent({ acl: { enabled: false } }, { root: null });
    try {
      const id = randomUUID();
      assert.equal((await call(a.url, 'PUT', '/v1/node/register', { body: nodeBody(id, 'sec') })).status, 200);
      assert.equal((await call(a.url, 'GET', `/v1/node/${id}`)).json.ID, id);
    } finally {
      await a.stop();
    }
  });
});
