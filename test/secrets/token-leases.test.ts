/**
 * Tokens are leases (issue 30 item 3; the reference's expiration manager `RegisterAuth`),
 * end to end over HTTP against a real secrets service on SQLite with a clock moved by hand:
 *
 * - every token an auth method issues with a TTL has a lease `<login path>/<hash>` listed by
 *   `LIST sys/leases/lookup/auth/<mount>/…`, looked up with its token's TTL and moved by a
 *   token renewal; `sys/leases/renew` refuses it with the reference's text;
 * - `sys/leases/revoke-prefix/auth/userpass/` revokes every token that auth method issued,
 *   their child tokens (and the children's leases) and the secrets' leases they created, and
 *   nothing else;
 * - a token that expires is revoked by the expiry loop with its leases, with no request
 *   presenting it; a token revoked through `auth/token/revoke` takes its lease with it;
 * - root tokens have no lease.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../src/kernel/log/logger.js';
import { SqliteBackend } from '../../src/kernel/store/index.js';
import { startSecretsService, type SecretsService } from '../../src/services/secrets/service.js';
import { call, type Reply } from '../helpers.js';
import { until } from '../processes.js';

const dir = mkdtempSync(join(tmpdir(), 'cairn-token-leases-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let nowMs = Date.parse('2030-01-01T00:00:00Z');
const clock = () => new Date(nowMs);

describe('tokens are leases', () => {
  let service: SecretsService;
  let url = '';
  let root = '';
  const api = (method: string, path: string, o: { body?: unknown; token?: string } = {}): Promise<Reply> =>
    call(url, method, `/v1/${path}`, { body: o.body, token: o.token ?? root });
  const ok = async (method: string, path: string, o: { body?: unknown; token?: string } = {}): Promise<Reply> => {
    const r = await api(method, path, o);
    assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
    return r;
  };
  /** Logs in as `user` of the userpass mount at `mount`; returns the token. */
  const login = async (user: string, mount = 'userpass'): Promise<string> =>
    (await ok('POST', `auth/${mount}/login/${user}`, { body: { password: 'pw' } })).json.auth.client_token as string;
  /** The lease ids directly below `prefix` (none: 404). */
  const leasesUnder = async (prefix: string): Promise<string[]> => {
    const r = await api('LIST', `sys/leases/lookup/${prefix}`);
    if (r.status === 404) return [];
    assert.equal(r.status, 200, r.text);
    return r.json.data.keys as string[];
  };
  const live = async (token: string) => (await api('GET', 'auth/token/lookup-self', { token })).status === 200;

  before(async () => {
    service = await startSecretsService({
      backend: SqliteBackend.open({ path: join(dir, 'secrets.db') }),
      listeners: [{ address: '127.0.0.1:0' }],
      log: silentLogger(),
      clock,
    });
    url = service.listeners[0].url;
    const init = await service.node.initialize(1, 1);
    root = init.root_token;
    await service.node.unseal(init.keys[0]);
    await ok('POST', 'sys/auth/userpass', { body: { type: 'userpass' } });
    await ok('POST', 'sys/auth/other', { body: { type: 'userpass' } });
    await ok('POST', 'sys/mounts/leased', { body: { type: 'kv', options: { leased_passthrough: 'true' } } });
    await ok('PUT', 'leased/db', { body: { password: 'p', ttl: '1h' } });
    const policy = 'path "leased/*" { capabilities = ["read"] }\npath "auth/token/create" { capabilities = ["update"] }';
    await ok('PUT', 'sys/policies/acl/app', { body: { policy } });
    for (const [mount, user] of [
      ['userpass', 'alice'],
      ['userpass', 'bob'],
      ['other', 'carol'],
    ] as const) {
      await ok('POST', `auth/${mount}/users/${user}`, { body: { password: 'pw', token_policies: 'app', token_ttl: '1h' } });
    }
  });
  after(async () => service?.close());

  it('gives each issued token a lease that lists, looks up, follows renewals and refuses sys/leases/renew', async () => {
    const token = await login('alice');
    const self = (await ok('GET', 'auth/token/lookup-self', { token })).json.data;
    const ids = await leasesUnder('auth/userpass/login/alice/');
    assert.equal(ids.length, 1, JSON.stringify(ids));
    assert.match(ids[0]!, /^[0-9a-f]{64}$/, 'the token hash, never the token');
    assert.ok(!ids[0]!.includes(token));
    const leaseId = `auth/userpass/login/alice/${ids[0]}`;
    const looked = await ok('PUT', 'sys/leases/lookup', { body: { lease_id: leaseId } });
    assert.equal(looked.json.data.ttl, self.ttl);
    assert.equal(looked.json.data.expire_time, new Date(nowMs + 3600_000).toISOString());
    assert.equal(looked.json.data.renewable, true);
    const renew = await api('PUT', 'sys/leases/renew', { body: { lease_id: leaseId } });
    assert.deepEqual([renew.status, renew.json.errors], [400, ['tokens cannot be renewed through this endpoint']]);
    nowMs += 600_000;
    await ok('PUT', 'auth/token/renew-self', { token, body: { increment: '30m' } });
    const renewed = (await ok('PUT', 'sys/leases/lookup', { body: { lease_id: leaseId } })).json.data;
    assert.equal(renewed.expire_time, new Date(nowMs + 1800_000).toISOString());
    assert.equal(renewed.last_renewal, new Date(nowMs).toISOString());
    // The root token has none.
    assert.deepEqual(await leasesUnder('auth/token/root/'), []);
    await ok('PUT', 'auth/token/revoke', { body: { token } });
    assert.deepEqual(await leasesUnder('auth/userpass/login/alice/'), [], 'revoking the token removed its lease');
  });

  it('revoke-prefix of an auth mount revokes its tokens, their children and their leases, and nothing else', async () => {
    const tokens = [await login('alice'), await login('bob'), await login('bob')];
    const child = (await ok('POST', 'auth/token/create', { token: tokens[0], body: { policies: ['app'], ttl: '10m' } })).json.auth.client_token as string;
    const secretLeases = [
      (await ok('GET', 'leased/db', { token: tokens[1] })).json.lease_id as string,
      (await ok('GET', 'leased/db', { token: child })).json.lease_id as string,
    ];
    const outsider = await login('carol', 'other');
    const outsiderLease = (await ok('GET', 'leased/db', { token: outsider })).json.lease_id as string;
    assert.deepEqual((await leasesUnder('auth/userpass/login/')).sort(), ['alice/', 'bob/']);
    assert.equal((await leasesUnder('auth/userpass/login/bob/')).length, 2);
    assert.equal((await leasesUnder('auth/token/create/')).length, 1, 'the child token has its lease too');

    const r = await api('PUT', 'sys/leases/revoke-prefix/auth/userpass/');
    assert.equal(r.status, 204, r.text);
    for (const t of [...tokens, child]) assert.equal(await live(t), false, 'revoked');
    assert.deepEqual(await leasesUnder('auth/userpass/'), []);
    assert.deepEqual(await leasesUnder('auth/token/create/'), [], "the child's lease went with it");
    for (const id of secretLeases) assert.equal((await api('PUT', 'sys/leases/lookup', { body: { lease_id: id } })).status, 400, `${id} revoked`);
    assert.equal(await live(outsider), true, 'a token of another auth mount stays');
    assert.equal((await api('PUT', 'sys/leases/lookup', { body: { lease_id: outsiderLease } })).status, 200);
    assert.equal((await leasesUnder('auth/other/login/carol/')).length, 1);
  });

  it('revokes a token when its lease expires, with the leases it created, without anyone presenting it', async () => {
    const token = await login('bob');
    const accessor = (await ok('GET', 'auth/token/lookup-self', { token })).json.data.accessor as string;
    const secretLease = (await ok('GET', 'leased/db', { token })).json.lease_id as string;
    const before = await leasesUnder('auth/userpass/login/bob/');
    assert.equal(before.length, 1);
    nowMs += 3600_000 + 1000;
    // The expiry loop runs about every second: the token goes by itself.
    await until('the expired token revoked', 10_000, async () => ((await leasesUnder('auth/userpass/login/bob/')).length === 0 ? true : undefined));
    const byAccessor = await api('POST', 'auth/token/lookup-accessor', { body: { accessor } });
    assert.equal(byAccessor.status, 400, byAccessor.text);
    assert.equal((await api('PUT', 'sys/leases/lookup', { body: { lease_id: secretLease } })).status, 400, 'its secret lease revoked');
  });
});
