/**
 * The OIDC code flow against a real OpenID provider on loopback (`oidc-provider`, scripted
 * login and consent): auth URL → provider → callback, and its failures
 * (reference/mesh.md §5.1, §5.2).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOidcFlow, type AuthMethodConfig } from './index.js';
import { startProvider, type TestProvider } from './testdata/provider.js';

const REDIRECT = 'http://127.0.0.1:8550/oidc/callback';
const client = { client_id: 'cairn', client_secret: 'cairn-secret', redirect_uris: [REDIRECT] };

describe('OIDC flow', () => {
  let op: TestProvider;
  let tlsOp: TestProvider;
  let t = 1_000_000;
  const clock = { now: () => t };
  const config = (over: Partial<AuthMethodConfig> = {}): AuthMethodConfig => ({
    oidcDiscoveryUrl: op.issuer,
    oidcClientId: 'cairn',
    oidcClientSecret: 'cairn-secret',
    allowedRedirectUris: [REDIRECT],
    oidcScopes: ['email', 'groups'],
    ...over,
  });
  /** Runs the browser part: returns state and code from the provider's redirect. */
  const login = async (authUrl: string) => {
    const back = await op.browse(authUrl);
    assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
    return { state: back.searchParams.get('state')!, code: back.searchParams.get('code')! };
  };
  before(async () => {
    [op, tlsOp] = await Promise.all([startProvider({ clients: [client] }), startProvider({ clients: [client], tls: true })]);
  });
  after(async () => {
    await Promise.all([op.close(), tlsOp.close()]);
  });

  it('auth-url → provider → callback: ID-token claims merged with UserInfo, payload back, nonce removed', async () => {
    const flow = await createOidcFlow<{ meta: string }>(config(), clock);
    const url = new URL(await flow.authUrl({ redirectUri: REDIRECT, clientNonce: 'cn', payload: { meta: 'm' } }));
    assert.equal(url.searchParams.get('scope'), 'openid email groups');
    assert.equal(url.searchParams.get('response_type'), 'code');
    assert.match(url.searchParams.get('state')!, /^[0-9a-f]{40}$/);
    assert.match(url.searchParams.get('nonce')!, /^[0-9a-f]{40}$/);
    assert.equal(url.searchParams.get('code_challenge'), null, 'no PKCE unless configured');
    const { state, code } = await login(url.href);
    const { claims, payload } = await flow.callback({ state, code, clientNonce: 'cn' });
    assert.deepEqual(payload, { meta: 'm' });
    assert.equal(claims.sub, 'alice');
    assert.equal(claims.aud, 'cairn');
    assert.equal(claims.email, 'alice@example.com', 'from UserInfo');
    assert.deepEqual(claims.groups, ['admins', 'dev'], 'from UserInfo');
    assert.equal(claims.nonce, undefined);
    // the state is single use
    await assert.rejects(flow.callback({ state, code, clientNonce: 'cn' }), {
      kind: 'oidc_state',
      message: 'Provider login failed: Expired or missing OAuth state.',
    });
  });

  it("redirect URIs and scopes per request (the secrets service's roles carry their own)", async () => {
    const flow = await createOidcFlow<null>(config({ allowedRedirectUris: [] }), { ...clock, redirectUrisPerRequest: true });
    await assert.rejects(flow.authUrl({ redirectUri: REDIRECT, payload: null }), { kind: 'redirect_uri', message: `unauthorized redirect_uri: ${REDIRECT}` });
    const url = new URL(await flow.authUrl({ redirectUri: REDIRECT, payload: null, allowedRedirectUris: [REDIRECT], scopes: ['email'] }));
    assert.equal(url.searchParams.get('scope'), 'openid email');
    const { state, code } = await login(url.href);
    assert.equal((await flow.callback({ state, code })).claims.sub, 'alice');
    await assert.rejects(createOidcFlow(config({ allowedRedirectUris: [] }), clock), {
      kind: 'config',
      message: `'AllowedRedirectURIs' must be set for type "oidc"`,
    });
  });

  it('PKCE S256 when configured, with acr_values', async () => {
    const flow = await createOidcFlow<null>(config({ oidcClientUsePkce: true, oidcAcrValues: ['a', 'b'] }), clock);
    const url = new URL(await flow.authUrl({ redirectUri: REDIRECT, payload: null }));
    assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
    assert.ok(url.searchParams.get('code_challenge'));
    assert.equal(url.searchParams.get('acr_values'), 'a b');
    const { state, code } = await login(url.href);
    assert.equal((await flow.callback({ state, code })).claims.sub, 'alice');
  });

  it('over HTTPS, trusting the configured CA', async () => {
    const flow = await createOidcFlow<null>(config({ oidcDiscoveryUrl: tlsOp.issuer, oidcDiscoveryCaCert: tlsOp.caCert }), clock);
    const back = await tlsOp.browse(await flow.authUrl({ redirectUri: REDIRECT, payload: null }));
    const { claims } = await flow.callback({ state: back.searchParams.get('state')!, code: back.searchParams.get('code')! });
    assert.equal(claims.sub, 'alice');
    await assert.rejects(createOidcFlow(config({ oidcDiscoveryUrl: tlsOp.issuer }), clock), {
      kind: 'unreachable',
      message: /^error checking OIDCDiscoveryURL: /,
    });
  });

  it('a mismatched client nonce fails, and the state is gone afterwards', async () => {
    const flow = await createOidcFlow<null>(config(), clock);
    const { state, code } = await login(await flow.authUrl({ redirectUri: REDIRECT, clientNonce: 'mine', payload: null }));
    await assert.rejects(flow.callback({ state, code, clientNonce: 'other' }), { kind: 'oidc_state', message: 'Provider login failed: invalid client_nonce' });
    await assert.rejects(flow.callback({ state, code, clientNonce: 'mine' }), { message: 'Provider login failed: Expired or missing OAuth state.' });
  });

  it('a missing code, and a code the provider refuses', async () => {
    const flow = await createOidcFlow<null>(config(), clock);
    const first = await login(await flow.authUrl({ redirectUri: REDIRECT, payload: null }));
    await assert.rejects(flow.callback({ state: first.state, code: '' }), { message: 'Provider login failed: OAuth code parameter not provided' });
    const second = await login(await flow.authUrl({ redirectUri: REDIRECT, payload: null }));
    await assert.rejects(flow.callback({ state: second.state, code: 'forged' }), {
      kind: 'oidc_exchange',
      message: /^Provider login failed: Error exchanging oidc code: /,
    });
  });

  it('an ID token carrying another login’s nonce is refused', async () => {
    const flow = await createOidcFlow<null>(config(), clock);
    const a = new URL(await flow.authUrl({ redirectUri: REDIRECT, payload: null }));
    const b = await login(await flow.authUrl({ redirectUri: REDIRECT, payload: null }));
    // state of login A with the code of login B: the ID token holds B's nonce
    await assert.rejects(flow.callback({ state: a.searchParams.get('state')!, code: b.code }), {
      kind: 'token',
      message: 'Token verification failed: Invalid ID token nonce.',
    });
  });

  it('pending states expire after 10 minutes of the injected clock', async () => {
    const flow = await createOidcFlow<null>(config(), clock);
    const { state, code } = await login(await flow.authUrl({ redirectUri: REDIRECT, payload: null }));
    t += 10 * 60_000;
    await assert.rejects(flow.callback({ state, code }), { message: 'Provider login failed: Expired or missing OAuth state.' });
  });

  it('redirect URIs: exact match, loopback port ignored, otherwise refused', async () => {
    const flow = await createOidcFlow<null>(
      config({ allowedRedirectUris: [REDIRECT, 'https://app.example/cb', 'http://localhost:8550/oidc/callback'] }),
      clock,
    );
    await flow.authUrl({ redirectUri: 'https://app.example/cb', payload: null });
    await flow.authUrl({ redirectUri: 'http://127.0.0.1:9999/oidc/callback', payload: null });
    await flow.authUrl({ redirectUri: 'http://localhost:1234/oidc/callback', payload: null });
    await assert.rejects(flow.authUrl({ redirectUri: 'https://app.example:8443/cb', payload: null }), {
      kind: 'redirect_uri',
      message: 'unauthorized redirect_uri: https://app.example:8443/cb',
    });
    await assert.rejects(flow.authUrl({ redirectUri: 'http://127.0.0.1:9999/other', payload: null }), {
      message: 'unauthorized redirect_uri: http://127.0.0.1:9999/other',
    });
    await assert.rejects(
      flow.authUrl({ redirectUri: 'http://localhost:1/oidc/callback', payload: null }).then(() => flow.authUrl({ redirectUri: '', payload: null })),
      { message: 'missing redirect_uri' },
    );
  });

  it('an unreachable discovery URL fails creation; a bad config is refused first', async () => {
    await assert.rejects(createOidcFlow(config({ oidcDiscoveryUrl: `${op.issuer}/nope` }), clock), {
      kind: 'unreachable',
      message: /^error checking OIDCDiscoveryURL: /,
    });
    await assert.rejects(createOidcFlow(config({ allowedRedirectUris: [] }), clock), {
      kind: 'config',
      message: `'AllowedRedirectURIs' must be set for type "oidc"`,
    });
  });
});

describe('PendingStates', () => {
  it('is bounded: expired entries go first, then the oldest', async () => {
    const { PendingStates } = await import('./index.js');
    let t = 0;
    const s = new PendingStates<number>({ now: () => t, ttlMs: 100, maxEntries: 2 });
    s.put('a', 1);
    t = 50;
    s.put('b', 2);
    t = 120; // a expired, b alive
    s.put('c', 3);
    assert.equal(s.size, 2);
    s.put('d', 4); // full of live entries: the oldest (b) goes
    assert.equal(s.take('b'), undefined);
    assert.equal(s.take('c'), 3);
    assert.equal(s.take('c'), undefined, 'single use');
    t = 1000;
    assert.equal(s.take('d'), undefined, 'expired');
    assert.equal(s.size, 0);
  });
});
