/**
 * The transit engine through the SDK (`SecretsClient.transit()`, src/sdk/secrets-transit.ts)
 * and the generic CLI (`cairn write transit/encrypt/k plaintext=…`, `cairn read`) against a
 * real secrets server.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SecretsApiError, SecretsClient } from '../../src/sdk/secrets.js';
import { cliRunner } from '../cli-helpers.js';
import { startTestServer, type TestServer } from '../helpers.js';

let s: TestServer;
let sdk: SecretsClient;
before(async () => {
  s = await startTestServer();
  assert.equal((await s.call('POST', '/v1/sys/mounts/transit', { body: { type: 'transit' } })).status, 204);
  sdk = new SecretsClient({ address: s.url, token: s.rootToken });
});
after(async () => {
  await sdk.close();
  await s.close();
});

describe('transit: SDK', () => {
  it('creates, rotates and configures keys; encrypts, decrypts and rewraps', async () => {
    const t = sdk.transit();
    assert.equal((await t.createKey('sdk')).latest_version, 1);
    const { ciphertext, key_version } = await t.encrypt('sdk', 'from the sdk', { associatedData: 'row-1' });
    assert.equal(key_version, 1);
    assert.equal((await t.rotateKey('sdk')).latest_version, 2);
    assert.equal((await t.decrypt('sdk', ciphertext, { associatedData: 'row-1' })).toString(), 'from the sdk');
    const rewrapped = await t.rewrap('sdk', ciphertext, { associatedData: 'row-1' });
    assert.match(rewrapped, /^vault:v2:/);
    await t.configureKey('sdk', { min_decryption_version: 2 });
    await assert.rejects(t.decrypt('sdk', ciphertext, { associatedData: 'row-1' }), (e: unknown) => e instanceof SecretsApiError && e.status === 400);
    assert.deepEqual(await t.listKeys(), ['sdk']);
    assert.equal(await t.readKey('none'), undefined);
    const results = await t.encryptBatch('sdk', [{ plaintext: 'a', reference: 'r1' }, { plaintext: 'b' }]);
    assert.equal(results.length, 2);
    assert.equal(results[0].reference, 'r1');
    const dk = await t.dataKey('sdk', 'plaintext', 128);
    assert.equal(dk.plaintext?.length, 16);
    assert.deepEqual(await t.decrypt('sdk', dk.ciphertext), dk.plaintext);
  });

  it('signs and verifies, HMACs, hashes, random; exports, backs up and restores', async () => {
    const t = sdk.transit('transit');
    await t.createKey('sdk-sign', { type: 'ed25519', exportable: true, allow_plaintext_backup: true });
    const sig = await t.sign('sdk-sign', 'doc');
    assert.equal(await t.verify('sdk-sign', 'doc', sig), true);
    assert.equal(await t.verify('sdk-sign', 'other', sig), false);
    const mac = await t.hmac('sdk-sign', 'doc');
    assert.equal(await t.verifyHmac('sdk-sign', 'doc', mac), true);
    assert.equal(await t.hash('abc', 'sha2-256'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    assert.equal((await t.random(20)).length, 20);
    assert.equal(Object.keys(await t.exportKey('sdk-sign', 'public-key', 'latest')).length, 1);
    const backup = await t.backupKey('sdk-sign');
    await t.restoreKey(backup, { name: 'sdk-sign-copy' });
    assert.equal(await t.verify('sdk-sign-copy', 'doc', sig), true);
    await t.configureKey('sdk-sign-copy', { deletion_allowed: true });
    await t.deleteKey('sdk-sign-copy');
    assert.equal(await t.readKey('sdk-sign-copy'), undefined);
  });
});

describe('transit: CLI', () => {
  const { cairn, ok } = cliRunner({ env: () => ({ SECRETS_ADDR: s.url }), rootEnv: () => ({ SECRETS_TOKEN: s.rootToken }) });

  it('cairn write transit/encrypt/k plaintext=… and transit/decrypt/k round-trip; cairn read shows the key', async () => {
    const plaintext = Buffer.from('from the cli').toString('base64');
    const enc = JSON.parse(await ok('write', '-format=json', 'transit/encrypt/cli', `plaintext=${plaintext}`));
    assert.match(enc.data.ciphertext, /^vault:v1:/);
    const dec = JSON.parse(await ok('write', '-format=json', 'transit/decrypt/cli', `ciphertext=${enc.data.ciphertext}`));
    assert.equal(Buffer.from(dec.data.plaintext, 'base64').toString(), 'from the cli');
    const table = await ok('read', 'transit/keys/cli');
    assert.match(table, /latest_version\s+1/);
    const bad = await cairn({ SECRETS_TOKEN: s.rootToken }, ['write', 'transit/decrypt/cli', 'ciphertext=nope']);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /invalid ciphertext: no prefix/);
  });
});
