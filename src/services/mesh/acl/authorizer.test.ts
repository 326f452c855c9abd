// The authorizer matrix: exact vs prefix vs longest prefix, merge precedence across
// policies, levels, default allow/deny, acl never by default, mesh/peering falling back
// to operator, intentions, key write-prefix, management and identity policies
// (reference acl/policy_authorizer.go, policy_merger.go, static_authorizer.go).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Authorizer, type DefaultPolicy } from './authorizer.js';
import { GLOBAL_MANAGEMENT_POLICY, GLOBAL_READ_ONLY_POLICY } from './builtin.js';
import { nodeIdentityRules, serviceIdentityRules } from './identities.js';
import { parseRules } from './rules.js';

const authz = (texts: string[], defaultPolicy: DefaultPolicy = 'deny') => new Authorizer(texts.map(parseRules), defaultPolicy);

describe('Authorizer: matching', () => {
  const a = authz([
    `service_prefix "" { policy = "read" }
     service_prefix "we" { policy = "deny" }
     service_prefix "web" { policy = "write" }
     service "web-admin" { policy = "deny" }
     service "api" { policy = "write" }`,
  ]);

  it('takes the exact rule over any prefix rule', () => {
    assert.equal(a.allowed('service', 'read', 'web-admin'), false);
    assert.equal(a.allowed('service', 'write', 'api'), true);
  });

  it('takes the longest prefix', () => {
    assert.equal(a.allowed('service', 'write', 'web'), true);
    assert.equal(a.allowed('service', 'write', 'web-1'), true);
    assert.equal(a.allowed('service', 'read', 'wet'), false);
    assert.equal(a.allowed('service', 'read', 'db'), true);
    assert.equal(a.allowed('service', 'write', 'db'), false);
  });

  it('does not let an exact rule match longer names', () => {
    assert.equal(a.allowed('service', 'write', 'api-2'), false);
    assert.equal(a.allowed('service', 'read', 'api-2'), true);
  });

  it('keeps resources apart', () => {
    assert.equal(a.allowed('node', 'read', 'web'), false);
    assert.equal(authz([`node_prefix "" { policy = "read" }`], 'allow').allowed('node', 'write', 'n'), false);
  });
});

describe('Authorizer: levels', () => {
  const a = authz(
    [`key_prefix "r/" { policy = "read" }\nkey_prefix "l/" { policy = "list" }\nkey_prefix "w/" { policy = "write" }\nkey_prefix "d/" { policy = "deny" }`],
    'allow',
  );
  const matrix: [string, boolean, boolean, boolean][] = [
    // prefix, read, list, write
    ['r/', true, false, false],
    ['l/', true, true, false],
    ['w/', true, true, true],
    ['d/', false, false, false],
  ];
  for (const [prefix, read, list, write] of matrix) {
    it(`${prefix} grants read=${read} list=${list} write=${write}`, () => {
      assert.equal(a.allowed('key', 'read', `${prefix}x`), read);
      assert.equal(a.allowed('key', 'list', `${prefix}x`), list);
      assert.equal(a.allowed('key', 'write', `${prefix}x`), write);
    });
  }
});

describe('Authorizer: merging policies', () => {
  it('lets deny beat write beat list beat read for the same segment, in any order', () => {
    const texts = [`key "k" { policy = "read" }`, `key "k" { policy = "list" }`, `key "k" { policy = "write" }`];
    assert.equal(authz(texts).allowed('key', 'write', 'k'), true);
    assert.equal(authz([...texts].reverse()).allowed('key', 'write', 'k'), true);
    assert.equal(authz([`key "k" { policy = "list" }`, `key "k" { policy = "read" }`]).allowed('key', 'list', 'k'), true);
    assert.equal(authz([...texts, `key "k" { policy = "deny" }`]).allowed('key', 'read', 'k'), false);
    assert.equal(authz([`key "k" { policy = "deny" }`, ...texts]).allowed('key', 'read', 'k'), false);
  });

  it('merges repeated blocks within one policy the same way', () => {
    assert.equal(authz([`node "n" { policy = "write" }\nnode "n" { policy = "read" }`]).allowed('node', 'write', 'n'), true);
  });

  it('merges exact and prefix rules of the same segment separately', () => {
    const a = authz([`service "web" { policy = "read" }`, `service_prefix "web" { policy = "deny" }`]);
    assert.equal(a.allowed('service', 'read', 'web'), true);
    assert.equal(a.allowed('service', 'read', 'web2'), false);
  });

  it('merges global levels', () => {
    assert.equal(authz([`operator = "read"`, `operator = "write"`]).allowed('operator', 'write'), true);
    assert.equal(authz([`acl = "write"`, `acl = "deny"`]).allowed('acl', 'read'), false);
  });

  it('lets a more specific rule of one policy override a broader one of another', () => {
    const a = authz([`service_prefix "" { policy = "write" }`, `service "db" { policy = "read" }`]);
    assert.equal(a.allowed('service', 'write', 'db'), false);
    assert.equal(a.allowed('service', 'write', 'web'), true);
  });
});

