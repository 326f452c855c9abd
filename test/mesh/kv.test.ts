/**
 * The key/value store over real HTTP against an in-process agent (issue 16 scope 4):
 * put/get/raw/recurse/keys with a separator, check-and-set, flags, deletes, 404 with an
 * index, blocking queries on a key and on a prefix, the value size limit, ACL filtering
 * of recursive reads and refused writes (locks with sessions: sessions.test.ts).
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { call, startAgent, type TestAgent } from './helpers.js';

describe('KV store', () => {
  let a: TestAgent;
  let root: string;
  const kv = (method: string, path: string, o: { raw?: string; token?: string | null; headers?: Record<string, string> } = {}) =>
    call(a.url, method, `/v1/kv/${path}`, { raw: o.raw, token: o.token === null ? undefined : (o.token ?? root), headers: o.headers });
  const put = async (path: string, raw?: string) => {
    const r = await kv('PUT', path, { raw });
    assert.equal(r.status, 200, r.text);
    return r.json as boolean;
  };
  const tokenWith = async (rules: string) => {
    const p = await call(a.url, 'PUT', '/v1/acl/policy', { token: root, body: { Name: `p${Math.random().toString(36).slice(2, 10)}`, Rules: rules } });
    assert.equal(p.status, 200, p.text);
    const t = await call(a.url, 'PUT', '/v1/acl/token', { token: root, body: { Policies: [{ ID: p.json.ID }] } });
    assert.equal(t.status, 200, t.text);
    return t.json.SecretID as string;
  };

  before(async () => {
    a = await startAgent({}, { kvMaxValueSize: 1024 });
    root = (await call(a.url, 'PUT', '/v1/acl/bootstrap')).json.SecretID;
  });
  after(() => a.stop());

  it('put then get: the entry in the reference shape, the value base64, the index headers', async () => {
    assert.equal(await put('cfg/db/url', 'postgres://db'), true);
    const r = await kv('GET', 'cfg/db/url');
    assert.equal(r.status, 200);
    const [e] = r.json;
    assert.deepEqual(Object.keys(e), ['LockIndex', 'Key', 'Flags', 'Value', 'CreateIndex', 'ModifyIndex']);
    assert.equal(e.Key, 'cfg/db/url');
    assert.equal(Buffer.from(e.Value, 'base64').toString(), 'postgres://db');
    assert.equal(e.LockIndex, 0);
    assert.equal(e.Flags, 0);
    assert.equal(e.CreateIndex, e.ModifyIndex);
    assert.equal(r.headers.get('x-mesh-index'), String(e.ModifyIndex));
    assert.equal(r.headers.get('x-mesh-knownleader'), 'true');
    assert.equal(r.headers.get('x-mesh-lastcontact'), '0');

    assert.equal(await put('cfg/db/url', 'postgres://db2'), true);
    const [again] = (await kv('GET', 'cfg/db/url')).json;
    assert.equal(again.CreateIndex, e.CreateIndex, 'an update keeps CreateIndex');
    assert.ok(again.ModifyIndex > e.ModifyIndex);
  });

  it('?raw gives the bytes with the reference headers; an empty value is null', async () => {
    await put('raw/bin', '<b>hi</b>');
    const r = await kv('GET', 'raw/bin?raw');
    assert.equal(r.status, 200);
    assert.equal(r.text, '<b>hi</b>');
    assert.equal(r.headers.get('content-type'), 'text/plain');
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(r.headers.get('content-security-policy'), 'sandbox');
    assert.ok(Number(r.headers.get('x-mesh-index')) > 0);
    await put('raw/empty');
    assert.equal((await kv('GET', 'raw/empty')).json[0].Value, null);
    assert.equal((await kv('GET', 'raw/empty?raw')).text, '');
  });

  it('keys ending in "/" or "." are keys of their own', async () => {
    await put('dir/', 'folder');
    await put('dir/a.', 'dot');
    assert.equal((await kv('GET', 'dir/')).json[0].Key, 'dir/');
    assert.equal((await kv('GET', 'dir/a.?raw')).text, 'dot');
    assert.equal((await kv('GET', 'dir')).status, 404, '"dir" is not "dir/"');
  });

  it('?recurse lists a prefix in key order; ?keys rolls up after the separator', async () => {
    for (const k of ['tree/a', 'tree/b/c', 'tree/b/d', 'tree/e/f/g', 'trees']) await put(k, k);
    const rec = await kv('GET', 'tree/?recurse');
    assert.deepEqual(
      rec.json.map((e: { Key: string }) => e.Key),
      ['tree/a', 'tree/b/c', 'tree/b/d', 'tree/e/f/g'],
    );
    assert.equal(rec.headers.get('x-mesh-index'), String(Math.max(...rec.json.map((e: { ModifyIndex: number }) => e.ModifyIndex))));
    assert.deepEqual((await kv('GET', 'tree/?keys')).json, ['tree/a', 'tree/b/c', 'tree/b/d', 'tree/e/f/g']);
    assert.deepEqual((await kv('GET', 'tree/?keys&separator=/')).json, ['tree/a', 'tree/b/', 'tree/e/']);
    assert.deepEqual((await kv('GET', 'tree?keys&separator=/')).json, ['tree/', 'trees']);
    assert.deepEqual((await kv('GET', 'tree/?keys&seperator=/')).json, ['tree/a', 'tree/b/', 'tree/e/'], 'the historic spelling');
    const none = await kv('GET', 'nothing/?keys');
    assert.equal(none.status, 404);
    assert.equal((await kv('GET', 'nothing/?recurse')).status, 404);
  });

  it('a missing key: 404, empty body, X-Mesh-Index; an empty key name: 400', async () => {
    const r = await kv('GET', 'no/such/key');
    assert.equal(r.status, 404);
    assert.equal(r.text, '');
    assert.ok(Number(r.headers.get('x-mesh-index')) >= 1);
    const empty = await kv('GET', '');
    assert.equal(empty.status, 400);
    assert.equal(empty.text, 'Missing key name');
    assert.equal((await kv('PUT', '', { raw: 'x' })).text, 'Missing key name');
    assert.equal((await kv('DELETE', '')).text, 'Missing key name');
    const nul = await kv('PUT', 'a%00b', { raw: 'x' });
    assert.equal(nul.status, 400);
    assert.equal(nul.text, 'invalid request path: names and paths must not contain NUL characters (U+0000)');
    assert.equal((await kv('GET', 'a%00b')).status, 400);
    const badWait = await kv('GET', 'no/such/key?wait=-1');
    assert.deepEqual([badWait.status, badWait.text], [400, 'Invalid wait time'], 'a bad wait is refused before the key is looked up');
  });

  it('a key with a "." or ".." segment (sent as is, as curl --path-as-is does): 400 naming the key, nothing stored or deleted', async () => {
    await put('dots/kept', 'v');
    /** `method` on `/v1/kv/<rawKey>` with the path as given (fetch would normalise the dot segments away). */
    const raw = (method: string, rawKey: string) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const u = new URL(a.url);
        const req = request({ host: u.hostname, port: u.port, method, path: `/v1/kv/${rawKey}`, headers: { 'X-Mesh-Token': root } }, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        });
        req.on('error', reject);
        req.end(method === 'PUT' ? 'stored?' : undefined);
      });
    for (const [rawKey, key] of [
      ['..', '..'],
      ['%2e%2e', '..'],
      ['dots/..%2f..%2fsys', 'dots/../../sys'],
      ['dots/./kept', 'dots/./kept'],
      ['dots/kept/..', 'dots/kept/..'],
    ])
      for (const method of ['PUT', 'DELETE', 'GET']) {
        const r = await raw(method, rawKey);
        assert.deepEqual([r.status, r.text], [400, `Invalid key name ${JSON.stringify(key)}: "." and ".." segments are not allowed`], `${method} ${rawKey}`);
      }
    assert.deepEqual(
      (await kv('GET', '?keys')).json.filter((k: string) => k.startsWith('dots') || k.startsWith('..')),
      ['dots/kept'],
    );
    assert.equal(await put('dots/a.b/..c', 'dots inside names are keys like any'), true);
  });

  it('cas=0 creates only; a stale cas answers false and changes nothing; flags are kept', async () => {
    const created = await kv('PUT', 'lock/x?cas=0&flags=42', { raw: 'one' });
    assert.equal(created.json, true);
    assert.equal((await kv('PUT', 'lock/x?cas=0', { raw: 'two' })).json, false);
    const [e] = (await kv('GET', 'lock/x')).json;
    assert.equal(e.Flags, 42);
    assert.equal(Buffer.from(e.Value, 'base64').toString(), 'one');
    const stale = await kv('PUT', `lock/x?cas=${e.ModifyIndex - 1}`, { raw: 'three' });
    assert.equal(stale.status, 200);
    assert.equal(stale.json, false);
    const [same] = (await kv('GET', 'lock/x')).json;
    assert.deepEqual(same, e, 'nothing changed');
    assert.equal((await kv('PUT', `lock/x?cas=${e.ModifyIndex}`, { raw: 'four' })).json, true);
    assert.equal((await kv('GET', 'lock/x?raw')).text, 'four');
    const bad = await kv('PUT', 'lock/x?flags=abc', { raw: 'x' });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /^Invalid flags "abc"/);
    const both = await kv('PUT', 'lock/x?cas=0&acquire=s', { raw: 'x' });
    assert.equal(both.status, 400);
    assert.equal(both.text, 'Conflicting flags: acquire=s&cas=0');
  });

  it('acquire with an unknown session: 400 invalid session, nothing stored', async () => {
    const r = await kv('PUT', 'sess/k?acquire=0b7a1a2c-0000-4000-8000-000000000000', { raw: 'x' });
    assert.equal(r.status, 400);
    assert.equal(r.text, 'invalid session "0b7a1a2c-0000-4000-8000-000000000000"');
    assert.equal((await kv('GET', 'sess/k')).status, 404);
  });

  it('delete: one key, cas (stale → false), recurse; deleting a missing key with cas is true', async () => {
    for (const k of ['del/a', 'del/b', 'del/c/d', 'delx']) await put(k, 'v');
    assert.equal((await kv('DELETE', 'del/a')).json, true);
    assert.equal((await kv('GET', 'del/a')).status, 404);
    const [b] = (await kv('GET', 'del/b')).json;
    assert.equal((await kv('DELETE', `del/b?cas=${b.ModifyIndex + 1000}`)).json, false);
    assert.equal((await kv('GET', 'del/b')).status, 200);
    assert.equal((await kv('DELETE', `del/b?cas=${b.ModifyIndex}`)).json, true);
    assert.equal((await kv('DELETE', 'del/gone?cas=5')).json, true);
    assert.equal((await kv('DELETE', 'del/?recurse')).json, true);
    assert.equal((await kv('GET', 'del/?recurse')).status, 404);
    assert.equal((await kv('GET', 'delx')).status, 200, 'outside the prefix');
    assert.equal((await kv('DELETE', 'del/?recurse&cas=1')).text, 'Conflicting flags: cas=1&recurse=');
  });

  it('a blocking query on a key returns when the key changes, not when another does', async () => {
    await put('watch/key', 'v1');
    const first = await kv('GET', 'watch/key');
    const index = first.headers.get('x-mesh-index');
    const started = Date.now();
    const blocked = kv('GET', `watch/key?index=${index}&wait=5s`);
    await new Promise((r) => setTimeout(r, 100));
    await put('watch/other', 'unrelated');
    await new Promise((r) => setTimeout(r, 100));
    await put('watch/key', 'v2');
    const r = await blocked;
    assert.ok(Date.now() - started < 4000, 'woken by the put, not the timeout');
    assert.equal(Buffer.from(r.json[0].Value, 'base64').toString(), 'v2');
    assert.ok(Number(r.headers.get('x-mesh-index')) > Number(index));
  });

  it('a blocking query on a prefix returns when a key under it is deleted; the index never goes back', async () => {
    await put('pfx/a', '1');
    await put('pfx/b', '2');
    const first = await kv('GET', 'pfx/?recurse');
    const index = Number(first.headers.get('x-mesh-index'));
    const blocked = kv('GET', `pfx/?recurse&index=${index}&wait=5s`);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal((await kv('DELETE', 'pfx/a')).json, true);
    const r = await blocked;
    assert.deepEqual(
      r.json.map((e: { Key: string }) => e.Key),
      ['pfx/b'],
    );
    const after = Number(r.headers.get('x-mesh-index'));
    assert.ok(after > index, `index ${after} after the delete passes ${index}`);
  });

  it('a blocking query times out with the same index when nothing under it changes', async () => {
    await put('quiet/k', 'v');
    const index = (await kv('GET', 'quiet/k')).headers.get('x-mesh-index');
    const started = Date.now();
    const blocked = kv('GET', `quiet/k?index=${index}&wait=300ms`);
    await put('loud/k', 'v');
    const r = await blocked;
    const waited = Date.now() - started;
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('x-mesh-index'), index);
    // The wait was honoured (a lower bound, never a speed check): a server ignoring `index`
    // answers at once with the same index, which the checks above alone would pass.
    assert.ok(waited >= 250, `the query waited ${waited} ms of its 300 ms`);
  });

  it('a value over the limit: 413 with the reference text, nothing stored', async () => {
    const r = await kv('PUT', 'big/v', { raw: 'x'.repeat(1025) });
    assert.equal(r.status, 413);
    assert.equal(r.text, 'Value exceeds 1024 byte limit');
    assert.equal((await kv('GET', 'big/v')).status, 404);
    assert.equal(await put('big/v', 'x'.repeat(1024)), true);
  });

  it('ACL: recursive reads are filtered per key with the header; a single read needs key:read', async () => {
    for (const k of ['acl/open/a', 'acl/open/b', 'acl/secret/c']) await put(k, 'v');
    const reader = await tokenWith('key_prefix "acl/open/" { policy = "read" }');
    const rec = await kv('GET', 'acl/?recurse', { token: reader });
    assert.equal(rec.status, 200);
    assert.deepEqual(
      rec.json.map((e: { Key: string }) => e.Key),
      ['acl/open/a', 'acl/open/b'],
    );
    assert.equal(rec.headers.get('x-mesh-results-filtered-by-acls'), 'true');
    const keys = await kv('GET', 'acl/?keys&separator=/', { token: reader });
    assert.deepEqual(keys.json, ['acl/open/']);
    assert.equal(keys.headers.get('x-mesh-results-filtered-by-acls'), 'true');
    const unfiltered = await kv('GET', 'acl/open/?recurse', { token: reader });
    assert.equal(unfiltered.headers.get('x-mesh-results-filtered-by-acls'), null);
    const denied = await kv('GET', 'acl/secret/c', { token: reader });
    assert.equal(denied.status, 403);
    assert.match(denied.text, /^Permission denied: token with AccessorID '[0-9a-f-]+' lacks permission 'key:read' on "acl\/secret\/c"$/);
    assert.equal((await kv('GET', 'acl/secret/missing', { token: reader })).status, 403, 'a missing key is no answer to a token that may not read it');
    const anonymous = await kv('GET', 'acl/open/a', { token: null });
    assert.equal(anonymous.status, 403);
  });

  it('ACL: a write needs key:write (403, nothing stored); a recursive delete needs write on the whole prefix', async () => {
    const reader = await tokenWith('key_prefix "w/" { policy = "read" }');
    const r = await kv('PUT', 'w/k', { raw: 'x', token: reader });
    assert.equal(r.status, 403);
    assert.match(r.text, /lacks permission 'key:write' on "w\/k"$/);
    assert.equal((await kv('GET', 'w/k')).status, 404);
    await put('w/keep/x', 'v');
    await put('w/free/y', 'v');
    const writer = await tokenWith('key_prefix "w/" { policy = "write" }\nkey_prefix "w/keep/" { policy = "read" }');
    assert.equal((await kv('PUT', 'w/free/z', { raw: 'x', token: writer })).json, true);
    const tree = await kv('DELETE', 'w/?recurse', { token: writer });
    assert.equal(tree.status, 403);
    assert.match(tree.text, /lacks permission 'key:write' on "w\/"$/);
    assert.equal((await kv('GET', 'w/keep/x')).status, 200, 'nothing deleted');
    assert.equal((await kv('DELETE', 'w/free/?recurse', { token: writer })).json, true);
    assert.equal((await kv('GET', 'w/free/y')).status, 404);
  });
});

