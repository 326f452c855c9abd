/**
 * The transit engine driven by the reference product's own client library (issue 28
 * item 2): Debian's `python3-hvac` (0.11) runs test/secrets/testdata/python_hvac_transit.py
 * through the header-renaming proxy (vault-header-proxy.ts) against a real secrets service
 * with a transit mount, calling hvac's own `client.secrets.transit` methods: create_key,
 * read_key, list_keys, encrypt_data, decrypt_data, rotate_key, rewrap_data,
 * update_key_configuration, sign_data, verify_signed_data, generate_hmac, hash_data,
 * generate_random_bytes, generate_data_key, export_key, backup_key, delete_key, restore_key
 * and trim_key. The values are the ones hvac returns; a refusal is the hvac exception class
 * and the reference's errors.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '../helpers.js';
import { startVaultHeaderProxy, type VaultHeaderProxy } from './vault-header-proxy.js';

const PYTHON = '/usr/bin/python3';
const SCRIPT = join(import.meta.dirname, 'testdata', 'python_hvac_transit.py');

describe('python3-hvac: the transit engine', () => {
  let s: TestServer;
  let proxy: VaultHeaderProxy;
  let out: Record<string, unknown>;

  before(async () => {
    s = await startTestServer();
    assert.equal((await s.call('POST', '/v1/sys/mounts/transit', { body: { type: 'transit' } })).status, 204);
    proxy = await startVaultHeaderProxy(s.url);
    // python3-hvac is installed by .ci/run: a script that cannot run fails the suite, never skips it.
    const { stdout } = await promisify(execFile)(PYTHON, [SCRIPT], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PROXY_PORT: String(proxy.port), SECRETS_TOKEN: s.rootToken },
      timeout: 120_000,
    });
    out = JSON.parse(stdout) as Record<string, unknown>;
  });
  after(async () => {
    await proxy?.close();
    await s?.close();
  });

  it('keys: create, read, list, rotate, configure, trim; a key without deletion_allowed is not deleted', () => {
    assert.deepEqual(out.read_key, { type: 'aes256-gcm96', latest_version: 1, versions: ['1'] });
    assert.deepEqual(out.list_keys, ['app']);
    assert.equal(out.rotated_latest, 2);
    assert.deepEqual(out.delete_refused, ['InvalidRequest', ['deletion is not allowed for this policy']]);
    assert.deepEqual(out.trimmed_versions, ['2']);
  });

  it('encrypt, decrypt, rewrap, a batch, and min_decryption_version refusing old ciphertext', () => {
    assert.equal(out.ciphertext_prefix, 'vault:v1');
    assert.equal(out.decrypted, 'hello hvac');
    assert.equal(out.rewrapped_prefix, 'v2');
    assert.equal(out.rewrapped_decrypted, 'hello hvac');
    assert.deepEqual(out.too_old, ['InvalidRequest', ['ciphertext or signature version is disallowed by policy (too old)']]);
    assert.equal(out.batch_count, 2);
  });

  it('sign and verify (asn1 and jws), hmac, hash, random, data key', () => {
    assert.equal(out.signature_prefix, 'v1');
    assert.equal(out.verified, true);
    assert.equal(out.verified_other, false);
    assert.equal(out.jws_verified, true);
    assert.equal(out.hmac_prefix, 'v2');
    assert.equal(out.hmac_verified, true);
    assert.equal(out.hash, createHash('sha256').update('abc').digest('hex'));
    assert.equal(out.random_len, 24);
    assert.equal(out.datakey_len, 32);
  });

  it('export needs exportable; backup, delete and restore bring the same key back', () => {
    assert.deepEqual(out.export_refused, ['InvalidRequest', ['private key material is not exportable']]);
    assert.equal(out.exported_pem, '-----BEGIN EC PRIVATE KEY-----');
    assert.deepEqual(out.deleted, ['InvalidPath', []]);
    assert.equal(out.restored_verifies, true);
  });
});
