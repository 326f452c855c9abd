// The authorizer matrix: exact vs glob namespaces, closest glob, `*`, deny precedence
// across policies, host volumes, variables, the single-level blocks, plugin levels and
// management (reference acl/acl.go NewACL and Allow*, and its acl_test.go cases).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Authorizer } from './authorizer.js';
import { NAMESPACE_CAPABILITIES } from './capabilities.js';
import { parsePolicy } from './rules.js';

const authz = (...texts: string[]) => new Authorizer(texts.map(parsePolicy));

describe('Authorizer: namespaces', () => {
  it('grants the expanded shorthand and the explicit capabilities', () => {
    const a = authz('namespace "default" { policy = "read" capabilities = ["submit-job"] }');
    assert.equal(a.allowNamespaceOperation('default', 'read-job'), true);
    assert.equal(a.allowNamespaceOperation('default', 'csi-read-volume'), true);
    assert.equal(a.allowNamespaceOperation('default', 'csi-list-volume'), true);
    assert.equal(a.allowNamespaceOperation('default', 'submit-job'), true);
    assert.equal(a.allowNamespaceOperation('default', 'csi-write-volume'), false);
    assert.equal(a.allowNamespaceOperation('other', 'read-job'), false);
    assert.equal(a.allowNamespace('default'), true);
    assert.equal(a.allowNamespace('other'), false);
  });

  it('write includes CSI write and mount; scale does not read volumes', () => {
    const a = authz('namespace "w" { policy = "write" }', 'namespace "s" { policy = "scale" }');
    for (const c of ['csi-write-volume', 'csi-mount-volume', 'submit-job', 'alloc-exec', 'read-logs'] as const)
      assert.equal(a.allowNamespaceOperation('w', c), true, c);
    assert.equal(a.allowNamespaceOperation('w', 'csi-register-plugin'), false);
    assert.equal(a.allowNamespaceOperation('s', 'scale-job'), true);
    assert.equal(a.allowNamespaceOperation('s', 'read-job'), true);
    assert.equal(a.allowNamespaceOperation('s', 'csi-read-volume'), false);
  });

  it('takes the exact name over any glob, even a deny glob or an empty exact rule', () => {
    const a = authz(
      'namespace "*" { policy = "deny" }\nnamespace "prod" { policy = "read" }\nnamespace "dev-*" { policy = "write" }\nnamespace "dev-x" { policy = "" }',
    );
    assert.equal(a.allowNamespaceOperation('prod', 'read-job'), true);
    assert.equal(a.allowNamespaceOperation('other', 'read-job'), false);
    assert.equal(a.allowNamespaceOperation('dev-y', 'submit-job'), true);
    assert.equal(a.allowNamespaceOperation('dev-x', 'read-job'), false);
    assert.equal(a.allowNamespace('dev-x'), false);
  });

  it('takes the closest glob (reference example: prod-api takes "prod-*" over "*" and "*-api")', () => {
    const a = authz('namespace "*" { policy = "read" }\nnamespace "prod-*" { policy = "deny" }\nnamespace "*-api" { policy = "write" }');
    assert.equal(a.allowNamespaceOperation('prod-api', 'read-job'), false);
    assert.equal(a.allowNamespaceOperation('dev-api', 'submit-job'), true);
    assert.equal(a.allowNamespaceOperation('default', 'read-job'), true);
    assert.equal(a.allowNamespaceOperation('default', 'submit-job'), false);
  });

  it('lets deny win over grants for the same name, in either order and across policies', () => {
    for (const texts of [
      ['namespace "a" { policy = "write" }', 'namespace "a" { policy = "deny" }'],
      ['namespace "a" { policy = "deny" }', 'namespace "a" { policy = "write" }'],
      ['namespace "a" { policy = "write" capabilities = ["deny"] }'],
    ]) {
      const a = authz(...texts);
      assert.equal(a.allowNamespaceOperation('a', 'read-job'), false, texts.join(' + '));
      assert.equal(a.allowNamespace('a'), false);
    }
  });

  it('unites grants for the same name across policies', () => {
    const a = authz('namespace "a" { capabilities = ["read-job"] }', 'namespace "a" { capabilities = ["csi-write-volume"] }');
    assert.equal(a.allowNamespaceOperation('a', 'read-job'), true);
    assert.equal(a.allowNamespaceOperation('a', 'csi-write-volume'), true);
  });

  it('answers for "*" when any namespace allows', () => {
    const a = authz('namespace "a" { policy = "deny" }\nnamespace "b-*" { capabilities = ["csi-list-volume"] }');
    assert.equal(a.allowNamespaceOperation('*', 'csi-list-volume'), true);
    assert.equal(a.allowNamespaceOperation('*', 'read-job'), false);
    assert.equal(a.allowNamespace('*'), true);
    assert.equal(authz('namespace "a" { policy = "deny" }').allowNamespace('*'), false);
    assert.equal(authz('node { policy = "read" }').allowNamespace('*'), false);
  });

  it('checks any of several capabilities (volume list)', () => {
    const a = authz('namespace "default" { capabilities = ["list-jobs"] }');
    assert.equal(a.allowNamespaceAnyOf('default', ['csi-list-volume', 'csi-read-volume', 'csi-mount-volume', 'list-jobs']), true);
    assert.equal(a.allowNamespaceAnyOf('default', ['csi-read-volume', 'csi-mount-volume', 'read-job']), false);
  });

  it('implies host-volume capabilities', () => {
    const a = authz('namespace "a" { capabilities = ["host-volume-write"] }');
    for (const c of ['host-volume-register', 'host-volume-create', 'host-volume-delete', 'host-volume-read'] as const)
      assert.equal(a.allowNamespaceOperation('a', c), true, c);
  });
});

