/**
 * `PUT /v1/txn` over real HTTP against an in-process agent (issue 16 scope 6): a mixed KV
 * transaction commits at one index; a failing `cas` / `check-index` rolls everything back
 * with 409 and the operation's index; reads return values; lock/unlock with a session;
 * node, service and check operations write the catalog; the operation, body and value
 * limits; ACL per operation (refusal changes nothing, reads are filtered); malformed
 * bodies give a 400 naming the field; the OpenAPI entry; the SDK's `MeshClient.txn`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MeshClient } from '../../src/sdk/index.js';
import { call, startAgent, type TestAgent } from './helpers.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const text = (v: string | null) => Buffer.from(v ?? '', 'base64').toString();

describe('transactions', () => {
  let a: TestAgent;
  let root: string;
  const api = (method: string, path: string, o: { body?: unknown; raw?: string; token?: string } = {}) =>
    call(a.url, method, `/v1/${path}`, { body: o.body, raw: o.raw, token: o.token ?? root });
  const txn = (ops: unknown, token?: string) => api('PUT', 'txn', { body: ops, token });
  const entry = async (key: string) => {
    const r = await api('GET', `kv/${key}`);
    return r.status === 404 ? undefined : r.json[0];
  };
  const tokenWith = async (rules: string) => {
    const p = await api('PUT', 'acl/policy', { body: { Name: `p${Math.random().toString(36).slice(2, 10)}`, Rules: rules } });
    assert.equal(p.status, 200, p.text);
    const t = await api('PUT', 'acl/token', { body: { Policies: [{ ID: p.json.ID }] } });
    assert.equal(t.status, 200, t.text);
    return t.json.SecretID as string;
  };

  before(async () => {
    a = await startAgent({}, { kvMaxValueSize: 64, txnMaxReqLen: 16_384 });
    root = (await call(a.url, 'PUT', '/v1/acl/bootstrap')).json.SecretID;
  });
  after(() => a.stop());

  it('a mixed KV transaction commits every write at one index, values left out of write results', async () => {
    assert.equal((await api('PUT', 'kv/mix/old', { raw: 'x' })).status, 200);
    const r = await txn([
      { KV: { Verb: 'set', Key: 'mix/a', Value: b64('one'), Flags: 7 } },
      { KV: { Verb: 'cas', Key: 'mix/b', Value: b64('two'), Index: 0 } },
      { KV: { Verb: 'delete', Key: 'mix/old' } },
      { KV: { Verb: 'get', Key: 'mix/a' } },
    ]);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.Errors, null);
    assert.equal(r.json.Results.length, 3, 'set, cas and get give results; delete none');
    const [set, cas, get] = r.json.Results.map((x: { KV: Record<string, unknown> }) => x.KV);
    assert.deepEqual(Object.keys(set), ['LockIndex', 'Key', 'Flags', 'Value', 'CreateIndex', 'ModifyIndex']);
    assert.equal(set.Value, null);
    assert.equal(set.Flags, 7);
    assert.equal(cas.Key, 'mix/b');
    assert.equal(text(get.Value), 'one', 'a get sees the earlier set of the same transaction');
    assert.equal(set.ModifyIndex, cas.ModifyIndex, 'one index for the whole transaction');
    assert.equal(r.headers.get('x-mesh-index'), String(set.ModifyIndex));
    assert.equal(text((await entry('mix/b')).Value), 'two');
    assert.equal(await entry('mix/old'), undefined);
  });

  it('a stale cas rolls the whole transaction back: 409 with its OpIndex, nothing stored', async () => {
    assert.equal((await api('PUT', 'kv/rb/held', { raw: 'v1' })).status, 200);
    const r = await txn([
      { KV: { Verb: 'set', Key: 'rb/new', Value: b64('n') } },
      { KV: { Verb: 'delete', Key: 'rb/held' } },
      { KV: { Verb: 'cas', Key: 'rb/held', Value: b64('v2'), Index: 999_999 } },
    ]);
    assert.equal(r.status, 409, r.text);
    assert.deepEqual(r.json, { Results: null, Errors: [{ OpIndex: 2, What: 'failed to set key "rb/held", index is stale' }] });
    assert.equal(await entry('rb/new'), undefined);
    assert.equal(text((await entry('rb/held')).Value), 'v1', 'the delete before the failure was rolled back too');
  });

  it('check-index: passes at the key’s ModifyIndex, else rolls back; every failure is listed', async () => {
    assert.equal((await api('PUT', 'kv/ci/k', { raw: 'v' })).status, 200);
    const k = await entry('ci/k');
    const ok = await txn([{ KV: { Verb: 'check-index', Key: 'ci/k', Index: k.ModifyIndex } }, { KV: { Verb: 'set', Key: 'ci/k', Value: b64('w') } }]);
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.json.Results[0].KV.Value, null);
    const bad = await txn([
      { KV: { Verb: 'set', Key: 'ci/other', Value: b64('x') } },
      { KV: { Verb: 'check-index', Key: 'ci/k', Index: k.ModifyIndex } },
      { KV: { Verb: 'check-not-exists', Key: 'ci/k' } },
    ]);
    assert.equal(bad.status, 409);
    const now = (await entry('ci/k')).ModifyIndex;
    assert.deepEqual(bad.json.Errors, [
      { OpIndex: 1, What: `failed index check for key "ci/k", current modify index ${now} != ${k.ModifyIndex}` },
      { OpIndex: 2, What: 'key "ci/k" exists' },
    ]);
    assert.equal(await entry('ci/other'), undefined);
  });

  it('a read-only transaction returns values and takes no index of its own', async () => {
    for (const k of ['ro/a', 'ro/b/c']) assert.equal((await api('PUT', `kv/${k}`, { raw: k })).status, 200);
    const before = Number((await api('GET', 'kv/ro/a')).headers.get('x-mesh-index'));
    const r = await txn([{ KV: { Verb: 'get-tree', Key: 'ro/' } }, { KV: { Verb: 'check-not-exists', Key: 'ro/zzz' } }]);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      r.json.Results.map((x: { KV: { Key: string; Value: string } }) => [x.KV.Key, text(x.KV.Value)]),
      [
        ['ro/a', 'ro/a'],
        ['ro/b/c', 'ro/b/c'],
      ],
    );
    assert.ok(Number(r.headers.get('x-mesh-index')) >= before);
    const again = await api('PUT', 'kv/ro/x', { raw: 'x' });
    assert.equal(again.status, 200);
    assert.equal((await entry('ro/x')).ModifyIndex, Number(r.headers.get('x-mesh-index')) + 1, 'the read committed nothing');
    const missing = await txn([{ KV: { Verb: 'get', Key: 'ro/none' } }]);
    assert.equal(missing.status, 409);
    assert.deepEqual(missing.json.Errors, [{ OpIndex: 0, What: 'key "ro/none" doesn\'t exist' }]);
  });

  it('lock and unlock with a session; check-session; a held lock refuses another session', async () => {
    assert.equal((await api('PUT', 'catalog/register', { body: { Node: 'locker', Address: '10.0.0.9' } })).status, 200);
    const session = async () => {
      const r = await api('PUT', 'session/create', { body: { Node: 'locker', NodeChecks: [] } });
      assert.equal(r.status, 200, r.text);
      return r.json.ID as string;
    };
    const s1 = await session();
    const s2 = await session();
    const lock = await txn([{ KV: { Verb: 'lock', Key: 'lk/leader', Value: b64('me'), Session: s1 } }]);
    assert.equal(lock.status, 200, lock.text);
    assert.equal(lock.json.Results[0].KV.Session, s1);
    assert.equal(lock.json.Results[0].KV.LockIndex, 1);
    const other = await txn([{ KV: { Verb: 'set', Key: 'lk/side', Value: b64('x') } }, { KV: { Verb: 'lock', Key: 'lk/leader', Session: s2 } }]);
    assert.equal(other.status, 409);
    assert.deepEqual(other.json.Errors, [{ OpIndex: 1, What: 'failed to lock key "lk/leader", lock is already held' }]);
    assert.equal(await entry('lk/side'), undefined);
    const wrong = await txn([{ KV: { Verb: 'check-session', Key: 'lk/leader', Session: s2 } }]);
    assert.deepEqual(wrong.json.Errors, [{ OpIndex: 0, What: `failed session check for key "lk/leader", current session "${s1}" != "${s2}"` }]);
    const unlock = await txn([
      { KV: { Verb: 'check-session', Key: 'lk/leader', Session: s1 } },
      { KV: { Verb: 'unlock', Key: 'lk/leader', Value: b64('free'), Session: s1 } },
    ]);
    assert.equal(unlock.status, 200, unlock.text);
    const e = await entry('lk/leader');
    assert.equal(e.Session, undefined);
    assert.equal(e.LockIndex, 1);
    assert.equal(text(e.Value), 'free');
    // A session that goes leaves its keys locked against others for its lock delay (15 s by default).
    assert.equal((await txn([{ KV: { Verb: 'lock', Key: 'lk/delay', Session: s2 } }])).status, 200);
    assert.equal((await api('PUT', `session/destroy/${s2}`)).status, 200);
    const delayed = await txn([{ KV: { Verb: 'lock', Key: 'lk/delay', Session: s1 } }]);
    assert.deepEqual(delayed.json.Errors, [{ OpIndex: 0, What: 'failed to lock key "lk/delay" due to lock delay' }]);
    const bogus = await txn([{ KV: { Verb: 'lock', Key: 'lk/leader', Session: 'b6c1b8a8-0000-4000-8000-000000000000' } }]);
    assert.deepEqual(bogus.json.Errors, [{ OpIndex: 0, What: 'invalid session "b6c1b8a8-0000-4000-8000-000000000000"' }]);
  });

  it('node, service and check operations write the catalog in one transaction', async () => {
    const r = await txn([
      { Node: { Verb: 'set', Node: { Node: 'tx-node', Address: '10.1.0.1', Meta: { rack: 'r1' } } } },
      { Service: { Verb: 'set', Node: 'tx-node', Service: { ID: 'web-1', Service: 'web', Port: 8080, Tags: ['v1'] } } },
      { Check: { Verb: 'set', Check: { Node: 'tx-node', CheckID: 'web-alive', Name: 'alive', Status: 'passing', ServiceID: 'web-1' } } },
      { KV: { Verb: 'set', Key: 'svc/web', Value: b64('registered') } },
    ]);
    assert.equal(r.status, 200, r.text);
    const [node, svc, check] = r.json.Results;
    assert.equal(node.Node.Node, 'tx-node');
    assert.equal(node.Node.Datacenter, 'dc1');
    assert.equal(svc.Service.ID, 'web-1');
    assert.equal(svc.Service.Port, 8080);
    assert.equal(check.Check.ServiceName, 'web', 'the check takes its service’s name');
    const health = await api('GET', 'health/service/web?passing');
    assert.equal(health.status, 200);
    assert.deepEqual(
      health.json.map((e: { Service: { ID: string } }) => e.Service.ID),
      ['web-1'],
    );

    const get = await txn([{ Service: { Verb: 'get', Node: 'tx-node', Service: { ID: 'web-1' } } }, { Node: { Verb: 'get', Node: { Node: 'tx-node' } } }]);
    assert.equal(get.status, 200, get.text);
    assert.equal(get.json.Results[0].Service.Service, 'web');

    const stale = await txn([
      { Check: { Verb: 'delete', Check: { Node: 'tx-node', CheckID: 'web-alive' } } },
      { Service: { Verb: 'cas', Node: 'tx-node', Service: { ID: 'web-1', Service: 'web', ModifyIndex: 1 } } },
    ]);
    assert.equal(stale.status, 409);
    assert.deepEqual(stale.json.Errors, [{ OpIndex: 1, What: 'failed to set service "web-1" on node "tx-node", index is stale' }]);
    assert.equal((await api('GET', 'health/checks/web')).json.length, 1, 'the check delete was rolled back');

    const orphan = await txn([{ Service: { Verb: 'set', Node: 'nowhere', Service: { Service: 'db' } } }]);
    assert.deepEqual(orphan.json.Errors, [{ OpIndex: 0, What: 'Missing node registration' }]);

    const noService = await txn([{ Check: { Verb: 'set', Check: { Node: 'tx-node', CheckID: 'c2', ServiceID: 'nope' } } }]);
    assert.deepEqual(noService.json.Errors, [{ OpIndex: 0, What: 'Missing service registration' }]);

    // A check stored critical by a transaction ends the sessions tied to it, releasing their locks.
    const guard = await txn([{ Check: { Verb: 'set', Check: { Node: 'tx-node', CheckID: 'guard', Status: 'passing' } } }]);
    assert.equal(guard.status, 200, guard.text);
    const sr = await api('PUT', 'session/create', { body: { Node: 'tx-node', NodeChecks: ['guard'] } });
    assert.equal(sr.status, 200, sr.text);
    assert.equal((await txn([{ KV: { Verb: 'lock', Key: 'tx/held', Session: sr.json.ID } }])).status, 200);
    const fail = await txn([{ Check: { Verb: 'set', Check: { Node: 'tx-node', CheckID: 'guard', Status: 'critical' } } }]);
    assert.equal(fail.status, 200, fail.text);
    assert.deepEqual((await api('GET', `session/info/${sr.json.ID}`)).json, []);
    assert.equal((await entry('tx/held')).Session, undefined);

    const del = await txn([{ Node: { Verb: 'delete', Node: { Node: 'tx-node' } } }]);
    assert.equal(del.status, 200, del.text);
    assert.deepEqual(del.json.Results, []);
    assert.equal((await api('GET', 'catalog/node/tx-node')).json, null);
    assert.deepEqual((await api('GET', 'health/checks/web')).json, []);
  });

  it('refuses more than 128 operations, a body past txn_max_req_len and a value past kv_max_value_size with 413', async () => {
    const many = Array.from({ length: 129 }, (_, i) => ({ KV: { Verb: 'set', Key: `many/${i}` } }));
    const r = await txn(many);
    assert.equal(r.status, 413);
    assert.match(r.text, /Transaction contains too many operations \(129 > 128\)/);
    const ok = await txn(many.slice(0, 128));
    assert.equal(ok.status, 200, ok.text);
    const big = await txn([{ KV: { Verb: 'set', Key: 'big', Value: b64('x'.repeat(20_000)) } }]);
    assert.equal(big.status, 413);
    assert.match(big.text, /Request body\(\d+ bytes\) too large, max size: 16384 bytes/);
    const value = await txn([{ KV: { Verb: 'set', Key: 'big', Value: b64('x'.repeat(65)) } }]);
    assert.equal(value.status, 413);
    assert.match(value.text, /Value for key "big" is too large \(65 > 64 bytes\)/);
    assert.equal(await entry('big'), undefined);
  });

  it('ACL: a token without key write gets the per-operation error and nothing changes', async () => {
    const token = await tokenWith('key_prefix "acl/open/" { policy = "write" }\nkey_prefix "acl/ro/" { policy = "read" }');
    const t = (await api('GET', 'acl/token/self', { token })).json.AccessorID;
    const r = await txn(
      [
        { KV: { Verb: 'set', Key: 'acl/open/a', Value: b64('a') } },
        { KV: { Verb: 'set', Key: 'acl/ro/b', Value: b64('b') } },
        { KV: { Verb: 'delete-tree', Key: 'acl/' } },
      ],
      token,
    );
    assert.equal(r.status, 409, r.text);
    assert.deepEqual(r.json.Errors, [
      { OpIndex: 1, What: `Permission denied: token with AccessorID '${t}' lacks permission 'key:write' on "acl/ro/b"` },
      { OpIndex: 2, What: `Permission denied: token with AccessorID '${t}' lacks permission 'key:write' on "acl/"` },
    ]);
    assert.equal(await entry('acl/open/a'), undefined, 'the permitted write did not happen either');

    // Reads are filtered, not refused.
    for (const k of ['acl/open/x', 'acl/secret/y']) assert.equal((await api('PUT', `kv/${k}`, { raw: 'v' })).status, 200);
    const read = await txn([{ KV: { Verb: 'get-tree', Key: 'acl/' } }], token);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(
      read.json.Results.map((x: { KV: { Key: string } }) => x.KV.Key),
      ['acl/open/x'],
    );
    assert.equal(read.headers.get('x-mesh-results-filtered-by-acls'), 'true');
    const node = await txn([{ Node: { Verb: 'set', Node: { Node: 'n1', Address: '10.0.0.1' } } }], token);
    assert.equal(node.status, 409);
    assert.match(node.json.Errors[0].What, /lacks permission 'node:write' on "n1"/);
  });

  it('malformed bodies: 400 naming the operation and field, nothing stored', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ KV: {} }, /Failed to parse body: the body must be a JSON list/],
      [[{ KV: { Verb: 'frob', Key: 'm/a' } }], /\[0\]\.KV\.Verb must be one of .*not "frob"/],
      [[{ KV: { Verb: 'set', Key: 'm/a' } }, { KV: { Verb: 'set', Key: 7 } }], /\[1\]\.KV\.Key must be a string/],
      [[{ KV: { Verb: 'set', Key: '' } }], /\[0\]\.KV\.Key: Missing key name/],
      [[{ KV: { Verb: 'set', Key: 'm/a', Value: 'not base64!' } }], /\[0\]\.KV\.Value must be base64/],
      [[{ KV: { Verb: 'set', Key: 'm/a', Flags: -1 } }], /\[0\]\.KV\.Flags must be an unsigned integer/],
      [[{ KV: { Verb: 'lock', Key: 'm/a' } }], /\[0\]\.KV\.Session is required for verb lock/],
      [[{}], /\[0\] must hold exactly one of KV, Node, Service, Check/],
      [[{ Node: { Verb: 'set', Node: { Node: 'x' } } }], /\[0\]\.Node\.Node\.Address: Must provide address/],
      [[{ Service: { Verb: 'set', Node: 'x', Service: { Service: 'web', Port: 'http' } } }], /\[0\]\.Service\.Service\.Port must be a number/],
      [[{ Service: { Verb: 'set', Node: 'x', Service: { ID: 'web-1' } } }], /\[0\]\.Service\.Service: Must provide service name with ID/],
      [[{ Check: { Verb: 'set', Check: { Node: 'x' } } }], /\[0\]\.Check\.Check: Missing check ID/],
    ];
    for (const [body, want] of cases) {
      const r = await txn(body);
      assert.equal(r.status, 400, `${JSON.stringify(body)} → ${r.status} ${r.text}`);
      assert.match(r.text, want);
    }
    const notJson = await api('PUT', 'txn', { raw: '[{' });
    assert.equal(notJson.status, 400);
    assert.match(notJson.text, /^Failed to parse body: /);
    assert.equal(await entry('m/a'), undefined);
  });

  it('the OpenAPI document lists PUT /txn', async () => {
    const doc = (await api('GET', 'openapi.json')).json;
    assert.ok(doc.paths['/txn'].put);
    assert.equal(doc.paths['/txn'].get, undefined);
  });

  it('MeshClient.txn: results on success, errors on a rollback', async () => {
    const mesh = new MeshClient({ address: a.url, token: root });
    try {
      const ok = await mesh.txn([{ KV: { Verb: 'set', Key: 'sdk/a', Value: b64('1') } }, { KV: { Verb: 'get', Key: 'sdk/a' } }]);
      assert.equal(ok.errors, undefined);
      assert.equal(text(ok.results[1]!.KV!.Value), '1');
      assert.ok(ok.index > 0);
      const bad = await mesh.txn([{ KV: { Verb: 'cas', Key: 'sdk/a', Value: b64('2'), Index: 1 } }]);
      assert.deepEqual(bad.errors, [{ OpIndex: 0, What: 'failed to set key "sdk/a", index is stale' }]);
      assert.deepEqual(bad.results, []);
    } finally {
      await mesh.close();
    }
  });
});
