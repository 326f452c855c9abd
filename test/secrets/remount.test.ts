/**
 * `sys/remount` and `sys/remount/status/:migration_id` over HTTP against a real secrets
 * service: the reference's answer shapes (the migration id also at the top level), a move
 * inside a namespace (data follows, the status names the namespace), the 400s naming
 * what is wrong, none of which changes the mount table, and the stored statuses: kept for a
 * day (an injected clock), then gone from storage once the next move is recorded.
 * (The CLI's `secrets move`, leases and `sudo`: test/cli-secrets.e2e.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { startTestServer, type TestServer } from '../helpers.js';

let s: TestServer;
before(async () => (s = await startTestServer()));
after(() => s.close());

const ns = (n: string) => ({ 'X-Secrets-Namespace': n });

describe('sys/remount', () => {
  it('moves a mount inside a namespace; the status names the namespace', async () => {
    assert.equal((await s.call('POST', '/v1/sys/namespaces/team')).status, 200);
    assert.equal((await s.call('POST', '/v1/sys/mounts/kv', { body: { type: 'kv-v2' }, headers: ns('team') })).status, 204);
    assert.equal((await s.call('PUT', '/v1/team/kv/data/app', { body: { data: { k: 'v' } } })).status, 200);

    const r = await s.call('POST', '/v1/sys/remount', { body: { from: 'kv', to: 'kv-new/' }, headers: ns('team') });
    assert.equal(r.status, 200, r.text);
    const id = r.json.data.migration_id as string;
    assert.match(id, /^[0-9a-f-]{36}$/);
    assert.equal(r.json.migration_id, id, 'top-level copy, as the reference');

    const status = await s.call('GET', `/v1/team/sys/remount/status/${id}`);
    assert.equal(status.status, 200, status.text);
    assert.deepEqual(status.json.data.migration_info, { source_mount: 'team/kv/', target_mount: 'team/kv-new/', status: 'success' });
    const read = await s.call('GET', '/v1/team/kv-new/data/app');
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.json.data.data, { k: 'v' });
    assert.equal((await s.call('GET', '/v1/team/kv/data/app')).status, 404);
    const mounts = (await s.call('GET', '/v1/sys/mounts', { headers: ns('team') })).json.data;
    assert.equal(mounts['kv/'], undefined);
    assert.deepEqual(mounts['kv-new/'].options, { version: '2' });
  });

  it('refuses bad input with a 400 naming the problem, changing nothing', async () => {
    assert.equal((await s.call('POST', '/v1/sys/namespaces/child')).status, 200);
    const before = (await s.call('GET', '/v1/sys/mounts')).json.data;
    const cases: [unknown, RegExp][] = [
      [{ to: 'x' }, /from/],
      [{ from: 'secret' }, /to/],
      [{ from: ' ', to: 'x' }, /both 'from' and 'to' path must be specified as a string/],
      [{ from: 'secret', to: 'child/kv' }, /already in use by namespace "child\/"/],
      [{ from: 'secret', to: 'cubbyhole/x' }, /reserved/],
      [{ from: 'cubbyhole', to: 'box' }, /cannot remount "cubbyhole\/"/],
      [{ from: 'auth/token', to: 'tokens' }, /cannot remount "auth\/token\/"/],
      [{ from: 'secret/', to: 'secret/inner' }, /path is already in use at secret\//],
    ];
    for (const [body, reason] of cases) {
      const r = await s.call('POST', '/v1/sys/remount', { body });
      assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
      assert.match(r.json.errors.join(' '), reason, JSON.stringify(body));
    }
    assert.deepEqual((await s.call('GET', '/v1/sys/mounts')).json.data, before);
    const unknown = await s.call('GET', '/v1/sys/remount/status/no-such-id');
    assert.equal(unknown.status, 400);
    assert.match(unknown.json.errors[0], /no migration found for id no-such-id/);
  });
});

describe('sys/remount statuses', () => {
  let nowMs = Date.parse('2030-01-01T00:00:00Z');
  let t: TestServer;
  before(async () => (t = await startTestServer({ clock: () => new Date(nowMs) })));
  after(() => t.close());

  /** The stored keys of migration records (key names are not encrypted; values are). */
  const storedRecords = (): string[] => {
    const db = new Database(t.dbPath, { readonly: true });
    try {
      return (db.prepare("SELECT k FROM kv WHERE k LIKE 'core/remount/%' ORDER BY k").all() as { k: string }[]).map((r) => r.k);
    } finally {
      db.close();
    }
  };
  const move = async (from: string, to: string): Promise<string> => {
    const r = await t.call('POST', '/v1/sys/remount', { body: { from, to } });
    assert.equal(r.status, 200, r.text);
    return r.json.data.migration_id as string;
  };
  const statusOf = (id: string) => t.call('GET', `/v1/sys/remount/status/${id}`);

  it('are kept a day, then pruned when the next move is recorded', async () => {
    assert.equal((await t.call('POST', '/v1/sys/mounts/a', { body: { type: 'kv' } })).status, 204);
    const first = await move('a', 'b');
    assert.deepEqual(storedRecords(), [`core/remount/${first}`]);
    nowMs += 23 * 3600 * 1000;
    assert.equal((await statusOf(first)).status, 200);
    nowMs += 2 * 3600 * 1000;
    const old = await statusOf(first);
    assert.equal(old.status, 400, old.text);
    assert.match(old.json.errors[0], /no migration found/);

    const second = await move('b', 'c');
    assert.deepEqual(storedRecords(), [`core/remount/${second}`]);
    assert.equal((await statusOf(second)).json.data.migration_info.target_mount, 'c/');
  });
});