describe('Authorizer: defaults', () => {
  it('uses the default policy where no rule applies', () => {
    assert.equal(authz([], 'allow').allowed('service', 'write', 'web'), true);
    assert.equal(authz([], 'deny').allowed('service', 'read', 'web'), false);
    assert.equal(authz([], 'allow').allowed('operator', 'write'), true);
    assert.equal(authz([`node "x" { policy = "read" }`], 'allow').allowed('node', 'write', 'y'), true);
  });

  it('never grants acl by default', () => {
    assert.equal(authz([], 'allow').allowed('acl', 'read'), false);
    assert.equal(authz([`acl = "read"`], 'deny').allowed('acl', 'read'), true);
    assert.equal(authz([`acl = "read"`], 'allow').allowed('acl', 'write'), false);
  });

  it('falls back to the operator rule for mesh and peering, then to the default', () => {
    const a = authz([`operator = "read"`]);
    assert.equal(a.allowed('mesh', 'read'), true);
    assert.equal(a.allowed('mesh', 'write'), false);
    assert.equal(a.allowed('peering', 'read'), true);
    assert.equal(authz([`operator = "read"\nmesh = "write"`]).allowed('mesh', 'write'), true);
    assert.equal(authz([`operator = "write"\npeering = "deny"`], 'allow').allowed('peering', 'read'), false);
    assert.equal(authz([], 'allow').allowed('mesh', 'write'), true);
    assert.equal(authz([`keyring = "read"`]).allowed('keyring', 'read'), true);
  });
});

describe('Authorizer: intentions', () => {
  it('derives intentions from the service policy when not written', () => {
    const a = authz([`service "w" { policy = "write" }\nservice "r" { policy = "read" }\nservice "d" { policy = "deny" }`], 'allow');
    assert.equal(a.allowed('intention', 'read', 'w'), true);
    assert.equal(a.allowed('intention', 'write', 'w'), false);
    assert.equal(a.allowed('intention', 'read', 'r'), true);
    assert.equal(a.allowed('intention', 'read', 'd'), false);
    assert.equal(a.allowed('intention', 'write', 'other'), true);
  });

  it('uses the written intentions level, merged across policies before deriving', () => {
    assert.equal(authz([`service_prefix "" {\n policy = "read"\n intentions = "write"\n}`]).allowed('intention', 'write', 'x'), true);
    const merged = authz([`service "w" { policy = "write" }`, `service "w" {\n policy = "read"\n intentions = "write"\n}`]);
    assert.equal(merged.allowed('intention', 'write', 'w'), true);
    // A merged deny policy with no written intentions derives deny.
    assert.equal(authz([`service "w" { policy = "write" }`, `service "w" { policy = "deny" }`], 'allow').allowed('intention', 'read', 'w'), false);
  });

  it('answers "*": read when any rule allows, write when the "" rule allows and none denies', () => {
    assert.equal(authz([`service "a" { policy = "read" }`]).allowed('intention', 'read', '*'), true);
    assert.equal(authz([`service "a" { policy = "deny" }`]).allowed('intention', 'read', '*'), false);
    const all = `service_prefix "" {\n policy = "write"\n intentions = "write"\n}`;
    assert.equal(authz([all]).allowed('intention', 'write', '*'), true);
    assert.equal(authz([all, `service "db" { policy = "read" }`]).allowed('intention', 'write', '*'), false);
    assert.equal(authz([], 'allow').allowed('intention', 'write', '*'), true);
  });
});

