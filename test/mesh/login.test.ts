/**
 * Login and logout over HTTP (spec 001; reference/mesh.md §3, §8) against real peers on
 * loopback: `jwt` methods whose keys come from a real OpenID provider's JWKS URL and its
 * discovery document, and a `kubernetes` method against a small HTTPS server that
 * implements the TokenReview contract with a self-signed CA. Refused logins create no token.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { decodeJwt, generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import { startProvider, type TestProvider } from '../../src/kernel/authn/testdata/provider.js';
import { selfSignedCert } from '../../src/kernel/http/testdata/self-signed.js';
import { call, startAgent, type TestAgent } from './helpers.js';

const ROOT = '7f3e9c5a-1d4b-4e8f-8a2c-3b4c5d6e7f80';
const REVIEWER = new UnsecuredJWT({ sub: 'system:serviceaccount:kube-system:cairn' }).encode();

/** A TokenReview API: the reviewed token's `case` claim picks the answer. */
async function startTokenReview(): Promise<{ server: Server; config: Record<string, string> }> {
  const tls = selfSignedCert();
  const reviews: Record<string, unknown> = {
    web: { authenticated: true, user: { username: 'system:serviceaccount:default:web', uid: 'u-1' } },
    rejected: { authenticated: false },
  };
  const server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.headers.authorization !== `Bearer ${REVIEWER}`) return res.writeHead(401).end('{"message":"Unauthorized"}');
      if (req.method === 'POST' && req.url === '/apis/authentication.k8s.io/v1/tokenreviews') {
        const review = JSON.parse(Buffer.concat(chunks).toString()) as { spec: { token: string } };
        return res.end(JSON.stringify({ ...review, status: reviews[String(decodeJwt(review.spec.token).case)] ?? { authenticated: false } }));
      }
      if (req.url === '/api/v1/namespaces/default/serviceaccounts/web') return res.end('{"metadata":{"name":"web"}}');
      res.writeHead(404).end('{"message":"not found"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, config: { Host: `127.0.0.1:${(server.address() as AddressInfo).port}`, CACert: tls.cert, ServiceAccountJWT: REVIEWER } };
}