describe('KV store with enable_key_list_policy', () => {
  let a: TestAgent;
  let root: string;
  before(async () => {
    a = await startAgent({ enableKeyListPolicy: true });
    root = (await call(a.url, 'PUT', '/v1/acl/bootstrap')).json.SecretID;
  });
  after(() => a.stop());

  it('?recurse and ?keys need key:list on the prefix; read alone is refused', async () => {
    await call(a.url, 'PUT', '/v1/kv/lp/a', { token: root, raw: 'v' });
    const mk = async (policy: string) => {
      const p = await call(a.url, 'PUT', '/v1/acl/policy', { token: root, body: { Name: `lp-${policy}`, Rules: `key_prefix "lp/" { policy = "${policy}" }` } });
      return (await call(a.url, 'PUT', '/v1/acl/token', { token: root, body: { Policies: [{ ID: p.json.ID }] } })).json.SecretID as string;
    };
    const reader = await mk('read');
    const lister = await mk('list');
    const refused = await call(a.url, 'GET', '/v1/kv/lp/?recurse', { token: reader });
    assert.equal(refused.status, 403);
    assert.match(refused.text, /lacks permission 'key:list' on "lp\/"$/);
    assert.equal((await call(a.url, 'GET', '/v1/kv/lp/a', { token: reader })).status, 200);
    assert.deepEqual((await call(a.url, 'GET', '/v1/kv/lp/?keys', { token: lister })).json, ['lp/a']);
  });
});

