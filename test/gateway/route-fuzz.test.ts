/**
 * Every route of the gateway controller's own OpenAPI document walked with hostile input
 * (test/route-fuzz.ts), as the recovery token over a controller with its SQLite state in a
 * temporary data_dir: no 2xx for malformed input, no 5xx (but the 503 of no active worker),
 * no empty 4xx, no hang, most replies the handlers' validation 400s, and after each path's
 * batch the scope list still answers and a known target reads the same.
 * New routes are covered as they land.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../src/kernel/log/logger.js';
import { parseGatewayServerConfig } from '../../src/services/gateway/config.js';
import { startGateway, type Gateway } from '../../src/services/gateway/server.js';
import { assertReachedValidation, describeFindings, walkRoutes } from '../route-fuzz.js';

const RECOVERY = 'route-fuzz-recovery-token';
const listener = (purpose: string) => `listener "tcp" {\n  purpose = "${purpose}"\n  address = "127.0.0.1:0"\n  tls_disable = true\n}\n`;
/** Body fields the domain routes take (most operations declare none). */
const FIELDS = [
  'scope_id',
  'name',
  'description',
  'version',
  'type',
  'attributes',
  'default_port',
  'grant_strings',
  'grant_scope_ids',
  'principal_ids',
  'member_ids',
  'account_ids',
  'host_ids',
  'host_source_ids',
  'login_name',
  'password',
  'current_password',
  'new_password',
  'state',
  'address',
  'session_max_seconds',
  'session_connection_limit',
  'auth_method_id',
  'host_catalog_id',
  'target',
  'ttl',
  'command',
];

