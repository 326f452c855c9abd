// Unit tests of AppRole role and secret ID input rules (reference/secrets.md §4.2).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyRoleFields, parseMetadata, secretIdBindings, secretIdLimits } from './role-fields.js';
import type { RoleEntry } from './roles.js';

describe('applyRoleFields', () => {
  it('creates a role with a random role ID and defaults', () => {
    const r = applyRoleFields({ token_policies: 'app' }, undefined);
    assert.match(r.role_id, /^[0-9a-f-]{36}$/);
    assert.match(r.id, /^[0-9a-f-]{36}$/);
    assert.notEqual(r.id, r.role_id);
    assert.deepEqual({ p: r.token_policies, b: r.bind_secret_id, t: r.secret_id_ttl, n: r.secret_id_num_uses }, { p: ['app'], b: true, t: 0, n: 0 });
  });

  it('updates given fields and keeps the identity of the role', () => {
    const r = applyRoleFields({}, undefined);
    const u = applyRoleFields({ secret_id_ttl: '10m', secret_id_num_uses: 3, token_ttl: 60 }, r);
    assert.deepEqual([u.id, u.role_id, u.secret_id_ttl, u.secret_id_num_uses, u.token_ttl], [r.id, r.role_id, 600, 3, 60]);
  });

  it('refuses bad input, naming the field', () => {
    assert.throws(() => applyRoleFields({ secret_id_ttl: '-1s' }, undefined), /^InputError: secret_id_ttl: must not be negative/);
    assert.throws(() => applyRoleFields({ secret_id_ttl: 'soon' }, undefined), /field "secret_id_ttl"/);
    assert.throws(() => applyRoleFields({ bind_secret_id: false }, undefined), /^InputError: bind_secret_id: /);
    assert.throws(() => applyRoleFields({ token_policies: ['root'] }, undefined), /^InputError: token_policies: /);
  });
});

describe('secretIdLimits', () => {
  const role = (ttl: number, uses: number): RoleEntry => ({ ...applyRoleFields({}, undefined), secret_id_ttl: ttl, secret_id_num_uses: uses });

  it('defaults to the role limits', () => {
    assert.deepEqual(secretIdLimits({}, role(60, 2)), { ttlS: 60, numUses: 2 });
  });

  it('lets a secret ID tighten the role limits, never loosen them', () => {
    assert.deepEqual(secretIdLimits({ ttl: 30, num_uses: 1 }, role(60, 2)), { ttlS: 30, numUses: 1 });
    assert.deepEqual(secretIdLimits({ ttl: '1h', num_uses: 5 }, role(0, 0)), { ttlS: 3600, numUses: 5 });
    assert.throws(() => secretIdLimits({ ttl: 61 }, role(60, 2)), /^InputError: ttl: /);
    assert.throws(() => secretIdLimits({ num_uses: 3 }, role(60, 2)), /^InputError: num_uses: /);
    assert.throws(() => secretIdLimits({ num_uses: 0 }, role(60, 2)), /^InputError: num_uses: /, '0 means unlimited');
  });
});

describe('bind_secret_id and CIDR constraints', () => {
  it('lets bind_secret_id go false only while a CIDR constraint remains', () => {
    const r = applyRoleFields({ secret_id_bound_cidrs: '10.0.0.0/8', bind_secret_id: false }, undefined);
    assert.deepEqual([r.bind_secret_id, r.secret_id_bound_cidrs], [false, ['10.0.0.0/8']]);
    assert.throws(() => applyRoleFields({ secret_id_bound_cidrs: [] }, r), /^InputError: bind_secret_id: at least one constraint/);
    assert.equal(applyRoleFields({ token_bound_cidrs: '127.0.0.1', secret_id_bound_cidrs: [] }, r).token_bound_cidrs?.[0], '127.0.0.1/32');
  });
});

describe('parseMetadata', () => {
  it('reads an object, JSON text, base64 of either, or k=v pairs, as the reference does', () => {
    const want = { a: '1', b: 'x y' };
    assert.deepEqual(parseMetadata(want), want);
    assert.deepEqual(parseMetadata(JSON.stringify(want)), want);
    assert.deepEqual(parseMetadata(Buffer.from(JSON.stringify(want)).toString('base64')), want);
    assert.deepEqual(parseMetadata('a=1, b = x y'), want);
    assert.deepEqual(parseMetadata(Buffer.from('a=1,b=x y').toString('base64')), want);
    assert.deepEqual(parseMetadata(''), {});
  });
  it('refuses anything else with the field named', () => {
    assert.throws(() => parseMetadata('{"a":1}'), /^InputError: metadata: failed to parse metadata: /);
    assert.throws(() => parseMetadata('just-text'), /^InputError: metadata: failed to parse metadata: invalid <key,value> pair "just-text"/);
  });
});

describe('secretIdBindings', () => {
  const role = { ...applyRoleFields({ secret_id_bound_cidrs: '10.0.0.0/8', token_bound_cidrs: '10.0.0.0/8' }, undefined) };
  it("keeps blocks within the role's, refuses others naming the field", () => {
    assert.deepEqual(secretIdBindings({ cidr_list: '10.1.0.0/16', metadata: 'k=v' }, role), {
      metadata: { k: 'v' },
      cidrList: ['10.1.0.0/16'],
      tokenBoundCidrs: [],
    });
    assert.throws(() => secretIdBindings({ cidr_list: '11.0.0.0/8' }, role), /^InputError: cidr_list: failed to verify subset relationship/);
    assert.throws(() => secretIdBindings({ token_bound_cidrs: '0.0.0.0/0' }, role), /^InputError: token_bound_cidrs: failed to verify subset relationship/);
  });
});
