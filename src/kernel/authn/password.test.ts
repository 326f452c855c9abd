// Unit tests of password hashing (secrets userpass, gateway password accounts): scrypt, per-hash salt, constant-time verify.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SCRYPT_PARAMS, hashPassword, verifyPassword } from './password.js';

describe('password hashing', () => {
  it('stores scrypt parameters, a 16-byte salt and a 32-byte key, never the password', async () => {
    const h = await hashPassword('correct horse');
    assert.equal(h.alg, 'scrypt');
    assert.deepEqual({ N: h.N, r: h.r, p: h.p }, SCRYPT_PARAMS);
    assert.equal(Buffer.from(h.salt, 'base64').length, 16);
    assert.equal(Buffer.from(h.hash, 'base64').length, 32);
    assert.ok(!JSON.stringify(h).includes('correct horse'));
  });

  it('uses a fresh salt for every hash', async () => {
    const [a, b] = await Promise.all([hashPassword('same'), hashPassword('same')]);
    assert.notEqual(a.salt, b.salt);
    assert.notEqual(a.hash, b.hash);
  });

  it('verifies the right password only', async () => {
    const h = await hashPassword('s3cret');
    assert.equal(await verifyPassword('s3cret', h), true);
    assert.equal(await verifyPassword('s3cret ', h), false);
    assert.equal(await verifyPassword('', h), false);
  });

  it('verifies with the parameters stored in the hash', async () => {
    const h = await hashPassword('x');
    assert.equal(await verifyPassword('x', { ...h, N: 1024 }), false, 'other parameters derive another key');
  });

  it('answers false for an unknown user after doing the same scrypt work', async () => {
    const h = await hashPassword('pw');
    const time = async (f: () => Promise<boolean>) => {
      const t = process.hrtime.bigint();
      for (let i = 0; i < 3; i++) assert.equal(await f(), false);
      return Number(process.hrtime.bigint() - t);
    };
    const known = await time(() => verifyPassword('wrong', h));
    const unknown = await time(() => verifyPassword('wrong', undefined));
    assert.ok(unknown > known * 0.3 && unknown < known * 3, `known ${known}ns vs unknown ${unknown}ns`);
  });
});
