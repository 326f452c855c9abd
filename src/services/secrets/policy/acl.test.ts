// Tests of Acl: exact and glob matching, `+` segments, the §5.3 priority rules, merging
// across policies, the LIST trailing-slash rule, sudo, and sudoRequired
// (reference/secrets.md §5.2, §5.3).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Acl, sudoRequired } from './acl.js';
import { parsePolicy, type Capability } from './parse.js';

type Cap = Exclude<Capability, 'deny'>;
const ALL: readonly Cap[] = ['create', 'read', 'update', 'delete', 'list', 'patch', 'sudo'];

/** An ACL from policies written as `{pattern: capabilities}` maps, one map per policy. */
function acl(...policies: Record<string, string[]>[]): Acl {
  return new Acl(
    policies.map((p, i) =>
      parsePolicy(
        `p${i}`,
        Object.entries(p)
          .map(([path, caps]) => `path "${path}" { capabilities = ${JSON.stringify(caps)} }`)
          .join('\n'),
      ),
    ),
  );
}

/** The capabilities `a` grants on `path`, checked one by one through `allowed`. */
const granted = (a: Acl, path: string) => ALL.filter((c) => a.allowed(path, c));

describe('Acl matching', () => {
  it('grants nothing without a matching rule', () => {
    const a = acl({ 'secret/data/app': ['read'] });
    assert.deepEqual(granted(a, 'secret/data/other'), []);
    assert.deepEqual(granted(a, 'secret/data/app/x'), [], 'an exact rule is not a prefix');
    assert.deepEqual(granted(a, 'secret/data/ap'), []);
  });

  it('matches exact paths and "*" as a prefix glob, also inside a segment', () => {
    const a = acl({ 'secret/data/app': ['read'], 'secret/zip-*': ['read', 'list'], 'kv/*': ['create', 'update'] });
    assert.deepEqual(granted(a, 'secret/data/app'), ['read']);
    assert.deepEqual(granted(a, 'secret/zip-zap/zong'), ['read', 'list']);
    assert.deepEqual(granted(a, 'secret/zip-'), ['read', 'list']);
    assert.deepEqual(granted(a, 'secret/zip'), []);
    assert.deepEqual(granted(a, 'kv/a/b/c'), ['create', 'update']);
    assert.deepEqual(granted(a, 'kv'), []);
  });

  it('matches "+" as exactly one segment', () => {
    const a = acl({ 'secret/+/teamb': ['read'], 'kv/+/cfg*': ['list'], '+/data': ['update'] });
    assert.deepEqual(granted(a, 'secret/a/teamb'), ['read']);
    assert.deepEqual(granted(a, 'secret/a/b/teamb'), []);
    assert.deepEqual(granted(a, 'secret/teamb'), []);
    assert.deepEqual(granted(a, 'secret/a/teamb/x'), [], 'no trailing glob: same number of segments');
    assert.deepEqual(granted(a, 'kv/x/cfg'), ['list']);
    assert.deepEqual(granted(a, 'kv/x/cfg-2/deep'), ['list']);
    assert.deepEqual(granted(a, 'kv/cfg'), []);
    assert.deepEqual(granted(a, 'anything/data'), ['update']);
  });

  it('lets an exact rule beat every glob', () => {
    const a = acl({ 'secret/*': ['create', 'read', 'update', 'delete', 'list'], 'secret/+': ['deny'], 'secret/foo': ['read'] });
    assert.deepEqual(granted(a, 'secret/foo'), ['read']);
    assert.deepEqual(granted(a, 'secret/bar'), [], '"secret/+" beats "secret/*" (rule 2)');
    assert.deepEqual(granted(a, 'secret/bar/baz'), ['create', 'read', 'update', 'delete', 'list']);
  });

  it('treats a rule with no capabilities as granting nothing (it still governs)', () => {
    const a = acl({ 'secret/*': ['read'], 'secret/locked': [] });
    assert.deepEqual(granted(a, 'secret/locked'), []);
    assert.deepEqual(a.capabilities('secret/locked'), ['deny']);
  });
});

