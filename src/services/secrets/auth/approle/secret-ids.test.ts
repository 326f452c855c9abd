// Tests of AppRole secret ID and role storage on a real SQLite file: hashing, expiry,
// use counts (also under concurrency), destroy, listing and the role ID index.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BackendView, SqliteBackend, listRecursive, type Backend } from '../../../../kernel/store/index.js';
import { applyRoleFields } from './role-fields.js';
import { RoleStore } from './roles.js';
import { SecretIdStore } from './secret-ids.js';

let dir: string;
let sqlite: SqliteBackend;
let n = 0;
/** A fresh storage view per test, as a mount would get. */
const view = (): Backend => new BackendView(sqlite, `logical/m${++n}/`);
const NOW = new Date('2026-01-01T00:00:00Z');
const at = (s: number) => new Date(NOW.getTime() + s * 1000);

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-approle-'));
  sqlite = SqliteBackend.open({ path: join(dir, 'a.db') });
});
after(async () => {
  await sqlite.close();
  rmSync(dir, { recursive: true, force: true });
});

async function everyValue(storage: Backend): Promise<string> {
  const keys = await listRecursive(storage, '');
  const values = await Promise.all(keys.map(async (k) => Buffer.from((await storage.get(k))!).toString('utf8')));
  return keys.join('\n') + values.join('\n');
}

