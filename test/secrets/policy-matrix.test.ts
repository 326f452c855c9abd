/**
 * The policy matrix over HTTP (reference/secrets.md §5.1–§5.4): one token per capability,
 * every KV v2 operation tried with each, allowed exactly when the capability matches,
 * a write counting as `create` on a new key and `update` on an existing one (the
 * existence check); a denied request changes nothing. Then `+` and `*` patterns.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers.js';

let s: TestServer;
before(async () => (s = await startTestServer()));
after(() => s.close());

const CAPS = ['create', 'read', 'update', 'patch', 'delete', 'list', 'sudo', 'deny'] as const;
const OPS = ['read', 'create', 'update', 'patch', 'delete', 'list'] as const;
type Op = (typeof OPS)[number];

async function tokenWith(name: string, policy: string): Promise<string> {
  assert.equal((await s.call('PUT', `/v1/sys/policies/acl/${name}`, { body: { policy } })).status, 204);
  const r = await s.call('POST', '/v1/auth/token/create', { body: { policies: [name] } });
  assert.equal(r.status, 200, r.text);
  return r.json.auth.client_token;
}

/** The current version of a key as root sees it (0: no such key), and whether its latest version reads. */
async function state(key: string): Promise<{ version: number; readable: boolean }> {
  const meta = await s.call('GET', `/v1/secret/metadata/${key}`);
  const data = await s.call('GET', `/v1/secret/data/${key}`);
  return { version: meta.status === 200 ? meta.json.data.current_version : 0, readable: data.status === 200 };
}

/** Runs `op` against the row's own keys with `token`; returns the status. */
function attempt(op: Op, row: string, token: string) {
  const merge = { 'Content-Type': 'application/merge-patch+json' };
  switch (op) {
    case 'create':
      return s.call('POST', `/v1/secret/data/m/${row}/new`, { token, body: { data: { v: 'new' } } });
    case 'update':
      return s.call('POST', `/v1/secret/data/m/${row}/old`, { token, body: { data: { v: 'updated' } } });
    case 'patch':
      return s.call('PATCH', `/v1/secret/data/m/${row}/old`, { token, headers: merge, body: { data: { p: 'patched' } } });
    case 'read':
      return s.call('GET', `/v1/secret/data/m/${row}/old`, { token });
    case 'delete':
      return s.call('DELETE', `/v1/secret/data/m/${row}/gone`, { token });
    case 'list':
      return s.call('LIST', `/v1/secret/metadata/m/${row}/`, { token });
  }
}

describe('policy matrix: capabilities × KV v2 operations', () => {
  const rows = [...CAPS.map((c) => [c, [c]] as const), ['all', ['create', 'read', 'update', 'patch', 'delete', 'list']] as const];
  for (const [row, caps] of rows) {
    it(`capabilities = ${JSON.stringify(caps)}`, async () => {
      const list = JSON.stringify(caps);
      const token = await tokenWith(
        `only-${row}`,
        `path "secret/data/m/${row}/*" { capabilities = ${list} }\npath "secret/metadata/m/${row}/*" { capabilities = ${list} }`,
      );
      for (const key of ['old', 'gone']) assert.equal((await s.call('POST', `/v1/secret/data/m/${row}/${key}`, { body: { data: { v: 'root' } } })).status, 200);

      for (const op of OPS) {
        const before = { new: await state(`m/${row}/new`), old: await state(`m/${row}/old`), gone: await state(`m/${row}/gone`) };
        const r = await attempt(op, row, token);
        const allowed = (caps as readonly string[]).includes(op);
        const what = `${op} with ${list}: ${r.status} ${r.text}`;
        if (!allowed) {
          assert.equal(r.status, 403, what);
          assert.deepEqual(r.json, { errors: ['permission denied'] }, what);
          assert.deepEqual(
            { new: await state(`m/${row}/new`), old: await state(`m/${row}/old`), gone: await state(`m/${row}/gone`) },
            before,
            `${what}: nothing changed`,
          );
          continue;
        }
        assert.ok(r.status === 200 || r.status === 204, what);
        if (op === 'create') assert.equal((await state(`m/${row}/new`)).version, 1);
        if (op === 'update' || op === 'patch') assert.equal((await state(`m/${row}/old`)).version, before.old.version + 1);
        if (op === 'read') assert.equal(r.json.data.data.v, 'root');
        if (op === 'delete') assert.equal((await state(`m/${row}/gone`)).readable, false);
        if (op === 'list') assert.deepEqual(r.json.data.keys, caps.length > 1 ? ['gone', 'new', 'old'] : ['gone', 'old']);
      }
      // With `create` alone, the key it just made is now an update: refused.
      if (row === 'create') assert.equal((await s.call('POST', `/v1/secret/data/m/create/new`, { token, body: { data: { v: 'again' } } })).status, 403);
    });
  }
});

describe('"+" and "*" in policy paths', () => {
  it('"+" is one whole segment, "*" a prefix of the rest (even inside a segment)', async () => {
    const token = await tokenWith(
      'globs',
      [
        'path "secret/data/teams/+/app" { capabilities = ["read"] }',
        'path "secret/data/pub*" { capabilities = ["read"] }',
        'path "secret/data/+/shared/*" { capabilities = ["read"] }',
        'path "secret/data/x/shared/private" { capabilities = ["deny"] }',
      ].join('\n'),
    );
    const cases: [string, number][] = [
      ['teams/a/app', 200],
      ['teams/b/app', 200],
      ['teams/a/b/app', 403],
      ['teams/a/app/more', 403],
      ['teams/app', 403],
      ['pub', 200],
      ['public/deep/key', 200],
      ['pu', 403],
      ['x/shared/doc', 200],
      ['y/shared/a/b', 200],
      ['x/shared/private', 403],
      ['shared/doc', 403],
    ];
    for (const [key] of cases) await s.call('POST', `/v1/secret/data/${key}`, { body: { data: { key } } });
    for (const [key, status] of cases) {
      const r = await s.call('GET', `/v1/secret/data/${key}`, { token });
      assert.equal(r.status, status, key);
      if (status === 200) assert.equal(r.json.data.data.key, key);
    }
  });
});
