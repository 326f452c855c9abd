/**
 * The catalog and health endpoints over HTTP (issue 16 scopes 1, 2, 8;
 * reference/mesh-catalog.md): register → reads with the reference's shapes and indexes,
 * deregister, health aggregation and `?passing`, a blocking query woken by a check change,
 * `tag` / `node-meta` / `filter`, ACL filtering with `X-Mesh-Results-Filtered-By-ACLs`
 * and the 403 text of a write without `service:write`, bad input (400, nothing changed).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, startAgent, type TestAgent } from './helpers.js';

const ROOT = '6e2d8b4f-0c3a-4d7e-9f1b-2a3c4d5e6f70';

describe('discovery catalog and health', () => {
  let a: TestAgent;
  const as = (token: string | undefined) => ({
    get: (p: string) => call(a.url, 'GET', p, { token }),
    put: (p: string, body?: unknown) => call(a.url, 'PUT', p, { token, body }),
  });
  const root = () => as(ROOT);
  const index = (r: { headers: Headers }) => Number(r.headers.get('x-mesh-index'));
  /** A token holding one policy with `rules`. */
  const tokenWith = async (name: string, rules: string): Promise<string> => {
    assert.equal((await root().put('/v1/acl/policy', { Name: name, Rules: rules })).status, 200);
    const t = await root().put('/v1/acl/token', { Policies: [{ Name: name }] });
    return t.json.SecretID;
  };

  before(async () => {
    a = await startAgent({ initialManagement: ROOT });
  });
  after(() => a.stop());

  it('register → catalog reads with the reference shapes and indexes; deregister', async () => {
    const reg = await root().put('/v1/catalog/register', {
      Datacenter: 'dc1',
      ID: '40e4a748-2192-161a-0510-9bf59fe950b5',
      Node: 'n1',
      Address: '10.0.0.1',
      TaggedAddresses: { lan: '10.0.0.1', wan: '198.18.0.1' },
      NodeMeta: { rack: 'r1' },
      Service: { ID: 'redis1', Service: 'redis', Tags: ['primary', 'v1'], Address: '127.0.0.1', Meta: { v: '6' }, Port: 8000 },
      Check: { Node: 'n1', CheckID: 'service:redis1', Name: 'Redis health check', Status: 'passing', ServiceID: 'redis1' },
    });
    assert.deepEqual([reg.status, reg.text], [200, 'true']);

    const nodes = await root().get('/v1/catalog/nodes');
    assert.equal(nodes.status, 200);
    const n1 = nodes.json.find((n: { Node: string }) => n.Node === 'n1');
    assert.deepEqual(Object.keys(n1).sort(), ['Address', 'CreateIndex', 'Datacenter', 'ID', 'Meta', 'ModifyIndex', 'Node', 'TaggedAddresses']);
    assert.deepEqual([n1.ID, n1.Address, n1.Datacenter, n1.Meta], ['40e4a748-2192-161a-0510-9bf59fe950b5', '10.0.0.1', 'dc1', { rack: 'r1' }]);
    assert.ok(index(nodes) >= n1.ModifyIndex);

    const svc = await root().get('/v1/catalog/service/redis');
    assert.equal(svc.json.length, 1);
    const sn = svc.json[0];
    assert.deepEqual(
      {
        Node: sn.Node,
        Address: sn.Address,
        ServiceID: sn.ServiceID,
        ServiceName: sn.ServiceName,
        ServiceTags: sn.ServiceTags,
        ServicePort: sn.ServicePort,
        ServiceAddress: sn.ServiceAddress,
        ServiceWeights: sn.ServiceWeights,
        NodeMeta: sn.NodeMeta,
        ServiceMeta: sn.ServiceMeta,
      },
      {
        Node: 'n1',
        Address: '10.0.0.1',
        ServiceID: 'redis1',
        ServiceName: 'redis',
        ServiceTags: ['primary', 'v1'],
        ServicePort: 8000,
        ServiceAddress: '127.0.0.1',
        ServiceWeights: { Passing: 1, Warning: 1 },
        NodeMeta: { rack: 'r1' },
        ServiceMeta: { v: '6' },
      },
    );
    assert.equal(index(svc), sn.ModifyIndex);
    assert.equal(svc.headers.get('x-mesh-knownleader'), 'true');

    const services = await root().get('/v1/catalog/services');
    assert.deepEqual(services.json.redis, ['primary', 'v1']);

    const node = await root().get('/v1/catalog/node/n1');
    assert.equal(node.json.Node.Node, 'n1');
    assert.deepEqual(Object.keys(node.json.Services), ['redis1']);
    assert.equal(node.json.Services.redis1.Service, 'redis');
    const list = await root().get('/v1/catalog/node-services/n1');
    assert.deepEqual(
      list.json.Services.map((s: { ID: string }) => s.ID),
      ['redis1'],
    );
    assert.equal((await root().get('/v1/catalog/node/nope')).text, 'null');
    assert.equal((await root().get('/v1/catalog/node-services/nope')).status, 404);
    assert.deepEqual((await root().get('/v1/catalog/datacenters')).json, ['dc1']);

    // Re-posting the same registration changes nothing (anti-entropy relies on it).
    const same = await root().put('/v1/catalog/register', {
      Node: 'n1',
      Address: '10.0.0.1',
      ID: '40e4a748-2192-161a-0510-9bf59fe950b5',
      TaggedAddresses: { lan: '10.0.0.1', wan: '198.18.0.1' },
      NodeMeta: { rack: 'r1' },
      Service: { ID: 'redis1', Service: 'redis', Tags: ['primary', 'v1'], Address: '127.0.0.1', Meta: { v: '6' }, Port: 8000 },
    });
    assert.equal(same.status, 200);
    assert.equal(index(await root().get('/v1/catalog/service/redis')), index(svc));
    // A change deep inside (a Meta value) is a change.
    await root().put('/v1/catalog/register', {
      Node: 'n1',
      Address: '10.0.0.1',
      SkipNodeUpdate: true,
      Service: { ID: 'redis1', Service: 'redis', Tags: ['primary', 'v1'], Address: '127.0.0.1', Meta: { v: '7' }, Port: 8000 },
    });
    const changed = await root().get('/v1/catalog/service/redis');
    assert.deepEqual([changed.json[0].ServiceMeta, changed.json[0].CreateIndex], [{ v: '7' }, sn.CreateIndex]);
    assert.ok(index(changed) > index(svc));

    // Tag and node-meta filters, and `filter`.
    assert.equal((await root().get('/v1/catalog/service/redis?tag=primary&tag=v1')).json.length, 1);
    assert.equal((await root().get('/v1/catalog/service/redis?tag=replica')).json.length, 0);
    assert.equal((await root().get('/v1/catalog/service/redis?node-meta=rack:r2')).json.length, 0);
    assert.equal((await root().get('/v1/catalog/nodes?node-meta=rack:r1')).json.length, 1);
    assert.equal(
      (await root().get(`/v1/catalog/service/redis?filter=${encodeURIComponent('ServicePort == 8000 and "primary" in ServiceTags')}`)).json.length,
      1,
    );
    assert.equal((await root().get(`/v1/catalog/nodes?filter=${encodeURIComponent('Meta.rack == "r9"')}`)).json.length, 0);
    const badFilter = await root().get(`/v1/catalog/nodes?filter=${encodeURIComponent('Meta.rack ==')}`);
    assert.equal(badFilter.status, 400);
    assert.match(badFilter.text, /^Failed to create boolean expression evaluator: /);

    // Deregister the service, then the node.
    assert.equal((await root().put('/v1/catalog/deregister', { Node: 'n1', ServiceID: 'redis1' })).text, 'true');
    assert.deepEqual((await root().get('/v1/catalog/service/redis')).json, []);
    assert.deepEqual((await root().get('/v1/health/node/n1')).json, [], 'the service check went with it');
    assert.equal((await root().put('/v1/catalog/deregister', { Node: 'n1' })).text, 'true');
    assert.equal((await root().get('/v1/catalog/node/n1')).text, 'null');
  });

  it('a node whose name extends another with "/" keeps its entries apart', async () => {
    await root().put('/v1/catalog/register', {
      Node: 'pfx',
      Address: '10.9.0.1',
      Service: { Service: 'z' },
      Check: { CheckID: 'zc', Name: 'zc', ServiceID: 'z' },
    });
    await root().put('/v1/catalog/register', {
      Node: 'pfx/a',
      Address: '10.9.0.2',
      Service: { Service: 'b' },
      Check: { CheckID: 'bc', Name: 'bc', ServiceID: 'b' },
    });
    assert.deepEqual(Object.keys((await root().get('/v1/catalog/node/pfx')).json.Services), ['z']);
    assert.deepEqual(
      (await root().get('/v1/health/node/pfx')).json.map((c: { CheckID: string }) => c.CheckID),
      ['zc'],
    );
    await root().put('/v1/catalog/deregister', { Node: 'pfx' });
    const left = (await root().get('/v1/health/checks/b')).json;
    assert.deepEqual(
      left.map((c: { Node: string; CheckID: string }) => `${c.Node}:${c.CheckID}`),
      ['pfx/a:bc'],
      'the other node keeps its checks',
    );
    await root().put('/v1/catalog/deregister', { Node: 'pfx/a' });
  });

  it("instances sharing a node: each has the node's checks and its own in check-ID order; re-registering or deregistering one touches only its checks", async () => {
    const reg = (body: object) => root().put('/v1/catalog/register', { Node: 'many', Address: '10.7.0.1', ...body });
    assert.equal(
      (
        await reg({
          Checks: [
            { CheckID: 'a-node', Name: 'a' },
            { CheckID: 'z-node', Name: 'z', Status: 'passing' },
          ],
        })
      ).status,
      200,
    );
    for (const [id, check] of [
      ['m1', 'm-m1'],
      ['m2', 'b-m2'],
      ['m3', 'zz-m3'],
    ]) {
      assert.equal(
        (await reg({ Service: { ID: id, Service: 'multi', Tags: ['v1'] }, Check: { CheckID: check, Name: check, ServiceID: id, Status: 'passing' } })).status,
        200,
      );
    }
    await root().put('/v1/catalog/register', {
      Node: 'many/x',
      Address: '10.7.0.2',
      Service: { ID: 'm1', Service: 'multi' },
      Check: { CheckID: 'c-x', Name: 'x', ServiceID: 'm1' },
    });
    const checksOf = async () =>
      Object.fromEntries(
        (await root().get('/v1/health/service/multi')).json.map((e: { Node: { Node: string }; Service: { ID: string }; Checks: { CheckID: string }[] }) => [
          `${e.Node.Node}:${e.Service.ID}`,
          e.Checks.map((c) => c.CheckID),
        ]),
      );
    assert.deepEqual(await checksOf(), {
      'many:m1': ['a-node', 'm-m1', 'z-node'],
      'many:m2': ['a-node', 'b-m2', 'z-node'],
      'many:m3': ['a-node', 'z-node', 'zz-m3'],
      'many/x:m1': ['c-x'],
    });
    assert.equal((await reg({ Service: { ID: 'm2', Service: 'multi', Tags: ['v2'] } })).status, 200);
    const tags = (await root().get('/v1/health/checks/multi')).json.map(
      (c: { Node: string; CheckID: string; ServiceTags: string[] }) => `${c.Node}:${c.CheckID}:${c.ServiceTags.join()}`,
    );
    assert.deepEqual(tags, ['many:b-m2:v2', 'many:m-m1:v1', 'many/x:c-x:', 'many:zz-m3:v1'], "only m2's check follows its new tags");
    // Entries are kept per service document between reads: a change of the node alone shows in every one.
    assert.equal((await root().get('/v1/catalog/service/multi')).json.length, 4, 'rendered and kept before the node changes');
    assert.equal((await root().put('/v1/catalog/register', { Node: 'many', Address: '10.7.0.9' })).status, 200);
    const addresses = (await root().get('/v1/health/service/multi')).json
      .filter((e: { Node: { Node: string } }) => e.Node.Node === 'many')
      .map((e: { Node: { Address: string } }) => e.Node.Address);
    assert.deepEqual(addresses, ['10.7.0.9', '10.7.0.9', '10.7.0.9']);
    const catalogAddresses = (await root().get('/v1/catalog/service/multi')).json
      .filter((e: { Node: string }) => e.Node === 'many')
      .map((e: { Address: string }) => e.Address);
    assert.deepEqual(catalogAddresses, ['10.7.0.9', '10.7.0.9', '10.7.0.9']);
    assert.equal((await root().put('/v1/catalog/deregister', { Node: 'many', ServiceID: 'm1' })).status, 200);
    assert.deepEqual(await checksOf(), { 'many:m2': ['a-node', 'b-m2', 'z-node'], 'many:m3': ['a-node', 'z-node', 'zz-m3'], 'many/x:m1': ['c-x'] });
    await root().put('/v1/catalog/deregister', { Node: 'many' });
    await root().put('/v1/catalog/deregister', { Node: 'many/x' });
    assert.deepEqual(await checksOf(), {});
  });

  it('bad input is 400 naming the problem and changes nothing', async () => {
    const before = index(await root().get('/v1/catalog/nodes'));
    const bad = async (body: unknown, text: string) => {
      const r = await root().put('/v1/catalog/register', body);
      assert.deepEqual([r.status, r.text], [400, text], JSON.stringify(body));
    };
    await bad({ Address: '10.0.0.9' }, 'Must provide node');
    await bad({ Node: 'x' }, 'Must provide address if SkipNodeUpdate is not set');
    await bad({ Node: 'x', Address: 'a', Service: { Port: 1 } }, 'Must provide service name with ID');
    await bad({ Node: 'x', Address: 'a', Service: { Service: 's', Port: 'eighty' } }, 'Service.Port must be a number');
    await bad({ Node: 'x', Address: 'a', Check: { Name: 'c', Status: 'ok' } }, "Status for checks must 'passing', 'warning', 'critical'");
    await bad({ Node: 'x', Address: 'a', Check: { Name: 'c', ServiceID: 'ghost' } }, "Unknown service ID 'ghost' for check ID 'c'");
    const far = await root().put('/v1/catalog/register', { Datacenter: 'dc9', Node: 'x', Address: 'a' });
    assert.deepEqual([far.status, far.text], [500, 'No path to datacenter'], 'a body naming another datacenter goes there');
    const raw = await call(a.url, 'PUT', '/v1/catalog/register', { token: ROOT, raw: '{"Node":' });
    assert.equal(raw.status, 400);
    assert.match(raw.text, /^Request decode failed: /);
    assert.equal(index(await root().get('/v1/catalog/nodes')), before);
    assert.equal((await root().get('/v1/catalog/node/x')).text, 'null');
  });

  it('health: aggregation over node and service checks, ?passing, /state, and a blocking query woken by a check change', async () => {
    const reg = (node: string, status: string, svcStatus: string) =>
      root().put('/v1/catalog/register', {
        Node: node,
        Address: `10.1.0.${node.length}`,
        Service: { ID: 'web1', Service: 'web', Port: 80, Tags: [node] },
        Checks: [
          { CheckID: 'node-ok', Name: 'node', Status: status },
          { CheckID: 'web-http', Name: 'web', ServiceID: 'web1', Status: svcStatus },
        ],
      });
    assert.equal((await reg('h-a', 'passing', 'passing')).status, 200);
    assert.equal((await reg('h-bb', 'passing', 'warning')).status, 200);
    assert.equal((await reg('h-ccc', 'critical', 'passing')).status, 200);

    const all = await root().get('/v1/health/service/web');
    assert.deepEqual(
      all.json.map((e: { Node: { Node: string } }) => e.Node.Node),
      ['h-a', 'h-bb', 'h-ccc'],
    );
    const first = all.json[0];
    assert.deepEqual(Object.keys(first).sort(), ['Checks', 'Node', 'Service']);
    assert.deepEqual(
      first.Checks.map((c: { CheckID: string }) => c.CheckID),
      ['node-ok', 'web-http'],
    );
    assert.deepEqual(Object.keys(first.Checks[1]).sort(), [
      'CheckID',
      'CreateIndex',
      'Definition',
      'ExposedPort',
      'Interval',
      'ModifyIndex',
      'Name',
      'Node',
      'Notes',
      'Output',
      'ServiceID',
      'ServiceName',
      'ServiceTags',
      'Status',
      'Timeout',
      'Type',
    ]);
    assert.deepEqual([first.Checks[1].ServiceName, first.Checks[1].ServiceTags], ['web', ['h-a']]);
    const passing = await root().get('/v1/health/service/web?passing');
    assert.deepEqual(
      passing.json.map((e: { Node: { Node: string } }) => e.Node.Node),
      ['h-a'],
      'warning and a critical node check both exclude',
    );
    assert.equal((await root().get('/v1/health/service/web?passing=false')).json.length, 3);
    assert.equal((await root().get('/v1/health/service/web?passing=maybe')).text, 'Invalid value for ?passing');
    assert.deepEqual(
      (await root().get('/v1/health/service/web?tag=h-bb')).json.map((e: { Node: { Node: string } }) => e.Node.Node),
      ['h-bb'],
    );
    assert.equal((await root().get(`/v1/health/service/web?filter=${encodeURIComponent('Node.Node == "h-ccc"')}`)).json.length, 1);

    assert.deepEqual(
      (await root().get('/v1/health/node/h-ccc')).json.map((c: { Status: string }) => c.Status),
      ['critical', 'passing'],
    );
    assert.deepEqual(
      (await root().get('/v1/health/checks/web')).json.map((c: { Node: string }) => c.Node),
      ['h-a', 'h-bb', 'h-ccc'],
    );
    const critical = (await root().get('/v1/health/state/critical')).json;
    assert.deepEqual(
      critical.map((c: { Node: string; CheckID: string }) => `${c.Node}/${c.CheckID}`),
      ['h-ccc/node-ok'],
    );
    assert.equal((await root().get('/v1/health/state/any')).json.length >= 6, true);
    assert.equal((await root().get('/v1/health/state/bogus')).status, 400);

    // Blocking: wait on the current index; a check status change wakes it.
    const now = await root().get('/v1/health/service/web');
    const blocked = root().get(`/v1/health/service/web?index=${index(now)}&wait=30s`);
    let done = false;
    void blocked.then(() => (done = true));
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(done, false, 'still waiting');
    await root().put('/v1/catalog/register', {
      Node: 'h-bb',
      Address: '10.1.0.4',
      SkipNodeUpdate: true,
      Check: { CheckID: 'web-http', Name: 'web', ServiceID: 'web1', Status: 'passing' },
    });
    const woke = await blocked;
    assert.ok(index(woke) > index(now));
    assert.deepEqual(
      (await root().get('/v1/health/service/web?passing')).json.map((e: { Node: { Node: string } }) => e.Node.Node),
      ['h-a', 'h-bb'],
    );
    assert.equal(woke.json.find((e: { Node: { Node: string } }) => e.Node.Node === 'h-bb').Checks[1].Status, 'passing');
  });

  it('ACL: lists are filtered with X-Mesh-Results-Filtered-By-ACLs; writes need node/service write', async () => {
    await root().put('/v1/catalog/register', { Node: 'acl-n', Address: '10.2.0.1', Service: { Service: 'db', Port: 5432 } });
    await root().put('/v1/catalog/register', { Node: 'acl-n', Address: '10.2.0.1', Service: { Service: 'web', ID: 'web-acl', Port: 80 } });
    const webRead = await tokenWith('web-read', 'service "web" { policy = "read" }');
    const seen = await as(webRead).get('/v1/catalog/services');
    assert.equal(seen.status, 200);
    assert.deepEqual(Object.keys(seen.json), ['web']);
    assert.equal(seen.headers.get('x-mesh-results-filtered-by-acls'), 'true');
    const everything = await root().get('/v1/catalog/services');
    assert.equal(everything.headers.get('x-mesh-results-filtered-by-acls'), null);
    assert.ok('db' in everything.json);
    // No node:read: the instances of web are filtered out too.
    const inst = await as(webRead).get('/v1/catalog/service/web');
    assert.deepEqual([inst.json, inst.headers.get('x-mesh-results-filtered-by-acls')], [[], 'true']);
    // Anonymous (default deny): an empty list, and no header, since no token was presented.
    const anon = await call(a.url, 'GET', '/v1/catalog/services', {});
    assert.deepEqual([anon.status, anon.json, anon.headers.get('x-mesh-results-filtered-by-acls')], [200, {}, null]);

    const webWrite = await tokenWith('web-write', 'node_prefix "" { policy = "write" }\nservice "web" { policy = "write" }');
    const accessor = (await root().get('/v1/acl/tokens')).json.find((t: { Policies?: Array<{ Name: string }> }) =>
      t.Policies?.some((p) => p.Name === 'web-write'),
    ).AccessorID;
    const denied = await as(webWrite).put('/v1/catalog/register', { Node: 'acl-n', Address: '10.2.0.1', Service: { Service: 'cache', Port: 6379 } });
    assert.deepEqual([denied.status, denied.text], [403, `Permission denied: token with AccessorID '${accessor}' lacks permission 'service:write' on "cache"`]);
    assert.equal((await root().get('/v1/catalog/service/cache')).json.length, 0, 'nothing written');
    assert.equal(
      (await as(webWrite).put('/v1/catalog/register', { Node: 'acl-n', Address: '10.2.0.1', Service: { Service: 'web', ID: 'web-2', Port: 81 } })).status,
      200,
    );
    const noNode = await tokenWith('svc-only', 'service "web" { policy = "write" }');
    const nodeDenied = await as(noNode).put('/v1/catalog/register', { Node: 'acl-new', Address: '10.2.0.2', Service: { Service: 'web' } });
    assert.equal(nodeDenied.status, 403);
    assert.match(nodeDenied.text, /lacks permission 'node:write' on "acl-new"$/);
    // Service write alone may deregister that service, not the node.
    assert.equal((await as(noNode).put('/v1/catalog/deregister', { Node: 'acl-n', ServiceID: 'web-2' })).text, 'true');
    assert.equal((await as(noNode).put('/v1/catalog/deregister', { Node: 'acl-n' })).status, 403);
    const unknown = await as('00000000-0000-4000-8000-00000000dead').get('/v1/catalog/services');
    assert.deepEqual([unknown.status, unknown.text], [403, 'ACL not found']);
  });
});
