/**
 * The gateway controller's authorization walk (issue 25 scope 2): every path and method of
 * its own OpenAPI document, and the internal routes it leaves out (routes.ts: the
 * controllers' forwarded worker calls), called with no token, a made-up token and the token
 * of a user without any grant (every role deleted first). Path parameters are real ids and
 * bodies valid where the test knows one, so a route whose rule were PUBLIC by mistake would
 * succeed (or fail on its missing caller with a 5xx): no reply is 2xx or 5xx but those of
 * the routes this test itself lists as PUBLIC, a recursive list answers only empty, and the
 * state's index does not move. The walk is the shared driver's (test/auth-walk.ts).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../src/kernel/log/logger.js';
import { parseGatewayServerConfig } from '../../src/services/gateway/config.js';
import { WORKER_TOKEN } from '../../src/services/gateway/route.js';
import { GATEWAY_ROUTES } from '../../src/services/gateway/routes.js';
import { startGateway, type Gateway } from '../../src/services/gateway/server.js';
import { describeAuthFindings, walkAuthorization } from '../auth-walk.js';
import { controllerHcl, gatewayCaller } from './fixture.js';

const RECOVERY = 'authz-walk-recovery-token';
const WORKER_AUTH = 'authz-walk-worker-token';
/** Operations anyone may call (the OIDC provider's redirect: its state is the credential); kept here, not read from routes.ts. */
const PUBLIC_OPS = new Set(['GET /auth-methods/oidc:authenticate:callback']);
const METHODS = ['get', 'post', 'patch', 'delete'] as const;
/** A fixed clock: a token's last use is never due to be recorded (that write would move the index). */
const now = () => Date.parse('2026-03-01T00:00:00Z');

