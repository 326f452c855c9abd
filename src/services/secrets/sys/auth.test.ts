// Unit tests of sys/auth input rules and wire shapes (reference/secrets.md §3.6).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MountEntry } from '../mounts/table.js';
import { authInfo, authInput, authKey } from './auth.js';

describe('authInput', () => {
  it('accepts userpass and approle with optional config TTLs', () => {
    assert.deepEqual(authInput({ type: 'userpass', description: 'people', config: { default_lease_ttl: '1h', max_lease_ttl: 7200 } }), {
      type: 'userpass',
      description: 'people',
      config: { default_lease_ttl: 3600, max_lease_ttl: 7200 },
      local: false,
      seal_wrap: false,
    });
    assert.equal(authInput({ type: 'approle' }).type, 'approle');
  });

  it('refuses unknown types, token, and bad TTLs, naming the field', () => {
    assert.throws(() => authInput({ type: 'ldap' }), /^InputError: type: unknown auth method type "ldap"$/);
    assert.throws(() => authInput({ type: 'token' }), /^InputError: type: the token auth method is built in/);
    assert.throws(() => authInput({ type: 'userpass', config: { max_lease_ttl: 'x' } }), /field "config.max_lease_ttl"/);
    assert.throws(() => authInput({ type: 'userpass', config: { default_lease_ttl: -5 } }), /config.default_lease_ttl: must not be negative/);
    assert.throws(() => authInput({ type: 'userpass', config: { default_lease_ttl: 20, max_lease_ttl: 10 } }), /config.default_lease_ttl: must not be greater/);
  });
});

describe('authInfo', () => {
  it('is the mount shape keyed without auth/, with token_type in config', () => {
    const e: MountEntry = {
      path: 'auth/userpass/',
      type: 'userpass',
      description: '',
      accessor: 'userpass_0011aabb',
      uuid: 'u',
      config: { default_lease_ttl: 0, max_lease_ttl: 0, force_no_cache: false },
      options: null,
      local: false,
      seal_wrap: false,
      external_entropy_access: false,
    };
    assert.equal(authKey(e), 'userpass/');
    const info = authInfo(e);
    assert.deepEqual(info.config, { default_lease_ttl: 0, max_lease_ttl: 0, force_no_cache: false, token_type: 'default-service' });
    for (const k of ['type', 'description', 'accessor', 'local', 'seal_wrap', 'options', 'uuid']) assert.ok(k in info, k);
  });
});
