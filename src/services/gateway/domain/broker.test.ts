/**
 * The typed-credential extraction of brokered secrets, against the reference's cases
 * (Boundary `internal/credential/vault/internal/usernamepassword` and `sshprivatekey`
 * tests): attributes at the top of the reply, JSON pointers, KV v2's `data.data` only when
 * the reply is exactly `data` and `metadata`, no partial results.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { extract } from './broker.js';

const up = { username: 'username', password: 'password' };
const need = ['username', 'password'];

it('extracts from the top level, through JSON pointers, and from KV v2 data', () => {
  assert.deepEqual(extract({ username: 'u', password: 'p' }, up, need), { username: 'u', password: 'p' });
  assert.deepEqual(extract({ a: { b: 'u' }, c: ['x', 'p'] }, { username: '/a/b', password: '/c/1' }, need), { username: 'u', password: 'p' });
  assert.deepEqual(extract({ data: { username: 'u', password: 'p' }, metadata: { version: 3 } }, up, need), { username: 'u', password: 'p' });
});

it('returns nothing for partial results, non-strings, or a reply that is not KV v2', () => {
  assert.equal(extract({ username: 'u' }, up, need), undefined);
  assert.equal(extract({ username: 'u', password: 7 }, up, need), undefined);
  assert.equal(extract({ data: { username: 'u', password: 'p' } }, up, need), undefined, 'no metadata: not KV v2');
  assert.equal(extract({ data: { username: 'u', password: 'p' }, metadata: {}, other: 1 }, up, need), undefined, 'an extra top-level field: not KV v2');
  assert.equal(
    extract({ data: { a: { b: 'u' }, password: 'p' }, metadata: {} }, { username: '/a/b', password: 'password' }, need),
    undefined,
    'no pointers inside KV v2 data',
  );
});

it('keeps an optional attribute out when absent (ssh private key passphrase)', () => {
  const names = { username: 'username', private_key: 'private_key', private_key_passphrase: 'private_key_passphrase' };
  assert.deepEqual(extract({ username: 'u', private_key: 'k' }, names, ['username', 'private_key']), { username: 'u', private_key: 'k' });
});