describe('KV store with ACLs off', () => {
  let a: TestAgent;
  before(async () => {
    a = await startAgent({ enabled: false });
  });
  after(() => a.stop());

  it('?dc naming an unknown datacenter: 500 No path to datacenter, nothing stored', async () => {
    const r = await call(a.url, 'PUT', '/v1/kv/elsewhere?dc=dc9', { raw: 'v' });
    assert.equal(r.status, 500);
    assert.equal(r.text, 'No path to datacenter');
    assert.equal((await call(a.url, 'GET', '/v1/kv/elsewhere?dc=dc1')).status, 404, 'this datacenter is served here');
  });

  it('every request may read and write; ?ns is refused without the enterprise switch', async () => {
    assert.equal((await call(a.url, 'PUT', '/v1/kv/open', { raw: 'v' })).json, true);
    assert.equal((await call(a.url, 'GET', '/v1/kv/open?raw')).text, 'v');
    const ns = await call(a.url, 'GET', '/v1/kv/open?ns=team');
    assert.equal(ns.status, 400);
    assert.equal(ns.text, 'Invalid query parameter: "ns" - Namespaces are a Consul Enterprise feature');
  });
});

describe('KV store with the enterprise switch', () => {
  let a: TestAgent;
  let root: string;
  before(async () => {
    a = await startAgent({}, { enterprise: true });
    root = (await call(a.url, 'PUT', '/v1/acl/bootstrap')).json.SecretID;
    assert.equal((await call(a.url, 'PUT', '/v1/namespace', { token: root, body: { Name: 'team' } })).status, 200);
  });
  after(() => a.stop());

  it('each namespace has its own keys; entries show their Namespace', async () => {
    await call(a.url, 'PUT', '/v1/kv/shared/k', { token: root, raw: 'default' });
    await call(a.url, 'PUT', '/v1/kv/shared/k?ns=team', { token: root, raw: 'team' });
    await call(a.url, 'PUT', '/v1/kv/shared/only-team', { token: root, raw: 't', headers: { 'X-Mesh-Namespace': 'team' } });
    const [d] = (await call(a.url, 'GET', '/v1/kv/shared/k', { token: root })).json;
    assert.equal(d.Namespace, 'default');
    assert.deepEqual(Object.keys(d), ['LockIndex', 'Key', 'Flags', 'Value', 'Namespace', 'CreateIndex', 'ModifyIndex']);
    assert.equal((await call(a.url, 'GET', '/v1/kv/shared/k?ns=team&raw', { token: root })).text, 'team');
    assert.deepEqual((await call(a.url, 'GET', '/v1/kv/?keys', { token: root })).json, ['shared/k']);
    assert.deepEqual((await call(a.url, 'GET', '/v1/kv/?keys&ns=team', { token: root })).json, ['shared/k', 'shared/only-team']);
    assert.equal((await call(a.url, 'DELETE', '/v1/kv/?recurse&ns=team', { token: root })).json, true);
    assert.equal((await call(a.url, 'GET', '/v1/kv/shared/k?raw', { token: root })).text, 'default', 'another namespace is untouched');
    const unknown = await call(a.url, 'GET', '/v1/kv/shared/k?ns=nope', { token: root });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.text, 'Namespace "nope" does not exist');
  });
});

