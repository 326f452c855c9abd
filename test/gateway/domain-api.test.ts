/**
 * The gateway controller's domain API end to end over real HTTP (issue 20 scopes 1, 2, 6):
 * a controller on port 0 with its SQLite state in a temporary data_dir, a fake clock for
 * token lifetimes. Covers the first-start bootstrap, password login, grants that allow
 * one action and refuse another (403 with the reference's body), optimistic locking,
 * bad input naming the field, the split cookie, logout, token expiry and idle timeout,
 * the recovery token, and state that survives a controller restart.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../src/kernel/log/logger.js';
import { parseGatewayServerConfig } from '../../src/services/gateway/config.js';
import { startGateway, type Gateway } from '../../src/services/gateway/server.js';
import { controllerHcl, gatewayCaller } from './fixture.js';

const RECOVERY = 'recovery-token-for-tests';
const dir = mkdtempSync(join(tmpdir(), 'cairn-gw-domain-'));
const log = silentLogger();
let offsetMs = 0;
const now = () => Date.parse('2026-01-01T00:00:00Z') + offsetMs;

const configText = controllerHcl(RECOVERY, join(dir, 'data'), '  auth_token_time_to_live = "1h"\n  auth_token_time_to_stale = "10m"\n');

describe('gateway domain API', { timeout: 60_000 }, () => {
  let gw: Gateway;
  let base: string;
  let adminToken: string;
  let authMethodId: string;
  let password: string;
  /** Passwords the operator was told (onBootstrap). */
  const told: string[] = [];

  const start = async () => {
    gw = await startGateway({ config: parseGatewayServerConfig(configText, 'gw.hcl'), log, now, onBootstrap: (l) => told.push(l.password) });
    base = gw.listeners.find((l) => l.purpose === 'api')!.url;
  };
  const call = gatewayCaller(() => base);
  const login = async (loginName: string, pw: string, amId = authMethodId) => {
    const r = await call('POST', `auth-methods/${amId}:authenticate`, { body: { attributes: { login_name: loginName, password: pw } } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.attributes.token as string;
  };

  before(async () => {
    await start();
    const boot = gw.bootstrapLogin!;
    assert.ok(boot, 'the first start reports the initial admin login');
    assert.deepEqual(told, [boot.password], 'the operator is told the password once');
    authMethodId = boot.authMethodId;
    password = boot.password;
    adminToken = await login('admin', password);
  });
  after(async () => {
    await gw?.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  it("bootstraps the reference's initial resources on first start", async () => {
    const scopes = await call('GET', 'scopes?scope_id=global&recursive=true', { token: adminToken });
    assert.equal(scopes.status, 200);
    const types = scopes.body.items.map((s: { type: string }) => s.type).sort();
    assert.deepEqual(types, ['org', 'project']);
    assert.match(scopes.body.items.find((s: { type: string }) => s.type === 'org').id, /^o_[0-9A-Za-z]{10}$/);
    const roles = await call('GET', 'roles?scope_id=global', { token: adminToken });
    assert.deepEqual(roles.body.items.map((r: { name: string }) => r.name).sort(), ['Administration', 'Authenticated User Grants', 'Login Grants']);
    const anon = roles.body.items.find((r: { name: string }) => r.name === 'Login Grants');
    assert.deepEqual(anon.principal_ids, ['u_anon']);
    assert.deepEqual(anon.grant_scope_ids, ['this', 'descendants']);
    assert.match(authMethodId, /^ampw_/);
  });

  it('lets the anonymous user list scopes and auth methods, nothing else (403 with the reference body)', async () => {
    const list = await call('GET', 'auth-methods?scope_id=global');
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.items[0].authorized_actions, ['authenticate']);
    const denied = await call('POST', 'scopes', { body: { scope_id: 'global', name: 'x' } });
    assert.equal(denied.status, 403);
    assert.deepEqual(denied.body, { kind: 'PermissionDenied', message: 'Forbidden.' });
    const users = await call('GET', 'users?scope_id=global');
    assert.equal(users.status, 403);
  });

  it('refuses a wrong password and an unknown token with 401', async () => {
    const r = await call('POST', `auth-methods/${authMethodId}:authenticate`, { body: { attributes: { login_name: 'admin', password: 'wrong-password' } } });
    assert.equal(r.status, 401);
    assert.equal(r.body.kind, 'Unauthenticated');
    const t = await call('GET', 'scopes', { token: 'at_0123456789_nope' });
    assert.equal(t.status, 401);
    assert.deepEqual(t.body, { kind: 'Unauthenticated', message: 'Unauthenticated, or invalid token.' });
  });

  it('a role allows listing and reading groups in one org; creating groups and listing users is 403', async () => {
    const org = await call('POST', 'scopes', { token: adminToken, body: { scope_id: 'global', name: 'engineering', description: 'eng' } });
    assert.equal(org.status, 200, JSON.stringify(org.body));
    assert.match(org.body.id, /^o_/);
    assert.equal(org.body.version, 1);
    assert.ok(org.body.authorized_actions.includes('delete'));
    const group = await call('POST', 'groups', { token: adminToken, body: { scope_id: org.body.id, name: 'devs' } });
    assert.match(group.body.id, /^g_/);
    const acct = await call('POST', 'accounts', {
      token: adminToken,
      body: { auth_method_id: authMethodId, attributes: { login_name: 'alice', password: 'alice-password' } },
    });
    assert.equal(acct.status, 200, JSON.stringify(acct.body));
    assert.match(acct.body.id, /^acctpw_/);
    assert.equal(acct.body.password_hash, undefined);
    assert.equal(acct.body.attributes.password, undefined);
    const user = await call('POST', 'users', { token: adminToken, body: { scope_id: 'global', name: 'alice' } });
    const linked = await call('POST', `users/${user.body.id}:add-accounts`, { token: adminToken, body: { version: 1, account_ids: [acct.body.id] } });
    assert.equal(linked.status, 200, JSON.stringify(linked.body));
    assert.deepEqual(linked.body.account_ids, [acct.body.id]);
    assert.equal(linked.body.version, 2);
    const role = await call('POST', 'roles', { token: adminToken, body: { scope_id: org.body.id, name: 'group readers' } });
    assert.match(role.body.id, /^r_/);
    const p = await call('POST', `roles/${role.body.id}:add-principals`, { token: adminToken, body: { version: 1, principal_ids: [user.body.id] } });
    assert.equal(p.status, 200, JSON.stringify(p.body));
    const g = await call('POST', `roles/${role.body.id}:set-grants`, {
      token: adminToken,
      body: { version: 2, grant_strings: ['ids=*;type=group;actions=list,read'] },
    });
    assert.equal(g.status, 200, JSON.stringify(g.body));
    assert.deepEqual(g.body.grants, [
      {
        raw: 'ids=*;type=group;actions=list,read',
        canonical: 'ids=*;type=group;actions=list,read',
        json: { ids: ['*'], type: 'group', actions: ['list', 'read'] },
      },
    ]);

    const alice = await login('alice', 'alice-password');
    const groups = await call('GET', `groups?scope_id=${org.body.id}`, { token: alice });
    assert.equal(groups.status, 200);
    assert.deepEqual(
      groups.body.items.map((x: { id: string }) => x.id),
      [group.body.id],
    );
    assert.deepEqual(groups.body.items[0].authorized_actions, ['read']);
    assert.equal((await call('GET', `groups/${group.body.id}`, { token: alice })).status, 200);
    const create = await call('POST', 'groups', { token: alice, body: { scope_id: org.body.id, name: 'mine' } });
    assert.equal(create.status, 403);
    assert.deepEqual(create.body, { kind: 'PermissionDenied', message: 'Forbidden.' });
    assert.equal((await call('GET', `users?scope_id=global`, { token: alice })).status, 403);
    // The same grant does not reach another org.
    const other = await call('POST', 'scopes', { token: adminToken, body: { scope_id: 'global', name: 'sales' } });
    assert.equal((await call('GET', `groups?scope_id=${other.body.id}`, { token: alice })).status, 403);
    // Through a group: alice joins a group that a role in "sales" names.
    const salesGroup = await call('POST', 'groups', { token: adminToken, body: { scope_id: 'global', name: 'sales-people' } });
    await call('POST', `groups/${salesGroup.body.id}:add-members`, { token: adminToken, body: { version: 1, member_ids: [user.body.id] } });
    const salesRole = await call('POST', 'roles', { token: adminToken, body: { scope_id: other.body.id } });
    await call('POST', `roles/${salesRole.body.id}:add-principals`, { token: adminToken, body: { version: 1, principal_ids: [salesGroup.body.id] } });
    await call('POST', `roles/${salesRole.body.id}:add-grants`, { token: adminToken, body: { version: 2, grant_strings: ['type=group;actions=list'] } });
    assert.equal((await call('GET', `groups?scope_id=${other.body.id}`, { token: alice })).status, 200);
  });

  it('makes the creator of a scope its administrator, unless skip_admin_role_creation', async () => {
    const acct = await call('POST', 'accounts', {
      token: adminToken,
      body: { auth_method_id: authMethodId, attributes: { login_name: 'bob', password: 'bob-password' } },
    });
    const user = await call('POST', 'users', { token: adminToken, body: { scope_id: 'global', name: 'bob' } });
    await call('POST', `users/${user.body.id}:set-accounts`, { token: adminToken, body: { version: 1, account_ids: [acct.body.id] } });
    const role = await call('POST', 'roles', { token: adminToken, body: { scope_id: 'global', name: 'org makers' } });
    await call('POST', `roles/${role.body.id}:set-principals`, { token: adminToken, body: { version: 1, principal_ids: [user.body.id] } });
    await call('POST', `roles/${role.body.id}:set-grants`, { token: adminToken, body: { version: 2, grant_strings: ['type=scope;actions=create'] } });
    const bob = await login('bob', 'bob-password');
    const org = await call('POST', 'scopes', { token: bob, body: { scope_id: 'global', name: 'bobs org' } });
    assert.equal(org.status, 200, JSON.stringify(org.body));
    assert.equal((await call('POST', 'groups', { token: bob, body: { scope_id: org.body.id, name: 'g' } })).status, 200);
    const roles = await call('GET', `roles?scope_id=${org.body.id}`, { token: bob });
    assert.deepEqual(
      roles.body.items.map((r: { grant_strings: unknown; name: string; principal_ids: unknown }) => [r.name, r.principal_ids, r.grant_strings]),
      [['Administration', [user.body.id], ['ids=*;type=*;actions=*']]],
    );
    const bare = await call('POST', 'scopes?skip_admin_role_creation=true', { token: bob, body: { scope_id: 'global', name: 'bare org' } });
    assert.equal(bare.status, 200);
    assert.equal((await call('POST', 'groups', { token: bob, body: { scope_id: bare.body.id, name: 'g' } })).status, 403);
  });

  it('requires the current version on updates (optimistic locking)', async () => {
    const s = await call('POST', 'scopes', { token: adminToken, body: { scope_id: 'global', name: 'locking' } });
    const missing = await call('PATCH', `scopes/${s.body.id}`, { token: adminToken, body: { description: 'x' } });
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.body, {
      kind: 'InvalidArgument',
      message: 'Error in provided request.',
      details: { request_fields: [{ name: 'version', description: 'Existing resource version is required for an update.' }] },
    });
    const ok = await call('PATCH', `scopes/${s.body.id}`, { token: adminToken, body: { version: 1, description: 'first' } });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.version, 2);
    assert.equal(ok.body.description, 'first');
    const stale = await call('PATCH', `scopes/${s.body.id}`, { token: adminToken, body: { version: 1, description: 'second' } });
    assert.equal(stale.status, 400);
    assert.equal(stale.body.kind, 'FailedPrecondition');
    assert.match(stale.body.message, /version mismatch/);
    const read = await call('GET', `scopes/${s.body.id}`, { token: adminToken });
    assert.equal(read.body.description, 'first', 'the stale update changed nothing');
    assert.equal(read.body.version, 2);
  });

  it('answers bad input with 400 naming the field, and changes nothing', async () => {
    const r = await call('POST', 'roles', { token: adminToken, body: { scope_id: 'global', name: 5, colour: 'red' } });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body.details.request_fields, [
      { name: 'colour', description: 'Unknown field.' },
      { name: 'name', description: 'Must be a string.' },
    ]);
    const role = await call('POST', 'roles', { token: adminToken, body: { scope_id: 'global', name: 'grant checks' } });
    const bad = await call('POST', `roles/${role.body.id}:add-grants`, { token: adminToken, body: { version: 1, grant_strings: ['ids=*;actions=read'] } });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.details.request_fields, [
      {
        name: 'grant_strings',
        description: 'Error parsing grant string "ids=*;actions=read": parsed grant string "ids=*;actions=read" contains wildcard id and no specified type',
      },
    ]);
    const unchanged = await call('GET', `roles/${role.body.id}`, { token: adminToken });
    assert.equal(unchanged.body.version, 1);
    assert.deepEqual(unchanged.body.grant_strings, []);
    const scope = await call('POST', `roles/${role.body.id}:add-grant-scopes`, { token: adminToken, body: { version: 1, grant_scope_ids: ['p_0000000000'] } });
    assert.equal(scope.body.details.request_fields[0].name, 'grant_scope_ids');
    // The deprecated single grant_scope_id: a scope below the role's, or the role's own ("this").
    const orgs = await call('GET', 'scopes?scope_id=global', { token: adminToken });
    const org = orgs.body.items[0].id;
    const legacy = await call('POST', 'roles', { token: adminToken, body: { scope_id: 'global', grant_scope_id: org } });
    assert.deepEqual(legacy.body.grant_scope_ids, [org]);
    const back = await call('PATCH', `roles/${legacy.body.id}`, { token: adminToken, body: { version: 1, grant_scope_id: 'global' } });
    assert.deepEqual(back.body.grant_scope_ids, ['this']);
    const above = await call('POST', 'roles', { token: adminToken, body: { scope_id: org, grant_scope_id: 'global' } });
    assert.equal(above.status, 400);
    assert.equal(above.body.details.request_fields[0].name, 'grant_scope_id');
    const short = await call('POST', 'accounts', {
      token: adminToken,
      body: { auth_method_id: authMethodId, attributes: { login_name: 'bob', password: 'short' } },
    });
    assert.deepEqual(short.body.details.request_fields, [{ name: 'attributes.password', description: 'Must be at least 8 characters.' }]);
    const dup = await call('POST', 'accounts', { token: adminToken, body: { auth_method_id: authMethodId, attributes: { login_name: 'admin' } } });
    assert.equal(dup.status, 400);
    assert.match(dup.body.message, /must be unique/);
  });

  it('sends the token as the split cookie and accepts it back; logout deletes the token', async () => {
    const r = await fetch(`${base}/v1/auth-methods/${authMethodId}:authenticate`, {
      method: 'POST',
      body: JSON.stringify({ type: 'cookie', attributes: { login_name: 'alice', password: 'alice-password' } }),
    });
    assert.equal(r.status, 200);
    const body = (await r.json()) as { attributes: { id: string; user_id: string; token?: string } };
    assert.equal(body.attributes.token, undefined, 'a cookie login does not put the token in the body');
    const cookies = r.headers.getSetCookie();
    assert.equal(cookies.length, 2);
    assert.match(cookies[0], /^wt-js-token-cookie=at_/);
    assert.match(cookies[1], /^wt-http-token-cookie=[^;]+; Path=\/; HttpOnly/);
    const cookie = cookies.map((c) => c.split(';')[0]).join('; ');
    const mine = await call('GET', 'auth-tokens?scope_id=global', { cookie });
    assert.equal(mine.status, 200);
    assert.ok(mine.body.items.length >= 1);
    assert.ok(
      mine.body.items.every((t: { user_id: string }) => t.user_id === body.attributes.user_id),
      'a user lists only their own tokens',
    );
    assert.ok(mine.body.items.every((t: { token: string; token_hash: string }) => t.token === undefined && t.token_hash === undefined));
    const out = await call('DELETE', `auth-tokens/${body.attributes.id}`, { cookie });
    assert.equal(out.status, 204);
    assert.equal((await call('GET', 'auth-tokens?scope_id=global', { cookie })).status, 401);
  });

  it('ends tokens at their idle timeout and at their time to live', async () => {
    const t = await login('alice', 'alice-password');
    const read = () => call('GET', 'auth-tokens?scope_id=global', { token: t });
    for (let i = 0; i < 8; i++) {
      offsetMs += 5 * 60_000; // used every 5 minutes: 40 minutes in, still alive (idle timeout 10m)
      assert.equal((await read()).status, 200, `use ${i}`);
    }
    offsetMs += 11 * 60_000;
    assert.equal((await read()).status, 401, 'unused for 11 minutes: idled out');
    const u = await login('alice', 'alice-password');
    for (let i = 0; i < 12; i++) {
      offsetMs += 5 * 60_000;
      const r = await call('GET', 'auth-tokens?scope_id=global', { token: u });
      assert.equal(r.status, i < 11 ? 200 : 401, `use ${i} at ${(i + 1) * 5} minutes`);
    }
  });

  it('filters lists with the reference\'s filter expressions over {"item": …}', async () => {
    const r = await call('GET', `scopes?scope_id=global&recursive=true&filter=${encodeURIComponent('"/item/name" == "engineering"')}`, { token: RECOVERY });
    assert.equal(r.status, 200);
    assert.deepEqual(
      r.body.items.map((s: { name: string }) => s.name),
      ['engineering'],
    );
    const bad = await call('GET', `scopes?filter=${encodeURIComponent('"/item/name" ==')}`, { token: RECOVERY });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.details.request_fields[0].name, 'filter');
  });

  it('takes the static auth_token as the recovery credential', async () => {
    const r = await call('POST', 'scopes', { token: RECOVERY, body: { scope_id: 'global', name: 'by-recovery' } });
    assert.equal(r.status, 200);
  });

  it('keeps its state across a controller restart (SQLite in data_dir) and bootstraps only once', async () => {
    adminToken = await login('admin', password); // the fake clock idled the first one out
    const made = await call('POST', 'scopes', { token: adminToken, body: { scope_id: 'global', name: 'survivor' } });
    await gw.shutdown();
    await start();
    assert.equal(gw.bootstrapLogin, undefined, 'no second bootstrap');
    assert.equal(told.length, 1, 'nothing new to tell');
    const read = await call('GET', `scopes/${made.body.id}`, { token: adminToken });
    assert.equal(read.status, 200, 'the admin token and the scope survived');
    assert.equal(read.body.name, 'survivor');
    assert.ok(await login('alice', 'alice-password'));
  });
});