describe('Authorizer: host volumes and variables', () => {
  it('matches host volumes exactly, then by closest glob, deny winning per name', () => {
    const a = authz('host_volume "*" { policy = "read" }\nhost_volume "ssd-*" { policy = "write" }\nhost_volume "ssd-secret" { policy = "deny" }');
    assert.equal(a.allowHostVolumeOperation('hdd', 'mount-readonly'), true);
    assert.equal(a.allowHostVolumeOperation('hdd', 'mount-readwrite'), false);
    assert.equal(a.allowHostVolumeOperation('ssd-1', 'mount-readwrite'), true);
    assert.equal(a.allowHostVolumeOperation('ssd-secret', 'mount-readonly'), false);
    assert.equal(a.allowHostVolume('ssd-secret'), false);
    assert.equal(a.allowHostVolume('hdd'), true);
    assert.equal(authz('namespace "a" { policy = "write" }').allowHostVolume('x'), false);
  });

  it('checks variable paths exactly and by glob, with read implying list', () => {
    const a = authz(
      'namespace "default" { variables { path "app/db" { capabilities = ["write"] } path "app/*" { capabilities = ["read"] } } }\nnamespace "*" { variables { path "shared" { capabilities = ["list"] } } }',
    );
    assert.equal(a.allowVariableOperation('default', 'app/db', 'write'), true);
    assert.equal(a.allowVariableOperation('default', 'app/db', 'read'), false);
    assert.equal(a.allowVariableOperation('default', 'app/web', 'read'), true);
    assert.equal(a.allowVariableOperation('default', 'app/web', 'list'), true);
    assert.equal(a.allowVariableOperation('default', 'app/web', 'write'), false);
    assert.equal(a.allowVariableOperation('other', 'shared', 'list'), true);
    assert.equal(a.allowVariableOperation('other', 'app/web', 'read'), false);
    assert.equal(a.allowVariableSearch('default'), true);
    assert.equal(a.allowVariableSearch('*'), true);
    assert.equal(a.allowVariableSearch('nope'), false);
    assert.equal(authz('namespace "a" { policy = "read" }').allowVariableSearch('*'), false);
  });
});