describe('SecretIdStore', () => {
  it('stores only a hash and logs in until the uses run out', async () => {
    const storage = view();
    const ids = new SecretIdStore(storage, 'm');
    const issued = await ids.issue('r1', { ttlS: 0, numUses: 2 }, NOW);
    assert.match(issued.secret_id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.deepEqual([issued.secret_id_ttl, issued.secret_id_num_uses], [0, 2]);
    assert.ok(!(await everyValue(storage)).includes(issued.secret_id), 'the secret ID is not stored in clear');
    assert.equal(await ids.consume('r2', issued.secret_id, NOW), undefined, 'bound to its role');
    assert.ok(await ids.consume('r1', issued.secret_id, NOW));
    assert.deepEqual(await ids.accessors('r1', NOW), [issued.secret_id_accessor]);
    assert.ok(await ids.consume('r1', issued.secret_id, NOW));
    assert.equal(await ids.consume('r1', issued.secret_id, NOW), undefined, 'two uses only');
    assert.deepEqual(await listRecursive(storage, ''), [], 'the last use deletes it');
  });

  it('never admits more concurrent logins than uses', async () => {
    const ids = new SecretIdStore(view(), 'm');
    const issued = await ids.issue('r', { ttlS: 0, numUses: 3 }, NOW);
    const results = await Promise.all(Array.from({ length: 10 }, () => ids.consume('r', issued.secret_id, NOW)));
    assert.equal(results.filter(Boolean).length, 3);
  });

  it('expires at its TTL and is then deleted', async () => {
    const storage = view();
    const ids = new SecretIdStore(storage, 'm');
    const a = await ids.issue('r', { ttlS: 60, numUses: 0 }, NOW);
    const b = await ids.issue('r', { ttlS: 60, numUses: 0 }, NOW);
    assert.ok(await ids.consume('r', a.secret_id, at(59)));
    assert.equal(await ids.consume('r', a.secret_id, at(60)), undefined);
    assert.deepEqual(await ids.accessors('r', at(59)), [b.secret_id_accessor]);
    assert.deepEqual(await ids.accessors('r', at(61)), [], 'listing drops expired ones');
    assert.deepEqual(await listRecursive(storage, ''), []);
  });

  it('destroys one, or all of a role', async () => {
    const storage = view();
    const ids = new SecretIdStore(storage, 'm');
    const a = await ids.issue('r', { ttlS: 0, numUses: 0 }, NOW);
    const b = await ids.issue('r', { ttlS: 0, numUses: 0 }, NOW);
    await ids.destroy('r', a.secret_id);
    await ids.destroy('r', 'not-a-secret-id');
    assert.equal(await ids.consume('r', a.secret_id, NOW), undefined);
    assert.deepEqual(await ids.accessors('r', NOW), [b.secret_id_accessor]);
    await ids.destroyAll('r');
    assert.deepEqual(await listRecursive(storage, ''), []);
  });
});

describe('SecretIdStore: custom secret IDs, accessors, tidy', () => {
  it('registers a custom secret ID once per role, hashed', async () => {
    const storage = view();
    const ids = new SecretIdStore(storage, 'm');
    const limits = { ttlS: 0, numUses: 0, metadata: { k: 'v' } };
    const c = await ids.issue('r', limits, NOW, 'custom-value-1');
    assert.equal(c.secret_id, 'custom-value-1');
    await assert.rejects(ids.issue('r', limits, NOW, 'custom-value-1'), { message: 'SecretID is already registered' });
    assert.ok(await ids.issue('other', limits, NOW, 'custom-value-1'), 'another role may have the same value');
    assert.ok(!(await everyValue(storage)).includes('custom-value-1'));
    assert.deepEqual((await ids.lookup('r', 'custom-value-1', NOW))?.metadata, { k: 'v' });
  });

  it('looks up and destroys by accessor, only within the role', async () => {
    const ids = new SecretIdStore(view(), 'm');
    const a = await ids.issue('r', { ttlS: 0, numUses: 0 }, NOW);
    assert.equal((await ids.lookupAccessor('r', a.secret_id_accessor, NOW))?.accessor, a.secret_id_accessor);
    assert.equal(await ids.lookupAccessor('other', a.secret_id_accessor, NOW), undefined);
    assert.equal(await ids.destroyAccessor('other', a.secret_id_accessor), false);
    assert.equal(await ids.destroyAccessor('r', a.secret_id_accessor), true);
    assert.equal(await ids.lookup('r', a.secret_id, NOW), undefined);
    assert.equal(await ids.destroyAccessor('r', a.secret_id_accessor), false);
  });

  it('tidy deletes expired secret IDs and dangling index entries, nothing live', async () => {
    const storage = view();
    const ids = new SecretIdStore(storage, 'm');
    await ids.issue('r', { ttlS: 10, numUses: 0 }, NOW);
    const live = await ids.issue('r', { ttlS: 0, numUses: 0 }, NOW);
    await storage.put('accessor/r/dangling', Buffer.from('no-such-hash'));
    assert.equal(await ids.tidy(at(11)), 2);
    assert.deepEqual(
      (await listRecursive(storage, 'accessor/')).map((k) => k.split('/')[2]),
      [live.secret_id_accessor],
    );
    assert.equal((await listRecursive(storage, 'secret_id/')).length, 1);
  });
});

describe('RoleStore', () => {
  it('finds roles by role ID and keeps the index in step with changes', async () => {
    const roles = new RoleStore(view(), 'm');
    const web = await roles.update('web', (c) => applyRoleFields({ token_policies: 'web' }, c));
    assert.equal((await roles.byRoleId(web.role_id))?.name, 'web');
    await roles.update('web', (c) => ({ ...c!, role_id: 'custom-id' }));
    assert.equal(await roles.byRoleId(web.role_id), undefined, 'the old role ID no longer logs in');
    assert.equal((await roles.byRoleId('custom-id'))?.role.token_policies[0], 'web');
    await roles.update('db', (c) => applyRoleFields({}, c));
    await assert.rejects(
      roles.update('db', (c) => ({ ...c!, role_id: 'custom-id' })),
      /role_id: already in use/,
    );
    assert.deepEqual(await roles.list(), ['db', 'web']);
    assert.equal((await roles.delete('web'))?.role_id, 'custom-id');
    assert.equal(await roles.byRoleId('custom-id'), undefined);
    assert.equal(await roles.delete('web'), undefined);
  });
});
