/**
 * The SDK's `MeshClient` against a real discovery agent on loopback: bootstrap, the ACL
 * object families, list indexes and blocking reads, login/logout with a JWT signed by a key
 * made here (a `jwt` method with `JWTValidationPubKeys`), errors and the environment.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { MeshApiError, MeshClient, MeshConnectionError, normalizeMeshAddress } from '../../src/sdk/index.js';
import { startSdkAgent, type SdkAgent } from './helpers.js';

describe('MeshClient', () => {
  let s: SdkAgent;
  let mesh: MeshClient;
  let root: string;

  before(async () => {
    s = await startSdkAgent();
    const boot = await s.client().bootstrap();
    root = boot.SecretID;
    assert.equal(boot.ID, root);
    mesh = s.client(root);
  });
  after(() => s?.stop());

  it('bootstrap is one-time: the second answers 403 with the reset index as plain text', async () => {
    const err = await s
      .client()
      .bootstrap()
      .catch((e: unknown) => e);
    assert.ok(err instanceof MeshApiError);
    assert.equal(err.status, 403);
    assert.match(err.message, /^Permission denied: ACL bootstrap no longer allowed \(reset index: \d+\)$/);
  });

  it('replication status of a primary', async () => {
    const r = await mesh.replication();
    assert.equal(r.Enabled, false);
    assert.equal(r.LastSuccess, '0001-01-01T00:00:00Z');
  });

  it('policies, roles and tokens: create, read, list with filters and index, update, clone, delete', async () => {
    const p = await mesh.policies.create({ Name: 'sdk-web', Description: 'web', Rules: 'service "web" { policy = "write" }' });
    assert.equal((await mesh.policies.readByName('sdk-web')).ID, p.ID);
    assert.equal((await mesh.policies.update(p.ID, { Name: 'sdk-web', Description: 'changed', Rules: p.Rules })).Description, 'changed');
    const policies = await mesh.policies.list();
    assert.ok(policies.index > 0);
    assert.equal(policies.items.find((x) => x.ID === p.ID)?.Rules, undefined, 'list stubs carry no Rules');

    const role = await mesh.roles.create({ Name: 'sdk-role', Policies: [{ Name: 'sdk-web' }] });
    assert.deepEqual(role.Policies, [{ ID: p.ID, Name: 'sdk-web' }]);
    assert.deepEqual(
      (await mesh.roles.list({ policy: p.ID })).items.map((r) => r.Name),
      ['sdk-role'],
    );
    assert.equal((await mesh.roles.readByName('sdk-role')).ID, role.ID);
    assert.equal((await mesh.roles.update(role.ID, { Name: 'sdk-role', Description: 'd' })).Policies, undefined);

    const t = await mesh.tokens.create({ Description: 'sdk', Policies: [{ ID: p.ID }], ServiceIdentities: [{ ServiceName: 'web' }], ExpirationTTL: '1h' });
    assert.match(t.SecretID, /^[0-9a-f-]{36}$/);
    assert.ok(t.ExpirationTime);
    assert.equal((await mesh.tokens.read(t.AccessorID)).Description, 'sdk');
    assert.deepEqual(
      (await mesh.tokens.list({ policy: p.ID })).items.map((x) => x.AccessorID),
      [t.AccessorID],
    );
    assert.deepEqual(
      (await mesh.tokens.list({ serviceName: 'web' })).items.map((x) => x.AccessorID),
      [t.AccessorID],
    );
    const own = await s.client(t.SecretID).tokens.readSelf();
    assert.equal(own.AccessorID, t.AccessorID);
    const updated = await mesh.tokens.update(t.AccessorID, { Description: 'sdk2', Policies: [{ Name: 'sdk-web' }] });
    assert.equal(updated.Description, 'sdk2');
    const copy = await mesh.tokens.clone(t.AccessorID, 'copy');
    assert.notEqual(copy.AccessorID, t.AccessorID);
    assert.equal(copy.Description, 'copy');
    await mesh.tokens.delete(copy.AccessorID);
    await mesh.tokens.delete(t.AccessorID);
    const gone = await mesh.tokens.read(t.AccessorID).catch((e: unknown) => e);
    assert.ok(gone instanceof MeshApiError);
    assert.equal(gone.status, 404);
    assert.equal(gone.message, 'Requested token does not exist: ACL not found');
    await mesh.roles.delete(role.ID);
    await mesh.policies.delete(p.ID);
    assert.equal(
      (await mesh.policies.list()).items.some((x) => x.ID === p.ID),
      false,
    );
  });

  it('a blocking list returns when a write lands', async () => {
    const { index } = await mesh.policies.list();
    const waiting = mesh.policies.list({ index, wait: '30s' });
    await new Promise((r) => setTimeout(r, 100));
    const p = await mesh.policies.create({ Name: 'sdk-block' });
    const after = await waiting;
    assert.ok(after.index > index);
    assert.ok(after.items.some((x) => x.ID === p.ID));
    await mesh.policies.delete(p.ID);
  });

  it('auth method, binding rule, login with a locally signed JWT, logout', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const m = await mesh.authMethods.create({
      Name: 'sdk-jwt',
      Type: 'jwt',
      MaxTokenTTL: '10m',
      Config: { JWTValidationPubKeys: [await exportSPKI(publicKey)], JWTSupportedAlgs: ['ES256'], BoundAudiences: ['cairn'], ClaimMappings: { sub: 'user' } },
    });
    assert.equal(m.MaxTokenTTL, '10m0s');
    assert.equal((await mesh.authMethods.update('sdk-jwt', { Type: 'jwt', Description: 'd', Config: m.Config })).Description, 'd');
    assert.ok((await mesh.authMethods.list()).items.some((x) => x.Name === 'sdk-jwt' && x.Config === undefined));
    const rule = await mesh.bindingRules.create({
      AuthMethod: 'sdk-jwt',
      Selector: 'value.user == "alice"',
      BindType: 'service',
      BindName: 'svc-${value.user}',
    });
    assert.equal((await mesh.bindingRules.read(rule.ID)).BindName, 'svc-${value.user}');
    assert.equal((await mesh.bindingRules.update(rule.ID, { Selector: rule.Selector, BindType: 'node', BindName: 'n-${value.user}' })).BindType, 'node');
    assert.deepEqual(
      (await mesh.bindingRules.list({ authMethod: 'sdk-jwt' })).items.map((r) => r.ID),
      [rule.ID],
    );

    const jwt = (sub: string) => new SignJWT({ sub, aud: 'cairn' }).setProtectedHeader({ alg: 'ES256' }).setIssuedAt().setExpirationTime('5m').sign(privateKey);
    const t = await s.client().login({ AuthMethod: 'sdk-jwt', BearerToken: await jwt('alice'), Meta: { host: 'h1' } });
    assert.equal(t.AuthMethod, 'sdk-jwt');
    assert.deepEqual(t.NodeIdentities, [{ NodeName: 'n-alice', Datacenter: 'dc1' }]);
    const refused = await s
      .client()
      .login({ AuthMethod: 'sdk-jwt', BearerToken: await jwt('bob') })
      .catch((e: unknown) => e);
    assert.ok(refused instanceof MeshApiError);
    assert.equal(refused.status, 403);
    await s.client().logout(t.SecretID);
    assert.equal(((await mesh.tokens.read(t.AccessorID).catch((e: unknown) => e)) as MeshApiError).status, 404);
    await mesh.bindingRules.delete(rule.ID);
    await mesh.authMethods.delete('sdk-jwt');
  });

  it('errors: plain-text messages, a refused token, an unreachable service', async () => {
    const bad = await mesh.policies.create({ Name: 'bad name!' }).catch((e: unknown) => e);
    assert.ok(bad instanceof MeshApiError);
    assert.equal(bad.status, 400);
    assert.match(bad.message, /invalid Name/);
    const denied = await s
      .client()
      .policies.list()
      .catch((e: unknown) => e);
    assert.ok(denied instanceof MeshApiError);
    assert.equal(denied.status, 403);
    const far = new MeshClient({ address: '127.0.0.1:1' });
    const down = await far.replication().catch((e: unknown) => e);
    await far.close();
    assert.ok(down instanceof MeshConnectionError, String(down));
  });

  it('fromEnv: defaults, bare host:port, token, namespace, overrides', () => {
    assert.equal(normalizeMeshAddress('127.0.0.1:8500'), 'http://127.0.0.1:8500');
    assert.equal(normalizeMeshAddress('https://mesh.example:8501/'), 'https://mesh.example:8501');
    assert.throws(() => normalizeMeshAddress('http://h:1/v1/x'), /invalid discovery service address/);
    const d = MeshClient.fromEnv({});
    assert.equal(d.address, 'http://127.0.0.1:8500');
    assert.equal(d.hasToken, false);
    const e = MeshClient.fromEnv({ MESH_HTTP_ADDR: '10.0.0.1:8500', MESH_HTTP_TOKEN: 't', MESH_NAMESPACE: 'ns' }, { address: undefined });
    assert.equal(e.address, 'http://10.0.0.1:8500');
    assert.equal(e.hasToken, true);
    assert.equal(MeshClient.fromEnv({ MESH_HTTP_ADDR: 'h:1' }, { address: 'https://o:2' }).address, 'https://o:2');
    assert.throws(() => MeshClient.fromEnv({ MESH_CACERT: '/nonexistent/ca.pem' }), /cannot read MESH_CACERT/);
    void Promise.all([d.close(), e.close()]);
  });
});