describe('gateway: every documented route, hostile input', { timeout: 600_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-gw-fuzz-'));
  let gw: Gateway;
  let base: string;
  const req = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(base + path, {
      method,
      headers: { Authorization: `Bearer ${RECOVERY}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    return { status: r.status, text, json: text ? JSON.parse(text) : undefined };
  };
  /** Ids of real objects, so the hostile bodies reach each handler's validation. */
  const ids: Record<string, string> = {};

  before(async () => {
    const config = `controller {\n  auth_token = "${RECOVERY}"\n  data_dir = "${join(dir, 'data')}"\n}\n${listener('api')}${listener('cluster')}`;
    gw = await startGateway({ config: parseGatewayServerConfig(config, 'gw.hcl'), log: silentLogger() });
    base = gw.listeners.find((l) => l.purpose === 'api')!.url;
    const make = async (kind: string, body: Record<string, unknown>) => {
      const r = await req('POST', `/v1/${kind}`, body);
      assert.equal(r.status, 200, `${kind}: ${r.text}`);
      return r.json.item?.id ?? r.json.id;
    };
    ids.scopes = await make('scopes', { scope_id: 'global', name: 'fuzz-org' });
    ids.project = await make('scopes', { scope_id: ids.scopes, name: 'fuzz-project' });
    ids['host-catalogs'] = await make('host-catalogs', { scope_id: ids.project, type: 'static', name: 'fuzz-catalog' });
    ids.hosts = await make('hosts', { host_catalog_id: ids['host-catalogs'], type: 'static', name: 'fuzz-host', attributes: { address: '127.0.0.1' } });
    ids['host-sets'] = await make('host-sets', { host_catalog_id: ids['host-catalogs'], type: 'static', name: 'fuzz-set' });
    ids.targets = await make('targets', { scope_id: ids.project, type: 'tcp', name: 'fuzz-target', attributes: { default_port: 22 } });
    ids.keep = await make('targets', { scope_id: ids.project, type: 'tcp', name: 'keep', attributes: { default_port: 22 } });
    ids['auth-methods'] = await make('auth-methods', { scope_id: ids.scopes, type: 'password', name: 'fuzz-am' });
    ids.accounts = await make('accounts', { auth_method_id: ids['auth-methods'], attributes: { login_name: 'fuzz', password: 'fuzz-password-1' } });
    ids.users = await make('users', { scope_id: ids.scopes, name: 'fuzz-user' });
    ids.groups = await make('groups', { scope_id: ids.scopes, name: 'fuzz-group' });
    ids.roles = await make('roles', { scope_id: ids.scopes, name: 'fuzz-role' });
    // A target with a host of its own, so :authorize-session gets past host selection to the
    // host_id check and the worker choice (the walk's host and set routes change the others).
    ids.sessionHost = await make('hosts', {
      host_catalog_id: ids['host-catalogs'],
      type: 'static',
      name: 'session-host',
      attributes: { address: '127.0.0.1' },
    });
    const set = await make('host-sets', { host_catalog_id: ids['host-catalogs'], type: 'static', name: 'session-set' });
    assert.equal((await req('POST', `/v1/host-sets/${set}:add-hosts`, { version: 1, host_ids: [ids.sessionHost] })).status, 200);
    ids.sessionTarget = await make('targets', { scope_id: ids.project, type: 'tcp', name: 'session-target', attributes: { default_port: 22 } });
    const sourced = await req('POST', `/v1/targets/${ids.sessionTarget}:add-host-sources`, { version: 1, host_source_ids: [set] });
    assert.equal(sourced.status, 200, sourced.text);
  });
  after(async () => {
    await gw.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a list_token forged with wrong-typed fields (400 naming list_token), and a real one still pages', async () => {
    const first = await req('GET', '/v1/targets?scope_id=global&recursive=true&page_size=1');
    assert.equal(first.status, 200, first.text);
    assert.equal(first.json.response_type, 'delta');
    const real = JSON.parse(Buffer.from(first.json.list_token, 'base64url').toString('utf8'));
    const forge = (over: Record<string, unknown>) => Buffer.from(JSON.stringify({ ...real, ...over })).toString('base64url');
    for (const over of [{ at: 'str' }, { at: { k: 'v' } }, { id: 12345 }, { id: null }, { started: 1e400 }, { since: 'x' }, { at: real.at, id: undefined }]) {
      const r = await req('GET', `/v1/targets?scope_id=global&recursive=true&page_size=1&list_token=${forge(over)}`);
      assert.equal(r.status, 400, `${JSON.stringify(over)}: ${r.text}`);
      assert.deepEqual(r.json.details.request_fields, [{ name: 'list_token', description: 'Invalid list token.' }]);
    }
    const next = await req('GET', `/v1/targets?scope_id=global&recursive=true&page_size=1&list_token=${first.json.list_token}`);
    assert.equal(next.status, 200, next.text);
    assert.notEqual(next.json.items[0].id, first.json.items[0].id);
  });

  it('answers every hostile request with a 4xx naming the problem, and stays healthy', async () => {
    const keep = (await req('GET', `/v1/targets/${ids.keep}`)).text;
    const doc = (await req('GET', '/v1/openapi.json')).json;
    const result = await walkRoutes({
      base,
      prefix: '/v1',
      doc,
      headers: { Authorization: `Bearer ${RECOVERY}` },
      fields: FIELDS,
      plausible: (path, param) =>
        param !== 'id' ? 'fuzz1' : path === '/targets/{id}:authorize-session' ? ids.sessionTarget : (ids[path.split('/')[1].replace(/\{.*$/, '')] ?? 'fuzz1'),
      seeds: {
        'POST /targets': {
          scope_id: ids.project,
          type: 'tcp',
          name: 'seeded',
          session_max_seconds: 3600,
          session_connection_limit: 2,
          attributes: { default_port: 22 },
        },
        'PATCH /targets/{id}': { version: 1, name: 'renamed', attributes: { default_port: 2222 } },
        'POST /targets/{id}:add-host-sources': { version: 1, host_source_ids: [ids['host-sets']] },
        'POST /roles/{id}:add-grants': { version: 1, grant_strings: ['ids=*;type=*;actions=read'] },
        'POST /roles/{id}:set-principals': { version: 1, principal_ids: [ids.users] },
        'POST /users/{id}:add-accounts': { version: 1, account_ids: [ids.accounts] },
        'POST /auth-methods': {
          scope_id: 'global',
          type: 'oidc',
          attributes: {
            issuer: 'http://127.0.0.1:9/',
            client_id: 'x',
            client_secret: 'y',
            signing_algorithms: ['RS256'],
            max_age: 60,
            claims_scopes: ['email'],
            allowed_audiences: ['a'],
          },
        },
        'POST /auth-methods/{id}:authenticate': { attributes: { login_name: 'fuzz', password: 'fuzz-password-1' } },
        'POST /accounts/{id}:change-password': { version: 1, current_password: 'fuzz-password-1', new_password: 'fuzz-password-2' },
        'POST /hosts': { host_catalog_id: ids['host-catalogs'], type: 'static', name: 'seeded', attributes: { address: '10.0.0.1' } },
        'POST /scopes': { scope_id: 'global', name: 'seeded', description: 'd' },
        'POST /targets/{id}:authorize-session': { host_id: ids.sessionHost },
      },
      // No worker runs here: authorizing a session is the API's 503 "no worker available".
      allow5xx: (status, _body, _method, path) => status === 503 && path === '/targets/{id}:authorize-session',
      healthy: async () => {
        assert.equal((await req('GET', '/v1/scopes?recursive=true')).status, 200);
        assert.equal((await req('GET', `/v1/targets/${ids.keep}`)).text, keep);
      },
    });
    assert.ok(result.operations >= 80, `walked ${result.operations} operations`);
    if (process.env.FUZZ_TIMING) console.error(result.requests, result.statuses, result.validationStatuses);
    assert.deepEqual(result.findings, [], describeFindings(result.findings));
    assertReachedValidation(result);
    assert.ok((result.statuses[503] ?? 0) > 0, ':authorize-session reaches the worker choice (503: none runs here), so allow5xx is live');
  });
});
