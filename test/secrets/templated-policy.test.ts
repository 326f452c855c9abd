/**
 * Templated policy paths over HTTP (policy/template.ts; reference/integration.md §4): the
 * reference's recommended workload policy — `secret/data/{{identity.entity.aliases.<jwt
 * mount accessor>.metadata.<claim>}}/…` — lets a token from a JWT login read its own job's
 * secrets and nothing else; a token no login made, or one whose claim would change the path's
 * shape, gets nothing from the rule; an unsupported parameter is refused when the policy is
 * written, changing nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { exportSPKI, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { startTestServer, type TestServer } from '../helpers.js';

let s: TestServer;
let key: CryptoKey;
let accessor: string;
const nowS = () => Math.floor(Date.now() / 1000);

const ok = async (method: string, path: string, body?: unknown, status = 204) => {
  const r = await s.call(method, path, { body });
  assert.equal(r.status, status, `${method} ${path}: ${r.text}`);
  return r;
};

/** A workload identity as the scheduler signs it (Cairn's claim names). */
const identity = (claims: Record<string, unknown>) =>
  new SignJWT({ cairn_namespace: 'default', ...claims })
    .setProtectedHeader({ alg: 'RS256' })
    .setAudience('cairn-secrets')
    .setIssuedAt()
    .setExpirationTime(nowS() + 300)
    .setSubject(`global:default:${String(claims.cairn_job_id)}:g:t:default`)
    .sign(key);

const login = async (jwt: string) => {
  const r = await s.call('POST', '/v1/auth/jwt/login', { token: null, body: { role: 'workloads', jwt } });
  assert.equal(r.status, 200, r.text);
  return (r.json as { auth: { client_token: string; metadata: Record<string, string> } }).auth;
};

const read = (path: string, token: string) => s.call('GET', `/v1/secret/data/${path}`, { token });

before(async () => {
  s = await startTestServer();
  const pair = await generateKeyPair('RS256', { extractable: true });
  key = pair.privateKey;
  await ok('POST', '/v1/sys/auth/jwt', { type: 'jwt' });
  accessor = ((await ok('GET', '/v1/sys/auth', undefined, 200)).json as { data: Record<string, { accessor: string }> }).data['jwt/']!.accessor;
  await ok('POST', '/v1/auth/jwt/config', { jwt_validation_pubkeys: [await exportSPKI(pair.publicKey)], jwt_supported_algs: ['RS256'] });
  await ok('POST', '/v1/auth/jwt/role/workloads', {
    role_type: 'jwt',
    bound_audiences: ['cairn-secrets'],
    user_claim: '/cairn_job_id',
    user_claim_json_pointer: true,
    claim_mappings: { cairn_namespace: 'cairn_namespace', cairn_job_id: 'cairn_job_id' },
    token_policies: ['workloads'],
    token_period: '30m',
  });
  const meta = (k: string) => `{{identity.entity.aliases.${accessor}.metadata.${k}}}`;
  await ok('PUT', '/v1/sys/policies/acl/workloads', {
    policy:
      `path "secret/data/${meta('cairn_namespace')}/${meta('cairn_job_id')}/*" { capabilities = ["read"] }\n` +
      `path "secret/data/by-name/{{identity.entity.aliases.${accessor}.name}}" { capabilities = ["read"] }`,
  });
  for (const [path, value] of [
    ['default/web/db', 'web-password'],
    ['default/api/db', 'api-password'],
    ['by-name/web', 'web-by-name'],
  ])
    await ok('POST', `/v1/secret/data/${path}`, { data: { value } }, 200);
});
after(() => s.close());

describe('templated policy paths', () => {
  it("lets a workload's login read its own job's secrets, and no other job's", async () => {
    const web = await login(await identity({ cairn_job_id: 'web' }));
    assert.deepEqual([web.metadata.cairn_job_id, web.metadata.cairn_namespace], ['web', 'default']);
    const own = await read('default/web/db', web.client_token);
    assert.equal(own.status, 200, own.text);
    assert.equal((own.json as { data: { data: { value: string } } }).data.data.value, 'web-password');
    assert.equal((await read('default/api/db', web.client_token)).status, 403);
    // The alias name is the role's user_claim value.
    assert.equal((await read('by-name/web', web.client_token)).status, 200);

    const api = await login(await identity({ cairn_job_id: 'api' }));
    assert.equal((await read('default/api/db', api.client_token)).status, 200);
    assert.equal((await read('default/web/db', api.client_token)).status, 403);
    const caps = await s.call('POST', '/v1/sys/capabilities-self', {
      token: api.client_token,
      body: { paths: ['secret/data/default/api/db', 'secret/data/default/web/db'] },
    });
    assert.deepEqual((caps.json as Record<string, string[]>)['secret/data/default/api/db'], ['read']);
    assert.deepEqual((caps.json as Record<string, string[]>)['secret/data/default/web/db'], ['deny']);
  });

  it('grants nothing through a template it cannot fill in: no login, or a claim that would widen the path', async () => {
    const made = await ok('POST', '/v1/auth/token/create', { policies: ['workloads'] }, 200);
    const plain = (made.json as { auth: { client_token: string } }).auth.client_token;
    assert.equal((await read('default/web/db', plain)).status, 403);
    for (const job of ['*', 'web/../api', '+']) {
      const wide = await login(await identity({ cairn_job_id: job }));
      assert.equal((await read('default/web/db', wide.client_token)).status, 403, job);
      assert.equal((await read('default/api/db', wide.client_token)).status, 403, job);
    }
  });

  it('refuses a template parameter Cairn cannot fill in, naming it, and keeps the policy as it was', async () => {
    const policyText = async () => ((await ok('GET', '/v1/sys/policies/acl/workloads', undefined, 200)).json as { data: { policy: string } }).data.policy;
    const before = await policyText();
    const r = await s.call('PUT', '/v1/sys/policies/acl/workloads', {
      body: { policy: 'path "secret/data/{{identity.entity.id}}/*" { capabilities = ["read"] }' },
    });
    assert.equal(r.status, 400);
    assert.match(
      (r.json as { errors: string[] }).errors[0]!,
      /path "secret\/data\/\{\{identity\.entity\.id\}\}\/\*": unsupported template parameter "identity\.entity\.id"/,
    );
    assert.equal(await policyText(), before);
  });
});
