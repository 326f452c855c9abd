// Unit tests of the token settings shared by auth methods (reference/secrets.md §4.1, §4.2).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EMPTY_TOKEN_SETTINGS, applyTokenFields, loginTtls, parsePolicies, tokenSettingsView } from './token-fields.js';

describe('parsePolicies', () => {
  it('accepts lists and comma strings, trims, lower-cases, de-duplicates and sorts', () => {
    assert.deepEqual(parsePolicies(' Dev, ops ,,dev', 'token_policies'), ['dev', 'ops']);
    assert.deepEqual(parsePolicies(['b', 'A', 'a'], 'token_policies'), ['a', 'b']);
    assert.deepEqual(parsePolicies('', 'token_policies'), []);
  });

  it('refuses root, naming the field', () => {
    assert.throws(
      () => parsePolicies('dev,ROOT', 'policies'),
      (e: Error) => e.message.startsWith('policies: the root policy'),
    );
  });
});

describe('applyTokenFields', () => {
  it('applies present fields, keeps absent ones and never mutates its input', () => {
    const current = { token_policies: ['a'], token_ttl: 60, token_max_ttl: 600 };
    const next = applyTokenFields({ token_ttl: '2m' }, current);
    assert.deepEqual(next, { token_policies: ['a'], token_ttl: 120, token_max_ttl: 600 });
    next.token_policies.push('x');
    assert.deepEqual(current.token_policies, ['a']);
  });

  it('takes policies as an alias of token_policies, but not both', () => {
    assert.deepEqual(applyTokenFields({ policies: 'x,y' }).token_policies, ['x', 'y']);
    assert.throws(() => applyTokenFields({ policies: 'x', token_policies: 'y' }), /^InputError: policies: cannot be given together/);
  });

  it('refuses negative or unparsable TTLs and a TTL above the maximum, naming the field', () => {
    assert.throws(() => applyTokenFields({ token_ttl: -1 }), /token_ttl: must not be negative/);
    assert.throws(() => applyTokenFields({ token_max_ttl: 'forever' }), /field "token_max_ttl"/);
    assert.throws(() => applyTokenFields({ token_ttl: '2h', token_max_ttl: '1h' }), /token_ttl: must not be greater than token_max_ttl/);
    assert.throws(() => applyTokenFields({ token_ttl: '2h' }, { ...EMPTY_TOKEN_SETTINGS, token_max_ttl: 3600 }), /token_ttl/);
    assert.equal(applyTokenFields({ token_ttl: '2h' }).token_ttl, 7200, 'no maximum: any TTL');
  });

  it('shows policies under both names, and the defaults of fields stored before they existed', () => {
    assert.deepEqual(tokenSettingsView({ token_policies: ['a'], token_ttl: 1, token_max_ttl: 2 }), {
      token_policies: ['a'],
      policies: ['a'],
      token_ttl: 1,
      token_max_ttl: 2,
      token_period: 0,
      token_bound_cidrs: [],
    });
  });
});

describe('loginTtls', () => {
  const mount = { default_lease_ttl: 0, max_lease_ttl: 0 };
  it('defaults to 768h for both', () => {
    assert.deepEqual(loginTtls(EMPTY_TOKEN_SETTINGS, mount), { ttlS: 2764800, maxTtlS: 2764800 });
  });
  it('prefers the user or role settings, then the mount settings, and caps the TTL by the maximum', () => {
    assert.deepEqual(loginTtls({ ...EMPTY_TOKEN_SETTINGS, token_ttl: 60 }, { default_lease_ttl: 30, max_lease_ttl: 0 }), { ttlS: 60, maxTtlS: 2764800 });
    assert.deepEqual(loginTtls(EMPTY_TOKEN_SETTINGS, { default_lease_ttl: 30, max_lease_ttl: 20 }), { ttlS: 20, maxTtlS: 20 });
    assert.deepEqual(loginTtls({ ...EMPTY_TOKEN_SETTINGS, token_max_ttl: 100 }, { default_lease_ttl: 0, max_lease_ttl: 20 }), { ttlS: 100, maxTtlS: 100 });
  });
  it('gives a periodic token its period, capped by the effective maximum with the reference warning', () => {
    assert.deepEqual(loginTtls({ ...EMPTY_TOKEN_SETTINGS, token_period: 3600 }, mount), { ttlS: 3600, maxTtlS: 0, periodS: 3600 });
    assert.deepEqual(loginTtls({ ...EMPTY_TOKEN_SETTINGS, token_period: 72 * 3600 }, { default_lease_ttl: 0, max_lease_ttl: 10 * 3600 }), {
      ttlS: 36000,
      maxTtlS: 0,
      periodS: 36000,
      warning: 'period of "72h0m0s" exceeded the effective max_ttl of "10h0m0s"; period value is capped accordingly',
    });
    assert.equal(loginTtls({ ...EMPTY_TOKEN_SETTINGS, token_period: 3600, token_max_ttl: 600 }, mount).periodS, 600, 'token_max_ttl lowers the cap');
    assert.equal(loginTtls({ ...EMPTY_TOKEN_SETTINGS, token_period: 800 * 3600 }, mount).periodS, 768 * 3600, 'the system maximum caps it');
  });
});