describe('discovery login and logout', () => {
  let a: TestAgent;
  let op: TestProvider;
  let k8s: { server: Server; config: Record<string, string> };
  const put = (p: string, body?: unknown) => call(a.url, 'PUT', p, { token: ROOT, body });
  const login = (body: unknown) => call(a.url, 'POST', '/v1/acl/login', { body });
  const tokenCount = async () => (await call(a.url, 'GET', '/v1/acl/tokens', { token: ROOT })).json.length;
  const now = () => Math.floor(Date.now() / 1000);

  before(async () => {
    [a, op, k8s] = await Promise.all([startAgent({ initialManagement: ROOT }), startProvider(), startTokenReview()]);
    const ok = (r: { status: number; text: string }) => assert.equal(r.status, 200, r.text);
    ok(await put('/v1/acl/role', { Name: 'dev-alice', Policies: [{ Name: 'builtin/global-read-only' }] }));
    ok(
      await put('/v1/acl/auth-method', {
        Name: 'jwks',
        Type: 'jwt',
        MaxTokenTTL: '10m',
        Config: { JWKSURL: `${op.issuer}/jwks`, BoundAudiences: ['cairn'], ClaimMappings: { sub: 'user' }, ListClaimMappings: { groups: 'groups' } },
      }),
    );
    ok(await put('/v1/acl/binding-rule', { AuthMethod: 'jwks', Selector: '"dev" in list.groups', BindType: 'role', BindName: 'dev-${value.user}' }));
    ok(await put('/v1/acl/binding-rule', { AuthMethod: 'jwks', Selector: 'value.user == "alice"', BindType: 'service', BindName: 'web-${value.user}' }));
    ok(await put('/v1/acl/binding-rule', { AuthMethod: 'jwks', Selector: 'value.user == "nobody"', BindType: 'role', BindName: 'missing-role' }));
    ok(
      await put('/v1/acl/auth-method', {
        Name: 'disco',
        Type: 'jwt',
        TokenLocality: 'global',
        Config: { OIDCDiscoveryURL: op.issuer, ClaimMappings: { sub: 'user' } },
      }),
    );
    ok(await put('/v1/acl/binding-rule', { AuthMethod: 'disco', BindType: 'node', BindName: 'node-${value.user}' }));
    ok(await put('/v1/acl/auth-method', { Name: 'k8s', Type: 'kubernetes', Config: k8s.config }));
    ok(
      await put('/v1/acl/binding-rule', {
        AuthMethod: 'k8s',
        Selector: 'serviceaccount.namespace == default',
        BindType: 'service',
        BindName: '${serviceaccount.name}',
      }),
    );
  });
  after(async () => {
    k8s.server.closeAllConnections();
    k8s.server.close();
    await Promise.all([a.stop(), op.close()]);
  });

  it('jwt via JWKS URL: bound role and service identity, Local, AuthMethod, ExpirationTime from MaxTokenTTL, sorted Meta; logout', async () => {
    const bearer = await op.sign({ sub: 'alice', aud: 'cairn', groups: ['dev'], iat: now(), exp: now() + 300 });
    const r = await login({ AuthMethod: 'jwks', BearerToken: bearer, Meta: { pod: 'web-1', app: 'web' } });
    assert.equal(r.status, 200, r.text);
    const t = r.json;
    assert.deepEqual(
      t.Roles.map((x: { Name: string }) => x.Name),
      ['dev-alice'],
    );
    assert.deepEqual(t.ServiceIdentities, [{ ServiceName: 'web-alice' }]);
    assert.equal(t.Local, true);
    assert.equal(t.AuthMethod, 'jwks');
    assert.equal(t.Description, 'token created via login: {"app":"web","pod":"web-1"}');
    assert.equal(Date.parse(t.ExpirationTime) - Date.parse(t.CreateTime), 600_000);
    assert.match(t.SecretID, /^[0-9a-f-]{36}$/);
    // the token works, and logout deletes it (token by query)
    assert.equal((await call(a.url, 'GET', '/v1/acl/token/self', { token: t.SecretID })).status, 200);
    const out = await call(a.url, 'POST', `/v1/acl/logout?token=${t.SecretID}`);
    assert.equal(out.status, 200);
    assert.equal(out.text, 'true');
    assert.equal((await call(a.url, 'GET', '/v1/acl/token/self', { token: t.SecretID })).text, 'ACL not found');
  });

  it('jwt via OIDC discovery: global locality, node identity, no expiry; logout by header', async () => {
    const r = await login({ AuthMethod: 'disco', BearerToken: await op.sign({ iss: op.issuer, sub: 'bob', exp: now() + 60 }) });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.Local, false);
    assert.equal(r.json.Description, 'token created via login');
    assert.deepEqual(r.json.NodeIdentities, [{ NodeName: 'node-bob', Datacenter: 'dc1' }]);
    assert.equal(r.json.ExpirationTime, undefined);
    assert.equal((await call(a.url, 'POST', '/v1/acl/logout', { token: r.json.SecretID })).text, 'true');
  });

  it('refused logins: wrong audience, expired, bad signature, nothing bound, unknown method, bad input — nothing created', async () => {
    const before = await tokenCount();
    const refuse = async (body: unknown, status: number, text: string | RegExp) => {
      const r = await login(body);
      assert.equal(r.status, status, `${String(JSON.stringify(body)).slice(0, 80)}: ${r.text}`);
      if (typeof text === 'string') assert.equal(r.text, text);
      else assert.match(r.text, text);
    };
    const claims = { sub: 'alice', aud: 'cairn', groups: ['dev'], iat: now(), exp: now() + 300 };
    await refuse(
      { AuthMethod: 'jwks', BearerToken: await op.sign({ ...claims, aud: 'other' }) },
      403,
      'error validating claims: aud claim does not match any bound audience',
    );
    await refuse(
      { AuthMethod: 'jwks', BearerToken: await op.sign({ ...claims, iat: now() - 7200, exp: now() - 3600 }) },
      403,
      'error validating claims: validation failed, token is expired (exp)',
    );
    await refuse(
      { AuthMethod: 'disco', BearerToken: await op.sign({ iss: op.issuer, sub: 'bob', exp: now() - 3600 }) },
      403,
      /^error validating signature: oidc: token is expired/,
    );
    const { privateKey } = await generateKeyPair('RS256');
    const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).sign(privateKey);
    await refuse({ AuthMethod: 'jwks', BearerToken: forged }, 403, /^error verifying token: /);
    await refuse({ AuthMethod: 'jwks', BearerToken: 'not-a-jwt' }, 403, /^error parsing token: /);
    await refuse({ AuthMethod: 'jwks', BearerToken: '' }, 403, 'missing jwt');
    await refuse({ AuthMethod: 'jwks', BearerToken: await op.sign({ ...claims, sub: 'nobody', groups: [] }) }, 403, 'Permission denied');
    await refuse({ AuthMethod: 'nope', BearerToken: 'x' }, 403, 'ACL not found: auth method "nope" not found');
    await refuse({ AuthMethod: 5, BearerToken: 'x' }, 400, 'AuthMethod must be a string');
    await refuse({ AuthMethod: 'jwks', BearerToken: 'x', Meta: { a: 1 } }, 400, 'Meta must be a map of strings');
    await refuse(undefined, 400, 'Invalid Login request: Missing auth parameters');
    const raw = await call(a.url, 'POST', '/v1/acl/login', { raw: '{"AuthMethod":' });
    assert.equal(raw.status, 400);
    assert.match(raw.text, /^Failed to decode request body: /);
    const ns = await call(a.url, 'POST', '/v1/acl/login?ns=team', { body: { AuthMethod: 'jwks', BearerToken: 'x' } });
    assert.equal(ns.text, 'Invalid query parameter: "ns" - Namespaces are a Consul Enterprise feature');
    assert.equal(await tokenCount(), before, 'nothing created');
  });

  it('kubernetes via a local TokenReview API over HTTPS: authenticated and rejected reviews', async () => {
    const before = await tokenCount();
    const ok = await login({ AuthMethod: 'k8s', BearerToken: new UnsecuredJWT({ case: 'web' }).encode() });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.json.ServiceIdentities, [{ ServiceName: 'web' }]);
    assert.equal(ok.json.AuthMethod, 'k8s');
    const no = await login({ AuthMethod: 'k8s', BearerToken: new UnsecuredJWT({ case: 'rejected' }).encode() });
    assert.equal(no.status, 403);
    assert.equal(no.text, 'lookup failed: service account jwt not valid');
    const junk = await login({ AuthMethod: 'k8s', BearerToken: 'junk' });
    assert.equal(junk.status, 403);
    assert.match(junk.text, /^failed to parse and validate JWT: /);
    assert.equal(await tokenCount(), before + 1);
  });

  it('logout: no token 401, unknown 403, not from login 403', async () => {
    const none = await call(a.url, 'POST', '/v1/acl/logout');
    assert.deepEqual([none.status, none.text], [401, 'Supplied token does not exist']);
    const unknown = await call(a.url, 'POST', '/v1/acl/logout', { token: '00000000-1111-4222-8333-444444444444' });
    assert.deepEqual([unknown.status, unknown.text], [403, 'ACL not found']);
    const root = await call(a.url, 'POST', '/v1/acl/logout', { token: ROOT });
    assert.deepEqual([root.status, root.text], [403, "Permission denied: token wasn't created via login"]);
    assert.equal((await call(a.url, 'GET', '/v1/acl/token/self', { token: ROOT })).status, 200, 'still there');
  });

  it('deleting an auth method deletes the tokens it created', async () => {
    const r = await login({ AuthMethod: 'k8s', BearerToken: new UnsecuredJWT({ case: 'web' }).encode() });
    assert.equal(r.status, 200);
    assert.equal((await call(a.url, 'DELETE', '/v1/acl/auth-method/k8s', { token: ROOT })).text, 'true');
    assert.equal((await call(a.url, 'GET', '/v1/acl/tokens?authmethod=k8s', { token: ROOT })).json.length, 0);
  });
});
