/**
 * The discovery service's authorization walk (issue 25 scope 2): every path and method of
 * its own OpenAPI document (enterprise switch on, so every route is in it), called with no
 * token, a made-up token and a token without rights (ACLs on, default deny), with plausible
 * path values, bodies and query strings so that each request reaches its access rule (the
 * shared driver, test/auth-walk.ts). Nothing may answer 2xx unless this file says the
 * operation is open, no call may answer 5xx, and no call may change the state.
 *
 * What is open is written here, not read from the route table: the table's PUBLIC and
 * any-caller operations must be exactly these lists, so a route made PUBLIC by mistake fails
 * here as well as in the walk.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PUBLIC } from '../../src/kernel/http/index.js';
import { ANY_CALLER } from '../../src/services/mesh/access.js';
import { MESH_ENTERPRISE_ROUTES, MESH_ROUTES } from '../../src/services/mesh/routes/index.js';
import { describeAuthFindings, walkAuthorization } from '../auth-walk.js';
import { call, startAgent, type TestAgent } from './helpers.js';

const ROOT = 'c0ffee00-0000-4000-8000-00000000a025';
const MADE_UP = '0badc0de-0000-4000-8000-000000000000';

/** Operations anyone may call, without a token (`METHOD /path` as the OpenAPI document names it). */
const PUBLIC_OPS = new Set([
  'GET /status/leader',
  'GET /status/peers',
  'PUT /acl/bootstrap',
  'GET /acl/replication',
  'POST /acl/login',
  'POST /acl/logout',
  'POST /acl/oidc/auth-url',
  'POST /acl/oidc/callback',
  'GET /catalog/datacenters',
  'GET /openapi.json',
]);

/**
 * Reads any caller whose token resolves may make (anonymous included): they answer what the
 * caller may read, so a token without rights gets a 2xx with nothing in it; a made-up token
 * is refused.
 */
const FILTERED_READS = new Set([
  'GET /catalog/nodes',
  'GET /catalog/services',
  'GET /catalog/service/{service}',
  'GET /catalog/node/{node}',
  'GET /catalog/node-services/{node}',
  'GET /health/node/{node}',
  'GET /health/checks/{service}',
  'GET /session/info/{id}',
  'GET /session/node/{node}',
  'GET /session/list',
  'GET /agent/members',
  'GET /agent/services',
  'GET /agent/checks',
]);

/** Reads a caller makes of its own token: any token that resolves may (`acl/token/self`). */
const OWN_TOKEN = new Set(['GET /acl/token/self']);

/** Reads whose rule is a function of the request (it checks `?passing` / the state first) that lets any caller read, filtered. */
const FILTERED_BY_FUNCTION = new Set(['GET /health/service/{service}', 'GET /health/state/{state}']);

/** Bodies that pass validation, so the request reaches its access rule (keyed `METHOD /path`). */
const BODIES: Readonly<Record<string, unknown>> = {
  'PUT /acl/policy': { Name: 'walk-p', Rules: '' },
  'PUT /acl/policy/{id}': { Name: 'p', Rules: 'key_prefix "" { policy = "write" }' },
  'PUT /acl/role': { Name: 'walk-r' },
  'PUT /acl/role/{id}': { Name: 'r', Description: 'changed' },
  'PUT /acl/token': { Description: 'walk' },
  'PUT /acl/token/{accessor}': { Description: 'changed' },
  'PUT /acl/token/{accessor}/clone': { Description: 'clone' },
  'PUT /acl/auth-method': { Name: 'walk-m', Type: 'kubernetes' },
  'PUT /acl/auth-method/{name}': { Type: 'kubernetes' },
  'PUT /acl/binding-rule': { AuthMethod: 'm', BindType: 'service', BindName: 'x' },
  'PUT /acl/binding-rule/{id}': { AuthMethod: 'm', BindType: 'service', BindName: 'x' },
  'PUT /acl/bootstrap': {},
  'POST /acl/login': { AuthMethod: 'm', BearerToken: 'x' },
  'PUT /namespace': { Name: 'walkns' },
  'PUT /namespace/{name}': { Description: 'changed' },
  'PUT /catalog/register': { Node: 'walk-n', Address: '10.0.0.9' },
  'PUT /catalog/deregister': { Node: 'test' },
  'PUT /agent/service/register': { Name: 'walk-s' },
  'PUT /agent/check/register': { Name: 'walk-c', TTL: '10m' },
  'PUT /agent/check/update/{id}': { Status: 'critical' },
  'PUT /session/create': { Node: 'test' },
  'PUT /txn': [{ KV: { Verb: 'set', Key: 'walk', Value: 'dg==' } }],
};

/** Query strings a request needs to pass validation. */
const QUERIES: Readonly<Record<string, string>> = {
  'PUT /agent/maintenance': '?enable=true',
  'PUT /agent/service/maintenance/{id}': '?enable=true',
};

