/**
 * Scheduler login (reference/sched.md §2.5) against a real OpenID provider on loopback
 * (src/kernel/authn/testdata/provider.ts): `POST /v1/acl/login` with JWTs its JWKS verifies,
 * the OIDC code flow through `auth-url` → provider → `complete-auth`, binding rules to
 * roles, policies and management, token name, expiry and locality, the refusals with the
 * reference's texts (nothing created), and forwarding to the authoritative region: auth
 * method and binding rule writes sent to `europe`, and logins of `global` methods.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { generateKeyPair, SignJWT } from 'jose';
import { startProvider, type TestProvider } from '../../src/kernel/authn/testdata/provider.js';
import type { AuthMethod } from '../../src/services/sched/auth/auth-method.js';
import { T, type PolicyDoc, type RoleDoc } from '../../src/services/sched/state.js';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';

const REDIRECT = 'http://localhost:4649/oidc/callback';
const nowS = () => Math.floor(Date.now() / 1000);
const multi = (prefix: string, errors: string[]) =>
  `${prefix}: ${errors.length === 1 ? '1 error occurred:' : `${errors.length} errors occurred:`}\n${errors.map((e) => `\t* ${e}`).join('\n')}\n\n`;

/** Writes policies and roles directly (the policy and role routes are other files' work). */
async function seed(agent: TestAgent, policies: string[], roles: Record<string, string[]>): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  await agent.state.txn((tx) => {
    for (const name of policies)
      tx.put<PolicyDoc>(T.policies, name, { Name: name, Description: '', Rules: 'namespace "default" { policy = "read" }', Hash: name });
    for (const [name, ps] of Object.entries(roles)) {
      ids[name] = randomUUID();
      tx.put<RoleDoc>(T.roles, ids[name], { ID: ids[name], Name: name, Description: '', Policies: ps.map((p) => ({ Name: p })), Hash: name });
    }
  });
  return ids;
}

/** Copies auth method `name` from `from` into `to`'s state (this europe agent has no replication token, so this stands in for replication). */
async function copyMethod(from: TestAgent, to: TestAgent, name: string): Promise<void> {
  const { CreateIndex: _c, ModifyIndex: _m, ...doc } = from.state.get<AuthMethod>(T.authMethods, name)!;
  await to.state.txn((tx) => tx.put(T.authMethods, name, doc));
}

