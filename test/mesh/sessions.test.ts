/**
 * Sessions and KV locks over real HTTP against an in-process agent (issue 16 scope 5):
 * create/info/node/list/renew/destroy shapes and validation; acquire/release with
 * LockIndex; a second session refused; the lock delay after an invalidation; a check
 * going critical, the node going, and TTL expiry (on an injected clock) invalidating the
 * session and releasing its locks, or deleting its keys with Behavior delete; ACL denial
 * and filtering.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { until } from '../processes.js';
import { call, startAgent, type TestAgent } from './helpers.js';

describe('sessions and KV locks', () => {
  let a: TestAgent;
  let root: string;
  // The agent's clock: real time plus a shift the TTL test moves forward.
  let shiftMs = 0;
  const api = (method: string, path: string, o: { body?: unknown; raw?: string; token?: string } = {}) =>
    call(a.url, method, `/v1/${path}`, { body: o.body, raw: o.raw, token: o.token ?? root });
  const create = async (body: unknown, token?: string) => {
    const r = await api('PUT', 'session/create', { body, token });
    assert.equal(r.status, 200, r.text);
    return r.json.ID as string;
  };
  const entry = async (key: string) => {
    const r = await api('GET', `kv/${key}`);
    return r.status === 404 ? undefined : r.json[0];
  };
  const register = (node: string, checks: Array<{ CheckID: string; Status: string }>) =>
    api('PUT', 'catalog/register', { body: { Node: node, Address: '10.0.0.1', Checks: checks } });
  const tokenWith = async (rules: string) => {
    const p = await api('PUT', 'acl/policy', { body: { Name: `p${Math.random().toString(36).slice(2, 10)}`, Rules: rules } });
    assert.equal(p.status, 200, p.text);
    const t = await api('PUT', 'acl/token', { body: { Policies: [{ ID: p.json.ID }] } });
    assert.equal(t.status, 200, t.text);
    return t.json.SecretID as string;
  };

  before(async () => {
    a = await startAgent({}, {}, { now: () => Date.now() + shiftMs, sessionReapIntervalMs: 50, syncIntervalMs: 200 });
    root = (await api('PUT', 'acl/bootstrap')).json.SecretID;
    await until('the agent node is synced', 5000, async () =>
      (await api('GET', 'health/node/test')).json.some?.((c: { CheckID: string }) => c.CheckID === 'serfHealth') ? true : undefined,
    );
  });
  after(() => a.stop());

  it('create with defaults, then info, node, list in the reference shape; destroy', async () => {
    const id = await create({ Name: 'web-lock' });
    assert.match(id, /^[0-9a-f-]{36}$/);
    const info = await api('GET', `session/info/${id}`);
    assert.equal(info.status, 200);
    const [s] = info.json;
    assert.deepEqual(Object.keys(s), ['ID', 'Name', 'Node', 'LockDelay', 'Behavior', 'TTL', 'NodeChecks', 'ServiceChecks', 'CreateIndex', 'ModifyIndex']);
    assert.deepEqual(
      {
        ID: s.ID,
        Name: s.Name,
        Node: s.Node,
        LockDelay: s.LockDelay,
        Behavior: s.Behavior,
        TTL: s.TTL,
        NodeChecks: s.NodeChecks,
        ServiceChecks: s.ServiceChecks,
      },
      { ID: id, Name: 'web-lock', Node: 'test', LockDelay: 15e9, Behavior: 'release', TTL: '', NodeChecks: ['serfHealth'], ServiceChecks: null },
    );
    assert.equal(info.headers.get('x-mesh-index'), String(s.ModifyIndex));
    assert.ok((await api('GET', 'session/node/test')).json.some((x: { ID: string }) => x.ID === id));
    assert.ok((await api('GET', 'session/list')).json.some((x: { ID: string }) => x.ID === id));
    assert.deepEqual((await api('GET', 'session/node/elsewhere')).json, []);

    const d = await api('PUT', `session/destroy/${id}`);
    assert.equal(d.status, 200);
    assert.equal(d.json, true);
    assert.deepEqual((await api('GET', `session/info/${id}`)).json, []);
  });

  it('a blocking list wakes when a session is created', async () => {
    const first = await api('GET', 'session/list');
    const index = first.headers.get('x-mesh-index');
    const waiting = api('GET', `session/list?index=${index}&wait=5s`);
    const id = await create({ Name: 'wake', LockDelay: '0s' });
    const woke = await waiting;
    assert.ok(Number(woke.headers.get('x-mesh-index')) > Number(index));
    assert.ok(woke.json.some((x: { ID: string }) => x.ID === id));
    await api('PUT', `session/destroy/${id}`);
  });

  it('validation: Behavior, TTL bounds, unknown node and check, a critical check; nothing created', async () => {
    const before = (await api('GET', 'session/list')).json.length;
    const cases: Array<[unknown, string]> = [
      [{ Behavior: 'keep' }, "Invalid Behavior setting 'keep'"],
      [{ TTL: '5s' }, "Invalid Session TTL '5000000000', must be between [10s=24h0m0s]"],
      [{ TTL: '25h' }, "Invalid Session TTL '90000000000000', must be between [10s=24h0m0s]"],
      [{ TTL: 'soon' }, 'Session TTL \'soon\' invalid: time: invalid duration "soon"'],
      [{ Node: 'ghost' }, 'Missing node registration'],
      [{ NodeChecks: ['nope'] }, "Missing check 'nope' registration"],
      [{ LockDelay: true }, 'LockDelay must be a duration string'],
    ];
    for (const [body, text] of cases) {
      const r = await api('PUT', 'session/create', { body });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.text, text);
    }
    assert.equal((await register('sick', [{ CheckID: 'disk', Status: 'critical' }])).status, 200);
    const sick = await api('PUT', 'session/create', { body: { Node: 'sick', NodeChecks: ['disk'] } });
    assert.equal(sick.status, 400);
    assert.equal(sick.text, "Check 'disk' is in critical state");
    assert.equal((await api('GET', 'session/list')).json.length, before);
  });

  it('renew answers the session; an unknown one is 404', async () => {
    const id = await create({ TTL: '30s', LockDelay: 0 });
    const [before] = (await api('GET', `session/info/${id}`)).json;
    const r = await api('PUT', `session/renew/${id}`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, [before], 'the session as it was: a renew moves only its timer');
    assert.equal(r.json[0].TTL, '30s');
    assert.equal(r.json[0].LockDelay, 0);
    await api('PUT', `session/destroy/${id}`);
    const gone = await api('PUT', `session/renew/${id}`);
    assert.equal(gone.status, 404);
    assert.equal(gone.text, `Session id '${id}' not found`);
  });

  it('acquire and release: LockIndex, Session on the entry, a second session refused, lock delay after invalidation', async () => {
    const s1 = await create({ Name: 'one', LockDelay: '2s' });
    const s2 = await create({ Name: 'two' });
    assert.equal((await api('PUT', `kv/locks/a?acquire=${s1}`, { raw: 'one' })).json, true);
    let e = await entry('locks/a');
    assert.equal(e.LockIndex, 1);
    assert.equal(e.Session, s1);
    assert.equal((await api('PUT', `kv/locks/a?acquire=${s1}`, { raw: 'again' })).json, true, 'the holder may acquire again');
    assert.equal((await entry('locks/a')).LockIndex, 1, 'no new holder, no new LockIndex');
    const refused = await api('PUT', `kv/locks/a?acquire=${s2}`, { raw: 'two' });
    assert.equal(refused.status, 200);
    assert.equal(refused.json, false);
    assert.equal((await api('GET', 'kv/locks/a?raw')).text, 'again', 'nothing stored');
    assert.equal((await api('PUT', `kv/locks/a?release=${s2}`, { raw: 'x' })).json, false, 'only the holder releases');
    assert.equal((await api('PUT', `kv/locks/a?release=${s1}`, { raw: 'free' })).json, true);
    e = await entry('locks/a');
    assert.equal(e.Session, undefined);
    assert.equal(e.LockIndex, 1);
    assert.equal((await api('PUT', `kv/locks/a?acquire=${s2}`, { raw: 'two' })).json, true, 'an explicit release leaves no lock delay');
    assert.equal((await entry('locks/a')).LockIndex, 2);
    assert.equal((await api('PUT', `kv/locks/a?release=${s2}`)).json, true);

    // Invalidation (destroy) releases the key and starts s1's 2 s lock delay.
    assert.equal((await api('PUT', `kv/locks/b?acquire=${s1}`, { raw: 'b' })).json, true);
    assert.equal((await api('PUT', `session/destroy/${s1}`)).json, true);
    e = await entry('locks/b');
    assert.equal(e.Session, undefined, 'released');
    assert.equal(e.LockIndex, 1, 'LockIndex kept');
    assert.equal((await api('PUT', `kv/locks/b?acquire=${s2}`)).json, false, 'the lock delay holds');
    shiftMs += 2500;
    assert.equal((await api('PUT', `kv/locks/b?acquire=${s2}`)).json, true, 'after the lock delay');
    assert.equal((await entry('locks/b')).LockIndex, 2);

    const unknown = await api('PUT', `kv/locks/c?acquire=${s1}`, { raw: 'x' });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.text, `invalid session "${s1}"`);
    assert.equal(await entry('locks/c'), undefined);
    await api('PUT', `session/destroy/${s2}`);
  });

  it('a linked check going critical invalidates the session and releases its lock', async () => {
    assert.equal((await register('db1', [{ CheckID: 'alive', Status: 'passing' }])).status, 200);
    const id = await create({ Node: 'db1', NodeChecks: ['alive'], LockDelay: '0s' });
    assert.equal((await api('PUT', `kv/leader/db?acquire=${id}`, { raw: 'db1' })).json, true);
    assert.equal((await register('db1', [{ CheckID: 'alive', Status: 'critical' }])).status, 200);
    assert.deepEqual((await api('GET', `session/info/${id}`)).json, []);
    const e = await entry('leader/db');
    assert.equal(e.Session, undefined);
    assert.equal(e.LockIndex, 1);
    assert.equal((await api('GET', 'kv/leader/db?raw')).text, 'db1', 'the value stays');
  });

  it('an agent TTL check failing reaches the catalog and invalidates the session linked to it', async () => {
    assert.equal((await api('PUT', 'agent/check/register', { body: { CheckID: 'heartbeat', Name: 'heartbeat', TTL: '30s' } })).status, 200);
    assert.equal((await api('PUT', 'agent/check/pass/heartbeat')).status, 200);
    await until('the pass reaches the catalog', 5000, async () =>
      (await api('GET', 'health/node/test')).json.some((c: { CheckID: string; Status: string }) => c.CheckID === 'heartbeat' && c.Status === 'passing')
        ? true
        : undefined,
    );
    const id = await create({ NodeChecks: ['serfHealth', 'heartbeat'], LockDelay: '0s' });
    assert.equal((await api('PUT', `kv/svc/leader?acquire=${id}`, { raw: 'me' })).json, true);
    assert.equal((await api('PUT', 'agent/check/fail/heartbeat')).status, 200);
    await until('the session is invalidated', 5000, async () => ((await api('GET', `session/info/${id}`)).json.length === 0 ? true : undefined));
    const e = await entry('svc/leader');
    assert.equal(e.Session, undefined);
    assert.equal(e.LockIndex, 1);
    assert.equal((await api('PUT', 'agent/check/deregister/heartbeat')).status, 200);
  });

  it('ServiceChecks link a service check; deregistering the service invalidates the session', async () => {
    const reg = await api('PUT', 'catalog/register', {
      body: {
        Node: 'app1',
        Address: '10.0.0.2',
        Service: { ID: 'api-1', Service: 'api' },
        Check: { CheckID: 'api-alive', ServiceID: 'api-1', Status: 'passing' },
      },
    });
    assert.equal(reg.status, 200, reg.text);
    const id = await create({ Node: 'app1', NodeChecks: [], ServiceChecks: [{ ID: 'api-alive' }], LockDelay: '0s' });
    const [s] = (await api('GET', `session/info/${id}`)).json;
    assert.deepEqual([s.NodeChecks, s.ServiceChecks], [[], [{ ID: 'api-alive', Namespace: '' }]]);
    assert.equal((await api('PUT', 'catalog/deregister', { body: { Node: 'app1', ServiceID: 'api-1' } })).status, 200);
    assert.deepEqual((await api('GET', `session/info/${id}`)).json, [], 'its check went with the service');
  });

  it('the node deregistered destroys its sessions; Behavior delete deletes the held keys', async () => {
    assert.equal((await register('db2', [{ CheckID: 'alive', Status: 'passing' }])).status, 200);
    const id = await create({ Node: 'db2', NodeChecks: ['alive'], Behavior: 'delete' });
    assert.equal((await api('PUT', `kv/eph/db2?acquire=${id}`, { raw: 'here' })).json, true);
    assert.equal((await api('PUT', 'catalog/deregister', { body: { Node: 'db2' } })).status, 200);
    assert.deepEqual((await api('GET', `session/info/${id}`)).json, []);
    assert.equal(await entry('eph/db2'), undefined, 'the key went with the session');
  });

  it('a TTL session not renewed within 2 × TTL is invalidated on the leader; a renew pushes that back', async () => {
    const id = await create({ TTL: '10s', LockDelay: '0s' });
    assert.equal((await api('PUT', `kv/ttl/k?acquire=${id}`, { raw: 'v' })).json, true);
    shiftMs += 15_000;
    assert.equal((await api('PUT', `session/renew/${id}`)).status, 200);
    shiftMs += 15_000; // 30 s after create, 15 s after the renew: still within 2 × TTL.
    await new Promise((r) => setTimeout(r, 200));
    assert.equal((await api('GET', `session/info/${id}`)).json.length, 1, 'the renew kept it');
    shiftMs += 6_000;
    await until('the session expires', 5000, async () => ((await api('GET', `session/info/${id}`)).json.length === 0 ? true : undefined));
    assert.equal((await entry('ttl/k')).Session, undefined);
  });

  it('ACL: session:write on the node to create, session:read to see; lists filtered', async () => {
    const writer = await tokenWith('session "test" { policy = "write" }\nkey_prefix "" { policy = "write" }');
    const reader = await tokenWith('session_prefix "db" { policy = "read" }');
    const denied = await api('PUT', 'session/create', { body: { Node: 'test' }, token: reader });
    assert.equal(denied.status, 403);
    assert.match(denied.text, /lacks permission 'session:write' on "test"/);
    const id = await create({ Node: 'test', LockDelay: '0s' }, writer);
    assert.equal((await api('PUT', `session/destroy/${id}`, { token: reader })).status, 403);
    assert.equal((await api('PUT', 'catalog/register', { body: { Node: 'db3', Address: '10.0.0.3' } })).status, 200);
    const dbId = await create({ Node: 'db3', NodeChecks: [], LockDelay: '0s' });
    const list = await api('GET', 'session/list', { token: reader });
    assert.deepEqual(
      list.json.map((s: { ID: string }) => s.ID),
      [dbId],
    );
    assert.equal(list.headers.get('x-mesh-results-filtered-by-acls'), 'true');
    assert.deepEqual((await api('GET', `session/info/${id}`, { token: reader })).json, []);
    await api('PUT', `session/destroy/${id}`);
    await api('PUT', `session/destroy/${dbId}`);
  });
});
