/**
 * `cairn gateway credential-stores|credential-libraries|credentials` run in-process
 * against a real controller (dev bootstrap, project `p_1234567890`) and a real secrets
 * service: a vault store made with `-vault-token=env://…`, a vault-generic library with a
 * mapping override, static credentials with `-password=env://…` and
 * `-private-key=file://…`, updates that read the version first, lists and deletes. The
 * secrets never appear in the output.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Gateway } from '../../src/services/gateway/server.js';
import { gatewayCli, startDevGateway } from './fixture.js';
import { startTestServer, type TestServer } from '../helpers.js';

const POLICY = [
  'auth/token/lookup-self:read',
  'auth/token/renew-self:update',
  'auth/token/revoke-self:update',
  'sys/leases/renew:update',
  'sys/leases/revoke:update',
]
  .map((e) => e.split(':'))
  .map(([p, c]) => `path "${p}" { capabilities = ["${c}"] }`)
  .join('\n');

describe('cairn gateway credential commands', { timeout: 60_000 }, () => {
  let gateway: Gateway;
  let secrets: TestServer;
  let env: Record<string, string>;
  let output = '';
  const dir = mkdtempSync(join(tmpdir(), 'cairn-cli-creds-'));
  const { run, json } = gatewayCli(
    () => env,
    (text) => (output += text),
  );

  before(async () => {
    secrets = await startTestServer();
    assert.equal((await secrets.call('PUT', '/v1/sys/policies/acl/gateway', { body: { policy: POLICY } })).status, 204);
    const t = await secrets.call('POST', '/v1/auth/token/create', { body: { policies: ['gateway'], period: '20m', no_parent: true } });
    const started = await startDevGateway('recovery');
    gateway = started.gateway;
    env = { GATEWAY_ADDR: started.url, GATEWAY_TOKEN: 'recovery', STORE_TOKEN: t.json.auth.client_token, DB_PASSWORD: 'cli-static-password' };
  });
  after(async () => {
    gateway.force();
    await gateway.shutdown();
    await secrets.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates, updates, lists and deletes stores, libraries and credentials', async () => {
    const store = await json([
      'credential-stores',
      'create',
      'vault',
      '-scope-id=p_1234567890',
      '-name=kv',
      `-vault-address=${secrets.url}`,
      '-vault-token=env://STORE_TOKEN',
    ]);
    assert.match(store.id, /^csvlt_/);
    assert.equal(store.attributes.token_status, 'current');
    const renamed = await json(['credential-stores', 'update', 'vault', `-id=${store.id}`, '-description=the kv store']);
    assert.equal(renamed.version, 2);
    const text = await run(['credential-stores', 'read', `-id=${store.id}`]);
    assert.match(text.stdout, /token_status\s+current/);
    assert.match(text.stdout, /address\s+http:\/\/127\.0\.0\.1:\d+/);
    const stores = await run(['credential-stores', 'list', '-scope-id=p_1234567890']);
    assert.match(stores.stdout, new RegExp(`${store.id}  vault  kv`));

    const lib = await json([
      'credential-libraries',
      'create',
      'vault-generic',
      `-credential-store-id=${store.id}`,
      '-vault-path=secret/data/db',
      '-credential-type=username_password',
      '-credential-mapping-override=username_attribute=user',
    ]);
    assert.deepEqual(lib.credential_mapping_overrides, { username_attribute: 'user' });
    const post = await json([
      'credential-libraries',
      'update',
      'vault-generic',
      `-id=${lib.id}`,
      '-vault-http-method=POST',
      '-vault-http-request-body={"a":1}',
    ]);
    assert.deepEqual(post.attributes, { path: 'secret/data/db', http_method: 'POST', http_request_body: '{"a":1}' });
    const libs = await json(['credential-libraries', 'list', `-credential-store-id=${store.id}`]);
    assert.deepEqual(
      libs.map((l: { id: string }) => l.id),
      [lib.id],
    );

    const statics = await json(['credential-stores', 'create', 'static', '-scope-id=p_1234567890']);
    const up = await json(['credentials', 'create', 'username-password', `-credential-store-id=${statics.id}`, '-username=ops', '-password=env://DB_PASSWORD']);
    assert.ok(up.attributes.password_hmac);
    const keyFile = join(dir, 'id_ed25519');
    writeFileSync(keyFile, generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }));
    const spk = await json([
      'credentials',
      'create',
      'ssh-private-key',
      `-credential-store-id=${statics.id}`,
      '-username=deploy',
      `-private-key=file://${keyFile}`,
    ]);
    assert.ok(spk.attributes.private_key_hmac);
    const moved = await json(['credentials', 'update', 'username-password', `-id=${up.id}`, '-username=ops2']);
    assert.equal(moved.attributes.username, 'ops2');
    assert.equal(moved.attributes.password_hmac, up.attributes.password_hmac);
    const missing = await run(['credentials', 'create', 'username-password', `-credential-store-id=${statics.id}`, '-username=x', '-password=env://NOPE']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /environment variable NOPE is not set/);

    const del = await run(['credential-stores', 'delete', `-id=${statics.id}`]);
    assert.equal(del.code, 0, del.stderr);
    const gone = await run(['credentials', 'list', `-credential-store-id=${statics.id}`]);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /HTTP 404/);
    assert.ok(!output.includes(env.STORE_TOKEN) && !output.includes('cli-static-password') && !output.includes('PRIVATE KEY'), 'no secret in the output');
  });
});
