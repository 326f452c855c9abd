/**
 * Transit signatures, HMACs and the keyless operations through a real secrets server
 * (reference/secrets-engines.md §6): a signature of every asymmetric key type verifies with
 * Node's own `crypto.verify` and the exported public key; JWS marshaling, RSA PSS and
 * PKCS#1 v1.5, prehashed input, derived ed25519; HMAC verify; hash, random, datakey; export.
 */
import assert from 'node:assert/strict';
import { constants, createHash, createHmac, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
  assert.equal((await s.call('POST', '/v1/sys/mounts/transit', { body: { type: 'transit' } })).status, 204);
});
after(() => s.close());

const b64 = (t: string | Buffer) => Buffer.from(t).toString('base64');
const INPUT = Buffer.from('the message');

async function ok(method: string, path: string, body?: unknown) {
  const r = await s.call(method, `/v1/transit/${path}`, { body });
  assert.ok(r.status === 200 || r.status === 204, `${method} ${path}: ${r.status} ${r.text}`);
  return r.json;
}

/** The exported public key of version 1 as a Node KeyObject (ed25519 comes as raw base64). */
async function publicKey(name: string, type: string): Promise<KeyObject> {
  const exported = (await ok('GET', `export/public-key/${name}/1`)).data.keys['1'];
  if (type !== 'ed25519') return createPublicKey(exported);
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(exported, 'base64').toString('base64url') }, format: 'jwk' });
}

const sigBytes = (sig: string, encoding: 'base64' | 'base64url' = 'base64') => Buffer.from(sig.split(':')[2], encoding);