describe('Acl priority (§5.3)', () => {
  it('1: the pattern whose first wildcard comes later wins', () => {
    const a = acl({ 'secret/*': ['deny'], 'secret/app/*': ['read'] });
    assert.deepEqual(granted(a, 'secret/app/x'), ['read'], 'a deny on a less specific pattern does not override an allow on a more specific one');
    assert.deepEqual(granted(a, 'secret/other'), []);
    const b = acl({ 'secret/+/x': ['read'], 'secret/a/*': ['deny'] });
    assert.deepEqual(granted(b, 'secret/a/x'), [], '"secret/a/*" has its first wildcard later than "secret/+/x"');
    assert.deepEqual(granted(b, 'secret/b/x'), ['read']);
  });

  it('2: a pattern not ending in "*" beats one that does', () => {
    const a = acl({ 'secret/+/x': ['read'], 'secret/+/x*': ['deny'] });
    assert.deepEqual(granted(a, 'secret/a/x'), ['read']);
    assert.deepEqual(granted(a, 'secret/a/xy'), []);
  });

  it('3: fewer "+" segments win', () => {
    assert.deepEqual(granted(acl({ 'secret/+/b/c': ['read'], 'secret/+/+/c': ['deny'] }), 'secret/a/b/c'), ['read']);
    assert.deepEqual(granted(acl({ 'secret/+/b/c': ['deny'], 'secret/+/+/c': ['read'] }), 'secret/a/b/c'), []);
  });

  it('4: the longer pattern wins', () => {
    const a = acl({ 'secret/+/a*': ['read'], 'secret/+/ab*': ['list'] });
    assert.deepEqual(granted(a, 'secret/x/abc'), ['list']);
    assert.deepEqual(granted(a, 'secret/x/acc'), ['read']);
    const prefixes = acl({ 'secret/*': ['read'], 'secret/app/*': ['list'] });
    assert.deepEqual(granted(prefixes, 'secret/app/db'), ['list']);
  });

  it('5: the lexicographically larger pattern wins', () => {
    const a = acl({ 'secret/+/a/+': ['read'], 'secret/+/+/b': ['list'] });
    assert.deepEqual(granted(a, 'secret/x/a/b'), ['read']);
    const b = acl({ 'secret/+/a/+': ['list'], 'secret/+/+/b': ['read'] });
    assert.deepEqual(granted(b, 'secret/x/a/b'), ['list']);
  });
});

describe('Acl merging', () => {
  it('unions the same pattern across policies', () => {
    const a = acl({ 'secret/x': ['read'], 'secret/*': ['list'] }, { 'secret/x': ['update'], 'secret/*': ['read'] });
    assert.deepEqual(granted(a, 'secret/x'), ['read', 'update']);
    assert.deepEqual(granted(a, 'secret/y'), ['read', 'list']);
  });

  it('lets deny win for the same pattern, whatever the order', () => {
    assert.deepEqual(granted(acl({ 'secret/x': ['deny'] }, { 'secret/x': ['read', 'sudo'] }), 'secret/x'), []);
    assert.deepEqual(granted(acl({ 'secret/+/y': ['read'] }, { 'secret/+/y': ['deny'] }, { 'secret/+/y': ['list'] }), 'secret/a/y'), []);
  });

  it('unions duplicates inside one policy too', () => {
    const p = parsePolicy('dup', 'path "a" { capabilities = ["read"] }\npath "a" { capabilities = ["list"] }');
    assert.deepEqual(granted(new Acl([p]), 'a'), ['read', 'list']);
  });
});

