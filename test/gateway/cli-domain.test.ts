/**
 * The gateway domain commands (`cairn gateway authenticate password`, `scopes|users|roles
 * create|read|update|delete|list`, `roles add-principals|set-grants`) run in-process
 * against a real controller bootstrapped with the dev login (`admin` / `password` on
 * `ampw_1234567890`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Gateway } from '../../src/services/gateway/server.js';
import { gatewayCli, startDevGateway } from './fixture.js';

describe('cairn gateway domain commands', { timeout: 60_000 }, () => {
  let gateway: Gateway;
  let env: Record<string, string>;
  const { run, json } = gatewayCli(() => env);

  before(async () => {
    const started = await startDevGateway('recovery');
    gateway = started.gateway;
    env = { GATEWAY_ADDR: started.url };
  });
  after(async () => {
    gateway.force();
    await gateway.shutdown();
  });

  it('logs in with a password and manages scopes, users and roles with the token', async () => {
    const login = await run(['authenticate', 'password', '-auth-method-id=ampw_1234567890', '-login-name=admin', '-password=password']);
    assert.equal(login.code, 0, login.stderr);
    const token = /Token:\s+(at_\S+)/.exec(login.stdout)![1];
    env.GATEWAY_TOKEN = token;
    const bad = await run(['authenticate', 'password', '-auth-method-id=ampw_1234567890', '-login-name=admin', '-password=nope-nope']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /Unable to authenticate.*HTTP 401/);

    const org = await json(['scopes', 'create', '-name=engineering']);
    assert.match(org.id, /^o_/);
    const listed = await json(['scopes', 'list', '-recursive']);
    assert.ok(listed.some((s: { id: string }) => s.id === org.id));
    assert.ok(
      listed.some((s: { id: string }) => s.id === 'p_1234567890'),
      'the dev project is listed recursively',
    );
    const updated = await json(['scopes', 'update', `-id=${org.id}`, '-description=eng teams']);
    assert.equal(updated.version, 2);
    assert.equal(updated.description, 'eng teams');
    const stale = await run(['scopes', 'update', `-id=${org.id}`, '-version=1', '-name=x']);
    assert.equal(stale.code, 1);
    assert.match(stale.stderr, /version mismatch/);

    const user = await json(['users', 'create', `-scope-id=${org.id}`, '-name=alice']);
    assert.match(user.id, /^u_/);
    const role = await json(['roles', 'create', `-scope-id=${org.id}`, '-name=readers']);
    await json(['roles', 'add-principals', `-id=${role.id}`, `-principal=${user.id}`, '-principal=u_auth']);
    const granted = await json(['roles', 'set-grants', `-id=${role.id}`, '-grant=ids=*;type=group;actions=read']);
    assert.deepEqual(granted.principal_ids, [user.id, 'u_auth']);
    assert.deepEqual(granted.grant_strings, ['ids=*;type=group;actions=read']);
    assert.equal(granted.version, 3);
    const text = await run(['roles', 'read', `-id=${role.id}`]);
    assert.match(text.stdout, /grant_strings\s+ids=\*;type=group;actions=read/);
    const wrong = await run(['roles', 'set-grants', `-id=${role.id}`, '-grant=ids=*;actions=read']);
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /grant_strings: Error parsing grant string "ids=\*;actions=read"/);

    assert.equal((await run(['scopes', 'delete', `-id=${org.id}`])).code, 0);
    const gone = await run(['users', 'read', `-id=${user.id}`]);
    assert.equal(gone.code, 1, 'deleting the org deleted its user');
    assert.match(gone.stderr, /Resource not found/);
  });
});
