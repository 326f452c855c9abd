/**
 * Every service's OpenAPI document, generated from its route data and validated with a
 * maintained OpenAPI validator (@apidevtools/swagger-parser): the secrets service's
 * `GET /v1/sys/internal/specs/openapi` (the reference's: every mount the caller may use,
 * per namespace, `generic_mount_paths`), its `?help=1` fragments, and `GET /v1/openapi.json`
 * of the discovery, scheduler and gateway services.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { silentLogger } from '../src/kernel/log/logger.js';
import { VERSION } from '../src/kernel/version/index.js';
import { parseGatewayServerConfig } from '../src/services/gateway/config.js';
import { startGateway, type Gateway } from '../src/services/gateway/server.js';
import { startTestServer, type TestServer } from './helpers.js';
import { startAgent as startMeshAgent, type TestAgent as MeshTestAgent } from './mesh/helpers.js';
import { startAgent as startSchedAgent, type TestAgent as SchedTestAgent } from './sched/helpers.js';

/**
 * Validates `doc` against the OpenAPI 3 schema (a copy: the validator dereferences in
 * place), and checks the rule its schema cannot express: every `{name}` of a path is
 * declared as a path parameter, on the path or on each of its operations.
 */
async function assertValid(doc: unknown): Promise<void> {
  await SwaggerParser.validate(structuredClone(doc) as Parameters<typeof SwaggerParser.validate>[0]);
  type Param = { name: string; in: string };
  for (const [key, item] of Object.entries((doc as Doc).paths)) {
    const shared = ((item.parameters ?? []) as Param[]).filter((p) => p.in === 'path').map((p) => p.name);
    for (const m of ['get', 'put', 'post', 'patch', 'delete'].filter((x) => item[x])) {
      const own = (((item[m] as { parameters?: Param[] }).parameters ?? []) as Param[]).filter((p) => p.in === 'path').map((p) => p.name);
      const declared = new Set([...shared, ...own]);
      for (const [, name] of key.matchAll(/\{([^}]+)\}/g)) assert.ok(declared.has(name), `${m} ${key}: path parameter "${name}" not declared`);
      assert.equal(declared.size, [...key.matchAll(/\{/g)].length, `${m} ${key}: a declared path parameter not in the path`);
    }
  }
}

type Doc = { openapi: string; info: { version: string }; servers?: { url: string }[]; paths: Record<string, Record<string, unknown>> };

describe('secrets service: sys/internal/specs/openapi', () => {
  let s: TestServer;
  const ns = (n: string) => ({ 'X-Secrets-Namespace': n });

  before(async () => {
    s = await startTestServer();
    assert.equal((await s.call('POST', '/v1/sys/auth/userpass', { body: { type: 'userpass' } })).status, 204);
    assert.equal((await s.call('POST', '/v1/sys/mounts/kv1', { body: { type: 'kv' } })).status, 204);
    assert.equal((await s.call('POST', '/v1/sys/mounts/team-kv', { body: { type: 'kv', options: { version: '2' } } })).status, 204);
  });
  after(() => s.close());

  it('documents sys (with the seal paths), every engine and auth method at its mount path, as valid OpenAPI 3', async () => {
    const r = await s.call('GET', '/v1/sys/internal/specs/openapi');
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
    const doc = r.json as Doc;
    assert.equal(doc.openapi, '3.0.2');
    assert.equal(doc.info.version, VERSION);
    assert.deepEqual(doc.servers, [{ url: '/v1' }]);
    assert.equal((doc as unknown as Record<string, unknown>).request_id, undefined, 'no envelope');
    for (const p of [
      '/sys/mounts',
      '/sys/seal-status',
      '/sys/internal/specs/openapi',
      '/secret/data/{path}',
      '/secret/metadata/{path}/',
      '/kv1/{path}',
      '/team-kv/config',
      '/auth/token/create',
      '/auth/userpass/login/{username}',
    ])
      assert.ok(doc.paths[p], `${p} documented; got ${Object.keys(doc.paths).join(' ')}`);
    assert.ok(doc.paths['/secret/data/{path}'].patch, 'KV v2 data takes PATCH');
    assert.ok(doc.paths['/sys/seal-status'].get);
    await assertValid(doc);
  });

  it('generic_mount_paths (query or body) names mounts by type; sys and auth/token stay', async () => {
    const viaQuery = (await s.call('GET', '/v1/sys/internal/specs/openapi?generic_mount_paths=true')).json as Doc;
    const viaBody = await s.call('POST', '/v1/sys/internal/specs/openapi', { body: { generic_mount_paths: true } });
    assert.equal(viaBody.status, 200);
    assert.deepEqual(viaBody.json, viaQuery);
    const keys = Object.keys(viaQuery.paths);
    for (const p of ['/{kv_mount_path}/data/{path}', '/auth/{userpass_mount_path}/login/{username}', '/sys/mounts', '/auth/token/create'])
      assert.ok(keys.includes(p), `${p} documented; got ${keys.join(' ')}`);
    assert.ok(!keys.some((k) => k.startsWith('/secret/') || k.startsWith('/kv1/')), 'no actual mount path left');
    const param = (viaQuery.paths['/auth/{userpass_mount_path}/login/{username}'].parameters as { name: string; schema: { default?: string } }[]).find(
      (p) => p.name === 'userpass_mount_path',
    );
    assert.equal(param?.schema.default, 'userpass');
    await assertValid(viaQuery);
  });

  it('shows a token only the mounts it may use, and nothing without a token', async () => {
    await s.call('PUT', '/v1/sys/policies/acl/app-reader', { body: { policy: 'path "secret/data/app/*" { capabilities = ["read"] }' } });
    const tok = (await s.call('POST', '/v1/auth/token/create', { body: { policies: ['app-reader'] } })).json.auth.client_token as string;
    const limited = (await s.call('GET', '/v1/sys/internal/specs/openapi', { token: tok })).json as Doc;
    const keys = Object.keys(limited.paths);
    assert.ok(keys.includes('/secret/data/{path}'), 'the mount its policy reaches');
    assert.ok(!keys.some((k) => k.startsWith('/kv1/') || k.startsWith('/team-kv/') || k.startsWith('/auth/userpass/')), `nothing else: ${keys.join(' ')}`);
    await assertValid(limited);

    const anonymous = await s.call('GET', '/v1/sys/internal/specs/openapi', { token: null });
    assert.equal(anonymous.status, 200);
    assert.deepEqual(anonymous.json.paths, {});
    await assertValid(anonymous.json);
  });

  it("documents the request's namespace only, without the root-only system paths", async () => {
    assert.equal((await s.call('POST', '/v1/sys/namespaces/team')).status, 200);
    assert.equal((await s.call('POST', '/v1/sys/mounts/apps', { headers: ns('team'), body: { type: 'kv-v2' } })).status, 204);
    const doc = (await s.call('GET', '/v1/sys/internal/specs/openapi', { headers: ns('team') })).json as Doc;
    const keys = Object.keys(doc.paths);
    assert.ok(keys.includes('/apps/data/{path}'), `the namespace's mount: ${keys.join(' ')}`);
    assert.ok(keys.includes('/sys/mounts'));
    for (const p of ['/secret/data/{path}', '/sys/seal-status', '/sys/config/cors']) assert.ok(!keys.includes(p), `${p} is not the namespace's`);
    assert.deepEqual((await s.call('GET', '/v1/team/sys/internal/specs/openapi')).json, doc, 'namespace in the path: the same document');
    await assertValid(doc);
  });

  it('?help=1 fragments are valid OpenAPI 3 too', async () => {
    for (const path of ['/v1/secret?help=1', '/v1/sys?help=1', '/v1/auth/userpass?help=1', '/v1/secret/data/app?help=1']) {
      const r = await s.call('GET', path);
      assert.equal(r.status, 200, path);
      await assertValid(r.json.openapi);
    }
  });
});