describe('transit: signatures verify with Node crypto', () => {
  for (const [type, hash] of [
    ['ed25519', null],
    ['ecdsa-p256', 'sha256'],
    ['ecdsa-p384', 'sha384'],
    ['ecdsa-p521', 'sha512'],
    ['rsa-2048', 'sha256'],
    ['rsa-3072', 'sha256'],
    ['rsa-4096', 'sha256'],
  ] as const) {
    it(`${type}: the signature verifies with crypto.verify, and with the engine's verify`, async () => {
      const name = `sig-${type}`;
      const key = (await ok('POST', `keys/${name}`, { type })).data;
      assert.equal(key.supports_signing, true);
      assert.ok(key.keys['1'].public_key);
      const hashAlgorithm = hash === 'sha384' ? 'sha2-384' : hash === 'sha512' ? 'sha2-512' : 'sha2-256';
      const signed = (await ok('POST', `sign/${name}/${hashAlgorithm}`, { input: b64(INPUT) })).data;
      assert.match(signed.signature, /^vault:v1:/);
      assert.equal(signed.key_version, 1);
      const pub = await publicKey(name, type);
      const options = type.startsWith('rsa') ? { key: pub, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_AUTO } : pub;
      assert.equal(verify(hash, INPUT, options, sigBytes(signed.signature)), true);
      assert.equal(verify(hash, Buffer.from('other'), options, sigBytes(signed.signature)), false);
      const v = await ok('POST', `verify/${name}/${hashAlgorithm}`, { input: b64(INPUT), signature: signed.signature });
      assert.equal(v.data.valid, true);
      const tampered = await ok('POST', `verify/${name}/${hashAlgorithm}`, { input: b64('other'), signature: signed.signature });
      assert.equal(tampered.data.valid, false);
    });
  }

  it('ECDSA jws marshaling is r‖s in base64url, verified as IEEE P1363', async () => {
    await ok('POST', 'keys/jws', { type: 'ecdsa-p256' });
    const sig = (await ok('POST', 'sign/jws', { input: b64(INPUT), marshaling_algorithm: 'jws' })).data.signature;
    assert.match(sig, /^vault:v1:[A-Za-z0-9_-]+$/);
    const raw = sigBytes(sig, 'base64url');
    assert.equal(raw.length, 64);
    assert.equal(verify('sha256', INPUT, { key: await publicKey('jws', 'ecdsa-p256'), dsaEncoding: 'ieee-p1363' }, raw), true);
    assert.equal((await ok('POST', 'verify/jws', { input: b64(INPUT), signature: sig, marshaling_algorithm: 'jws' })).data.valid, true);
  });

  it('RSA pkcs1v15 and prehashed pkcs1v15 signatures verify with Node crypto', async () => {
    await ok('POST', 'keys/rsa15', { type: 'rsa-2048' });
    const pub = await publicKey('rsa15', 'rsa-2048');
    const sig = (await ok('POST', 'sign/rsa15', { input: b64(INPUT), signature_algorithm: 'pkcs1v15', hash_algorithm: 'sha2-512' })).data.signature;
    assert.equal(verify('sha512', INPUT, { key: pub, padding: constants.RSA_PKCS1_PADDING }, sigBytes(sig)), true);
    const digest = createHash('sha256').update(INPUT).digest();
    const pre = (await ok('POST', 'sign/rsa15', { input: b64(digest), prehashed: true, signature_algorithm: 'pkcs1v15' })).data.signature;
    assert.equal(verify('sha256', INPUT, { key: pub, padding: constants.RSA_PKCS1_PADDING }, sigBytes(pre)), true);
    assert.equal((await ok('POST', 'verify/rsa15', { input: b64(digest), prehashed: true, signature_algorithm: 'pkcs1v15', signature: pre })).data.valid, true);
    const badScheme = await s.call('POST', '/v1/transit/sign/rsa15', { body: { input: b64(INPUT), signature_algorithm: 'raw' } });
    assert.equal(badScheme.status, 400);
  });

  it('derived ed25519 signs per context; the wrong context does not verify', async () => {
    await ok('POST', 'keys/ed-derived', { type: 'ed25519', derived: true });
    const none = await s.call('POST', '/v1/transit/sign/ed-derived', { body: { input: b64(INPUT) } });
    assert.equal(none.status, 400);
    const ctx = b64('user-1');
    const sig = (await ok('POST', 'sign/ed-derived', { input: b64(INPUT), context: ctx })).data.signature;
    assert.equal((await ok('POST', 'verify/ed-derived', { input: b64(INPUT), context: ctx, signature: sig })).data.valid, true);
    assert.equal((await ok('POST', 'verify/ed-derived', { input: b64(INPUT), context: b64('user-2'), signature: sig })).data.valid, false);
  });

  it('refuses signing with a symmetric key and verifying below min_decryption_version', async () => {
    await ok('POST', 'keys/sym');
    const r = await s.call('POST', '/v1/transit/sign/sym', { body: { input: b64(INPUT) } });
    assert.equal(r.status, 400);
    assert.deepEqual(r.json.errors, ['key type aes256-gcm96 does not support signing']);
    await ok('POST', 'keys/old-sig', { type: 'ed25519' });
    const sig = (await ok('POST', 'sign/old-sig', { input: b64(INPUT) })).data.signature;
    await ok('POST', 'keys/old-sig/rotate');
    await ok('POST', 'keys/old-sig/config', { min_decryption_version: 2 });
    const old = await s.call('POST', '/v1/transit/verify/old-sig', { body: { input: b64(INPUT), signature: sig } });
    assert.equal(old.status, 400);
    assert.deepEqual(old.json.errors, ['ciphertext or signature version is disallowed by policy (too old)']);
  });

  it('batch sign answers per item', async () => {
    await ok('POST', 'keys/batch-sign', { type: 'ecdsa-p256' });
    const r = await s.call('POST', '/v1/transit/sign/batch-sign', { body: { batch_input: [{ input: b64('a'), reference: 'x' }, { input: '***' }] } });
    assert.equal(r.status, 400);
    assert.match(r.json.data.batch_results[0].signature, /^vault:v1:/);
    assert.equal(r.json.data.batch_results[0].reference, 'x');
    assert.equal(r.json.data.batch_results[1].error, 'failed to base64-decode input');
  });
});

