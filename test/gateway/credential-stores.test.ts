/**
 * Credential stores, libraries and static credentials (issue 20 scope 3) end to end with
 * real components: a Cairn secrets service on port 0 (SQLite, initialised and unsealed,
 * KV v2 at `secret/`, a leased KV v1 mount) and a gateway controller on port 0, sharing a
 * clock the test moves by hand. Proves: a vault store is made with a real periodic orphan
 * token and shows `token_hmac`/`token_status`, never the token; tokens the reference
 * refuses are refused (400 naming `attributes.token`, nothing made); the brokered
 * credential is the KV secret's current version (a new version is seen on the next
 * broker); the leader renews the token once half its TTL passed (the secrets service's
 * TTL goes back up); a leased secret is recorded for the session and revoked by
 * `releaseCredentials`; static credentials keep their secrets write-only (`*_hmac`) and
 * are brokered in the target's order; grants on the new collections; no secret in any
 * reply or log line.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { parseGatewayServerConfig } from '../../src/services/gateway/config.js';
import { brokerCredentials, releaseCredentials } from '../../src/services/gateway/domain/broker.js';
import type { TargetDoc } from '../../src/services/gateway/domain/docs.js';
import { startGateway, type Gateway } from '../../src/services/gateway/server.js';
import { controllerHcl, gatewayCaller } from './fixture.js';
import { startTestServer, type TestServer } from '../helpers.js';
import { until } from '../processes.js';
import { storePolicy } from './store-policy.js';

const RECOVERY = 'recovery-token-for-credential-tests';
const dir = mkdtempSync(join(tmpdir(), 'cairn-gw-creds-'));
let nowMs = Date.parse('2030-01-01T00:00:00Z');
const advance = (seconds: number) => (nowMs += seconds * 1000);
/** Every line the controller logs. */
const logLines: string[] = [];
const log = pino({ level: 'trace' }, { write: (s: string) => void logLines.push(s) });

const POLICY = storePolicy('secret/data/*', 'leased/*');

const configText = controllerHcl(RECOVERY, join(dir, 'data'));

/** A credential lease record as the domain state holds it (the fields read here). */
type Lease = { id: string; session_id: string; released_time?: string };