describe('Authorizer: keyWritePrefix', () => {
  it('needs write on the prefix and on every rule under it', () => {
    const a = authz([`key_prefix "app/" { policy = "write" }\nkey "app/locked" { policy = "read" }\nkey_prefix "other/" { policy = "write" }`]);
    assert.equal(a.keyWritePrefix('other/'), true);
    assert.equal(a.keyWritePrefix('other/sub/'), true);
    assert.equal(a.keyWritePrefix('app/'), false);
    assert.equal(a.keyWritePrefix('app/free/'), true);
    assert.equal(a.keyWritePrefix('none/'), false);
  });

  it('uses the default policy without a covering prefix rule, unless a rule under it refuses', () => {
    assert.equal(authz([], 'allow').keyWritePrefix('x/'), true);
    assert.equal(authz([`key "x/y" { policy = "deny" }`], 'allow').keyWritePrefix('x/'), false);
    assert.equal(authz([`key_prefix "" { policy = "read" }`], 'allow').keyWritePrefix('x/'), false);
  });
});

describe('Authorizer: management and built-ins', () => {
  it('lets the management authorizer do everything, whatever the default', () => {
    const m = Authorizer.management();
    assert.equal(m.isManagement, true);
    assert.equal(m.allowed('acl', 'write'), true);
    assert.equal(m.allowed('service', 'write', 'x'), true);
    assert.equal(m.allowed('intention', 'write', '*'), true);
    assert.equal(m.keyWritePrefix(''), true);
  });

  it('grants everything through the global-management rules, and read only through global-read-only', () => {
    const m = authz([GLOBAL_MANAGEMENT_POLICY.rules]);
    assert.equal(m.isManagement, false);
    for (const r of ['acl', 'operator', 'keyring', 'mesh', 'peering'] as const) assert.equal(m.allowed(r, 'write'), true);
    for (const r of ['agent', 'event', 'key', 'node', 'query', 'service', 'session', 'intention'] as const) assert.equal(m.allowed(r, 'write', 'x'), true);
    assert.equal(m.keyWritePrefix(''), true);
    const ro = authz([GLOBAL_READ_ONLY_POLICY.rules]);
    assert.equal(ro.allowed('acl', 'read'), true);
    assert.equal(ro.allowed('acl', 'write'), false);
    assert.equal(ro.allowed('service', 'read', 'x'), true);
    assert.equal(ro.allowed('key', 'list', 'x'), false);
    assert.equal(ro.allowed('intention', 'read', 'x'), true);
  });
});

describe('Authorizer: identities', () => {
  it('gives a service identity write on itself and its sidecar, read on services and nodes', () => {
    const a = new Authorizer([serviceIdentityRules('web')], 'deny');
    assert.equal(a.allowed('service', 'write', 'web'), true);
    assert.equal(a.allowed('service', 'write', 'web-sidecar-proxy'), true);
    assert.equal(a.allowed('service', 'write', 'web2'), false);
    assert.equal(a.allowed('service', 'read', 'db'), true);
    assert.equal(a.allowed('node', 'read', 'n1'), true);
    assert.equal(a.allowed('node', 'write', 'n1'), false);
    assert.equal(a.allowed('intention', 'read', 'web'), true);
    assert.equal(a.allowed('key', 'read', 'k'), false);
  });

  it('gives a node identity write on itself and read on services', () => {
    const a = new Authorizer([nodeIdentityRules('n1')], 'deny');
    assert.equal(a.allowed('node', 'write', 'n1'), true);
    assert.equal(a.allowed('node', 'read', 'n2'), false);
    assert.equal(a.allowed('service', 'read', 'web'), true);
    assert.equal(a.allowed('service', 'write', 'web'), false);
  });

  it('combines identities with policies', () => {
    const a = new Authorizer([serviceIdentityRules('web'), parseRules(`service "web" { policy = "deny" }`)], 'deny');
    assert.equal(a.allowed('service', 'read', 'web'), false);
    assert.equal(a.allowed('service', 'write', 'web-sidecar-proxy'), true);
  });
});
