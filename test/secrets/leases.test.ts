/**
 * Leases (issue 17 scope 3), end to end over HTTP against a real secrets service on
 * SQLite with an injected clock:
 *
 * - a read of a KV v1 mount with `options.leased_passthrough = "true"` returns a renewable
 *   lease (`lease_id` = `<mount><path>/<id>`, `lease_duration` from the secret's `ttl`);
 *   plain KV v1 still returns none;
 * - `sys/leases/lookup` shape; LIST under a prefix; renew within the mount's max TTL (capped,
 *   with the reference's warning; past it → 400); revoke (sync → 204, lazy → 202),
 *   revoke-prefix, revoke-force, tidy, the older aliases;
 * - the expiry loop revokes a due lease once the clock passes its expiry, and the leases
 *   of a token once it expires; revoking a token revokes its leases and its children's;
 * - revocation and expiry survive a restart (the lease falls due while the server is down);
 * - sudo paths refuse a token without `sudo` (403); bad input → the reference's 400s.
 *
 * Every wait is a poll with a deadline; the clock is moved by hand, never waited for.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../src/kernel/log/logger.js';
import { SqliteBackend } from '../../src/kernel/store/index.js';
import { startSecretsService, type SecretsService } from '../../src/services/secrets/service.js';
import { SecretsClient } from '../../src/sdk/index.js';
import { main } from '../../src/cli/main.js';
import { call, type Reply } from '../helpers.js';
import { until } from '../processes.js';

const dir = mkdtempSync(join(tmpdir(), 'cairn-leases-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A clock the test moves by hand. */
let nowMs = Date.parse('2030-01-01T00:00:00Z');
const clock = () => new Date(nowMs);
const advance = (seconds: number) => (nowMs += seconds * 1000);

/** One running service on `dbPath` with the test clock. */
async function open(dbPath: string): Promise<SecretsService> {
  return startSecretsService({ backend: SqliteBackend.open({ path: dbPath }), listeners: [{ address: '127.0.0.1:0' }], log: silentLogger(), clock });
}

