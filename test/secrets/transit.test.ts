/**
 * The transit engine through a real secrets server (reference/secrets-engines.md §6):
 * versions and rotation, rewrap, min_decryption_version, batches with the partial-failure
 * status, derived and convergent keys, deletion, backup/restore, the upsert of a missing key
 * (create capability only), automatic rotation on an injected clock, and key material never
 * stored in clear.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers.js';
import { until } from '../processes.js';

let s: TestServer;
let now = Date.parse('2026-01-01T00:00:00Z');
before(async () => {
  s = await startTestServer({ clock: () => new Date(now) });
  const m = await s.call('POST', '/v1/sys/mounts/transit', { body: { type: 'transit' } });
  assert.equal(m.status, 204, m.text);
});
after(() => s.close());

const b64 = (t: string) => Buffer.from(t).toString('base64');
const text = (b: string) => Buffer.from(b, 'base64').toString();

async function ok(method: string, path: string, body?: unknown) {
  const r = await s.call(method, `/v1/transit/${path}`, { body });
  assert.ok(r.status === 200 || r.status === 204, `${method} ${path}: ${r.status} ${r.text}`);
  return r.json;
}

describe('transit: keys, versions and encryption', () => {
  it('decrypts v1 data after a rotation, rewraps it to the latest, and refuses it below min_decryption_version', async () => {
    const created = await ok('POST', 'keys/orders');
    assert.equal(created.data.type, 'aes256-gcm96');
    assert.equal(created.data.latest_version, 1);
    assert.equal(typeof created.data.keys['1'], 'number');
    const v1 = (await ok('POST', 'encrypt/orders', { plaintext: b64('card 4111') })).data;
    assert.match(v1.ciphertext, /^vault:v1:[A-Za-z0-9+/=]+$/);
    assert.equal(v1.key_version, 1);

    const rotated = await ok('POST', 'keys/orders/rotate');
    assert.equal(rotated.data.latest_version, 2);
    assert.deepEqual(Object.keys(rotated.data.keys), ['1', '2']);
    assert.equal(text((await ok('POST', 'decrypt/orders', { ciphertext: v1.ciphertext })).data.plaintext), 'card 4111');
    // The accepted `cairn:` prefix reads the same ciphertext.
    assert.equal(text((await ok('POST', 'decrypt/orders', { ciphertext: v1.ciphertext.replace(/^vault:/, 'cairn:') })).data.plaintext), 'card 4111');

    const v2 = (await ok('POST', 'encrypt/orders', { plaintext: b64('new') })).data.ciphertext;
    assert.match(v2, /^vault:v2:/);
    const rewrapped = (await ok('POST', 'rewrap/orders', { ciphertext: v1.ciphertext })).data;
    assert.match(rewrapped.ciphertext, /^vault:v2:/);
    assert.equal(rewrapped.plaintext, undefined);
    assert.equal(text((await ok('POST', 'decrypt/orders', { ciphertext: rewrapped.ciphertext })).data.plaintext), 'card 4111');

    const cfg = await ok('POST', 'keys/orders/config', { min_decryption_version: 2 });
    assert.equal(cfg.data.min_decryption_version, 2);
    const old = await s.call('POST', '/v1/transit/decrypt/orders', { body: { ciphertext: v1.ciphertext } });
    assert.equal(old.status, 400);
    assert.deepEqual(old.json.errors, ['ciphertext or signature version is disallowed by policy (too old)']);
    assert.equal((await s.call('GET', '/v1/transit/keys/orders')).json.data.min_decryption_version, 2);

    // An explicit older version for encryption is refused below min_encryption_version.
    await ok('POST', 'keys/orders/config', { min_encryption_version: 2 });
    const low = await s.call('POST', '/v1/transit/encrypt/orders', { body: { plaintext: b64('x'), key_version: 1 } });
    assert.equal(low.status, 400, low.text);
    // Trim drops version 1 for good.
    const trimmed = await ok('POST', 'keys/orders/trim', { min_available_version: 2 });
    assert.deepEqual(Object.keys(trimmed.data.keys), ['2']);
    assert.equal(trimmed.data.min_available_version, 2);
  });

  it('answers a batch with one bad item per item, 400 or the partial_failure_response_code', async () => {
    await ok('POST', 'keys/batch');
    const batch_input = [{ plaintext: b64('one'), reference: 'a' }, { plaintext: 'not base64!', reference: 'b' }, { plaintext: b64('three') }];
    const r = await s.call('POST', '/v1/transit/encrypt/batch', { body: { batch_input } });
    assert.equal(r.status, 400, r.text);
    const results = r.json.data.batch_results;
    assert.equal(results.length, 3);
    assert.match(results[0].ciphertext, /^vault:v1:/);
    assert.equal(results[0].reference, 'a');
    assert.equal(results[1].error, 'failed to base64-decode plaintext');
    assert.equal(results[1].reference, 'b');
    assert.equal(results[1].ciphertext, undefined);
    assert.match(results[2].ciphertext, /^vault:v1:/);

    const partial = await s.call('POST', '/v1/transit/encrypt/batch', { body: { batch_input, partial_failure_response_code: 207 } });
    assert.equal(partial.status, 207);
    assert.equal(partial.json.data.batch_results.length, 3);

    const dec = await s.call('POST', '/v1/transit/decrypt/batch', {
      body: { batch_input: [{ ciphertext: results[0].ciphertext }, { ciphertext: 'vault:v1:AAAA' }, { ciphertext: results[2].ciphertext }] },
    });
    assert.equal(dec.status, 400);
    assert.equal(text(dec.json.data.batch_results[0].plaintext), 'one');
    assert.ok(dec.json.data.batch_results[1].error);
    assert.equal(text(dec.json.data.batch_results[2].plaintext), 'three');

    const good = await s.call('POST', '/v1/transit/decrypt/batch', { body: { batch_input: [{ ciphertext: results[0].ciphertext }] } });
    assert.equal(good.status, 200);
    const tooMany = await s.call('POST', '/v1/transit/encrypt/batch', { body: { batch_input: Array.from({ length: 1001 }, () => ({ plaintext: '' })) } });
    assert.equal(tooMany.status, 400);
    assert.match(tooMany.json.errors[0], /batch_input/);
  });

  it('derived keys need a context; convergent encryption gives the same ciphertext for the same input', async () => {
    await ok('POST', 'keys/derived', { derived: true });
    const none = await s.call('POST', '/v1/transit/encrypt/derived', { body: { plaintext: b64('x') } });
    assert.equal(none.status, 400);
    assert.match(none.json.errors[0], /^missing 'context' for key derivation/);
    const ctx = b64('tenant-1');
    const c = (await ok('POST', 'encrypt/derived', { plaintext: b64('x'), context: ctx })).data.ciphertext;
    assert.equal(text((await ok('POST', 'decrypt/derived', { ciphertext: c, context: ctx })).data.plaintext), 'x');
    const wrong = await s.call('POST', '/v1/transit/decrypt/derived', { body: { ciphertext: c, context: b64('tenant-2') } });
    assert.equal(wrong.status, 400);
    assert.deepEqual(wrong.json.errors, ['cipher: message authentication failed']);

    const refused = await s.call('POST', '/v1/transit/keys/conv-bad', { body: { convergent_encryption: true } });
    assert.equal(refused.status, 400);
    assert.equal((await s.call('GET', '/v1/transit/keys/conv-bad')).status, 404);

    const conv = await ok('POST', 'keys/conv', { derived: true, convergent_encryption: true });
    assert.equal(conv.data.convergent_encryption, true);
    const e1 = (await ok('POST', 'encrypt/conv', { plaintext: b64('same'), context: ctx })).data.ciphertext;
    const e2 = (await ok('POST', 'encrypt/conv', { plaintext: b64('same'), context: ctx })).data.ciphertext;
    const e3 = (await ok('POST', 'encrypt/conv', { plaintext: b64('other'), context: ctx })).data.ciphertext;
    assert.equal(e1, e2);
    assert.notEqual(e1, e3);
    // A non-convergent key never repeats a ciphertext.
    const r1 = (await ok('POST', 'encrypt/derived', { plaintext: b64('same'), context: ctx })).data.ciphertext;
    const r2 = (await ok('POST', 'encrypt/derived', { plaintext: b64('same'), context: ctx })).data.ciphertext;
    assert.notEqual(r1, r2);
  });

  it('encrypts with every symmetric and RSA type, and with associated data', async () => {
    for (const type of ['aes128-gcm96', 'chacha20-poly1305', 'rsa-2048']) {
      await ok('POST', `keys/t-${type}`, { type });
      const c = (await ok('POST', `encrypt/t-${type}`, { plaintext: b64(type) })).data.ciphertext;
      assert.equal(text((await ok('POST', `decrypt/t-${type}`, { ciphertext: c })).data.plaintext), type);
    }
    const ad = b64('row-7');
    const c = (await ok('POST', 'encrypt/t-chacha20-poly1305', { plaintext: b64('v'), associated_data: ad })).data.ciphertext;
    assert.equal(text((await ok('POST', 'decrypt/t-chacha20-poly1305', { ciphertext: c, associated_data: ad })).data.plaintext), 'v');
    const bad = await s.call('POST', '/v1/transit/decrypt/t-chacha20-poly1305', { body: { ciphertext: c, associated_data: b64('row-8') } });
    assert.equal(bad.status, 400);
    const unknown = await s.call('POST', '/v1/transit/keys/x', { body: { type: 'aes512' } });
    assert.equal(unknown.status, 400);
    assert.deepEqual(unknown.json.errors, ['type: unknown key type "aes512"']);
  });

  it('bounds its inputs and refuses bad settings with a 400 naming the field, changing nothing', async () => {
    await ok('POST', 'keys/bounds');
    const big = await s.call('POST', '/v1/transit/encrypt/bounds', { body: { plaintext: Buffer.alloc(4 * 1024 * 1024 + 1).toString('base64') } });
    assert.equal(big.status, 400);
    assert.deepEqual(big.json.errors, ['plaintext: larger than the maximum of 4194304 bytes']);
    const before = (await s.call('GET', '/v1/transit/keys/bounds')).json.data;
    for (const body of [{ min_decryption_version: 5 }, { min_encryption_version: 9 }, { auto_rotate_period: '5m' }, { min_decryption_version: -1 }]) {
      const r = await s.call('POST', '/v1/transit/keys/bounds/config', { body });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.match(r.json.errors[0], new RegExp(Object.keys(body)[0]), r.text);
    }
    await ok('POST', 'keys/bounds/rotate');
    await ok('POST', 'keys/bounds/config', { min_decryption_version: 2 });
    const below = await s.call('POST', '/v1/transit/keys/bounds/config', { body: { min_encryption_version: 1 } });
    assert.equal(below.status, 400);
    assert.deepEqual(below.json.errors, ['min_encryption_version: min encryption version should not be less than min decryption version']);
    const trim = await s.call('POST', '/v1/transit/keys/bounds/trim', { body: { min_available_version: 2 } });
    assert.equal(trim.status, 400, 'trim needs min_encryption_version set');
    const after = (await s.call('GET', '/v1/transit/keys/bounds')).json.data;
    assert.deepEqual({ ...after, latest_version: 1, min_decryption_version: 1, keys: before.keys }, before);
    assert.equal(after.min_encryption_version, 0);
    const exported = await s.call('GET', '/v1/transit/export/encryption-key/bounds');
    assert.equal(exported.status, 400);
  });

  it('refuses deletion until deletion_allowed, then deletes the key', async () => {
    await ok('POST', 'keys/doomed');
    const refused = await s.call('DELETE', '/v1/transit/keys/doomed');
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.json.errors, ['deletion is not allowed for this policy']);
    assert.equal((await s.call('GET', '/v1/transit/keys/doomed')).status, 200);
    await ok('POST', 'keys/doomed/config', { deletion_allowed: true });
    assert.equal((await s.call('DELETE', '/v1/transit/keys/doomed')).status, 204);
    assert.equal((await s.call('GET', '/v1/transit/keys/doomed')).status, 404);
    assert.ok(!(await s.call('LIST', '/v1/transit/keys')).json.data.keys.includes('doomed'));
  });

  it('backs up and restores a key: old ciphertexts decrypt with the restored key', async () => {
    await ok('POST', 'keys/bk');
    const c = (await ok('POST', 'encrypt/bk', { plaintext: b64('kept') })).data.ciphertext;
    const refused = await s.call('GET', '/v1/transit/backup/bk');
    assert.equal(refused.status, 400);
    await ok('POST', 'keys/bk/config', { exportable: true, allow_plaintext_backup: true, deletion_allowed: true });
    const backup = (await ok('GET', 'backup/bk')).data.backup;
    assert.equal((await s.call('DELETE', '/v1/transit/keys/bk')).status, 204);
    assert.equal((await s.call('POST', '/v1/transit/restore', { body: { backup } })).status, 204);
    assert.equal(text((await ok('POST', 'decrypt/bk', { ciphertext: c })).data.plaintext), 'kept');
    const again = await s.call('POST', '/v1/transit/restore', { body: { backup } });
    assert.equal(again.status, 400);
    assert.deepEqual(again.json.errors, ['key "bk" already exists']);
    assert.equal((await s.call('POST', '/v1/transit/restore/bk-copy', { body: { backup } })).status, 204);
    assert.equal(text((await ok('POST', 'decrypt/bk-copy', { ciphertext: c })).data.plaintext), 'kept');
    const forged = Buffer.from(JSON.stringify({ policy: { type: 'aes256-gcm96', name: 'f' } })).toString('base64');
    const bad = await s.call('POST', '/v1/transit/restore', { body: { backup: forged } });
    assert.equal(bad.status, 400);
    assert.match(bad.json.errors[0], /^invalid backup/);
    assert.equal((await s.call('GET', '/v1/transit/keys/f')).status, 404);
  });

  it('creates a missing key on encrypt only for a caller with the create capability', async () => {
    const policy = (caps: string) => `path "transit/encrypt/*" { capabilities = [${caps}] }`;
    assert.equal((await s.call('PUT', '/v1/sys/policies/acl/enc-update', { body: { policy: policy('"update"') } })).status, 204);
    assert.equal((await s.call('PUT', '/v1/sys/policies/acl/enc-create', { body: { policy: policy('"create", "update"') } })).status, 204);
    const token = async (p: string) => (await s.call('POST', '/v1/auth/token/create', { body: { policies: [p] } })).json.auth.client_token;
    const updater = await token('enc-update');
    const creator = await token('enc-create');
    const denied = await s.call('POST', '/v1/transit/encrypt/fresh', { token: updater, body: { plaintext: b64('x') } });
    assert.equal(denied.status, 403);
    assert.equal((await s.call('GET', '/v1/transit/keys/fresh')).status, 404);
    const made = await s.call('POST', '/v1/transit/encrypt/fresh', { token: creator, body: { plaintext: b64('x'), type: 'chacha20-poly1305' } });
    assert.equal(made.status, 200, made.text);
    assert.equal((await s.call('GET', '/v1/transit/keys/fresh')).json.data.type, 'chacha20-poly1305');
    // The key exists now: update is enough.
    assert.equal((await s.call('POST', '/v1/transit/encrypt/fresh', { token: updater, body: { plaintext: b64('y') } })).status, 200);
    // disable_upsert: even a root token cannot create a key by encrypting.
    await ok('POST', 'config/keys', { disable_upsert: true });
    const off = await s.call('POST', '/v1/transit/encrypt/never', { body: { plaintext: b64('x') } });
    assert.equal(off.status, 400);
    assert.deepEqual(off.json.errors, ['encryption key not found']);
    await ok('POST', 'config/keys', { disable_upsert: false });
  });

  it('rotates a key when its auto_rotate_period has passed (injected clock), and refuses a period under an hour', async () => {
    const short = await s.call('POST', '/v1/transit/keys/auto', { body: { auto_rotate_period: '10m' } });
    assert.equal(short.status, 400);
    assert.match(short.json.errors[0], /at least an hour/);
    const created = await ok('POST', 'keys/auto', { auto_rotate_period: '1h' });
    assert.equal(created.data.auto_rotate_period, 3600);
    now += 59 * 60 * 1000;
    // The periodic loop runs every second; a minute under the period nothing happens.
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal((await s.call('GET', '/v1/transit/keys/auto')).json.data.latest_version, 1);
    now += 2 * 60 * 1000;
    await until('auto-rotation to version 2', 20_000, async () =>
      (await s.call('GET', '/v1/transit/keys/auto')).json.data.latest_version === 2 ? true : undefined,
    );
    const key = (await s.call('GET', '/v1/transit/keys/auto')).json.data;
    assert.equal(key.keys['2'], Math.floor(now / 1000));
  });

  it('keeps key material only behind the barrier: the exported key bytes appear nowhere in the database file', async () => {
    await ok('POST', 'keys/secret-bytes', { exportable: true });
    const exported = (await ok('GET', 'export/encryption-key/secret-bytes')).data.keys['1'];
    const raw = Buffer.from(exported, 'base64');
    const db = readFileSync(s.dbPath);
    assert.equal(db.indexOf(raw), -1);
    assert.equal(db.indexOf(Buffer.from(exported)), -1);
  });
});