describe('Acl list paths', () => {
  it('tries a list path with and without its trailing "/"', () => {
    const a = acl({ 'secret/metadata/foo': ['list'], 'secret/metadata/+': ['list'], 'kv/dir/': ['read'] });
    assert.equal(a.allowed('secret/metadata/foo/', 'list'), true);
    assert.equal(a.allowed('secret/metadata/bar/', 'list'), true, 'a "+" rule on the trimmed path');
    assert.equal(a.allowed('secret/metadata/foo/', 'read'), false, 'only list gets the second try');
    assert.equal(a.allowed('kv/dir/', 'read'), true);
  });

  it('does not let the trimmed form bypass a rule matching the path as requested', () => {
    const a = acl({ 'secret/metadata/+': ['list'], 'secret/metadata/foo/*': ['deny'] });
    assert.equal(a.allowed('secret/metadata/foo/', 'list'), false);
    assert.equal(a.allowed('secret/metadata/bar/', 'list'), true);
  });
});

describe('Acl capabilities and sudo', () => {
  it('reports sorted capabilities, deny when nothing applies', () => {
    const a = acl({ 'secret/*': ['update', 'read', 'sudo', 'create'], 'secret/no': ['deny'] });
    assert.deepEqual(a.capabilities('secret/x'), ['create', 'read', 'sudo', 'update']);
    assert.deepEqual(a.capabilities('secret/no'), ['deny']);
    assert.deepEqual(a.capabilities('other'), ['deny']);
  });

  it('root holds everything', () => {
    const root = new Acl([], true);
    assert.equal(root.allowed('sys/auth/x', 'update', { sudo: true }), true);
    assert.deepEqual(root.capabilities('anything'), ['root']);
  });

  it('requires sudo on the governing rule when asked', () => {
    const a = acl({ 'sys/auth/*': ['create', 'update'], 'sys/auth/ldap': ['update', 'sudo'] });
    assert.equal(a.allowed('sys/auth/userpass', 'update', { sudo: true }), false);
    assert.equal(a.allowed('sys/auth/userpass', 'update'), true);
    assert.equal(a.allowed('sys/auth/ldap', 'update', { sudo: true }), true);
  });

  it('knows the root-protected paths', () => {
    for (const p of ['sys/auth/userpass', 'sys/auth/userpass/tune', 'sys/seal', 'sys/config/cors', 'sys/audit', 'sys/audit/file', 'sys/audit-hash/file'])
      assert.equal(sudoRequired(p), true, p);
    for (const p of [
      'sys/auth',
      'sys/auth/',
      'sys/mounts/secret',
      'sys/mounts',
      'sys/sealed',
      'sys/policies/acl/x',
      'secret/data/sys/seal',
      'sys/auditx',
      'secret/sys/audit',
    ])
      assert.equal(sudoRequired(p), false, p);
  });
});

describe("Acl.mountAccess (the reference's hasMountAccess)", () => {
  it('holds with a capability on the mount path or any rule below it that grants one', () => {
    assert.equal(acl({ 'secret/data/app/*': ['read'] }).mountAccess('secret/'), true, 'a glob below the mount');
    assert.equal(acl({ 'secret/data/app': ['read'] }).mountAccess('secret/'), true, 'an exact path below the mount');
    assert.equal(acl({ 'secret/+/app': ['list'] }).mountAccess('secret/'), true, 'a segment rule below the mount');
    assert.equal(acl({ 'sec*': ['read'] }).mountAccess('secret/'), true, 'a glob governing the mount path itself');
    assert.equal(new Acl([], true).mountAccess('anything/'), true, 'root');
  });

  it('does not hold for deny rules, rules of other mounts, or no rule', () => {
    assert.equal(acl({ 'secret/data/app/*': ['deny'] }).mountAccess('secret/'), false);
    assert.equal(acl({ 'secret2/*': ['read'], 'kv/*': ['read'] }).mountAccess('secret/'), false);
    assert.equal(acl({}).mountAccess('secret/'), false);
  });
});