describe('Authorizer: agent, node, operator, quota, plugin', () => {
  const matrix: [string, 'agent' | 'node' | 'operator' | 'quota', boolean, boolean][] = [];
  for (const block of ['agent', 'node', 'operator', 'quota'] as const) {
    matrix.push([`${block} { policy = "read" }`, block, true, false]);
    matrix.push([`${block} { policy = "write" }`, block, true, true]);
    matrix.push([`${block} { policy = "deny" }`, block, false, false]);
    matrix.push([`${block} { policy = "scale" }`, block, false, false]);
  }
  const check = (a: Authorizer, block: string) => {
    switch (block) {
      case 'agent':
        return [a.allowAgentRead(), a.allowAgentWrite()];
      case 'node':
        return [a.allowNodeRead(), a.allowNodeWrite()];
      case 'operator':
        return [a.allowOperatorRead(), a.allowOperatorWrite()];
      default:
        return [a.allowQuotaRead(), a.allowQuotaWrite()];
    }
  };
  for (const [text, block, read, write] of matrix) {
    it(`${text} → read ${read}, write ${write}`, () => assert.deepEqual(check(authz(text), block), [read, write]));
  }

  it('keeps the strongest level across policies, deny first', () => {
    assert.deepEqual(check(authz('node { policy = "read" }', 'node { policy = "write" }'), 'node'), [true, true]);
    assert.deepEqual(check(authz('node { policy = "write" }', 'node { policy = "deny" }'), 'node'), [false, false]);
    assert.deepEqual(check(authz('node { policy = "scale" }', 'node { policy = "read" }'), 'node'), [true, false]);
    assert.deepEqual(check(authz('namespace "a" { policy = "write" }'), 'node'), [false, false]);
  });

  it('plugin: list lists, read reads and lists, deny wins', () => {
    const plugin = (...texts: string[]) => {
      const a = authz(...texts);
      return [a.allowPluginRead(), a.allowPluginList()];
    };
    assert.deepEqual(plugin('plugin { policy = "list" }'), [false, true]);
    assert.deepEqual(plugin('plugin { policy = "read" }'), [true, true]);
    assert.deepEqual(plugin('plugin { policy = "deny" }'), [false, false]);
    assert.deepEqual(plugin('plugin { policy = "list" }', 'plugin { policy = "read" }'), [true, true]);
    assert.deepEqual(plugin('plugin { policy = "read" }', 'plugin { policy = "deny" }'), [false, false]);
    assert.deepEqual(plugin('node { policy = "write" }'), [false, false]);
  });
});

describe('Authorizer: management and empty', () => {
  it('management passes every check', () => {
    const m = Authorizer.management();
    assert.equal(m.isManagement, true);
    for (const c of NAMESPACE_CAPABILITIES) assert.equal(m.allowNamespaceOperation('any', c), true, c);
    assert.equal(m.allowNamespace('*'), true);
    assert.equal(m.allowHostVolumeOperation('x', 'mount-readwrite'), true);
    assert.equal(m.allowVariableOperation('x', 'y', 'destroy'), true);
    assert.equal(m.allowVariableSearch('x'), true);
    for (const ok of [m.allowNodeWrite(), m.allowAgentWrite(), m.allowOperatorWrite(), m.allowQuotaWrite(), m.allowPluginRead(), m.allowPluginList()])
      assert.equal(ok, true);
  });

  it('a token without policies (or with the empty policy) may do nothing', () => {
    for (const a of [new Authorizer([]), authz('')]) {
      assert.equal(a.isManagement, false);
      assert.equal(a.allowNamespace('default'), false);
      assert.equal(a.allowNamespace('*'), false);
      assert.equal(a.allowNodeRead(), false);
      assert.equal(a.allowPluginList(), false);
    }
  });
});
