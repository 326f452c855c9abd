/**
 * Auth methods and binding rules over HTTP (reference/mesh.md §4.1–§4.2, §6.6): CRUD,
 * stubs, MaxTokenTTL in and out, TokenLocality, Type immutability, the write-time JWKS /
 * discovery reachability check against a real OpenID provider on loopback, selector and
 * bind-name checks; bad input is 400 naming the problem and changes nothing; deleting a
 * method deletes its rules.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { UnsecuredJWT } from 'jose';
import { startProvider, type TestProvider } from '../../src/kernel/authn/testdata/provider.js';
import { selfSignedCert } from '../../src/kernel/http/testdata/self-signed.js';
import { call, startAgent, type TestAgent } from './helpers.js';

const ROOT = '6e2d8b4f-0c3a-4d7e-9f1b-2a3b4c5d6e7f';

describe('discovery auth methods and binding rules', () => {
  let a: TestAgent;
  let secondary: TestAgent;
  let op: TestProvider;
  let localSecret: string;
  let k8s: { Host: string; CACert: string; ServiceAccountJWT: string };
  const put = (p: string, body?: unknown, token = ROOT) => call(a.url, 'PUT', p, { token, body });
  const get = (p: string, token = ROOT) => call(a.url, 'GET', p, { token });
  const del = (p: string) => call(a.url, 'DELETE', p, { token: ROOT });
  const index = async (p: string) => (await get(p)).headers.get('x-mesh-index');

  before(async () => {
    [a, op] = await Promise.all([startAgent({ initialManagement: ROOT }, { enterprise: true }), startProvider()]);
    // A secondary makes no initial-management token: it is made by a first start as a primary.
    const first = await startAgent(
      { initialManagement: ROOT },
      { datacenter: 'dc2', primaryDatacenter: 'dc2', dataDir: mkdtempSync(join(tmpdir(), 'cairn-mesh-')) },
    );
    // a local token: global ones in a secondary are the primary's business
    const local = await call(first.url, 'PUT', '/v1/acl/token', { token: ROOT, body: { Local: true, Policies: [{ Name: 'global-management' }] } });
    localSecret = local.json.SecretID;
    await first.stop();
    secondary = await startAgent({}, { datacenter: 'dc2', primaryDatacenter: 'dc1', dataDir: first.dataDir });
    k8s = { Host: '127.0.0.1:1', CACert: selfSignedCert().cert, ServiceAccountJWT: new UnsecuredJWT({ sub: 'reviewer' }).encode() };
  });
  after(async () => {
    await Promise.all([a.stop(), secondary.stop(), op.close()]);
    rmSync(secondary.dataDir, { recursive: true, force: true });
  });

  it('kubernetes: create, read, stub list, update keeps Type, MaxTokenTTL as Go durations, delete', async () => {
    const m = await put('/v1/acl/auth-method', { Name: 'minikube', Type: 'kubernetes', Description: 'k', MaxTokenTTL: '90m', Config: k8s });
    assert.equal(m.status, 200, m.text);
    assert.equal(m.json.MaxTokenTTL, '1h30m0s');
    assert.deepEqual(m.json.Config, k8s);
    assert.equal(m.json.TokenLocality, undefined, 'omitted when empty');
    const read = await get('/v1/acl/auth-method/minikube');
    assert.equal(read.json.Type, 'kubernetes');
    assert.ok(Number(read.headers.get('x-mesh-index')) >= 1);
    const list = (await get('/v1/acl/auth-methods')).json;
    assert.deepEqual(list, [
      {
        Name: 'minikube',
        Type: 'kubernetes',
        Description: 'k',
        MaxTokenTTL: '1h30m0s',
        CreateIndex: m.json.CreateIndex,
        ModifyIndex: m.json.ModifyIndex,
        Namespace: 'default',
      },
    ]);
    // update without Type keeps it; nanoseconds accepted; 0 omits the field
    const up = await put('/v1/acl/auth-method/minikube', { MaxTokenTTL: 300e9, TokenLocality: 'global', Config: k8s });
    assert.equal(up.status, 200, up.text);
    assert.equal(up.json.Type, 'kubernetes');
    assert.equal(up.json.MaxTokenTTL, '5m0s');
    assert.equal(up.json.TokenLocality, 'global');
    assert.equal((await put('/v1/acl/auth-method/minikube', { Config: k8s })).json.MaxTokenTTL, undefined);
    assert.equal((await del('/v1/acl/auth-method/minikube')).text, 'true');
    assert.equal((await get('/v1/acl/auth-method/minikube')).status, 404);
    assert.equal((await get('/v1/acl/auth-method/minikube')).text, 'Requested auth method does not exist: ACL not found');
    assert.equal((await del('/v1/acl/auth-method/minikube')).text, 'true', 'deleting a missing method is true');
  });

  it('jwt: JWKS URL and discovery URL are reached at write time; unreachable ones are refused', async () => {
    const jwks = await put('/v1/acl/auth-method', { Name: 'jwks', Type: 'jwt', Config: { JWKSURL: `${op.issuer}/jwks`, BoundAudiences: ['cairn'] } });
    assert.equal(jwks.status, 200, jwks.text);
    const disco = await put('/v1/acl/auth-method', { Name: 'disco', Type: 'jwt', Config: { OIDCDiscoveryURL: op.issuer, ClaimMappings: { sub: 'user' } } });
    assert.equal(disco.status, 200, disco.text);
    const before = await index('/v1/acl/auth-methods');
    const dead = await put('/v1/acl/auth-method', { Name: 'dead', Type: 'jwt', Config: { JWKSURL: 'http://127.0.0.1:1/jwks' } });
    assert.equal(dead.status, 400);
    assert.match(dead.text, /^Invalid Auth Method: error checking JWKSURL: fetching keys oidc: get keys failed: /);
    const deadDisco = await put('/v1/acl/auth-method', {
      Name: 'dead',
      Type: 'oidc',
      Config: { OIDCDiscoveryURL: 'http://127.0.0.1:1', OIDCClientID: 'c', OIDCClientSecret: 's', AllowedRedirectURIs: ['http://localhost/cb'] },
    });
    assert.equal(deadDisco.status, 400);
    assert.match(deadDisco.text, /^Invalid Auth Method: error checking OIDCDiscoveryURL: /);
    assert.equal(await index('/v1/acl/auth-methods'), before, 'nothing changed');
  });

  it('bad auth-method input → 400 naming the problem, nothing changed; permissions', async () => {
    const before = await index('/v1/acl/auth-methods');
    const bad = async (body: unknown, text: string | RegExp, path = '/v1/acl/auth-method') => {
      const r = await put(path, body);
      assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
      if (typeof text === 'string') assert.equal(r.text, text);
      else assert.match(r.text, text);
    };
    await bad({}, 'Invalid Auth Method: no Name is set');
    await bad({ Name: 'a b', Type: 'jwt' }, "Invalid Auth Method: invalid Name. Only alphanumeric characters, '-' and '_' are allowed");
    await bad({ Name: 'x', Type: 'ldap' }, 'Invalid Auth Method: Type should be one of: [kubernetes jwt oidc]');
    await bad({ Name: 7, Type: 'jwt' }, 'Name must be a string');
    await bad({ Name: 'x', Type: 'kubernetes', Config: {} }, 'Invalid Auth Method: Config.Host is required');
    await bad({ Name: 'x', Type: 'kubernetes', Config: { ...k8s, CACert: 'nope' } }, /^Invalid Auth Method: error parsing kubernetes ca cert: /);
    await bad({ Name: 'x', Type: 'kubernetes', Config: { ...k8s, Extra: 1 } }, 'Invalid Auth Method: Config has invalid keys: Extra');
    await bad({ Name: 'x', Type: 'kubernetes', Config: { ...k8s, Host: 5 } }, 'Invalid Auth Method: Config.Host must be a string');
    await bad(
      { Name: 'x', Type: 'jwt', Config: {} },
      `Invalid Auth Method: exactly one of 'JWTValidationPubKeys', 'JWKSURL', or 'OIDCDiscoveryURL' must be set for type "jwt"`,
    );
    await bad(
      { Name: 'x', Type: 'jwt', Config: { JWKSURL: `${op.issuer}/jwks`, BoundAudiences: 'cairn' } },
      'Invalid Auth Method: Config.BoundAudiences must be a list of strings',
    );
    await bad(
      { Name: 'x', Type: 'jwt', Config: { JWKSURL: `${op.issuer}/jwks`, JWTSupportedAlgs: ['HS256'] } },
      'Invalid Auth Method: Invalid supported algorithm: HS256',
    );
    await bad(
      { Name: 'x', Type: 'jwt', Config: { JWKSURL: `${op.issuer}/jwks`, OIDCClientID: 'c' } },
      `Invalid Auth Method: 'OIDCClientID' must not be set for type "jwt"`,
    );
    await bad({ Name: 'x', Type: 'kubernetes', MaxTokenTTL: '30s', Config: k8s }, 'MaxTokenTTL 30s cannot be less than 1m0s');
    await bad({ Name: 'x', Type: 'kubernetes', MaxTokenTTL: 'soon', Config: k8s }, "Invalid Auth Method: MaxTokenTTL 'soon' is not a duration");
    await bad(
      { Name: 'x', Type: 'kubernetes', TokenLocality: 'planet', Config: k8s },
      "Invalid Auth Method: TokenLocality should be one of 'local' or 'global'",
    );
    await bad({ Name: 'jwks', Type: 'kubernetes', Config: k8s }, 'the Type field of an Auth Method is immutable');
    await bad({ Name: 'other', Config: k8s }, 'AuthMethod Name in URL and payload do not match', '/v1/acl/auth-method/jwks');
    const raw = await call(a.url, 'PUT', '/v1/acl/auth-method', { token: ROOT, raw: '{"Name":' });
    assert.equal(raw.status, 400);
    assert.match(raw.text, /^AuthMethod decoding failed: /);
    assert.equal(await index('/v1/acl/auth-methods'), before, 'nothing changed');
    const anon = await call(a.url, 'GET', '/v1/acl/auth-methods');
    assert.equal(anon.status, 403);
    assert.match(anon.text, /^Permission denied: anonymous token lacks permission 'acl:read'/);
    // global locality only in the primary; oidc only with the enterprise switch
    const g = await call(secondary.url, 'PUT', '/v1/acl/auth-method', {
      token: localSecret,
      body: { Name: 'k', Type: 'kubernetes', TokenLocality: 'global', Config: k8s },
    });
    assert.equal(g.text, "Invalid Auth Method: TokenLocality 'global' can only be used in the primary datacenter");
    const o = await call(secondary.url, 'PUT', '/v1/acl/auth-method', { token: localSecret, body: { Name: 'o', Type: 'oidc' } });
    assert.equal(o.text, 'Invalid Auth Method: Type should be one of: [kubernetes jwt]');
  });

  it('binding rules: create, read, list by method, update, delete; checks against the method', async () => {
    assert.equal((await put('/v1/acl/auth-method', { Name: 'k8s', Type: 'kubernetes', Config: k8s })).status, 200);
    const r = await put('/v1/acl/binding-rule', {
      AuthMethod: 'k8s',
      Selector: 'serviceaccount.namespace==default',
      BindType: 'service',
      BindName: '${serviceaccount.name}',
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(Object.keys(r.json).sort(), [
      'AuthMethod',
      'BindName',
      'BindType',
      'CreateIndex',
      'Description',
      'ID',
      'ModifyIndex',
      'Namespace',
      'Selector',
    ]);
    const j = await put('/v1/acl/binding-rule', { AuthMethod: 'disco', Selector: '"admins" in list.groups', BindType: 'role', BindName: 'role-${value.user}' });
    assert.equal(j.status, 200, j.text);
    assert.equal((await get(`/v1/acl/binding-rule/${r.json.ID}`)).json.BindName, '${serviceaccount.name}');
    assert.deepEqual(
      (await get('/v1/acl/binding-rules?authmethod=k8s')).json.map((x: { ID: string }) => x.ID),
      [r.json.ID],
    );
    assert.equal((await get('/v1/acl/binding-rules')).json.length, 2);
    const up = await put(`/v1/acl/binding-rule/${r.json.ID}`, { Description: 'web', BindType: 'node', BindName: 'n-${serviceaccount.uid}' });
    assert.equal(up.status, 200, up.text);
    assert.equal(up.json.AuthMethod, 'k8s', 'AuthMethod omitted → kept');
    assert.equal(up.json.CreateIndex, r.json.CreateIndex);

    const before = await index('/v1/acl/binding-rules');
    const bad = async (body: unknown, text: string | RegExp, path = '/v1/acl/binding-rule') => {
      const x = await put(path, body);
      assert.equal(x.status, 400, `${JSON.stringify(body)}: ${x.text}`);
      if (typeof text === 'string') assert.equal(x.text, text);
      else assert.match(x.text, text);
    };
    await bad({ BindType: 'service', BindName: 'x' }, 'Invalid Binding Rule: no AuthMethod is set');
    await bad({ AuthMethod: 'nope', BindType: 'service', BindName: 'x' }, 'cannot find auth method with name "nope"');
    await bad({ AuthMethod: 'k8s', Selector: 'serviceaccount.name ==', BindType: 'service', BindName: 'x' }, /^invalid Binding Rule: Selector is invalid: 1:/);
    await bad({ AuthMethod: 'k8s', Selector: 'value.sub == "x"', BindType: 'service', BindName: 'x' }, /^invalid Binding Rule: Selector is invalid: .*value/);
    await bad({ AuthMethod: 'k8s', BindName: 'x' }, 'Invalid Binding Rule: no BindType is set');
    await bad({ AuthMethod: 'k8s', BindType: 'service' }, 'Invalid Binding Rule: no BindName is set');
    await bad({ AuthMethod: 'k8s', BindType: 'management', BindName: 'x' }, 'Invalid Binding Rule: unknown BindType "management"');
    await bad({ AuthMethod: 'k8s', BindType: 'service', BindName: 'Bad Name!' }, 'Invalid Binding Rule: invalid BindName');
    await bad({ AuthMethod: 'k8s', BindType: 'service', BindName: '${nope.var}' }, /^Invalid Binding Rule: invalid BindName: /);
    await bad({ AuthMethod: 'k8s', BindType: 7, BindName: 'x' }, 'BindType must be a string');
    await bad({ AuthMethod: 'k8s', ID: r.json.ID, BindType: 'service', BindName: 'x' }, 'Cannot specify the ID when creating a new binding rule');
    await bad({ AuthMethod: 'disco' }, 'the AuthMethod field of an Binding Rule is immutable', `/v1/acl/binding-rule/${r.json.ID}`);
    await bad({ ID: j.json.ID }, 'BindingRule ID in URL and payload do not match', `/v1/acl/binding-rule/${r.json.ID}`);
    await bad({}, 'Binding Rule ID invalid UUID', '/v1/acl/binding-rule/not-a-uuid');
    assert.equal(await index('/v1/acl/binding-rules'), before, 'nothing changed');
    assert.equal((await get('/v1/acl/binding-rule/00000000-0000-4000-8000-000000000009')).text, 'Requested binding rule does not exist: ACL not found');

    // deleting the auth method deletes its rules
    assert.equal((await del('/v1/acl/auth-method/k8s')).text, 'true');
    assert.deepEqual(
      (await get('/v1/acl/binding-rules')).json.map((x: { ID: string }) => x.ID),
      [j.json.ID],
    );
    assert.equal((await del(`/v1/acl/binding-rule/${j.json.ID}`)).text, 'true');
    assert.deepEqual((await get('/v1/acl/binding-rules')).json, []);
  });
});