describe('discovery, scheduler and gateway: GET /v1/openapi.json', () => {
  let mesh: MeshTestAgent;
  let sched: SchedTestAgent;
  let gateway: Gateway;
  const dir = mkdtempSync(join(tmpdir(), 'cairn-openapi-'));
  const TOKEN = 'openapi-gateway-token';

  before(async () => {
    mesh = await startMeshAgent();
    sched = await startSchedAgent();
    const listener = (purpose: string) => `listener "tcp" {\n  purpose = "${purpose}"\n  address = "127.0.0.1:0"\n  tls_disable = true\n}\n`;
    gateway = await startGateway({
      config: parseGatewayServerConfig(`controller {\n  auth_token = "${TOKEN}"\n}\n${listener('api')}${listener('cluster')}`, 'c.hcl'),
      log: silentLogger(),
    });
  });
  after(async () => {
    await gateway?.shutdown();
    await sched?.stop();
    await mesh?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function fetchDoc(url: string, headers: Record<string, string> = {}): Promise<Doc> {
    const r = await fetch(`${url}/v1/openapi.json`, { headers });
    assert.equal(r.status, 200, await r.clone().text());
    return (await r.json()) as Doc;
  }

  it('discovery: every route with its methods, no token needed, valid', async () => {
    const doc = await fetchDoc(mesh.url);
    assert.equal(doc.info.version, VERSION);
    assert.ok(doc.paths['/acl/bootstrap'].put, 'PUT stays PUT');
    assert.ok(doc.paths['/status/leader'].get);
    assert.ok(doc.paths['/openapi.json'].get);
    assert.ok(
      Object.keys(doc.paths).some((k) => /^\/acl\/token\/\{[a-z]+\}$/i.test(k)),
      'captures become {params}',
    );
    await assertValid(doc);
  });

  it('scheduler: every route with its methods, no token needed, valid', async () => {
    const doc = await fetchDoc(sched.url);
    assert.equal(doc.info.version, VERSION);
    assert.ok(doc.paths['/status/leader'].get);
    assert.ok(doc.paths['/openapi.json'].get);
    await assertValid(doc);
  });

  it('gateway: its controller API (custom verbs kept), behind its bearer token, valid', async () => {
    const api = gateway.listeners.find((l) => l.purpose === 'api')!.url;
    assert.equal((await fetch(`${api}/v1/openapi.json`)).status, 401);
    const doc = await fetchDoc(api, { Authorization: `Bearer ${TOKEN}` });
    assert.ok(doc.paths['/targets/{id}:authorize-session'].post);
    assert.ok(doc.paths['/workers'].get);
    assert.ok(doc.paths['/sessions/{id}:cancel'].post);
    assert.ok(doc.paths['/sessions/{id}'].get);
    // The domain routes, PATCH included, the OIDC callback kept literal, lists with pagination.
    assert.ok(doc.paths['/scopes/{id}'].patch);
    assert.ok(doc.paths['/scopes/{id}'].delete);
    assert.ok(doc.paths['/auth-methods/{id}:authenticate'].post);
    assert.ok(doc.paths['/auth-methods/{id}:change-state'].post);
    assert.ok(doc.paths['/auth-methods/oidc:authenticate:callback'].get);
    assert.deepEqual(
      (doc.paths['/groups'].get as { parameters: { name: string }[] }).parameters.map((p) => p.name),
      ['scope_id', 'recursive', 'filter', 'page_size', 'list_token'],
    );
    await assertValid(doc);
  });
});
