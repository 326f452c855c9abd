/**
 * The `jwt`/`oidc` auth method over HTTP against a real server, with a real OpenID
 * provider on loopback (`oidc-provider`, whose JWKS also serves the JWT logins): config
 * and role CRUD (the client secret never read back), JWT login with bound audiences,
 * subject and claims (globs), claim mappings and groups in token metadata, `token_*`
 * settings applied; bad signature, expired, wrong audience, wrong issuer → 400 with the
 * reference's texts; the OIDC auth_url → provider → callback flow, state single use;
 * `cairn login -method=oidc` (its loopback listener reached by following the printed URL)
 * and `-method=jwt`, storing the token.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPair, SignJWT } from 'jose';
import { main } from '../../src/cli/main.js';
import { startProvider, type TestProvider } from '../../src/kernel/authn/testdata/provider.js';
import { startTestServer, type TestServer } from '../helpers.js';

const REDIRECT = 'http://127.0.0.1:8250/oidc/callback';
// native: the provider accepts any port on a loopback redirect URI (RFC 8252 §7.3), as the CLI's listener needs
const client = { client_id: 'cairn', client_secret: 'cairn-client-secret', redirect_uris: [REDIRECT], application_type: 'native' };
const J = '/v1/auth/jwt';
const O = '/v1/auth/oidc';

let s: TestServer;
let op: TestProvider;
const nowS = () => Math.floor(Date.now() / 1000);

before(async () => {
  [s, op] = await Promise.all([startTestServer(), startProvider({ clients: [client] })]);
  for (const [path, type] of [
    ['jwt', 'jwt'],
    ['oidc', 'oidc'],
  ]) {
    assert.equal((await s.call('POST', `/v1/sys/auth/${path}`, { body: { type } })).status, 204);
  }
});
after(async () => {
  await s.close();
  await op.close();
});

const ok = async (method: string, path: string, body?: unknown, status = 204) => {
  const r = await s.call(method, path, { body });
  assert.equal(r.status, status, `${method} ${path}: ${r.text}`);
  return r;
};
const login = (body: unknown, base = J) => s.call('POST', `${base}/login`, { token: null, body });
const errorOf = (r: { status: number; json: { errors?: string[] } }, status = 400) => {
  assert.equal(r.status, status, JSON.stringify(r.json));
  return (r.json.errors ?? [])[0];
};
const claims = (over: Record<string, unknown> = {}) => ({
  iss: op.issuer,
  sub: 'ci-job-1',
  aud: 'cairn-ci',
  iat: nowS(),
  exp: nowS() + 300,
  project: 'infra/deploy',
  ref: 'refs/heads/main',
  groups: ['ci', 'deployers'],
  ...over,
});

describe('config and roles', () => {
  it('config is checked, reaches the JWKS, and never returns the client secret', async () => {
    const r = await s.call('POST', `${J}/config`, { body: { jwks_url: `${op.issuer}/jwks`, oidc_discovery_url: op.issuer } });
    assert.equal(errorOf(r), `exactly one of 'jwt_validation_pubkeys', 'jwks_url' or 'oidc_discovery_url' must be set`);
    const bad = await s.call('POST', `${J}/config`, { body: { jwks_url: 'http://127.0.0.1:1/jwks' } });
    assert.match(errorOf(bad), /^error checking jwks URL: /);
    await ok('POST', `${J}/config`, { jwks_url: `${op.issuer}/jwks`, bound_issuer: op.issuer, default_role: 'ci' });
    await ok('POST', `${O}/config`, {
      oidc_discovery_url: op.issuer,
      oidc_client_id: 'cairn',
      oidc_client_secret: 'cairn-client-secret',
      default_role: 'people',
    });
    const read = await ok('GET', `${O}/config`, undefined, 200);
    assert.equal(read.json.data.oidc_client_id, 'cairn');
    assert.equal(read.json.data.oidc_client_secret, undefined);
    assert.ok(!read.text.includes('cairn-client-secret'));
  });

  it("role CRUD with the reference's checks", async () => {
    assert.equal(
      errorOf(await s.call('POST', `${J}/role/x`, { body: { role_type: 'jwt', bound_audiences: 'a' } })),
      'a user claim must be defined on the role',
    );
    assert.equal(
      errorOf(await s.call('POST', `${J}/role/x`, { body: { role_type: 'jwt', user_claim: 'sub' } })),
      'must have at least one bound constraint when creating/updating a role',
    );
    assert.equal(
      errorOf(await s.call('POST', `${J}/role/x`, { body: { user_claim: 'sub' } })),
      `'allowed_redirect_uris' must be set if 'role_type' is 'oidc' or unspecified.`,
    );
    await ok('POST', `${J}/role/ci`, {
      role_type: 'jwt',
      user_claim: 'sub',
      bound_audiences: 'cairn-ci',
      bound_claims_type: 'glob',
      bound_claims: { project: 'infra/*', ref: ['refs/heads/main', 'refs/tags/v*'] },
      claim_mappings: { project: 'project', ref: 'git_ref' },
      groups_claim: 'groups',
      token_policies: 'deploy,read',
      token_ttl: '10m',
      token_max_ttl: '1h',
    });
    const r = await ok('GET', `${J}/role/ci`, undefined, 200);
    assert.equal(r.json.data.role_type, 'jwt');
    assert.deepEqual(r.json.data.bound_audiences, ['cairn-ci']);
    assert.deepEqual(r.json.data.token_policies, ['deploy', 'read']);
    assert.equal(r.json.data.token_ttl, 600);
    assert.deepEqual((await ok('LIST', `${J}/role`, undefined, 200)).json.data.keys, ['ci']);
    await ok('POST', `${J}/role/tmp`, { role_type: 'jwt', user_claim: 'sub', bound_subject: 'x' });
    await ok('DELETE', `${J}/role/tmp`);
    assert.equal((await s.call('GET', `${J}/role/tmp`)).status, 404);
  });
});

describe('JWT login', () => {
  it('a valid token: display name from user_claim, claim mappings, role and groups in metadata, token_* applied', async () => {
    const r = await login({ role: 'ci', jwt: await op.sign(claims()) });
    assert.equal(r.status, 200, r.text);
    const auth = r.json.auth;
    assert.deepEqual(auth.policies, ['default', 'deploy', 'read']);
    assert.equal(auth.lease_duration, 600);
    assert.deepEqual(auth.metadata, { project: 'infra/deploy', git_ref: 'refs/heads/main', groups: 'ci,deployers', role: 'ci' });
    const self = await s.call('GET', '/v1/auth/token/lookup-self', { token: auth.client_token });
    assert.equal(self.json.data.display_name, 'jwt-ci-job-1');
    assert.equal(self.json.data.path, 'auth/jwt/login');
    // default_role applies when none is named; a glob on a list claim matches a tag
    assert.equal((await login({ jwt: await op.sign(claims({ ref: 'refs/tags/v1.2' })) })).status, 200);
  });

  it('bound claims and subject refuse with 400', async () => {
    assert.equal(
      errorOf(await login({ role: 'ci', jwt: await op.sign(claims({ project: 'apps/web' })) })),
      'error validating claims: claim "project" does not match any associated bound claim values',
    );
    assert.equal(
      errorOf(await login({ role: 'ci', jwt: await op.sign(claims({ project: undefined })) })),
      'error validating claims: claim "project" is missing',
    );
    await ok('POST', `${J}/role/grp`, { role_type: 'jwt', user_claim: 'sub', bound_audiences: 'cairn-ci', groups_claim: 'teams' });
    assert.equal(errorOf(await login({ role: 'grp', jwt: await op.sign(claims()) })), 'failed to fetch groups: "teams" claim not found in token');
    await ok('POST', `${J}/role/one`, { role_type: 'jwt', user_claim: 'sub', bound_subject: 'ci-job-1', bound_audiences: 'cairn-ci' });
    assert.equal((await login({ role: 'one', jwt: await op.sign(claims()) })).status, 200);
    assert.equal(errorOf(await login({ role: 'one', jwt: await op.sign(claims({ sub: 'other' })) })), 'error validating token: invalid subject (sub) claim');
  });

  it('bad signature, expired, wrong audience, wrong issuer → 400 error validating token', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const forged = await new SignJWT(claims()).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).sign(privateKey);
    assert.match(errorOf(await login({ role: 'ci', jwt: forged })), /^error validating token: .*signature/);
    assert.equal(
      errorOf(await login({ role: 'ci', jwt: await op.sign(claims({ iat: nowS() - 3600, exp: nowS() - 600 })) })),
      'error validating token: error validating claims: validation failed, token is expired (exp)',
    );
    assert.equal(
      errorOf(await login({ role: 'ci', jwt: await op.sign(claims({ aud: 'someone-else' })) })),
      'error validating token: error validating claims: aud claim does not match any bound audience',
    );
    assert.equal(
      errorOf(await login({ role: 'ci', jwt: await op.sign(claims({ iss: 'https://evil.example' })) })),
      'error validating token: error validating claims: validation failed, invalid issuer claim (iss)',
    );
    assert.equal(errorOf(await login({ role: 'nope', jwt: 'x' })), 'role "nope" could not be found');
    assert.equal(errorOf(await login({ role: 'ci' })), 'missing token');
  });
});

describe('OIDC browser flow', () => {
  it('auth_url → provider login → callback → token; the state works once', async () => {
    await ok('POST', `${O}/role/people`, {
      user_claim: 'email',
      allowed_redirect_uris: REDIRECT,
      oidc_scopes: 'email,groups',
      groups_claim: 'groups',
      bound_audiences: 'cairn',
      claim_mappings: { email: 'email' },
      token_policies: 'people',
      token_ttl: '1h',
    });
    assert.equal(
      errorOf(await s.call('POST', `${O}/oidc/auth_url`, { token: null, body: { redirect_uri: 'http://evil.example/cb' } })),
      'unauthorized redirect_uri: http://evil.example/cb',
    );
    assert.equal(errorOf(await s.call('POST', `${O}/login`, { token: null, body: { jwt: 'x' } })), 'role with oidc role_type is not allowed');
    const redirect = 'http://127.0.0.1:39999/oidc/callback'; // a loopback URI matches on any port
    const r = await s.call('POST', `${O}/oidc/auth_url`, { token: null, body: { role: 'people', redirect_uri: redirect, client_nonce: 'n1' } });
    assert.equal(r.status, 200, r.text);
    const url = new URL(r.json.data.auth_url);
    assert.equal(url.origin, op.issuer);
    assert.equal(url.searchParams.get('scope'), 'openid email groups');
    const back = await op.browse(url.href);
    assert.equal(`${back.origin}${back.pathname}`, redirect);
    const q = `state=${back.searchParams.get('state')}&code=${back.searchParams.get('code')}`;
    const done = await s.call('GET', `${O}/oidc/callback?${q}&client_nonce=n1`, { token: null });
    assert.equal(done.status, 200, done.text);
    assert.deepEqual(done.json.auth.policies, ['default', 'people']);
    assert.equal(done.json.auth.lease_duration, 3600);
    assert.deepEqual(done.json.auth.metadata, { email: 'alice@example.com', groups: 'admins,dev', role: 'people' });
    const again = await s.call('GET', `${O}/oidc/callback?${q}&client_nonce=n1`, { token: null });
    assert.equal(errorOf(again), 'Provider login failed: Expired or missing OAuth state.');
  });
});

describe('OpenAPI', () => {
  it('documents the new paths with their fields', async () => {
    const r = await ok('GET', '/v1/sys/internal/specs/openapi', undefined, 200);
    const paths = r.json.paths as Record<string, { post?: { requestBody?: { content: Record<string, { schema: { properties: Record<string, unknown> } }> } } }>;
    for (const p of ['/auth/jwt/config', '/auth/jwt/role/{name}', '/auth/jwt/login', '/auth/oidc/oidc/auth_url', '/auth/oidc/oidc/callback'])
      assert.ok(paths[p], p);
    const login = paths['/auth/jwt/login'].post?.requestBody?.content['application/json'].schema.properties ?? {};
    assert.deepEqual(Object.keys(login).sort(), ['jwt', 'role']);
  });
});

describe('cairn login -method=oidc / -method=jwt', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-login-oidc-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("oidc: prints the auth URL, receives the provider's redirect on its listener, stores the token", async () => {
    const tokenPath = join(dir, 'oidc-token');
    let stdout = '';
    let stderr = '';
    const running = main(
      ['login', '-method=oidc', 'role=people', 'listenaddress=127.0.0.1', 'port=0'],
      { SECRETS_ADDR: s.url, CAIRN_TOKEN_PATH: tokenPath },
      {
        stdout: (x) => (stdout += x),
        stderr: (x) => (stderr += x),
        readStdin: async () => '',
        promptSecret: async () => {
          throw new Error('no prompt expected');
        },
      },
    );
    let printed: RegExpExecArray | null = null;
    for (let i = 0; i < 200 && !printed; i++) {
      printed = /Complete the login via your OIDC provider\. Launching browser to:\n\n {4}(\S+)\n/.exec(stderr);
      if (!printed) await new Promise((r) => setTimeout(r, 25));
    }
    assert.ok(printed, stderr);
    assert.match(stderr, /Waiting for OIDC authentication to complete\.\.\./);
    // the "browser": through the provider's login, then to the CLI's listener
    const back = await op.browse(printed[1]);
    assert.equal(back.hostname, '127.0.0.1');
    assert.equal(back.pathname, '/oidc/callback');
    const page = await fetch(back);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /Signed in via your OIDC provider/);
    assert.equal(await running, 0, stderr);
    const token = /^token\s+(\S+)$/m.exec(stdout)?.[1];
    assert.ok(token, stdout);
    assert.equal(readFileSync(tokenPath, 'utf8'), token);
    assert.match(stdout, /^token_policies\s+\["default" "people"\]$/m);
    const self = await s.call('GET', '/v1/auth/token/lookup-self', { token });
    assert.equal(self.json.data.path, 'auth/oidc/oidc/callback');
  });

  it("jwt: role=… jwt=@file logs in and stores the token; a bad token exits 1 with the server's text", async () => {
    const tokenPath = join(dir, 'jwt-token');
    const file = join(dir, 'ci.jwt');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, await op.sign(claims()));
    let stdout = '';
    let stderr = '';
    const io = { stdout: (x: string) => (stdout += x), stderr: (x: string) => (stderr += x), readStdin: async () => '', promptSecret: async () => '' };
    const env = { SECRETS_ADDR: s.url, CAIRN_TOKEN_PATH: tokenPath };
    assert.equal(await main(['login', '-method=jwt', 'role=ci', `jwt=@${file}`], env, io), 0, stderr);
    assert.equal(readFileSync(tokenPath, 'utf8'), /^token\s+(\S+)$/m.exec(stdout)?.[1]);
    stderr = '';
    assert.equal(await main(['login', '-method=jwt', 'role=ci', 'jwt=not.a.jwt'], env, io), 1);
    assert.match(stderr, /error validating token: /);
  });
});
