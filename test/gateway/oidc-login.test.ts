/**
 * The gateway controller's OIDC auth method end to end (issue 20 scopes 1, 2): a real
 * controller on port 0 (SQLite in a temporary data_dir) and a real OpenID provider on
 * loopback (`oidc-provider`, src/kernel/authn/testdata). Covers the method's attributes
 * (client secret never shown), its states, `start` → provider → callback → `token`
 * polling (202 then the token once), the account and user made at the first login, a
 * wrong or replayed state refused, the split cookie (a half alone is 401), the pages the
 * browser ends on, and paginated lists (page_size, list_token) that still apply grants.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { main } from '../../src/cli/main.js';
import { GatewayClient } from '../../src/sdk/index.js';
import { startProvider, type TestProvider } from '../../src/kernel/authn/testdata/provider.js';
import { silentLogger } from '../../src/kernel/log/logger.js';
import { parseGatewayServerConfig } from '../../src/services/gateway/config.js';
import { startGateway, type Gateway } from '../../src/services/gateway/server.js';
import { controllerHcl, gatewayCaller } from './fixture.js';

const RECOVERY = 'recovery-token-for-oidc-tests';
const dir = mkdtempSync(join(tmpdir(), 'cairn-gw-oidc-'));

const configText = controllerHcl(RECOVERY, join(dir, 'data'));

describe('gateway OIDC login and paginated lists', { timeout: 90_000 }, () => {
  let gw: Gateway;
  let op: TestProvider;
  let base: string;
  let callbackUrl: string;
  let amId: string;

  const call = gatewayCaller(() => base);
  /** The error message the callback's redirect to the error page carries. */
  const errorOf = (res: Response) => {
    const u = new URL(res.headers.get('location')!, base);
    assert.equal(u.pathname, '/authentication-error');
    return JSON.parse(u.searchParams.get('error')!).message as string;
  };
  const admin = (method: string, path: string, body?: unknown) => call(method, path, { token: RECOVERY, body });
  const start = async () => {
    const r = await call('POST', `auth-methods/${amId}:authenticate`, { body: { command: 'start' } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.attributes as { auth_url: string; token_id: string };
  };
  const poll = (tokenId: string, type?: string) =>
    call('POST', `auth-methods/${amId}:authenticate`, { body: { command: 'token', ...(type ? { type } : {}), attributes: { token_id: tokenId } } });

  before(async () => {
    gw = await startGateway({ config: parseGatewayServerConfig(configText, 'gw.hcl'), log: silentLogger(), now: Date.now });
    base = gw.listeners.find((l) => l.purpose === 'api')!.url.replace(/\/$/, '');
    callbackUrl = `${base}/v1/auth-methods/oidc:authenticate:callback`;
    op = await startProvider({ clients: [{ client_id: 'gateway', client_secret: 'gateway-client-secret', redirect_uris: [callbackUrl] }] });
  });
  after(async () => {
    await gw?.shutdown();
    await op?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates an OIDC auth method: inactive, the client secret shown only as an HMAC, the callback URL derived', async () => {
    const bad = await admin('POST', 'auth-methods', {
      scope_id: 'global',
      type: 'oidc',
      attributes: { issuer: 'not a url', signing_algorithms: ['HS256'], claims_scopes: ['openid'], state: 'active-public' },
    });
    assert.equal(bad.status, 400);
    assert.deepEqual(
      bad.body.details.request_fields.map((f: { name: string }) => f.name),
      ['attributes.claims_scopes', 'attributes.issuer', 'attributes.signing_algorithms', 'attributes.state'],
    );
    const r = await admin('POST', 'auth-methods', {
      scope_id: 'global',
      type: 'oidc',
      name: 'provider',
      attributes: {
        issuer: op.issuer,
        client_id: 'gateway',
        client_secret: 'gateway-client-secret',
        api_url_prefix: base,
        signing_algorithms: ['RS256'],
        claims_scopes: ['email'],
        allowed_audiences: ['gateway'],
        account_claim_maps: ['email=email'],
      },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    amId = r.body.id;
    assert.match(amId, /^amoidc_[0-9A-Za-z]{10}$/);
    assert.equal(r.body.type, 'oidc');
    assert.equal(r.body.attributes.state, 'inactive');
    assert.equal(r.body.attributes.client_secret, undefined);
    assert.match(r.body.attributes.client_secret_hmac, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(r.body.attributes.callback_url, callbackUrl);
    assert.ok(r.body.authorized_actions.includes('change-state'));
    assert.doesNotMatch(JSON.stringify((await admin('GET', `auth-methods/${amId}`)).body), /gateway-client-secret/);
    const inactive = await call('POST', `auth-methods/${amId}:authenticate`, { body: { command: 'start' } });
    assert.equal(inactive.status, 400);
    assert.deepEqual(inactive.body, { kind: 'FailedPrecondition', message: 'Cannot start authentication against an inactive OIDC auth method' });
    const anonymous = await call('GET', 'auth-methods?scope_id=global');
    assert.ok(!anonymous.body.items.some((a: { id: string }) => a.id === amId), 'the anonymous user does not see an inactive method');
  });

  it("activates the method only with a reachable provider, and makes it the scope's primary one", async () => {
    const other = await admin('POST', 'auth-methods', {
      scope_id: 'global',
      type: 'oidc',
      attributes: { issuer: 'http://127.0.0.1:9/', client_id: 'x', client_secret: 'y', api_url_prefix: base },
    });
    const unreachable = await admin('POST', `auth-methods/${other.body.id}:change-state`, { version: 1, attributes: { state: 'active-public' } });
    assert.equal(unreachable.status, 400);
    assert.equal(unreachable.body.kind, 'FailedPrecondition');
    const missing = await admin('POST', 'auth-methods', { scope_id: 'global', type: 'oidc', attributes: { issuer: op.issuer } });
    const incomplete = await admin('POST', `auth-methods/${missing.body.id}:change-state`, { version: 1, attributes: { state: 'active-private' } });
    assert.deepEqual(
      incomplete.body.details.request_fields.map((f: { name: string }) => f.name),
      ['attributes.api_url_prefix', 'attributes.client_id', 'attributes.client_secret'],
    );
    const active = await admin('POST', `auth-methods/${amId}:change-state`, { version: 1, attributes: { state: 'active-public' } });
    assert.equal(active.status, 200, JSON.stringify(active.body));
    assert.equal(active.body.attributes.state, 'active-public');
    assert.equal(active.body.version, 2);
    const anonymous = await call('GET', 'auth-methods?scope_id=global');
    assert.deepEqual(anonymous.body.items.find((a: { id: string }) => a.id === amId)?.authorized_actions, ['authenticate']);
    const global = await admin('GET', 'scopes/global');
    const primary = await admin('PATCH', 'scopes/global', { version: global.body.version, primary_auth_method_id: amId });
    assert.equal(primary.status, 200, JSON.stringify(primary.body));
    assert.equal((await admin('GET', `auth-methods/${amId}`)).body.is_primary, true);
  });

  it('logs in through the provider: 202 while pending, the token once, an account and a user made at the first login', async () => {
    const { auth_url, token_id } = await start();
    const url = new URL(auth_url);
    assert.equal(url.origin, op.issuer);
    assert.equal(url.searchParams.get('redirect_uri'), callbackUrl);
    assert.equal(url.searchParams.get('scope'), 'openid email');
    const pending = await poll(token_id);
    assert.equal(pending.status, 202);
    assert.deepEqual(pending.body, { command: 'token', attributes: { status: 'unknown' } });
    const back = await op.browse(auth_url);
    assert.equal(`${back.origin}${back.pathname}`, callbackUrl);
    const cb = await fetch(back, { redirect: 'manual' });
    assert.equal(cb.status, 302);
    assert.equal(cb.headers.get('location'), `${base}/authentication-complete`);
    const done = await fetch(cb.headers.get('location')!);
    assert.equal(done.status, 200);
    assert.match(await done.text(), /you may close this window/);
    const replay = await fetch(back, { redirect: 'manual' });
    assert.equal(replay.status, 302);
    assert.match(errorOf(replay), /Expired or missing OAuth state/);
    const page = await (await fetch(new URL(replay.headers.get('location')!, base))).text();
    assert.match(page, /<h1>Authentication failed<\/h1><p>Callback validation failed: Provider login failed: Expired or missing OAuth state.<\/p>/);

    const got = await poll(token_id);
    assert.equal(got.status, 200, JSON.stringify(got.body));
    assert.equal(got.body.command, 'token');
    const t = got.body.attributes;
    assert.match(t.token, /^at_[0-9A-Za-z]{10}_/);
    assert.equal(t.auth_method_id, amId);
    assert.match(t.account_id, /^acctoidc_/);
    assert.equal((await poll(token_id)).status, 403, 'a token id is answered once');
    const account = await admin('GET', `accounts/${t.account_id}`);
    assert.equal(account.body.type, 'oidc');
    assert.deepEqual(account.body.attributes, { issuer: op.issuer, subject: 'alice', email: 'alice@example.com' });
    const user = await admin('GET', `users/${t.user_id}`);
    assert.deepEqual(user.body.account_ids, [t.account_id]);
    const mine = await call('GET', `auth-tokens/${t.id}`, { token: t.token });
    assert.equal(mine.status, 200, 'the new token works');

    // A second login finds the same account and user.
    const again = await start();
    await fetch(await op.browse(again.auth_url), { redirect: 'manual' });
    const second = await poll(again.token_id);
    assert.equal(second.body.attributes.account_id, t.account_id);
    assert.equal(second.body.attributes.user_id, t.user_id);
    const accounts = await admin('GET', `accounts?auth_method_id=${amId}`);
    assert.equal(accounts.body.items.length, 1);
  });

  it("sends max_age to the provider and checks the login's age; a method that is not primary makes the account but refuses the login", async () => {
    const cur = await admin('GET', `auth-methods/${amId}`);
    const aged = await admin('PATCH', `auth-methods/${amId}`, { version: cur.body.version, attributes: { max_age: 3600 } });
    assert.equal(aged.status, 200, JSON.stringify(aged.body));
    assert.equal(aged.body.attributes.max_age, 3600);
    assert.equal(aged.body.attributes.state, 'active-public', 'an update keeps the state');
    const { auth_url, token_id } = await start();
    assert.equal(new URL(auth_url).searchParams.get('max_age'), '3600');
    await fetch(await op.browse(auth_url), { redirect: 'manual' });
    assert.equal((await poll(token_id)).status, 200);

    const second = await admin('POST', 'auth-methods', {
      scope_id: 'global',
      type: 'oidc',
      attributes: { issuer: op.issuer, client_id: 'gateway', client_secret: 'gateway-client-secret', api_url_prefix: base },
    });
    await admin('POST', `auth-methods/${second.body.id}:change-state`, { version: 1, attributes: { state: 'active-private' } });
    assert.ok(
      !(await call('GET', 'auth-methods?scope_id=global')).body.items.some((a: { id: string }) => a.id === second.body.id),
      'active-private: not listed to the anonymous user',
    );
    const s = await call('POST', `auth-methods/${second.body.id}:authenticate`, { body: { command: 'start' } });
    assert.equal(s.status, 200, 'but it can be used');
    const cb = await fetch(await op.browse(s.body.attributes.auth_url), { redirect: 'manual' });
    assert.match(errorOf(cb), /no user and the auth method is not its scope's primary one/);
    const refused = await call('POST', `auth-methods/${second.body.id}:authenticate`, {
      body: { command: 'token', attributes: { token_id: s.body.attributes.token_id } },
    });
    assert.equal(refused.status, 401);
    assert.match(refused.body.message, /not its scope's primary one/);
    const made = await admin('GET', `accounts?auth_method_id=${second.body.id}`);
    assert.equal(made.body.items.length, 0, 'the refused login left no account (one transaction)');
  });

  it('refuses a made-up state, a callback without code, and a token id of nobody', async () => {
    const made = await fetch(`${callbackUrl}?state=made-up&code=abc`, { redirect: 'manual' });
    assert.equal(made.status, 302);
    assert.match(made.headers.get('location')!, /^\/authentication-error\?error=/, 'relative: no auth method to take a prefix from');
    assert.equal(errorOf(made), 'Callback validation failed: Provider login failed: Expired or missing OAuth state.');
    const { auth_url, token_id } = await start();
    const state = new URL(auth_url).searchParams.get('state')!;
    const noCode = await fetch(`${callbackUrl}?state=${state}`, { redirect: 'manual' });
    assert.match(errorOf(noCode), /Code field not supplied/);
    const denied = await fetch(`${callbackUrl}?state=${state}&error=access_denied&error_description=no`, { redirect: 'manual' });
    assert.match(errorOf(denied), /access_denied/);
    assert.equal((await poll(token_id)).status, 202, 'the login is still pending: nothing consumed its state');
    assert.equal((await poll('nobody')).status, 403);
    const missing = await call('POST', `auth-methods/${amId}:authenticate`, { body: { command: 'token', attributes: {} } });
    assert.deepEqual(missing.body.details.request_fields, [{ name: 'attributes.token_id', description: 'This field is required.' }]);
    const wrong = await call('POST', `auth-methods/${amId}:authenticate`, { body: { command: 'login' } });
    assert.deepEqual(wrong.body.details.request_fields, [{ name: 'command', description: 'Invalid command for this auth method type.' }]);
  });

  it('answers a cookie login with the split cookie; both halves work, one half alone is 401', async () => {
    const { auth_url, token_id } = await start();
    await fetch(await op.browse(auth_url), { redirect: 'manual' });
    const got = await poll(token_id, 'cookie');
    assert.equal(got.status, 200);
    assert.equal(got.body.attributes.token, undefined);
    const cookies = got.headers.getSetCookie();
    assert.match(cookies[0], /^wt-js-token-cookie=at_[^;]+; Path=\/; SameSite=Strict$/);
    assert.match(cookies[1], /^wt-http-token-cookie=[^;]+; Path=\/; HttpOnly; SameSite=Strict$/);
    const [js, http] = cookies.map((c) => c.split(';')[0]);
    assert.equal((await call('GET', `auth-tokens/${got.body.attributes.id}`, { cookie: `${js}; ${http}` })).status, 200);
    assert.equal((await call('GET', `auth-tokens/${got.body.attributes.id}`, { cookie: js })).status, 401);
    assert.equal((await call('GET', `auth-tokens/${got.body.attributes.id}`, { cookie: http })).status, 401);
  });

  it('cairn gateway authenticate oidc prints the provider URL, waits for the login and prints the token', async () => {
    let stdout = '';
    let stderr = '';
    let urlSeen!: (u: string) => void;
    const shown = new Promise<string>((resolve) => (urlSeen = resolve));
    const env = { GATEWAY_ADDR: base, GATEWAY_AUTH_METHOD_ID: amId };
    const cli = main(['gateway', 'authenticate', 'oidc'], env, {
      stdout: (x) => (stdout += x),
      stderr: (x) => {
        stderr += x;
        const m = /(http:\/\/127\.0\.0\.1:\d+\/auth\S+)/.exec(stderr);
        if (m) urlSeen(m[1]);
      },
    });
    const url = await shown;
    await fetch(await op.browse(url), { redirect: 'manual' });
    assert.equal(await cli, 0, stderr);
    assert.match(stdout, /Account ID:\s+acctoidc_/);
    const token = /Token:\s+(at_\S+)/.exec(stdout)![1];
    assert.equal((await call('GET', 'auth-tokens?scope_id=global', { token })).status, 200);
    // -password forms of the reference: env://VAR.
    const pw = await main(['gateway', 'authenticate', 'password', '-auth-method-id=ampw_nope', '-login-name=x', '-password=env://NOT_SET'], env, {
      stdout: () => {},
      stderr: (x) => (stderr = x),
    });
    assert.notEqual(pw, 0);
    assert.match(stderr, /environment variable NOT_SET is not set/);
  });

  it('lists in pages with page_size and list_token, newest first, grants applied on every page', async () => {
    const org = await admin('POST', 'scopes', { scope_id: 'global', name: 'paged' });
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await admin('POST', 'groups', { scope_id: org.body.id, name: `g${i}` })).body.id);
    const walk = async (token: string, query: string) => {
      const seen: string[] = [];
      const types: string[] = [];
      let listToken = '';
      for (let i = 0; i < 10; i++) {
        const r = await call('GET', `groups?scope_id=${org.body.id}&${query}${listToken ? `&list_token=${listToken}` : ''}`, { token });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        assert.equal(r.body.sort_by, 'created_time');
        assert.equal(r.body.sort_dir, 'desc');
        seen.push(...r.body.items.map((g: { id: string }) => g.id));
        types.push(`${r.body.response_type}:${r.body.items.length}:${r.body.est_item_count}`);
        listToken = r.body.list_token;
        if (r.body.response_type === 'complete') break;
      }
      return { seen, types, listToken };
    };
    const all = await walk(RECOVERY, 'page_size=3');
    assert.deepEqual(all.types, ['delta:3:7', 'delta:3:7', 'complete:1:7']);
    assert.deepEqual([...all.seen].sort(), [...ids].sort());
    assert.equal(new Set(all.seen).size, 7, 'no item twice');
    const sdk = new GatewayClient({ address: base, token: RECOVERY });
    assert.deepEqual(
      (await sdk.list('groups', { scope_id: org.body.id, page_size: '2' })).map((g) => g.id),
      all.seen,
      'the SDK follows list_token page after page',
    );
    assert.equal((await sdk.listPage('groups', { scope_id: org.body.id, page_size: '2' })).response_type, 'delta');
    await sdk.close();
    const whole = await admin('GET', `groups?scope_id=${org.body.id}`);
    assert.equal(whole.body.items.length, 7, 'no page_size: one page of up to the default size');
    assert.equal(whole.body.response_type, 'complete');
    assert.deepEqual(
      whole.body.items.map((g: { id: string }) => g.id),
      all.seen,
      'the same order: newest first',
    );

    // A refresh with the complete listing's token: only what changed since.
    const renamed = await admin('PATCH', `groups/${ids[2]}`, { version: 1, description: 'changed' });
    assert.equal(renamed.status, 200);
    const refresh = await call('GET', `groups?scope_id=${org.body.id}&list_token=${all.listToken}`, { token: RECOVERY });
    assert.deepEqual(
      refresh.body.items.map((g: { id: string }) => g.id),
      [ids[2]],
    );
    assert.equal(refresh.body.sort_by, 'updated_time');
    const foreign = await call('GET', `users?scope_id=global&list_token=${all.listToken}`, { token: RECOVERY });
    assert.equal(foreign.status, 400);
    assert.equal(foreign.body.details.request_fields[0].name, 'list_token');
    const badSize = await call('GET', `groups?scope_id=${org.body.id}&page_size=-1`, { token: RECOVERY });
    assert.deepEqual(badSize.body.details.request_fields, [{ name: 'page_size', description: 'Must be a positive integer.' }]);

    // alice (the OIDC user) may read three of the groups: her pages hold only those.
    const { auth_url, token_id } = await start();
    await fetch(await op.browse(auth_url), { redirect: 'manual' });
    const alice = (await poll(token_id)).body.attributes;
    const role = await admin('POST', 'roles', { scope_id: org.body.id, name: 'some groups' });
    await admin('POST', `roles/${role.body.id}:add-principals`, { version: 1, principal_ids: [alice.user_id] });
    const granted = await admin('POST', `roles/${role.body.id}:set-grants`, {
      version: 2,
      grant_strings: ['type=group;actions=list', `ids=${ids[0]},${ids[3]},${ids[5]};actions=read`],
    });
    assert.equal(granted.status, 200, JSON.stringify(granted.body));
    const hers = await walk(alice.token, 'page_size=2');
    assert.deepEqual(hers.types, ['delta:2:3', 'complete:1:3']);
    assert.deepEqual([...hers.seen].sort(), [ids[0], ids[3], ids[5]].sort());
  });
});
