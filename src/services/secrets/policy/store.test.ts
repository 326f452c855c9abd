// Tests of PolicyStore on a real SQLite file: the built-in root and default policies,
// name normalisation, refusals that change nothing, and cache invalidation on writes.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CairnError } from '../../../kernel/http/index.js';
import { SqliteBackend } from '../../../kernel/store/index.js';
import { DEFAULT_POLICY_TEXT, PolicyStore } from './store.js';

let dir: string;
let backend: SqliteBackend;
let store: PolicyStore;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-policy-'));
  backend = SqliteBackend.open({ path: join(dir, 'p.db') });
  store = await PolicyStore.open(backend);
});
after(async () => {
  await backend.close();
  rmSync(dir, { recursive: true, force: true });
});

async function rejects(p: Promise<unknown>, message: string): Promise<void> {
  await assert.rejects(p, (err: unknown) => err instanceof CairnError && err.status === 400 && err.message === message);
}

describe('PolicyStore', () => {
  it('creates the default policy on first start and keeps a rewritten one on the next', async () => {
    assert.deepEqual(await store.list(), ['default']);
    assert.deepEqual(await store.get('default'), { name: 'default', policy: DEFAULT_POLICY_TEXT });
    const acl = await store.acl(['default']);
    assert.equal(acl.allowed('auth/token/lookup-self', 'read'), true);
    assert.equal(acl.allowed('auth/token/renew-self', 'update'), true);
    assert.equal(acl.allowed('auth/token/revoke-self', 'update'), true);
    assert.equal(acl.allowed('sys/capabilities-self', 'update'), true);
    assert.equal(acl.allowed('auth/token/create', 'update'), false);

    await store.set('default', 'path "auth/token/lookup-self" { capabilities = ["read"] }');
    const reopened = await PolicyStore.open(backend);
    assert.match((await reopened.get('default'))!.policy, /^path "auth\/token\/lookup-self"/);
    await store.set('default', DEFAULT_POLICY_TEXT);
  });

  it('serves root without storing it', async () => {
    assert.deepEqual(await store.get('root'), { name: 'root', policy: '' });
    assert.equal(await store.exists('ROOT'), true);
    assert.equal((await store.acl(['default', 'root'])).root, true);
    assert.deepEqual(await store.list(), ['default']);
  });

  it('lower-cases names', async () => {
    await store.set(' Web ', 'path "secret/*" { capabilities = ["read"] }');
    assert.equal(await store.exists('WEB'), true);
    assert.equal((await store.get('wEb'))?.name, 'web');
    assert.deepEqual(await store.list(), ['default', 'web']);
    await store.delete('WEB');
    assert.equal(await store.exists('web'), false);
  });

  it('refuses bad writes and changes nothing', async () => {
    await store.set('app', 'path "a" { capabilities = ["read"] }');
    await rejects(store.set('app', 'path "a" { capabilities = ["fly"] }'), 'failed to parse policy: path "a": invalid capability "fly"');
    await rejects(store.set('app', '  \n'), "'policy' parameter not supplied or empty");
    await rejects(store.set('app', 'path "a" {'), 'failed to parse policy: line 1, column 12: object expected closing RBRACE got: EOF');
    assert.equal((await store.get('app'))?.policy, 'path "a" { capabilities = ["read"] }');
    await rejects(store.set('root', 'path "a" { capabilities = ["read"] }'), 'cannot update "root" policy');
    await rejects(store.delete('root'), 'cannot delete "root" policy');
    await rejects(store.delete('Default'), 'cannot delete default policy');
    assert.equal(await store.exists('default'), true);
    await store.delete('app');
    await store.delete('app');
  });

  it('ignores policies that do not exist and recompiles after writes', async () => {
    const before = await store.acl(['ops', 'missing']);
    assert.equal(before.allowed('secret/x', 'read'), false);
    assert.equal(await store.acl(['missing', 'ops']), before, 'cached per set of names, in any order');
    await store.set('ops', 'path "secret/*" { capabilities = ["read"] }');
    assert.equal((await store.acl(['ops', 'missing'])).allowed('secret/x', 'read'), true);
    await store.set('ops', 'path "secret/*" { capabilities = ["deny"] }');
    assert.equal((await store.acl(['ops'])).allowed('secret/x', 'read'), false);
    await store.delete('ops');
  });
});
