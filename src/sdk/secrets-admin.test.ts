import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SecretsApiError, SecretsClient } from './index.js';
import { envelope, startFakeServer, type FakeServer } from './testing/fake-server.js';

describe('SecretsClient admin helpers: sys lifecycle, auth methods, policies, logins, namespaces', () => {
  let server: FakeServer;
  let client: SecretsClient;

  before(async () => {
    server = await startFakeServer();
    client = new SecretsClient({ address: server.url, token: 'tok-1', namespace: 'ns1/' });
  });
  after(async () => {
    await client.close();
    await server.close();
  });

  const last = () => server.requests[server.requests.length - 1];
  const status = { type: 'shamir', initialized: true, sealed: true, t: 2, n: 3, progress: 1, nonce: 'n-1', version: '0.1.0' };

  it('init, seal-status, unseal, reset, seal and init status', async () => {
    server.handle(() => ({ status: 200, body: { keys: ['aa'], keys_base64: ['qg=='], root_token: 'r' } }));
    assert.deepEqual(await client.sys.init({ secretShares: 1, secretThreshold: 1 }), { keys: ['aa'], keys_base64: ['qg=='], root_token: 'r' });
    assert.equal(`${last().method} ${last().path}`, 'POST /v1/sys/init');
    assert.deepEqual(last().body, { secret_shares: 1, secret_threshold: 1 });

    server.handle(() => ({ status: 200, body: status }));
    assert.deepEqual(await client.sys.sealStatus(), status);
    assert.equal(`${last().method} ${last().path}`, 'GET /v1/sys/seal-status');
    assert.equal((await client.sys.unseal('k1')).progress, 1);
    assert.deepEqual(last().body, { key: 'k1' });
    await client.sys.unsealReset();
    assert.deepEqual(last().body, { reset: true });

    server.handle(() => ({ status: 204 }));
    await client.sys.seal();
    assert.equal(`${last().method} ${last().path}`, 'POST /v1/sys/seal');
    assert.equal(last().headers['x-secrets-token'], 'tok-1');

    server.handle(() => ({ status: 200, body: { initialized: false } }));
    assert.equal(await client.sys.initStatus(), false);
  });

  it('unseal errors surface as SecretsApiError', async () => {
    server.handle(() => ({ status: 400, body: { errors: ['unseal failed, invalid key'] } }));
    await assert.rejects(
      client.sys.unseal('bad'),
      (e: unknown) => e instanceof SecretsApiError && e.status === 400 && e.message === 'unseal failed, invalid key',
    );
  });

  it('health returns the body on the health status codes and throws otherwise', async () => {
    const body = { initialized: true, sealed: true, standby: false, server_time_utc: 1, version: '0.1.0' };
    server.handle(() => ({ status: 503, body }));
    assert.deepEqual(await client.sys.health(), { ...body, status: 503 });
    server.handle(() => ({ status: 500, body: { errors: ['boom'] } }));
    await assert.rejects(client.sys.health(), /boom/);
  });

  it('enables, lists and disables auth methods', async () => {
    server.handle(() => ({ status: 204 }));
    await client.sys.enableAuth('/people/', { type: 'userpass', description: 'humans' });
    assert.equal(`${last().method} ${last().path}`, 'POST /v1/sys/auth/people');
    assert.deepEqual(last().body, { type: 'userpass', description: 'humans' });
    await client.sys.disableAuth('people/');
    assert.equal(`${last().method} ${last().path}`, 'DELETE /v1/sys/auth/people');
    const token = { type: 'token', description: '', accessor: 'auth_token_1', options: null };
    server.handle(() => ({ status: 200, body: { ...envelope({ 'token/': token }), 'token/': token } }));
    assert.deepEqual(await client.sys.listAuth(), { 'token/': token });
  });

  it('writes, reads, lists and deletes policies', async () => {
    server.handle(() => ({ status: 204 }));
    await client.policies.write('ops', 'path "x" { capabilities = ["read"] }');
    assert.equal(`${last().method} ${last().path}`, 'POST /v1/sys/policies/acl/ops');
    assert.deepEqual(last().body, { policy: 'path "x" { capabilities = ["read"] }' });
    await client.policies.delete('ops');
    assert.equal(`${last().method} ${last().path}`, 'DELETE /v1/sys/policies/acl/ops');

    server.handle(() => ({ status: 200, body: envelope({ name: 'ops', policy: 'p' }) }));
    assert.deepEqual(await client.policies.read('ops'), { name: 'ops', policy: 'p' });
    server.handle(() => ({ status: 404, body: { errors: [] } }));
    assert.equal(await client.policies.read('nope'), undefined);
    server.handle(() => ({ status: 200, body: envelope({ keys: ['default', 'ops', 'root'] }) }));
    assert.deepEqual(await client.policies.list(), ['default', 'ops', 'root']);
    assert.equal(last().query.get('list'), 'true');
  });

  it('logs in without sending the token', async () => {
    const auth = {
      client_token: 't-2',
      accessor: 'a',
      policies: ['default'],
      metadata: null,
      lease_duration: 60,
      renewable: true,
      entity_id: '',
      token_type: 'service',
      orphan: true,
      num_uses: 0,
    };
    server.handle(() => ({ status: 200, body: envelope(null, { auth }) }));
    assert.equal((await client.auth.userpass('alice', 'pw')).auth?.client_token, 't-2');
    assert.equal(`${last().method} ${last().path}`, 'POST /v1/auth/userpass/login/alice');
    assert.deepEqual(last().body, { password: 'pw' });
    assert.equal(last().headers['x-secrets-token'], undefined);
    assert.equal(last().headers['x-secrets-namespace'], 'ns1/');
    await client.auth.approle('rid', 'sid', 'robots');
    assert.equal(last().path, '/v1/auth/robots/login');
    assert.deepEqual(last().body, { role_id: 'rid', secret_id: 'sid' });
    await client.auth.login('auth/custom/login/bob', { password: 'x' });
    assert.equal(last().path, '/v1/auth/custom/login/bob');

    server.handle(() => ({ status: 200, body: envelope({ a: 1 }) }));
    await assert.rejects(client.auth.login('userpass/login/alice', { password: 'pw' }), /no auth block/);
  });

  it('creates, lists and deletes namespaces', async () => {
    const info = { id: 'AbCdE', path: 'team/', custom_metadata: { owner: 'me' } };
    server.handle(() => ({ status: 200, body: envelope(info) }));
    assert.deepEqual(await client.namespaces.create('team/', { owner: 'me' }), info);
    assert.equal(`${last().method} ${last().path}`, 'POST /v1/sys/namespaces/team');
    assert.deepEqual(last().body, { custom_metadata: { owner: 'me' } });

    server.handle(() => ({ status: 200, body: envelope({ keys: ['team/'], key_info: { 'team/': info } }) }));
    assert.deepEqual(await client.namespaces.list(), { keys: ['team/'], key_info: { 'team/': info } });
    server.handle(() => ({ status: 404, body: { errors: [] } }));
    assert.deepEqual(await client.namespaces.list(), { keys: [], key_info: {} });

    server.handle(() => ({ status: 204 }));
    await client.namespaces.delete('team');
    assert.equal(`${last().method} ${last().path}`, 'DELETE /v1/sys/namespaces/team');
  });
});