describe('transit: hmac, hash, random, datakey, export', () => {
  it("HMACs with the version's HMAC key (the exported hmac-key), and verifies", async () => {
    await ok('POST', 'keys/mac', { exportable: true });
    const mac = (await ok('POST', 'hmac/mac/sha2-512', { input: b64(INPUT) })).data.hmac;
    assert.match(mac, /^vault:v1:/);
    const hmacKey = Buffer.from((await ok('GET', 'export/hmac-key/mac')).data.keys['1'], 'base64');
    assert.equal(hmacKey.length, 32);
    assert.equal(sigBytes(mac).toString('hex'), createHmac('sha512', hmacKey).update(INPUT).digest('hex'));
    assert.equal((await ok('POST', 'verify/mac/sha2-512', { input: b64(INPUT), hmac: mac })).data.valid, true);
    assert.equal((await ok('POST', 'verify/mac/sha2-256', { input: b64(INPUT), hmac: mac })).data.valid, false);
    const missing = await s.call('POST', '/v1/transit/hmac/mac', { body: { batch_input: [{ input: b64('a') }, {}] } });
    assert.equal(missing.status, 400);
    assert.equal(missing.json.data.batch_results[1].error, 'missing input for HMAC');
  });

  it('hashes with each algorithm and format', async () => {
    const sum = (await ok('POST', 'hash/sha3-256', { input: b64(INPUT) })).data.sum;
    assert.equal(sum, createHash('sha3-256').update(INPUT).digest('hex'));
    const b = (await ok('POST', 'hash', { input: b64(INPUT), algorithm: 'sha2-512', format: 'base64' })).data.sum;
    assert.equal(b, createHash('sha512').update(INPUT).digest('base64'));
    const bad = await s.call('POST', '/v1/transit/hash/md5', { body: { input: b64(INPUT) } });
    assert.equal(bad.status, 400);
  });

  it('returns random bytes of the asked size and format, bounded', async () => {
    assert.equal(Buffer.from((await ok('POST', 'random')).data.random_bytes, 'base64').length, 32);
    assert.equal((await ok('POST', 'random/16', { format: 'hex' })).data.random_bytes.length, 32);
    assert.equal(Buffer.from((await ok('POST', 'random/platform/48')).data.random_bytes, 'base64').length, 48);
    const big = await s.call('POST', '/v1/transit/random', { body: { bytes: 1024 * 1024 } });
    assert.equal(big.status, 400);
    assert.match(big.json.errors[0], /^bytes: /);
  });

  it('makes data keys: plaintext returns both, wrapped only the ciphertext, which decrypts to the plaintext', async () => {
    await ok('POST', 'keys/dk');
    const p = (await ok('POST', 'datakey/plaintext/dk', { bits: 512 })).data;
    assert.equal(Buffer.from(p.plaintext, 'base64').length, 64);
    assert.equal((await ok('POST', 'decrypt/dk', { ciphertext: p.ciphertext })).data.plaintext, p.plaintext);
    const w = (await ok('POST', 'datakey/wrapped/dk')).data;
    assert.equal(w.plaintext, undefined);
    assert.equal(Buffer.from((await ok('POST', 'decrypt/dk', { ciphertext: w.ciphertext })).data.plaintext, 'base64').length, 32);
    assert.equal((await s.call('POST', '/v1/transit/datakey/plaintext/dk', { body: { bits: 100 } })).status, 400);
    assert.equal((await s.call('POST', '/v1/transit/datakey/other/dk')).status, 400);
  });

  it('exports private material only from exportable keys; the signing key signs what the public key verifies', async () => {
    await ok('POST', 'keys/locked', { type: 'ecdsa-p256' });
    const refused = await s.call('GET', '/v1/transit/export/signing-key/locked');
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.json.errors, ['private key material is not exportable']);
    await ok('POST', 'keys/open', { type: 'ecdsa-p384', exportable: true });
    const pem = (await ok('GET', 'export/signing-key/open/latest')).data.keys['1'];
    assert.match(pem, /^-----BEGIN EC PRIVATE KEY-----/);
    const pub = createPublicKey(pem);
    assert.equal(pub.export({ type: 'spki', format: 'pem' }), (await ok('GET', 'keys/open')).data.keys['1'].public_key);
    const enc = await s.call('GET', '/v1/transit/export/encryption-key/open');
    assert.equal(enc.status, 400);
  });
});