/** `METHOD /path` of every operation of `routes` whose declared access is exactly `rule`. */
function declared(rule: unknown): Set<string> {
  const out = new Set<string>();
  for (const r of [...MESH_ROUTES, ...MESH_ENTERPRISE_ROUTES]) {
    for (const [method, op] of Object.entries(r.methods)) {
      if (op?.access === rule) out.add(`${method} /${r.pattern.replace(/:(\w+)\*?/g, '{$1}')}`);
    }
  }
  return out;
}

describe('discovery: authorization walk over every documented route', { timeout: 300_000 }, () => {
  let a: TestAgent;
  const root = (method: string, path: string, body?: unknown) => call(a.url, method, path, { token: ROOT, body });
  /** Path parameter values naming seeded objects, so each rule meets something real. */
  const values: Record<string, string> = {};
  let noRights = '';

  before(async () => {
    a = await startAgent({ initialManagement: ROOT }, { enterprise: true });
    const json = async (method: string, path: string, body?: unknown) => {
      const r = await root(method, path, body);
      assert.equal(r.status, 200, `${method} ${path}: ${r.text}`);
      return r.json as Record<string, string>;
    };
    noRights = (await json('PUT', '/v1/acl/token', { Description: 'no rights' })).SecretID!;
    values.policy = (await json('PUT', '/v1/acl/policy', { Name: 'p', Rules: '' })).ID!;
    values.role = (await json('PUT', '/v1/acl/role', { Name: 'r' })).ID!;
    values.accessor = (await json('PUT', '/v1/acl/token', { Description: 'victim' })).AccessorID!;
    await json('PUT', '/v1/namespace', { Name: 'team' });
    await json('PUT', '/v1/kv/k', 'v');
    await json('PUT', '/v1/agent/service/register', { ID: 'web', Name: 'web', Port: 80 });
    await json('PUT', '/v1/agent/check/register', { ID: 'c1', Name: 'ttl', TTL: '10m' });
    // The agent's node reaches the catalog with its first sync: a session needs it.
    for (let i = 0; ; i++) {
      const r = await root('PUT', '/v1/session/create', { Name: 's' });
      if (r.status === 200) {
        values.session = (r.json as { ID: string }).ID;
        break;
      }
      assert.ok(i < 100, `session create: ${r.status} ${r.text}`);
      await new Promise((done) => setTimeout(done, 100));
    }
  });
  after(() => a?.stop());

  /** A value for `param` of `path` naming a seeded object where one fits. */
  function valueOf(path: string, param: string): string {
    if (path.startsWith('/acl/policy/')) return param === 'name' ? 'p' : values.policy!;
    if (path.startsWith('/acl/role/')) return param === 'name' ? 'r' : values.role!;
    if (path.startsWith('/acl/token/')) return values.accessor!;
    if (path.startsWith('/acl/binding-rule/')) return '00000000-0000-4000-8000-0000000000b1';
    if (path.startsWith('/acl/auth-method/')) return 'm';
    if (path.startsWith('/namespace/')) return 'team';
    if (path.startsWith('/session/')) return param === 'node' ? 'test' : values.session!;
    if (path.startsWith('/agent/service/') || path.startsWith('/agent/health/')) return 'web';
    if (path.startsWith('/agent/check/')) return 'c1';
    return { key: 'k', node: 'test', service: 'web', state: 'any' }[param] ?? 'walk';
  }

  it('declares exactly the open operations this test lists', () => {
    assert.deepEqual([...declared(PUBLIC)].sort(), [...PUBLIC_OPS].filter((op) => op !== 'GET /openapi.json').sort());
    assert.deepEqual([...declared(ANY_CALLER)].sort(), [...FILTERED_READS].sort());
  });

  it('answers no 2xx to a caller without rights where the route is not open, and changes nothing', async () => {
    const doc = (await root('GET', '/v1/openapi.json')).json as { paths: Record<string, Record<string, unknown>> };
    const local = () => JSON.stringify([a.local.listServices().map((s) => s.ID), a.local.listChecks().map((c) => [c.CheckID, c.Status])]);
    const result = await walkAuthorization({
      base: a.url,
      prefix: '/v1',
      doc,
      callers: [
        { name: 'no token', headers: {} },
        { name: 'a made-up token', headers: { 'X-Mesh-Token': MADE_UP } },
        { name: 'a token without rights', headers: { 'X-Mesh-Token': noRights } },
      ],
      open: (method, path, caller) => {
        const op = `${method} ${path}`;
        return (
          PUBLIC_OPS.has(op) ||
          (caller !== 'a made-up token' && (FILTERED_READS.has(op) || FILTERED_BY_FUNCTION.has(op))) ||
          (caller === 'a token without rights' && OWN_TOKEN.has(op))
        );
      },
      plausible: valueOf,
      body: (method, path) => BODIES[`${method} ${path}`],
      query: (method, path) => QUERIES[`${method} ${path}`] ?? '',
      serverErrors: true,
      openWritesNothing: true,
      fingerprint: () => `${a.state.index} ${local()}`,
    });
    assert.ok(result.operations >= 70, `walked ${result.operations} operations`);
    assert.deepEqual(result.findings, [], describeAuthFindings(result.findings));
  });
});