describe('leases: leased KV v1, sys/leases, expiry, token revocation, restart', () => {
  const dbPath = join(dir, 'secrets.db');
  let service: SecretsService;
  let url = '';
  let root = '';
  let unsealKey = '';
  const api = (method: string, path: string, o: { body?: unknown; token?: string } = {}): Promise<Reply> =>
    call(url, method, `/v1/${path}`, { body: o.body, token: o.token ?? root });
  /** Reads `path` and returns its lease id (asserting a lease was made). */
  const leasedRead = async (path: string, token?: string): Promise<string> => {
    const r = await api('GET', path, { token });
    assert.equal(r.status, 200, r.text);
    assert.notEqual(r.json.lease_id, '', r.text);
    return r.json.lease_id as string;
  };
  const lookup = (leaseId: string) => api('PUT', 'sys/leases/lookup', { body: { lease_id: leaseId } });
  /** Polls until `leaseId` is gone (lookup → 400 invalid lease); the expiry loop runs every second. */
  const untilRevoked = (what: string, leaseId: string) => until(what, 10_000, async () => ((await lookup(leaseId)).status === 400 ? true : undefined));

  before(async () => {
    service = await open(dbPath);
    url = service.listeners[0].url;
    const init = await service.node.initialize(1, 1);
    unsealKey = init.keys[0];
    root = init.root_token;
    await service.node.unseal(unsealKey);
    for (const [path, body] of [
      ['leased', { type: 'kv', options: { leased_passthrough: 'true' }, config: { max_lease_ttl: '1h' } }],
      ['plain', { type: 'kv' }],
    ] as const) {
      const r = await api('POST', `sys/mounts/${path}`, { body });
      assert.equal(r.status, 204, r.text);
    }
    assert.equal((await api('POST', 'leased/app/db', { body: { password: 's3cret', ttl: '10m' } })).status, 204);
    assert.equal((await api('POST', 'leased/app/cache', { body: { password: 'other' } })).status, 204);
    assert.equal((await api('POST', 'plain/app', { body: { password: 'x', ttl: '10m' } })).status, 204);
    const policy = `
path "leased/*" { capabilities = ["read"] }
path "auth/token/create" { capabilities = ["update"] }
path "sys/leases/*" { capabilities = ["update", "list"] }
path "sys/revoke-prefix/*" { capabilities = ["update"] }
`;
    assert.equal((await api('PUT', 'sys/policies/acl/reader', { body: { policy } })).status, 204);
  });
  after(async () => service?.close());

  it('a leased KV v1 read returns a renewable lease; plain KV v1 none', async () => {
    const r = await api('GET', 'leased/app/db');
    assert.equal(r.status, 200, r.text);
    assert.match(r.json.lease_id, /^leased\/app\/db\/[A-Za-z0-9]{24}$/);
    assert.equal(r.json.renewable, true);
    assert.equal(r.json.lease_duration, 600);
    assert.deepEqual(r.json.data, { password: 's3cret', ttl: '10m' });
    // Without a ttl field: the mount's default (the system's 768 h), capped by its max TTL (1 h), with the reference's warning.
    const dflt = await api('GET', 'leased/app/cache');
    assert.equal(dflt.json.lease_duration, 3600);
    assert.equal(dflt.json.renewable, true);
    assert.deepEqual(dflt.json.warnings, ['TTL of "768h0m0s" exceeded the effective max_ttl of "1h0m0s"; TTL value is capped accordingly']);
    const plain = await api('GET', 'plain/app');
    assert.deepEqual([plain.json.lease_id, plain.json.renewable, plain.json.lease_duration], ['', false, 600]);
  });

  it('sys/leases/lookup: id, issue_time, expire_time, last_renewal, renewable, ttl', async () => {
    const id = await leasedRead('leased/app/db');
    const r = await lookup(id);
    assert.equal(r.status, 200, r.text);
    const issued = new Date(nowMs).toISOString();
    assert.deepEqual(r.json.data, {
      id,
      issue_time: issued,
      expire_time: new Date(nowMs + 600_000).toISOString(),
      last_renewal: null,
      renewable: true,
      ttl: 600,
    });
    // The older URL form of renew and the lease id in the URL work too.
    const viaUrl = await api('PUT', `sys/leases/renew/${id}`, { body: { increment: 60 } });
    assert.equal(viaUrl.status, 200, viaUrl.text);
    assert.equal(viaUrl.json.lease_duration, 60);
  });

  it('renew: extends by the increment, capped at issue time + the max TTL (warning); an expired lease → 400', async () => {
    const id = await leasedRead('leased/app/db');
    advance(8 * 60);
    const renewed = await api('PUT', 'sys/leases/renew', { body: { lease_id: id, increment: '30m' } });
    assert.equal(renewed.status, 200, renewed.text);
    assert.deepEqual([renewed.json.lease_id, renewed.json.renewable, renewed.json.lease_duration, renewed.json.warnings], [id, true, 1800, null]);
    assert.deepEqual(renewed.json.data, { password: 's3cret', ttl: '10m' }, 'the engine reads the secret again, as the reference');
    advance(25 * 60);
    const capped = await api('PUT', 'sys/leases/renew', { body: { lease_id: id, increment: '30m' } });
    assert.equal(capped.status, 200, capped.text);
    assert.equal(capped.json.lease_duration, 27 * 60, "capped at the mount's 1 h max TTL: 27 min left");
    assert.deepEqual(capped.json.warnings, ['TTL of "30m0s" exceeded the effective max_ttl of "27m0s"; TTL value is capped accordingly']);
    const looked = await lookup(id);
    assert.equal(looked.json.data.last_renewal, new Date(nowMs).toISOString());
    assert.equal(looked.json.data.ttl, 27 * 60);
    assert.equal(looked.json.data.expire_time, new Date(nowMs + 27 * 60_000).toISOString());
    advance(27 * 60);
    const past = await api('PUT', 'sys/renew', { body: { lease_id: id } });
    assert.equal(past.status, 400, past.text);
    assert.deepEqual(past.json, { errors: ['lease expired'] });
  });

  it('the expiry loop revokes a lease once the clock passes its expiry, not before', async () => {
    const id = await leasedRead('leased/app/db');
    await service.core.leases.revokeDue();
    assert.equal((await lookup(id)).status, 200, 'not due yet');
    advance(601);
    await untilRevoked('the due lease revoked by the loop', id);
    assert.deepEqual((await lookup(id)).json, { errors: ['invalid lease'] });
  });

  it('revoke (sync → 204; sync=false → 202, then the loop), revoke-prefix, revoke-force, LIST lookup', async () => {
    const a = await leasedRead('leased/app/db');
    const b = await leasedRead('leased/app/cache');
    const list = await api('LIST', 'sys/leases/lookup/leased/app/');
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.json.data.keys, ['cache/', 'db/']);
    const ids = await api('LIST', 'sys/leases/lookup/leased/app/db');
    assert.deepEqual(ids.json.data.keys, [a.slice('leased/app/db/'.length)]);

    assert.equal((await api('PUT', 'sys/leases/revoke', { body: { lease_id: a } })).status, 204);
    assert.equal((await lookup(a)).status, 400);
    const lazy = await api('PUT', `sys/leases/revoke/${b}`, { body: { sync: false } });
    assert.equal(lazy.status, 202, lazy.text);
    await untilRevoked('the lazily revoked lease', b);

    const c = await leasedRead('leased/app/db');
    const d = await leasedRead('leased/app/cache');
    assert.equal((await api('PUT', 'sys/leases/revoke-prefix/leased/app/db')).status, 204);
    assert.equal((await lookup(c)).status, 400);
    assert.equal((await lookup(d)).status, 200, 'outside the prefix');
    assert.equal((await api('PUT', 'sys/leases/revoke-force/leased')).status, 204);
    assert.equal((await lookup(d)).status, 400);
    const empty = await api('LIST', 'sys/leases/lookup/leased/');
    assert.equal(empty.status, 404);
    // The older alias, and an unknown lease is no error (idempotent, as the reference).
    const e = await leasedRead('leased/app/db');
    assert.equal((await api('PUT', 'sys/revoke-prefix/leased/app')).status, 204);
    assert.equal((await lookup(e)).status, 400);
    assert.equal((await api('PUT', 'sys/leases/revoke', { body: { lease_id: 'leased/none/xyz' } })).status, 204);
  });

  it("revoking a token revokes its leases and its child tokens' leases; tidy drops none that are live", async () => {
    const parent = await api('POST', 'auth/token/create', { body: { policies: ['reader'] } });
    assert.equal(parent.status, 200, parent.text);
    const p = parent.json.auth.client_token as string;
    const child = await api('POST', 'auth/token/create', { token: p, body: { policies: ['reader'] } });
    assert.equal(child.status, 200, child.text);
    const c = child.json.auth.client_token as string;
    const byParent = await leasedRead('leased/app/db', p);
    const byChild = await leasedRead('leased/app/cache', c);
    const byRoot = await leasedRead('leased/app/db');

    const tidy = await api('PUT', 'sys/leases/tidy');
    assert.equal(tidy.status, 202, tidy.text);
    assert.equal((await lookup(byParent)).status, 200);

    assert.equal((await api('POST', 'auth/token/revoke-self', { token: p })).status, 204);
    assert.deepEqual((await lookup(byParent)).json, { errors: ['invalid lease'] });
    assert.deepEqual((await lookup(byChild)).json, { errors: ['invalid lease'] });
    assert.equal((await lookup(byRoot)).status, 200, "another token's lease stays");
    await api('PUT', 'sys/leases/revoke', { body: { lease_id: byRoot } });
  });

  it('a token that expires takes its leases with it: the loop checks it at its expiry', async () => {
    const t = await api('POST', 'auth/token/create', { body: { policies: ['reader'], ttl: '2m' } });
    const token = t.json.auth.client_token as string;
    const id = await leasedRead('leased/app/db', token);
    advance(60);
    // Renewed in time, the token (and its lease) lives on past its first expiry.
    assert.equal((await api('POST', 'auth/token/renew-self', { token, body: { increment: '5m' } })).status, 200);
    advance(90);
    // The token check falls due at the first expiry, finds the token renewed and moves to the new one.
    await service.core.leases.revokeDue();
    assert.equal((await lookup(id)).status, 200);
    advance(5 * 60);
    await untilRevoked("the expired token's lease", id);
  });

  it("sudo paths refuse a token without sudo (403); bad input gets the reference's 400s", async () => {
    const t = await api('POST', 'auth/token/create', { body: { policies: ['reader'] } });
    const token = t.json.auth.client_token as string;
    const id = await leasedRead('leased/app/db', token);
    for (const [method, path] of [
      ['LIST', 'sys/leases/lookup/leased/'],
      ['PUT', 'sys/leases/revoke-prefix/leased'],
      ['PUT', 'sys/leases/revoke-force/leased'],
      ['PUT', 'sys/revoke-prefix/leased'],
    ] as const) {
      const r = await api(method, path, { token });
      assert.equal(r.status, 403, `${method} ${path}: ${r.text}`);
    }
    assert.equal((await lookup(id)).status, 200, 'nothing was revoked');
    // Lookup and renew need no sudo.
    assert.equal((await api('PUT', 'sys/leases/lookup', { token, body: { lease_id: id } })).status, 200);
    assert.equal((await api('PUT', 'sys/leases/renew', { token, body: { lease_id: id } })).status, 200);

    // A lease its engine made non-renewable (no built-in engine makes one yet: registered directly).
    const mount = service.core.root.mounts.list().find((m) => m.path === 'leased/')!;
    const fixed = await service.core.leases.register({ nsId: 'root', mount, path: 'app/db', token: undefined, request: { renewable: false }, ttlS: 60 });
    const notRenewable = await api('PUT', 'sys/leases/renew', { body: { lease_id: fixed.leaseId } });
    assert.equal(notRenewable.status, 400, notRenewable.text);
    assert.deepEqual(notRenewable.json, { errors: ['lease is not renewable'] });
    assert.equal((await lookup(fixed.leaseId)).json.data.renewable, false);
    await api('PUT', 'sys/leases/revoke', { body: { lease_id: fixed.leaseId } });

    const cases: Array<[string, unknown, string]> = [
      ['sys/leases/lookup', {}, 'lease_id must be specified'],
      ['sys/leases/lookup', { lease_id: 'leased/app/db/unknown' }, 'invalid lease'],
      ['sys/leases/renew', {}, 'lease_id must be specified'],
      ['sys/leases/renew', { lease_id: 'leased/app/db/unknown' }, 'lease not found'],
      ['sys/leases/revoke', {}, 'lease_id must be specified'],
    ];
    for (const [path, body, message] of cases) {
      const r = await api('PUT', path, { body });
      assert.equal(r.status, 400, `${path}: ${r.text}`);
      assert.deepEqual(r.json, { errors: [message] }, path);
    }
    await api('PUT', 'sys/leases/revoke', { body: { lease_id: id } });
  });

  it('SDK leases.* and the CLI (`cairn lease lookup|renew|revoke -prefix|-force|-sync`) drive the same API', async () => {
    const client = new SecretsClient({ address: url, token: root });
    const cli = async (...argv: string[]) => {
      let stdout = '';
      let stderr = '';
      const code = await main(argv, { SECRETS_ADDR: url, SECRETS_TOKEN: root }, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
      return { code, stdout, stderr };
    };
    try {
      const id = await leasedRead('leased/app/db');
      const info = await client.leases.lookup(id);
      assert.deepEqual([info.id, info.renewable, info.ttl], [id, true, 600]);
      assert.deepEqual(await client.leases.list('leased/app/db'), [id.slice('leased/app/db/'.length)]);
      const renewed = await client.leases.renew(id, '2m');
      assert.deepEqual([renewed.lease_id, renewed.lease_duration], [id, 120]);
      await client.leases.tidy();
      await client.leases.revoke(id);
      assert.equal((await lookup(id)).status, 400);
      const a = await leasedRead('leased/app/db');
      await client.leases.revokePrefix('leased/app', { sync: true });
      assert.equal((await lookup(a)).status, 400);
      const b = await leasedRead('leased/app/db');
      await client.leases.revokeForce('leased/');
      assert.equal((await lookup(b)).status, 400);
      assert.deepEqual(await client.leases.list('leased/'), []);

      const read = await cli('read', '-field=lease_id', 'leased/app/db');
      assert.equal(read.code, 0, read.stderr);
      const c = read.stdout.trim();
      assert.match(c, /^leased\/app\/db\/[A-Za-z0-9]{24}$/);
      const looked = await cli('lease', 'lookup', c);
      assert.equal(looked.code, 0, looked.stderr);
      assert.match(looked.stdout, new RegExp(`id +${c}\n`));
      assert.match(looked.stdout, /renewable +true\n/);
      const renewedCli = await cli('lease', 'renew', '-increment=90s', c);
      assert.equal(renewedCli.code, 0, renewedCli.stderr);
      assert.match(renewedCli.stdout, /lease_duration +1m30s/);
      const usage = await cli('lease', 'revoke', '-force', c);
      assert.equal(usage.code, 2);
      assert.match(usage.stderr, /Specifying -force requires also specifying -prefix/);
      const revoked = await cli('lease', 'revoke', '-sync', c);
      assert.equal(revoked.stdout, `Success! Revoked lease: ${c}\n`);
      assert.equal((await lookup(c)).status, 400);
      const d = await leasedRead('leased/app/db');
      const queued = await cli('lease', 'revoke', '-prefix', 'leased/app');
      assert.equal(queued.stdout, 'All revocation operations queued successfully!\n');
      await untilRevoked('the queued prefix revocation', d);
      const e = await leasedRead('leased/app/db');
      const forced = await cli('lease', 'revoke', '-prefix', '-force', 'leased/');
      assert.equal(forced.stdout, 'Success! Force revoked any leases with prefix: leased/\n');
      assert.equal((await lookup(e)).status, 400);
    } finally {
      await client.close();
    }
  });

  it('revocation survives a restart: a lease that falls due while the server is down is revoked by the next one', async () => {
    const id = await leasedRead('leased/app/db');
    const lazy = await leasedRead('leased/app/cache');
    assert.equal((await api('PUT', 'sys/leases/revoke', { body: { lease_id: lazy, sync: false } })).status, 202);
    await service.close();
    advance(601);
    service = await open(dbPath);
    url = service.listeners[0].url;
    await service.node.unseal(unsealKey);
    await untilRevoked('the due lease after the restart', id);
    await untilRevoked('the lazily revoked lease after the restart', lazy);
  });
});
