/**
 * The OIDC login endpoints (spec 001; reference/mesh.md §5) against a real OpenID provider
 * on loopback with a scripted login: auth-url → provider → callback → token, and the
 * refusals (replayed state, mismatched client nonce, redirect URI not allowed, wrong
 * method type) with nothing created. The enterprise switch: without it the endpoints are
 * unknown paths and namespaces are refused. Namespace resolution order (spec 001).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startProvider, type TestProvider } from '../../src/kernel/authn/testdata/provider.js';
import { resolveNamespace } from '../../src/services/mesh/namespace.js';
import { call, startAgent, type TestAgent } from './helpers.js';

const ROOT = '8a4f0d6b-2e5c-4f9a-9b3d-4c5d6e7f8091';
const REDIRECT = 'http://localhost:8550/oidc/callback';

describe('discovery OIDC login', () => {
  let a: TestAgent;
  let ce: TestAgent;
  let op: TestProvider;
  const post = (p: string, body: unknown, base = () => a.url) => call(base(), 'POST', p, { body });
  const tokenCount = async () => (await call(a.url, 'GET', '/v1/acl/tokens', { token: ROOT })).json.length;
  /** auth-url, then the browser at the provider: state and code of the redirect back. */
  const start = async (extra: Record<string, unknown> = {}) => {
    const r = await post('/v1/acl/oidc/auth-url', { AuthMethod: 'corp', RedirectURI: REDIRECT, ...extra });
    assert.equal(r.status, 200, r.text);
    const back = await op.browse(r.json.AuthURL);
    assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
    return { State: back.searchParams.get('state')!, Code: back.searchParams.get('code')! };
  };

  before(async () => {
    op = await startProvider({ clients: [{ client_id: 'cairn', client_secret: 'cairn-secret', redirect_uris: [REDIRECT] }] });
    [a, ce] = await Promise.all([startAgent({ initialManagement: ROOT }, { enterprise: true }), startAgent({ initialManagement: ROOT })]);
    const put = (p: string, body: unknown) => call(a.url, 'PUT', p, { token: ROOT, body });
    const m = await put('/v1/acl/auth-method', {
      Name: 'corp',
      Type: 'oidc',
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
    assert.equal(m.status, 200, m.text);
    assert.equal(
      (await put('/v1/acl/binding-rule', { AuthMethod: 'corp', Selector: '"admins" in list.groups', BindType: 'policy', BindName: 'global-management' }))
        .status,
      200,
    );
    assert.equal((await put('/v1/acl/auth-method', { Name: 'k', Type: 'jwt', Config: { JWKSURL: `${op.issuer}/jwks` } })).status, 200);
  });
  after(async () => {
    await Promise.all([a.stop(), ce.stop(), op.close()]);
  });

  it('auth-url → provider → callback → token; the state is single use', async () => {
    const url = new URL((await post('/v1/acl/oidc/auth-url', { AuthMethod: 'corp', RedirectURI: REDIRECT })).json.AuthURL);
    assert.equal(url.origin, op.issuer);
    assert.equal(url.searchParams.get('client_id'), 'cairn');
    assert.equal(url.searchParams.get('scope'), 'openid email groups');
    const cb = await start({ ClientNonce: 'cli-1', Meta: { host: 'laptop' } });
    const r = await post('/v1/acl/oidc/callback', { AuthMethod: 'corp', ...cb, ClientNonce: 'cli-1' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.Description, 'token created via OIDC login: {"host":"laptop"}');
    assert.deepEqual(
      r.json.Policies.map((p: { Name: string }) => p.Name),
      ['global-management'],
    );
    assert.equal(r.json.AuthMethod, 'corp');
    assert.equal(r.json.Local, true);
    assert.equal(Date.parse(r.json.ExpirationTime) - Date.parse(r.json.CreateTime), 3_600_000);
    assert.equal((await call(a.url, 'GET', '/v1/acl/token/self', { token: r.json.SecretID })).status, 200, 'the token works');
    const before = await tokenCount();
    const replay = await post('/v1/acl/oidc/callback', { AuthMethod: 'corp', ...cb, ClientNonce: 'cli-1' });
    assert.deepEqual([replay.status, replay.text], [403, 'Provider login failed: Expired or missing OAuth state.']);
    assert.equal(await tokenCount(), before, 'nothing created');
  });

  it('refusals: mismatched client nonce, redirect URI not allowed, wrong method type, unknown method, bad input — nothing created', async () => {
    const before = await tokenCount();
    const cb = await start({ ClientNonce: 'mine' });
    const nonce = await post('/v1/acl/oidc/callback', { AuthMethod: 'corp', ...cb, ClientNonce: 'theirs' });
    assert.deepEqual([nonce.status, nonce.text], [403, 'Provider login failed: invalid client_nonce']);
    const redirect = await post('/v1/acl/oidc/auth-url', { AuthMethod: 'corp', RedirectURI: 'https://evil.example/cb' });
    assert.deepEqual([redirect.status, redirect.text], [400, 'unauthorized redirect_uri: https://evil.example/cb']);
    const missing = await post('/v1/acl/oidc/auth-url', { AuthMethod: 'corp' });
    assert.deepEqual([missing.status, missing.text], [400, 'missing redirect_uri']);
    const jwt = await post('/v1/acl/oidc/auth-url', { AuthMethod: 'k', RedirectURI: REDIRECT });
    assert.deepEqual([jwt.status, jwt.text], [400, 'GetAuthCodeURL is incompatible with type "jwt"']);
    const unknown = await post('/v1/acl/oidc/callback', { AuthMethod: 'nope', State: 'x', Code: 'y' });
    assert.deepEqual([unknown.status, unknown.text], [403, 'ACL not found: auth method "nope" not found']);
    const badType = await post('/v1/acl/oidc/callback', { AuthMethod: 'corp', State: 5, Code: 'y' });
    assert.deepEqual([badType.status, badType.text], [400, 'State must be a string']);
    const login = await post('/v1/acl/login', { AuthMethod: 'corp', BearerToken: 'x' });
    assert.deepEqual([login.status, login.text], [400, 'ClaimsFromJWT is incompatible with type "oidc"']);
    assert.equal(await tokenCount(), before, 'nothing created');
  });

  it('namespaces (enterprise): ?ns= and X-Mesh-Namespace are read; only default holds auth methods', async () => {
    const cb = await start({ Namespace: 'default' });
    const r = await call(a.url, 'POST', '/v1/acl/oidc/callback?ns=team', { body: { AuthMethod: 'corp', ...cb } });
    assert.deepEqual([r.status, r.text], [403, 'ACL not found: auth method "corp" not found']);
    const viaHeader = await fetch(`${a.url}/v1/acl/login`, {
      method: 'POST',
      headers: { 'X-Mesh-Namespace': 'team' },
      body: JSON.stringify({ AuthMethod: 'corp', BearerToken: 'x' }),
    });
    assert.equal(await viaHeader.text(), 'ACL not found: auth method "corp" not found');
  });

  it('without the enterprise switch: the OIDC endpoints are unknown paths, oidc methods refused, namespaces refused', async () => {
    const r = await post('/v1/acl/oidc/auth-url', { AuthMethod: 'corp', RedirectURI: REDIRECT }, () => ce.url);
    assert.deepEqual([r.status, r.text], [404, 'Invalid URL path: not a recognized HTTP API endpoint\n']);
    assert.equal((await call(ce.url, 'OPTIONS', '/v1/acl/oidc/callback')).status, 404);
    const h = await fetch(`${ce.url}/v1/acl/tokens`, { headers: { 'X-Mesh-Namespace': 'team', 'X-Mesh-Token': ROOT } });
    assert.deepEqual([h.status, await h.text()], [400, 'Invalid header: "X-Mesh-Namespace" - Namespaces are a Consul Enterprise feature']);
    const q = await call(ce.url, 'GET', '/v1/acl/policies?ns=team', { token: ROOT });
    assert.deepEqual([q.status, q.text], [400, 'Invalid query parameter: "ns" - Namespaces are a Consul Enterprise feature']);
  });
});

describe('namespace resolution (spec 001, five levels)', () => {
  it('body > ns query > header > token > default, empty values skipped', () => {
    const all = { body: 'b', query: 'q', header: 'h', token: 't' };
    assert.equal(resolveNamespace(all), 'b');
    assert.equal(resolveNamespace({ ...all, body: '' }), 'q');
    assert.equal(resolveNamespace({ ...all, body: undefined, query: null }), 'h');
    assert.equal(resolveNamespace({ token: 't', header: '' }), 't');
    assert.equal(resolveNamespace({}), 'default');
  });
});