describe('KV tombstones', () => {
  let a: TestAgent;
  let clock = Date.now();
  before(async () => {
    a = await startAgent({ enabled: false }, {}, { now: () => clock, tombstoneReapIntervalMs: 50 });
  });
  after(() => a.stop());

  it('a delete leaves a tombstone that the leader reaps after 15 minutes; the prefix index never goes back', async () => {
    await call(a.url, 'PUT', '/v1/kv/t/a', { raw: '1' });
    await call(a.url, 'PUT', '/v1/kv/t/b', { raw: '2' });
    await call(a.url, 'DELETE', '/v1/kv/t/b');
    const afterDelete = Number((await call(a.url, 'GET', '/v1/kv/t/?recurse')).headers.get('x-mesh-index'));
    assert.equal(a.state.count('kv-tombstones'), 1);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(a.state.count('kv-tombstones'), 1, 'kept while young');
    clock += 15 * 60_000 + 1000;
    for (let i = 0; i < 100 && a.state.count('kv-tombstones') > 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(a.state.count('kv-tombstones'), 0, 'reaped');
    const afterReap = Number((await call(a.url, 'GET', '/v1/kv/t/?recurse')).headers.get('x-mesh-index'));
    assert.ok(afterReap >= afterDelete, `index ${afterReap} did not go back from ${afterDelete}`);
  });
});