describe('gateway credential stores with a real secrets service', { timeout: 90_000 }, () => {
  let secrets: TestServer;
  let gw: Gateway;
  let base = '';
  let projectId = '';
  /** Every reply body the controller sent, to look for secrets in. */
  const replies: string[] = [];
  /** Secret values that must never be sent back or logged. */
  const secretValues: string[] = [];

  const call = gatewayCaller(() => base, { token: RECOVERY, onText: (text) => replies.push(text) });
  /** A token made by root at the secrets service with `body`'s options. */
  const makeToken = async (body: Record<string, unknown>): Promise<string> => {
    const r = await secrets.call('POST', '/v1/auth/token/create', { body });
    assert.equal(r.status, 200, r.text);
    const t = r.json.auth.client_token as string;
    secretValues.push(t);
    return t;
  };
  const ttlOf = async (token: string): Promise<number> => {
    const r = await secrets.call('POST', '/v1/auth/token/lookup', { body: { token } });
    assert.equal(r.status, 200, r.text);
    return r.json.data.ttl as number;
  };
  const target = (ids: string[]): TargetDoc => ({
    id: 'ttcp_1234567890',
    scope_id: projectId,
    type: 'tcp',
    attributes: { default_port: 22 },
    session_max_seconds: 28800,
    session_connection_limit: -1,
    host_source_ids: [],
    brokered_credential_source_ids: ids,
    created_time: '',
    updated_time: '',
    version: 1,
  });

  let storeToken = '';
  let storeId = '';

  before(async () => {
    secrets = await startTestServer({ clock: () => new Date(nowMs) });
    assert.equal((await secrets.call('PUT', '/v1/sys/policies/acl/gateway', { body: { policy: POLICY } })).status, 204);
    const mount = await secrets.call('POST', '/v1/sys/mounts/leased', { body: { type: 'kv', options: { leased_passthrough: 'true' } } });
    assert.equal(mount.status, 204, mount.text);
    assert.equal((await secrets.call('POST', '/v1/secret/data/app/db', { body: { data: { username: 'app', password: 'pw-version-1' } } })).status, 200);
    assert.equal((await secrets.call('POST', '/v1/leased/app/db', { body: { username: 'leased-user', password: 'leased-pw', ttl: '10m' } })).status, 204);
    secretValues.push('pw-version-1', 'leased-pw');
    storeToken = await makeToken({ policies: ['gateway'], period: '1h', no_parent: true });

    gw = await startGateway({ config: parseGatewayServerConfig(configText, 'gw.hcl'), log, now: () => nowMs, credentialRenewIntervalMs: 50 });
    base = gw.listeners.find((l) => l.purpose === 'api')!.url;
    const org = await call('POST', 'scopes', { body: { scope_id: 'global', name: 'creds-org' } });
    const project = await call('POST', 'scopes', { body: { scope_id: org.body.id, name: 'creds-project' } });
    assert.equal(project.status, 200, project.text);
    projectId = project.body.id;
  });
  after(async () => {
    await gw?.shutdown();
    await secrets?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates a vault store with a real periodic orphan token: token_hmac and token_status shown, the token never', async () => {
    const r = await call('POST', 'credential-stores', {
      body: { scope_id: projectId, type: 'vault', name: 'secrets', attributes: { address: secrets.url, token: storeToken } },
    });
    assert.equal(r.status, 200, r.text);
    storeId = r.body.id;
    assert.match(storeId, /^csvlt_[0-9A-Za-z]{10}$/);
    assert.equal(r.body.type, 'vault');
    assert.equal(r.body.attributes.address, secrets.url);
    assert.equal(r.body.attributes.token_status, 'current');
    assert.match(r.body.attributes.token_hmac, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(r.body.attributes.token, undefined);
    assert.equal(r.body.vault_token, undefined);
    assert.deepEqual(r.body.authorized_collection_actions, { 'credential-libraries': ['create', 'list'] });
    const read = await call('GET', `credential-stores/${storeId}`);
    assert.equal(read.body.attributes.token_hmac, r.body.attributes.token_hmac);
    const scope = await call('GET', `scopes/${projectId}`);
    assert.deepEqual(scope.body.authorized_collection_actions['credential-stores'], ['create', 'list']);
  });

  it('refuses the tokens the reference refuses, naming attributes.token; nothing is made', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ policies: ['gateway'], period: '1h', no_parent: true, renewable: false }, /^vault token is not renewable$/],
      [{ policies: ['gateway'], period: '1h' }, /^vault token is not an orphan token$/],
      [{ policies: ['gateway'], ttl: '1h', no_parent: true }, /^vault token is not a periodic token$/],
      [
        { policies: ['default'], period: '1h', no_parent: true },
        /^vault token is missing capabilities: sys\/leases\/renew: update, sys\/leases\/revoke: update$/,
      ],
    ];
    for (const [opts, message] of cases) {
      const token = await makeToken(opts);
      const r = await call('POST', 'credential-stores', { body: { scope_id: projectId, type: 'vault', attributes: { address: secrets.url, token } } });
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.kind, 'InvalidArgument');
      assert.match(r.body.details.request_fields.find((f: { name: string }) => f.name === 'attributes.token').description, message);
    }
    const unknown = await call('POST', 'credential-stores', {
      body: { scope_id: projectId, type: 'vault', attributes: { address: secrets.url, token: 'not-a-token' } },
    });
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.details.request_fields[0].description, /^unable to lookup vault token: the secrets service answered 403: permission denied$/);
    const missing = await call('POST', 'credential-stores', { body: { scope_id: projectId, type: 'vault', attributes: {} } });
    assert.deepEqual(missing.body.details.request_fields.map((f: { name: string }) => f.name).sort(), ['attributes.address', 'attributes.token']);
    const list = await call('GET', `credential-stores?scope_id=${projectId}`);
    assert.deepEqual(
      list.body.items.map((s: { id: string }) => s.id),
      [storeId],
    );
  });

  it("brokers a KV v2 library as the secret's current version, typed as username_password", async () => {
    const lib = await call('POST', 'credential-libraries', {
      body: {
        credential_store_id: storeId,
        type: 'vault-generic',
        name: 'db',
        credential_type: 'username_password',
        attributes: { path: 'secret/data/app/db' },
      },
    });
    assert.equal(lib.status, 200, lib.text);
    assert.match(lib.body.id, /^clvlt_/);
    assert.deepEqual(lib.body.attributes, { path: 'secret/data/app/db', http_method: 'GET' });
    const first = await brokerCredentials(gw.domain!, target([lib.body.id]), 's_0000000001');
    assert.equal(first.length, 1);
    assert.deepEqual(first[0].credential, { username: 'app', password: 'pw-version-1' });
    assert.deepEqual(first[0].credential_source, {
      id: lib.body.id,
      name: 'db',
      description: undefined,
      credential_store_id: storeId,
      type: 'vault-generic',
      credential_type: 'username_password',
    });
    const decoded = first[0].secret.decoded as { data: unknown; metadata: { version: number } };
    assert.deepEqual(decoded.data, { username: 'app', password: 'pw-version-1' });
    assert.equal(decoded.metadata.version, 1);
    assert.deepEqual(JSON.parse(Buffer.from(first[0].secret.raw, 'base64').toString()), decoded);

    assert.equal((await secrets.call('POST', '/v1/secret/data/app/db', { body: { data: { username: 'app', password: 'pw-version-2' } } })).status, 200);
    secretValues.push('pw-version-2');
    const second = await brokerCredentials(gw.domain!, target([lib.body.id]), 's_0000000002');
    assert.deepEqual(second[0].credential, { username: 'app', password: 'pw-version-2' });
    assert.equal((second[0].secret.decoded as { metadata: { version: number } }).metadata.version, 2);
  });

  it('maps overridden attribute names; a secret without them is refused naming the source, not the secret', async () => {
    assert.equal((await secrets.call('POST', '/v1/secret/data/app/other', { body: { data: { user: 'u2', pass: 'p2-secret' } } })).status, 200);
    secretValues.push('p2-secret');
    const mapped = await call('POST', 'credential-libraries', {
      body: {
        credential_store_id: storeId,
        credential_type: 'username_password',
        credential_mapping_overrides: { username_attribute: 'user', password_attribute: 'pass' },
        attributes: { path: 'secret/data/app/other' },
      },
    });
    assert.equal(mapped.status, 200, mapped.text);
    const [c] = await brokerCredentials(gw.domain!, target([mapped.body.id]), 's_0000000003');
    assert.deepEqual(c.credential, { username: 'u2', password: 'p2-secret' });

    const plain = await call('POST', 'credential-libraries', {
      body: { credential_store_id: storeId, credential_type: 'username_password', attributes: { path: 'secret/data/app/other' } },
    });
    await assert.rejects(brokerCredentials(gw.domain!, target([plain.body.id]), 's_0000000004'), (err: Error) => {
      assert.match(err.message, new RegExp(`^Unable to broker credential source "${plain.body.id}": vault credential mapping failed`));
      assert.ok(!err.message.includes('p2-secret'));
      return true;
    });
    const missing = await call('POST', 'credential-libraries', { body: { credential_store_id: storeId, attributes: { path: 'secret/data/nothing/here' } } });
    await assert.rejects(brokerCredentials(gw.domain!, target([missing.body.id]), 's_0000000005'), /: vault secret is empty/);
    const denied = await call('POST', 'credential-libraries', { body: { credential_store_id: storeId, attributes: { path: 'sys/mounts' } } });
    await assert.rejects(
      brokerCredentials(gw.domain!, target([denied.body.id]), 's_0000000006'),
      /GET sys\/mounts: the secrets service answered 403: permission denied/,
    );

    // POST with a body: the token's own capabilities (the default policy allows it), untyped.
    const post = await call('POST', 'credential-libraries', {
      body: {
        credential_store_id: storeId,
        attributes: { path: 'sys/capabilities-self', http_method: 'post', http_request_body: '{"paths":["secret/data/app/db"]}' },
      },
    });
    assert.equal(post.status, 200, post.text);
    assert.equal(post.body.attributes.http_method, 'POST');
    const [caps] = await brokerCredentials(gw.domain!, target([post.body.id]), 's_0000000007');
    assert.deepEqual((caps.secret.decoded as Record<string, string[]>)['secret/data/app/db'], ['read']);
    assert.equal(caps.credential, undefined);
    assert.equal(caps.credential_source.credential_type, undefined);

    const bad = await call('POST', 'credential-libraries', {
      body: {
        credential_store_id: storeId,
        credential_type: 'json',
        credential_mapping_overrides: { x: 'y' },
        attributes: { http_method: 'PUT', http_request_body: '{}' },
      },
    });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.details.request_fields.map((f: { name: string }) => f.name).sort(), [
      'attributes.http_method',
      'attributes.http_request_body',
      'attributes.path',
      'credential_type',
    ]);
  });

  it('renews the store token on the leader once half its TTL passed', async () => {
    assert.equal(await ttlOf(storeToken), 3600);
    advance(20 * 60);
    // Not yet due: a third of the period has passed.
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await ttlOf(storeToken), 2400);
    advance(15 * 60);
    await until('the token renewed', 10_000, async () => ((await ttlOf(storeToken)) === 3600 ? true : undefined));
    const store = await call('GET', `credential-stores/${storeId}`);
    assert.equal(store.body.attributes.token_status, 'current');
    assert.equal(store.body.version, 1, 'a renewal is not a change by a user');
  });

  it('records a leased secret for the session and revokes it when the session is released', async () => {
    const lib = await call('POST', 'credential-libraries', {
      body: { credential_store_id: storeId, credential_type: 'username_password', attributes: { path: 'leased/app/db' } },
    });
    const [c] = await brokerCredentials(gw.domain!, target([lib.body.id]), 's_leased0001');
    assert.deepEqual(c.credential, { username: 'leased-user', password: 'leased-pw' });
    const leases = gw.domain!.state.list<Lease>('credential-leases').filter((l) => l.session_id === 's_leased0001');
    assert.equal(leases.length, 1);
    const leaseId = leases[0].id;
    assert.match(leaseId, /^leased\/app\/db\//);
    assert.equal((await secrets.call('PUT', '/v1/sys/leases/lookup', { body: { lease_id: leaseId } })).status, 200);
    await releaseCredentials(gw.domain!, 's_leased0001');
    const gone = await secrets.call('PUT', '/v1/sys/leases/lookup', { body: { lease_id: leaseId } });
    assert.equal(gone.status, 400, gone.text);
    assert.equal(gw.domain!.state.list<Lease>('credential-leases').filter((l) => l.session_id === 's_leased0001').length, 0);
  });

  it('a lease the secrets service could not be asked to revoke at session end is retried by the leader', async () => {
    const lib = (await call('GET', `credential-libraries?credential_store_id=${storeId}`)).body.items.find(
      (l: { attributes: { path: string } }) => l.attributes.path === 'leased/app/db',
    );
    await brokerCredentials(gw.domain!, target([lib.id]), 's_leased0002');
    const leaseId = gw.domain!.state.list<Lease>('credential-leases').find((l) => l.session_id === 's_leased0002')!.id;
    // The store's service is unreachable for a while: a port nothing listens on.
    const closed = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const { port } = srv.address() as AddressInfo;
        srv.close(() => resolve(port));
      });
    });
    const setAddress = (address: string) =>
      gw.domain!.state.txn((tx) => {
        const { CreateIndex: _c, ModifyIndex: _m, ...doc } = tx.get<{ attributes: Record<string, unknown> }>('credential-stores', storeId)!;
        tx.put('credential-stores', storeId, { ...doc, attributes: { ...doc.attributes, address } });
      });
    await setAddress(`http://127.0.0.1:${closed}`);
    await releaseCredentials(gw.domain!, 's_leased0002');
    const kept = gw.domain!.state.get<Lease>('credential-leases', leaseId);
    assert.ok(kept?.released_time, 'the record stays, marked released');
    assert.equal((await secrets.call('PUT', '/v1/sys/leases/lookup', { body: { lease_id: leaseId } })).status, 200);
    await setAddress(secrets.url);
    await until('the lease revoked by a later round', 10_000, async () =>
      (await secrets.call('PUT', '/v1/sys/leases/lookup', { body: { lease_id: leaseId } })).status === 400 &&
      !gw.domain!.state.get('credential-leases', leaseId)
        ? true
        : undefined,
    );
  });

  it("keeps static credentials write-only and brokers them in the target's order", async () => {
    const store = await call('POST', 'credential-stores', { body: { scope_id: projectId, type: 'static', name: 'static' } });
    assert.equal(store.status, 200, store.text);
    assert.match(store.body.id, /^csst_/);
    assert.deepEqual(store.body.authorized_collection_actions, { credentials: ['create', 'list'] });
    const up = await call('POST', 'credentials', {
      body: { credential_store_id: store.body.id, type: 'username_password', attributes: { username: 'ops', password: 'static-password' } },
    });
    assert.equal(up.status, 200, up.text);
    assert.match(up.body.id, /^credup_/);
    assert.deepEqual(Object.keys(up.body.attributes).sort(), ['password_hmac', 'username']);
    const json = await call('POST', 'credentials', {
      body: { credential_store_id: store.body.id, type: 'json', attributes: { object: { api_key: 'json-secret-key' } } },
    });
    assert.deepEqual(Object.keys(json.body.attributes), ['object_hmac']);
    const { privateKey } = generateKeyPairSync('ed25519');
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const spk = await call('POST', 'credentials', {
      body: { credential_store_id: store.body.id, type: 'ssh_private_key', attributes: { username: 'deploy', private_key: pem } },
    });
    assert.equal(spk.status, 200, spk.text);
    assert.deepEqual(Object.keys(spk.body.attributes).sort(), ['private_key_hmac', 'username']);
    secretValues.push('static-password', 'json-secret-key', pem.split('\n')[1]!);
    // The same password in another store has another HMAC (keyed per store).
    const other = await call('POST', 'credential-stores', { body: { scope_id: projectId, type: 'static' } });
    const up2 = await call('POST', 'credentials', {
      body: { credential_store_id: other.body.id, type: 'username_password', attributes: { username: 'ops', password: 'static-password' } },
    });
    assert.notEqual(up2.body.attributes.password_hmac, up.body.attributes.password_hmac);
    const bad = await call('POST', 'credentials', {
      body: { credential_store_id: store.body.id, type: 'ssh_private_key', attributes: { username: 'x', private_key: 'nope', password_hmac: 'x' } },
    });
    assert.deepEqual(bad.body.details.request_fields.map((f: { name: string }) => f.name).sort(), ['attributes.password_hmac', 'attributes.private_key']);
    // OpenSSH's own format (ssh-keygen's default) is taken too; a block without its header is not.
    const openssh = (body: Buffer) => `-----BEGIN OPENSSH PRIVATE KEY-----\n${body.toString('base64')}\n-----END OPENSSH PRIVATE KEY-----\n`;
    const ok = await call('POST', 'credentials', {
      body: {
        credential_store_id: store.body.id,
        type: 'ssh_private_key',
        attributes: { username: 'x', private_key: openssh(Buffer.concat([Buffer.from('openssh-key-v1\0'), Buffer.alloc(64, 7)])) },
      },
    });
    assert.equal(ok.status, 200, ok.text);
    const notKey = await call('POST', 'credentials', {
      body: { credential_store_id: store.body.id, type: 'ssh_private_key', attributes: { username: 'x', private_key: openssh(Buffer.alloc(64, 7)) } },
    });
    assert.equal(notKey.body.details.request_fields[0].description, 'Must be a private key in PEM or OpenSSH format.');
    const wrongStore = await call('POST', 'credentials', { body: { credential_store_id: storeId, type: 'json', attributes: { object: { a: 1 } } } });
    assert.equal(wrongStore.status, 400);

    const updated = await call('PATCH', `credentials/${up.body.id}`, { body: { version: 1, attributes: { password: 'static-password-2' } } });
    assert.equal(updated.status, 200, updated.text);
    secretValues.push('static-password-2');
    assert.notEqual(updated.body.attributes.password_hmac, up.body.attributes.password_hmac);
    assert.equal(updated.body.attributes.username, 'ops');

    const got = await brokerCredentials(gw.domain!, target([spk.body.id, up.body.id, json.body.id]), 's_static0001');
    assert.deepEqual(
      got.map((c) => c.credential_source.id),
      [spk.body.id, up.body.id, json.body.id],
    );
    assert.deepEqual(got[1], {
      credential_source: {
        id: up.body.id,
        name: undefined,
        description: undefined,
        credential_store_id: store.body.id,
        type: 'static',
        credential_type: 'username_password',
      },
      secret: {
        raw: Buffer.from(JSON.stringify({ username: 'ops', password: 'static-password-2' })).toString('base64'),
        decoded: { username: 'ops', password: 'static-password-2' },
      },
      credential: { username: 'ops', password: 'static-password-2' },
    });
    assert.deepEqual(got[0].credential, { username: 'deploy', private_key: pem });
    assert.deepEqual(got[2].credential, { api_key: 'json-secret-key' });
  });

  it('grants: a role allowing read and list of stores lets its user list, not create, and not list libraries', async () => {
    const am = (await call('GET', 'auth-methods?scope_id=global')).body.items[0].id as string;
    const acct = await call('POST', 'accounts', { body: { auth_method_id: am, attributes: { login_name: 'carol', password: 'carol-password' } } });
    assert.equal(acct.status, 200, acct.text);
    const user = await call('POST', 'users', { body: { scope_id: 'global', name: 'carol' } });
    await call('POST', `users/${user.body.id}:add-accounts`, { body: { version: 1, account_ids: [acct.body.id] } });
    const role = await call('POST', 'roles', { body: { scope_id: projectId, name: 'store readers' } });
    await call('POST', `roles/${role.body.id}:add-principals`, { body: { version: 1, principal_ids: [user.body.id] } });
    const g = await call('POST', `roles/${role.body.id}:add-grants`, {
      body: { version: 2, grant_strings: ['ids=*;type=credential-store;actions=read,list'] },
    });
    assert.equal(g.status, 200, g.text);
    const login = await call('POST', `auth-methods/${am}:authenticate`, {
      token: null,
      body: { attributes: { login_name: 'carol', password: 'carol-password' } },
    });
    assert.equal(login.status, 200, login.text);
    const token = login.body.attributes.token as string;
    const list = await call('GET', `credential-stores?scope_id=${projectId}`, { token });
    assert.equal(list.status, 200, list.text);
    assert.ok(list.body.items.some((s: { id: string }) => s.id === storeId));
    assert.deepEqual(list.body.items.find((s: { id: string }) => s.id === storeId).authorized_actions, ['read']);
    assert.equal((await call('POST', 'credential-stores', { token, body: { scope_id: projectId, type: 'static' } })).status, 403);
    assert.equal((await call('GET', `credential-libraries?credential_store_id=${storeId}`, { token })).status, 403);
    // A pinned grant opens the store's libraries.
    await call('POST', `roles/${role.body.id}:add-grants`, {
      body: { version: 3, grant_strings: [`ids=${storeId};type=credential-library;actions=list,read`] },
    });
    const libs = await call('GET', `credential-libraries?credential_store_id=${storeId}`, { token });
    assert.equal(libs.status, 200, libs.text);
    assert.ok(libs.body.items.length >= 3);
  });

  it('an update with a new token checks it first: a refused one changes nothing, an accepted one replaces it', async () => {
    const before = (await call('GET', `credential-stores/${storeId}`)).body;
    const notPeriodic = await makeToken({ policies: ['gateway'], ttl: '1h', no_parent: true });
    const refused = await call('PATCH', `credential-stores/${storeId}`, { body: { version: before.version, attributes: { token: notPeriodic } } });
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.body.details.request_fields[0].name, 'attributes.token');
    const same = (await call('GET', `credential-stores/${storeId}`)).body;
    assert.deepEqual([same.version, same.attributes.token_hmac], [before.version, before.attributes.token_hmac]);
    const fresh = await makeToken({ policies: ['gateway'], period: '1h', no_parent: true });
    const updated = await call('PATCH', `credential-stores/${storeId}`, {
      body: { version: before.version, description: 'rotated', attributes: { token: fresh } },
    });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.body.version, before.version + 1);
    assert.notEqual(updated.body.attributes.token_hmac, before.attributes.token_hmac);
    assert.equal(updated.body.attributes.token_status, 'current');
    assert.equal(updated.body.attributes.address, secrets.url);
    storeToken = fresh;
    const libs = (await call('GET', `credential-libraries?credential_store_id=${storeId}`)).body.items;
    const [c] = await brokerCredentials(gw.domain!, target([libs.find((l: { name: string }) => l.name === 'db').id]), 's_rotated001');
    assert.deepEqual(c.credential, { username: 'app', password: 'pw-version-2' }, 'brokering uses the new token');
  });

  it('a token the secrets service refuses at renewal becomes expired, and brokering from its store stops', async () => {
    const token = await makeToken({ policies: ['gateway'], period: '1h', no_parent: true });
    const store = await call('POST', 'credential-stores', { body: { scope_id: projectId, type: 'vault', attributes: { address: secrets.url, token } } });
    assert.equal(store.status, 200, store.text);
    const lib = await call('POST', 'credential-libraries', { body: { credential_store_id: store.body.id, attributes: { path: 'secret/data/app/db' } } });
    assert.equal((await secrets.call('POST', '/v1/auth/token/revoke', { body: { token } })).status, 204);
    advance(31 * 60);
    await until('the token marked expired', 10_000, async () =>
      (await call('GET', `credential-stores/${store.body.id}`)).body.attributes.token_status === 'expired' ? true : undefined,
    );
    await assert.rejects(
      brokerCredentials(gw.domain!, target([lib.body.id]), 's_expired001'),
      new RegExp(`the token of credential store "${store.body.id}" is expired`),
    );
    assert.ok(logLines.some((l) => l.includes('credential store token not renewed') && l.includes(store.body.id)));
  });

  it('deleting the vault store revokes its token and deletes its libraries', async () => {
    const del = await call('DELETE', `credential-stores/${storeId}`);
    assert.equal(del.status, 204);
    assert.equal((await call('GET', `credential-libraries?credential_store_id=${storeId}`)).status, 404);
    assert.equal(gw.domain!.state.list<{ credential_store_id: string }>('credential-libraries').filter((l) => l.credential_store_id === storeId).length, 0);
    await until('the token revoked', 10_000, async () =>
      (await secrets.call('POST', '/v1/auth/token/lookup', { body: { token: storeToken } })).status !== 200 ? true : undefined,
    );
  });

  it('never sent or logged a secret', () => {
    assert.ok(logLines.length > 0, 'the controller logged');
    for (const secret of secretValues) {
      for (const r of replies) assert.ok(!r.includes(secret), `a reply holds a secret: ${r.slice(0, 200)}`);
      for (const l of logLines) assert.ok(!l.includes(secret), `a log line holds a secret: ${l.slice(0, 200)}`);
    }
  });
});