describe('Acl parameter constraints', () => {
  const constrained = (...texts: string[]) => new Acl(texts.map((t, i) => parsePolicy(`c${i}`, t)));
  const RULE = 'path "kv/*" {\n  capabilities = ["read", "update", "list", "delete"]\n  allowed_parameters = { "a" = ["1"] }\n}';

  it('apply to read and update data, not to list or delete', () => {
    const a = constrained(RULE);
    assert.equal(a.allowed('kv/x', 'update', { data: { a: '1' } }), true);
    assert.equal(a.allowed('kv/x', 'update', { data: { a: '2' } }), false);
    assert.equal(a.allowed('kv/x', 'read', { data: { b: '1' } }), false);
    assert.equal(a.allowed('kv/x', 'read', { data: {} }), true, 'empty data');
    assert.equal(a.allowed('kv/x', 'update'), true, 'no data: capabilities only');
    assert.equal(a.allowed('kv/x/', 'list', { data: { b: '1' } }), true);
    assert.equal(a.allowed('kv/x', 'delete', { data: { b: '1' } }), true);
  });

  it('come from the governing rule only', () => {
    const a = constrained(RULE, 'path "kv/free" { capabilities = ["update"] }');
    assert.equal(a.allowed('kv/free', 'update', { data: { b: '1' } }), true);
    assert.equal(a.allowed('kv/other', 'update', { data: { b: '1' } }), false);
  });

  it('are dropped when another policy denies the pattern', () => {
    const a = constrained(RULE, 'path "kv/*" { capabilities = ["deny"] }');
    assert.equal(a.allowed('kv/x', 'update', { data: { a: '1' } }), false);
    assert.deepEqual(a.capabilities('kv/x'), ['deny']);
  });

  it('merge with a policy granting the pattern without constraints: the constraints stay', () => {
    const a = constrained(RULE, 'path "kv/*" { capabilities = ["create"] }');
    assert.equal(a.allowed('kv/x', 'create', { data: { b: '1' } }), false);
    assert.equal(a.allowed('kv/x', 'create', { data: { a: '1' } }), true);
  });

  it('never apply to the root ACL', () => {
    assert.equal(new Acl([], true).allowed('kv/x', 'update', { data: { b: '1' } }), true);
  });
});

describe('Acl wrap TTL bounds (min_wrapping_ttl / max_wrapping_ttl)', () => {
  const bounded = (min: string, max: string) =>
    parsePolicy(
      'b',
      `path "kv/x" {\n  capabilities = ["read"]\n${min ? `  min_wrapping_ttl = "${min}"\n` : ''}${max ? `  max_wrapping_ttl = "${max}"\n` : ''}}`,
    );

  it('refuses no wrapping and TTLs outside the bounds; capability probes skip the check', () => {
    const a = new Acl([bounded('1m', '1h')]);
    assert.equal(a.allowed('kv/x', 'read', { wrapTtlS: null }), false);
    assert.equal(a.allowed('kv/x', 'read', { wrapTtlS: 59 }), false);
    assert.equal(a.allowed('kv/x', 'read', { wrapTtlS: 60 }), true);
    assert.equal(a.allowed('kv/x', 'read', { wrapTtlS: 3600 }), true);
    assert.equal(a.allowed('kv/x', 'read', { wrapTtlS: 3601 }), false);
    assert.equal(a.allowed('kv/x', 'read'), true, 'no wrap TTL given: a probe (sys/capabilities)');
  });

  it('merges the same pattern across policies: lowest minimum, highest maximum; a merged min above max admits nothing', () => {
    const a = new Acl([bounded('5m', '10m'), bounded('2m', '1h')]);
    assert.equal(a.allowed('kv/x', 'read', { wrapTtlS: 120 }), true);
    assert.equal(a.allowed('kv/x', 'read', { wrapTtlS: 3600 }), true);
    assert.equal(a.allowed('kv/x', 'read', { wrapTtlS: 60 }), false);
    const crossed = new Acl([bounded('2h', ''), bounded('', '1h')]);
    assert.equal(crossed.allowed('kv/x', 'read', { wrapTtlS: 3600 }), false);
    assert.equal(crossed.allowed('kv/x', 'read', { wrapTtlS: 7200 }), false);
  });
});