describe('gateway: every route refuses callers without the grant it declares', { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-gw-authz-'));
  let gw: Gateway;
  let base = '';
  const call = gatewayCaller(() => base, { token: RECOVERY });
  const ids: Record<string, string> = {};
  let noRights = '';

  const make = async (kind: string, body: Record<string, unknown>) => {
    const r = await call('POST', kind, { body });
    assert.equal(r.status, 200, `${kind}: ${r.text}`);
    return r.body.id as string;
  };

  before(async () => {
    const config = controllerHcl(RECOVERY, join(dir, 'data'), `  worker_auth_token = "${WORKER_AUTH}"\n`);
    gw = await startGateway({ config: parseGatewayServerConfig(config, 'gw.hcl'), log: silentLogger(), now });
    base = gw.listeners.find((l) => l.purpose === 'api')!.url;
    ids.scopes = await make('scopes', { scope_id: 'global', name: 'walk-org' });
    ids.project = await make('scopes', { scope_id: ids.scopes, name: 'walk-project' });
    ids['auth-methods'] = await make('auth-methods', { scope_id: ids.scopes, type: 'password', name: 'walk-am' });
    ids.accounts = await make('accounts', { auth_method_id: ids['auth-methods'], attributes: { login_name: 'bob', password: 'bob-password-1' } });
    ids.users = await make('users', { scope_id: ids.scopes, name: 'bob' });
    assert.equal((await call('POST', `users/${ids.users}:add-accounts`, { body: { version: 1, account_ids: [ids.accounts] } })).status, 200);
    ids.groups = await make('groups', { scope_id: ids.scopes, name: 'walk-group' });
    ids['host-catalogs'] = await make('host-catalogs', { scope_id: ids.project, type: 'static', name: 'walk-catalog' });
    ids.hosts = await make('hosts', { host_catalog_id: ids['host-catalogs'], type: 'static', name: 'walk-host', attributes: { address: '127.0.0.1' } });
    ids['host-sets'] = await make('host-sets', { host_catalog_id: ids['host-catalogs'], type: 'static', name: 'walk-set' });
    ids.targets = await make('targets', { scope_id: ids.project, type: 'tcp', name: 'walk-target', attributes: { default_port: 22 } });
    ids['credential-stores'] = await make('credential-stores', { scope_id: ids.project, type: 'static', name: 'walk-store' });
    ids.credentials = await make('credentials', {
      credential_store_id: ids['credential-stores'],
      type: 'username_password',
      attributes: { username: 'u', password: 'p' },
    });
    const login = await call('POST', `auth-methods/${ids['auth-methods']}:authenticate`, {
      body: { attributes: { login_name: 'bob', password: 'bob-password-1' } },
    });
    assert.equal(login.status, 200, login.text);
    noRights = login.body.attributes.token;
    ids['auth-tokens'] = login.body.attributes.id;
    // No role left: the anonymous user, every authenticated user and bob hold no grant.
    const roles = await call('GET', 'roles?scope_id=global&recursive=true');
    for (const r of roles.body.items) assert.equal((await call('DELETE', `roles/${r.id}`)).status, 204);
    ids.roles = await make('roles', { scope_id: ids.scopes, name: 'walk-role' });
  });
  after(async () => {
    await gw?.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A valid body for `METHOD path` where the test knows one (creates, updates, the actions that grant or log in). */
  const bodyOf = (method: string, path: string): Record<string, unknown> | undefined => {
    if (method === 'patch') return { version: 1, name: 'renamed' };
    if (method !== 'post') return undefined;
    const seeds: Record<string, Record<string, unknown>> = {
      '/scopes': { scope_id: ids.scopes, name: 'walk-new' },
      '/auth-methods': { scope_id: ids.scopes, type: 'password', name: 'walk-new' },
      '/accounts': { auth_method_id: ids['auth-methods'], attributes: { login_name: 'eve', password: 'eve-password-1' } },
      '/users': { scope_id: ids.scopes, name: 'eve' },
      '/groups': { scope_id: ids.scopes, name: 'walk-new' },
      '/roles': { scope_id: ids.scopes, name: 'walk-new' },
      '/host-catalogs': { scope_id: ids.project, type: 'static', name: 'walk-new' },
      '/hosts': { host_catalog_id: ids['host-catalogs'], type: 'static', name: 'walk-new', attributes: { address: '127.0.0.2' } },
      '/host-sets': { host_catalog_id: ids['host-catalogs'], type: 'static', name: 'walk-new' },
      '/targets': { scope_id: ids.project, type: 'tcp', name: 'walk-new', attributes: { default_port: 22 } },
      '/credential-stores': { scope_id: ids.project, type: 'static', name: 'walk-new' },
      '/credentials': { credential_store_id: ids['credential-stores'], type: 'username_password', attributes: { username: 'u', password: 'p' } },
      '/auth-methods/{id}:authenticate': { attributes: { login_name: 'bob', password: 'bob-password-1' } },
      '/roles/{id}:add-grants': { version: 1, grant_strings: ['ids=*;type=*;actions=*'] },
      '/roles/{id}:add-principals': { version: 1, principal_ids: ['u_anon'] },
      '/groups/{id}:add-members': { version: 1, member_ids: [ids.users] },
      '/accounts/{id}:set-password': { version: 1, password: 'bob-password-2' },
      '/targets/{id}:add-host-sources': { version: 1, host_source_ids: [ids['host-sets']] },
      '/host-sets/{id}:add-hosts': { version: 1, host_ids: [ids.hosts] },
    };
    return seeds[path] ?? { version: 1 };
  };

  it('answers no caller without the grant with a 2xx or a 5xx, and changes nothing', async () => {
    const doc = (await call('GET', 'openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.values(doc.paths).reduce((n, item) => n + METHODS.filter((m) => item[m]).length, 0);
    assert.ok(documented >= 80, `walked ${documented} operations`);
    // The internal routes are not documented: the walk takes them from the table.
    const internal = GATEWAY_ROUTES.filter((r) => r.access === WORKER_TOKEN).map((r) => ({ method: r.method, path: `/${r.pattern}` }));
    assert.equal(internal.length, 3);
    const workerCall = { worker_name: 'w', authorization_token: 'x', client_address: '127.0.0.1:1' };
    // Recursive lists are filtered, not refused: they must come back empty.
    const recursive = Object.keys(doc.paths).filter(
      (p) => doc.paths[p].get && !p.includes('{') && !p.includes(':') && !['/workers', '/openapi.json'].includes(p),
    );
    assert.ok(recursive.length >= 14, recursive.join());
    const callers = [
      ['no token', null],
      ['a made-up token', 'at_1234567890_madeupmadeupmadeup'],
      ['a user without grants', noRights],
    ] as const;

    const state = gw.domain!.state;
    const result = await walkAuthorization({
      base: base.replace(/\/$/, ''),
      prefix: '/v1',
      doc,
      callers: callers.map(([name, token]) => ({ name, headers: token ? { authorization: `Bearer ${token}` } : ({} as Record<string, string>) })),
      open: (method, path) => PUBLIC_OPS.has(`${method} ${path}`),
      plausible: (path) => ids[path.split('/')[1].replace(/[{:].*$/, '')] ?? 'x_1234567890',
      body: (method, path) => (internal.some((op) => op.method === method && op.path === path) ? workerCall : bodyOf(method.toLowerCase(), path)),
      extra: internal,
      refuses: (status) => status >= 400 && status < 500,
      openWritesNothing: true,
      fingerprint: () => String(state.index),
    });
    const problems: string[] = [];
    for (const [who, token] of callers) {
      for (const p of recursive) {
        const r = await call('GET', `${p.slice(1)}?scope_id=global&recursive=true`, { token });
        if (r.status === 200 && r.body.items?.length) problems.push(`${who}: GET ${p}?recursive=true listed ${r.body.items.length} items`);
        else if (r.status !== 200 && (r.status < 400 || r.status >= 500)) problems.push(`${who}: GET ${p}?recursive=true → ${r.status}`);
      }
    }
    assert.deepEqual(result.findings, [], describeAuthFindings(result.findings));
    assert.deepEqual(problems, []);
    // The walk reached the handlers' data: the recovery credential still reads what it made.
    assert.equal((await call('GET', `targets/${ids.targets}`)).body.name, 'walk-target');
  });
});