describe('scheduler login and OIDC', () => {
  let a: TestAgent;
  let eu: TestAgent;
  let off: TestAgent;
  let op: TestProvider;
  let skewMs = 0;
  let roleIds: Record<string, string>;
  const post = (path: string, body?: unknown, base = () => a.url) => call(base(), 'POST', path, { body });
  const put = (path: string, body: unknown, base = () => a.url) => call(base(), 'PUT', path, { token: ROOT, body });
  const ok = (r: { status: number; text: string }) => assert.equal(r.status, 200, r.text);
  const tokenCount = () => a.state.list(T.tokens).length;
  const jwt = (claims: Record<string, unknown>) => op.sign({ aud: 'cairn', iat: nowS(), exp: nowS() + 300, ...claims });
  /** auth-url, then the browser at the provider: the State and Code of the redirect back. */
  const startOidc = async (method: string, nonce: string, base = () => a.url) => {
    const r = await post('/v1/acl/oidc/auth-url', { AuthMethodName: method, RedirectURI: REDIRECT, ClientNonce: nonce }, base);
    assert.equal(r.status, 200, r.text);
    const back = await op.browse(r.json.AuthURL);
    assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
    return { State: back.searchParams.get('state')!, Code: back.searchParams.get('code')! };
  };

  before(async () => {
    op = await startProvider({ clients: [{ client_id: 'cairn', client_secret: 'cairn-secret', redirect_uris: [REDIRECT] }] });
    a = await startAgent({}, { now: () => Date.now() + skewMs });
    [eu, off] = await Promise.all([
      startAgent({ region: 'europe', authoritativeRegion: 'global', regionAddresses: { global: new URL(a.url).host } }, { root: null }),
      startAgent({ acl: { enabled: false } }),
    ]);
    roleIds = await seed(a, ['ops', 'dev-read'], { 'dev-alice': ['dev-read'] });
    ok(
      await put('/v1/acl/auth-method', {
        Name: 'jwks',
        Type: 'JWT',
        TokenLocality: 'local',
        MaxTokenTTL: '10m',
        TokenNameFormat: '${auth_method_type}-${value.user}',
        Config: { JWKSURL: `${op.issuer}/jwks`, BoundAudiences: ['cairn'], ClaimMappings: { sub: 'user' }, ListClaimMappings: { groups: 'groups' } },
      }),
    );
    ok(await put('/v1/acl/binding-rule', { AuthMethod: 'jwks', Selector: '"dev" in list.groups', BindType: 'role', BindName: 'dev-${value.user}' }));
    ok(await put('/v1/acl/binding-rule', { AuthMethod: 'jwks', Selector: 'value.user == "Alice"', BindType: 'policy', BindName: 'ops' }));
    ok(await put('/v1/acl/binding-rule', { AuthMethod: 'jwks', Selector: 'value.user == "root"', BindType: 'management' }));
    ok(await put('/v1/acl/binding-rule', { AuthMethod: 'jwks', Selector: 'value.user == "nobody"', BindType: 'role', BindName: 'missing-role' }));
    const corp = (name: string, locality: string) => ({
      Name: name,
      Type: 'OIDC',
      TokenLocality: locality,
      MaxTokenTTL: '1h',
      Config: {
        OIDCDiscoveryURL: op.issuer,
        OIDCClientID: 'cairn',
        OIDCClientSecret: 'cairn-secret',
        AllowedRedirectURIs: [REDIRECT],
        OIDCScopes: ['email', 'groups'],
        ClaimMappings: { sub: 'user' },
        ListClaimMappings: { groups: 'groups' },
      },
    });
    ok(await put('/v1/acl/auth-method', corp('corp', 'local')));
    ok(await put('/v1/acl/binding-rule', { AuthMethod: 'corp', Selector: '"admins" in list.groups', BindType: 'policy', BindName: 'ops' }));
    ok(await put('/v1/acl/auth-method', corp('unbound', 'local')));
  });
  after(async () => {
    await Promise.all([a.stop(), eu.stop(), off.stop(), op.close()]);
  });

  it('JWT login: role and policy bindings, Name from TokenNameFormat, ExpirationTTL = MaxTokenTTL, local; the token works until it expires', async () => {
    const r = await post('/v1/acl/login', { AuthMethodName: 'jwks', LoginToken: await jwt({ sub: 'Alice', groups: ['dev'] }) });
    assert.equal(r.status, 200, r.text);
    const t = r.json;
    assert.deepEqual([t.Type, t.Name, t.Global], ['client', 'JWT-Alice', false]);
    assert.deepEqual(t.Policies, ['ops']);
    assert.deepEqual(t.Roles, [{ ID: roleIds['dev-alice'], Name: 'dev-alice' }], 'bind names interpolate lower-cased values');
    assert.equal(t.ExpirationTTL, '10m0s');
    assert.equal(Date.parse(t.ExpirationTime) - Date.parse(t.CreateTime), 600_000);
    assert.match(t.SecretID, /^[0-9a-f-]{36}$/);
    assert.equal(r.headers.get('x-sched-index'), String(t.ModifyIndex));
    // usable: a valid client token may list auth methods, and is not management
    assert.equal((await call(a.url, 'GET', '/v1/acl/auth-methods', { token: t.SecretID })).status, 200);
    assert.equal((await call(a.url, 'GET', '/v1/acl/auth-method/jwks', { token: t.SecretID })).status, 403);
    skewMs = 601_000;
    try {
      const late = await call(a.url, 'GET', '/v1/acl/auth-methods', { token: t.SecretID });
      assert.deepEqual([late.status, late.text], [403, 'Permission denied'], 'expired after MaxTokenTTL');
    } finally {
      skewMs = 0;
    }
  });

  it('JWT login: a management rule makes a management token; PUT works too', async () => {
    const r = await call(a.url, 'PUT', '/v1/acl/login', { body: { authmethodname: 'jwks', logintoken: await jwt({ sub: 'root' }) } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual([r.json.Type, r.json.Policies, r.json.Roles], ['management', null, null]);
    assert.equal((await call(a.url, 'GET', '/v1/acl/auth-method/jwks', { token: r.json.SecretID })).status, 200);
  });

  it('JWT login refusals, with nothing created', async () => {
    const before = tokenCount();
    const refuse = async (body: unknown, status: number, text: string | RegExp, path = '/v1/acl/login') => {
      const r = await post(path, body);
      assert.equal(r.status, status, `${JSON.stringify(body)?.slice(0, 60)}: ${r.text}`);
      if (typeof text === 'string') assert.equal(r.text, text);
      else assert.match(r.text, text);
    };
    await refuse({ AuthMethodName: 'jwks', LoginToken: await jwt({ sub: 'nobody' }) }, 400, 'no role or policy bindings matched');
    await refuse({ AuthMethodName: 'jwks', LoginToken: await jwt({ sub: 'bob', groups: ['ops'] }) }, 400, 'no role or policy bindings matched');
    await refuse(
      { AuthMethodName: 'jwks', LoginToken: await jwt({ sub: 'alice', aud: 'other' }) },
      401,
      'unable to validate provided token: error validating claims: aud claim does not match any bound audience',
    );
    await refuse(
      { AuthMethodName: 'jwks', LoginToken: await jwt({ sub: 'alice', iat: nowS() - 7200, exp: nowS() - 3600 }) },
      401,
      'unable to validate provided token: error validating claims: validation failed, token is expired (exp)',
    );
    const { privateKey } = await generateKeyPair('RS256');
    const forged = await new SignJWT({ sub: 'alice', aud: 'cairn', exp: nowS() + 60 }).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).sign(privateKey);
    await refuse({ AuthMethodName: 'jwks', LoginToken: forged }, 401, /^unable to validate provided token: error verifying token: /);
    await refuse({ AuthMethodName: 'jwks' }, 400, multi('invalid login request', ['missing login token']));
    await refuse({}, 400, multi('invalid login request', ['missing auth method name', 'missing login token']));
    await refuse(undefined, 400, 'Request body is empty');
    await refuse({ AuthMethodName: 'nope', LoginToken: 'x' }, 400, 'auth-method "nope" not found');
    await refuse({ AuthMethodName: 'corp', LoginToken: 'x' }, 400, 'unsupported auth-method type: OIDC');
    await refuse(
      { AuthMethodName: 1, LoginToken: 'x' },
      400,
      'json: cannot unmarshal number into Go struct field ACLLoginRequest.AuthMethodName of type string',
    );
    const disabled = await call(off.url, 'POST', '/v1/acl/login', { body: { AuthMethodName: 'jwks', LoginToken: 'x' } });
    assert.deepEqual([disabled.status, disabled.text], [400, 'ACL support disabled']);
    assert.equal(tokenCount(), before, 'nothing created');
  });

  it('OIDC: auth-url → provider → complete-auth → a working token; the state is single use', async () => {
    const url = new URL((await post('/v1/acl/oidc/auth-url', { AuthMethodName: 'corp', RedirectURI: REDIRECT, ClientNonce: 'n0' })).json.AuthURL);
    assert.deepEqual([url.origin, url.searchParams.get('client_id'), url.searchParams.get('scope')], [op.issuer, 'cairn', 'openid email groups']);
    const cb = await startOidc('corp', 'n1');
    const r = await call(a.url, 'PUT', '/v1/acl/oidc/complete-auth', { body: { AuthMethodName: 'corp', ClientNonce: 'n1', RedirectURI: REDIRECT, ...cb } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual([r.json.Name, r.json.Type, r.json.Policies, r.json.Global, r.json.ExpirationTTL], ['OIDC-corp', 'client', ['ops'], false, '1h0m0s']);
    assert.equal(Date.parse(r.json.ExpirationTime) - Date.parse(r.json.CreateTime), 3_600_000);
    assert.equal(r.headers.get('x-sched-index'), String(r.json.ModifyIndex));
    assert.equal((await call(a.url, 'GET', '/v1/acl/auth-methods', { token: r.json.SecretID })).status, 200, 'the token works');
    const before = tokenCount();
    const replay = await post('/v1/acl/oidc/complete-auth', { AuthMethodName: 'corp', ClientNonce: 'n1', RedirectURI: REDIRECT, ...cb });
    assert.deepEqual([replay.status, replay.text], [400, 'failed to exchange token with provider: Provider login failed: Expired or missing OAuth state.']);
    assert.equal(tokenCount(), before);
  });

  it('OIDC refusals: client nonce, redirect URI, missing fields, wrong type, no binding — nothing created', async () => {
    const before = tokenCount();
    const cb = await startOidc('corp', 'mine');
    const nonce = await post('/v1/acl/oidc/complete-auth', { AuthMethodName: 'corp', ClientNonce: 'theirs', RedirectURI: REDIRECT, ...cb });
    assert.deepEqual([nonce.status, nonce.text], [400, 'failed to exchange token with provider: Provider login failed: invalid client_nonce']);
    const redirect = await post('/v1/acl/oidc/auth-url', { AuthMethodName: 'corp', RedirectURI: 'https://evil.example/cb', ClientNonce: 'n' });
    assert.deepEqual([redirect.status, redirect.text], [400, 'failed to generate auth URL: unauthorized redirect_uri: https://evil.example/cb']);
    const noUrl = await post('/v1/acl/oidc/auth-url', {});
    assert.deepEqual(
      [noUrl.status, noUrl.text],
      [400, multi('invalid OIDC auth-url request', ['missing auth method name', 'missing client nonce', 'missing redirect URI'])],
    );
    const noDone = await post('/v1/acl/oidc/complete-auth', { AuthMethodName: 'corp', ClientNonce: 'n' });
    assert.deepEqual(
      [noDone.status, noDone.text],
      [400, multi('invalid OIDC complete-auth request', ['missing state', 'missing code', 'missing redirect URI'])],
    );
    const jwtType = await post('/v1/acl/oidc/auth-url', { AuthMethodName: 'jwks', RedirectURI: REDIRECT, ClientNonce: 'n' });
    assert.deepEqual([jwtType.status, jwtType.text], [400, 'unsupported auth-method type: JWT']);
    const unknown = await post('/v1/acl/oidc/complete-auth', { AuthMethodName: 'nope', ClientNonce: 'n', State: 's', Code: 'c', RedirectURI: REDIRECT });
    assert.deepEqual([unknown.status, unknown.text], [400, 'auth-method "nope" not found']);
    const unbound = await startOidc('unbound', 'u');
    const none = await post('/v1/acl/oidc/complete-auth', { AuthMethodName: 'unbound', ClientNonce: 'u', RedirectURI: REDIRECT, ...unbound });
    assert.deepEqual([none.status, none.text], [400, 'no role or policy bindings matched']);
    const disabled = await call(off.url, 'POST', '/v1/acl/oidc/auth-url', { body: { AuthMethodName: 'corp', RedirectURI: REDIRECT, ClientNonce: 'n' } });
    assert.deepEqual([disabled.status, disabled.text], [400, 'ACL support disabled']);
    assert.equal(tokenCount(), before, 'nothing created');
  });

  it('forwards auth-method and binding-rule writes sent to a non-authoritative region to the authoritative one', async () => {
    const body = { Name: 'fwd', Type: 'JWT', TokenLocality: 'local', MaxTokenTTL: '5m', Config: { JWKSURL: `${op.issuer}/jwks` } };
    const created = await put('/v1/acl/auth-method', body, () => eu.url);
    assert.equal(created.status, 200, created.text);
    assert.equal(created.json.Name, 'fwd');
    const read = await call(a.url, 'GET', '/v1/acl/auth-method/fwd', { token: ROOT });
    assert.deepEqual([read.status, read.json.MaxTokenTTL, read.json.ModifyIndex], [200, '5m0s', created.json.ModifyIndex]);
    assert.equal(eu.state.get(T.authMethods, 'fwd'), undefined, 'stored in the authoritative region only (this europe agent has no replication token)');

    const updated = await put('/v1/acl/auth-method/fwd', { ...body, MaxTokenTTL: '7m' }, () => eu.url);
    assert.equal(updated.status, 200, updated.text);
    assert.equal((await call(a.url, 'GET', '/v1/acl/auth-method/fwd', { token: ROOT })).json.MaxTokenTTL, '7m0s');
    const rule = await put('/v1/acl/binding-rule', { AuthMethod: 'fwd', BindType: 'management' }, () => eu.url);
    assert.equal(rule.status, 200, rule.text);
    assert.equal((await call(a.url, 'GET', `/v1/acl/binding-rule/${rule.json.ID}`, { token: ROOT })).status, 200);
    const denied = await call(eu.url, 'POST', '/v1/acl/auth-method', { token: 'not-a-global-token', body });
    assert.deepEqual([denied.status, denied.text], [403, 'Permission denied'], 'the authoritative region checks the token');
    const del = await call(eu.url, 'DELETE', '/v1/acl/auth-method/fwd', { token: ROOT });
    assert.deepEqual([del.status, del.text], [200, '']);
    assert.equal((await call(a.url, 'GET', '/v1/acl/auth-method/fwd', { token: ROOT })).status, 404);
  });

  it('forwards logins of global methods to the authoritative region: JWT login and the OIDC flow', async () => {
    ok(
      await put('/v1/acl/auth-method', {
        Name: 'gjwt',
        Type: 'JWT',
        TokenLocality: 'global',
        MaxTokenTTL: '10m',
        Config: { JWKSURL: `${op.issuer}/jwks`, BoundAudiences: ['cairn'], ClaimMappings: { sub: 'user' } },
      }),
    );
    ok(await put('/v1/acl/binding-rule', { AuthMethod: 'gjwt', BindType: 'policy', BindName: 'ops' }));
    ok(
      await put('/v1/acl/auth-method', {
        Name: 'gcorp',
        Type: 'OIDC',
        TokenLocality: 'global',
        MaxTokenTTL: '1h',
        Config: {
          OIDCDiscoveryURL: op.issuer,
          OIDCClientID: 'cairn',
          OIDCClientSecret: 'cairn-secret',
          AllowedRedirectURIs: [REDIRECT],
          ClaimMappings: { sub: 'user' },
        },
      }),
    );
    ok(await put('/v1/acl/binding-rule', { AuthMethod: 'gcorp', BindType: 'management' }));
    for (const name of ['gjwt', 'gcorp']) await copyMethod(a, eu, name);

    const r = await post('/v1/acl/login', { AuthMethodName: 'gjwt', LoginToken: await jwt({ sub: 'alice' }) }, () => eu.url);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual([r.json.Global, r.json.Name, r.json.Policies], [true, 'JWT-gjwt', ['ops']]);
    assert.ok(a.state.get(T.tokens, r.json.AccessorID), 'made in the authoritative region');
    assert.equal(eu.state.get(T.tokens, r.json.AccessorID), undefined);
    assert.equal((await call(a.url, 'GET', '/v1/acl/auth-methods', { token: r.json.SecretID })).status, 200);

    // auth-url goes to the authoritative region too, so complete-auth finds its state there
    const cb = await startOidc('gcorp', 'g1', () => eu.url);
    const done = await post('/v1/acl/oidc/complete-auth', { AuthMethodName: 'gcorp', ClientNonce: 'g1', RedirectURI: REDIRECT, ...cb }, () => eu.url);
    assert.equal(done.status, 200, done.text);
    assert.deepEqual([done.json.Global, done.json.Type], [true, 'management']);
    assert.ok(a.state.get(T.tokens, done.json.AccessorID));
  });
});
