// Tests of parsePolicy: every block in HCL and JSON, shorthand plus explicit
// capabilities, the reference's documentation examples, and each error with its line
// (reference acl/policy.go Parse; stricter on unknown keys inside blocks).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expandNamespacePolicy } from './capabilities.js';
import { PolicyError, parsePolicy } from './rules.js';

function parseError(text: string): { message: string; line: number | undefined } {
  try {
    parsePolicy(text);
  } catch (err) {
    assert.ok(err instanceof PolicyError, `expected a PolicyError, got ${String(err)}`);
    return { message: err.message, line: err.line };
  }
  assert.fail(`expected ${JSON.stringify(text)} to be refused`);
}

const FULL_HCL = `
namespace "default" {
  policy       = "read"
  capabilities = ["submit-job", "read-job"]
}
namespace "prod-*" {
  capabilities = ["host-volume-register"]
  variables {
    path "project/*" { capabilities = ["read", "write"] }
    path "secret" { capabilities = ["deny", "read"] }
  }
}
host_volume "ssd-*" { policy = "write" }
host_volume "scratch" { capabilities = ["mount-readonly"] }
agent { policy = "read" }
node { policy = "write" }
operator { policy = "deny" }
quota { policy = "read" }
plugin { policy = "list" }
`;

const FULL_JSON = JSON.stringify({
  namespace: {
    default: { policy: 'read', capabilities: ['submit-job', 'read-job'] },
    'prod-*': {
      capabilities: ['host-volume-register'],
      variables: { path: { 'project/*': { capabilities: ['read', 'write'] }, secret: { capabilities: ['deny', 'read'] } } },
    },
  },
  host_volume: { 'ssd-*': { policy: 'write' }, scratch: { capabilities: ['mount-readonly'] } },
  agent: { policy: 'read' },
  node: { policy: 'write' },
  operator: { policy: 'deny' },
  quota: { policy: 'read' },
  plugin: { policy: 'list' },
});

const FULL = {
  namespaces: [
    { name: 'default', policy: 'read', capabilities: ['submit-job', 'read-job', ...expandNamespacePolicy('read').filter((c) => c !== 'read-job')] },
    {
      name: 'prod-*',
      capabilities: ['host-volume-register', 'host-volume-create', 'host-volume-read'],
      variables: [
        { path: 'project/*', capabilities: ['read', 'write', 'list'] },
        { path: 'secret', capabilities: ['deny'] },
      ],
    },
  ],
  hostVolumes: [
    { name: 'ssd-*', policy: 'write', capabilities: ['mount-readonly', 'mount-readwrite'] },
    { name: 'scratch', capabilities: ['mount-readonly'] },
  ],
  agent: 'read',
  node: 'write',
  operator: 'deny',
  quota: 'read',
  plugin: 'list',
};

describe('parsePolicy: valid documents', () => {
  it('parses every block in HCL', () => {
    assert.deepEqual(parsePolicy(FULL_HCL), FULL);
  });

  it('parses the same document in JSON', () => {
    assert.deepEqual(parsePolicy(FULL_JSON), FULL);
  });

  it('treats the empty string as a policy granting nothing', () => {
    assert.deepEqual(parsePolicy(''), { namespaces: [], hostVolumes: [] });
  });

  it('expands each namespace level to the reference set', () => {
    for (const level of ['deny', 'read', 'write', 'scale'] as const) {
      const [ns] = parsePolicy(`namespace "default" { policy = "${level}" }`).namespaces;
      assert.deepEqual(ns.capabilities, expandNamespacePolicy(level), level);
    }
  });

  it('parses the reference docs example (namespace, node, agent, operator)', () => {
    const p = parsePolicy(`
      namespace "default" {
        policy = "read"
        capabilities = ["submit-job","dispatch-job","read-logs"]
      }
      agent { policy = "read" }
      node { policy = "read" }
      quota { policy = "read" }
    `);
    assert.equal(p.namespaces[0].policy, 'read');
    assert.ok(p.namespaces[0].capabilities.includes('csi-read-volume'));
    assert.ok(p.namespaces[0].capabilities.includes('dispatch-job'));
    assert.equal(p.agent, 'read');
    assert.equal(p.node, 'read');
    assert.equal(p.quota, 'read');
  });

  it('keeps repeated blocks for the same namespace apart (the authorizer merges them)', () => {
    const p = parsePolicy('namespace "a" { policy = "read" }\nnamespace "a" { capabilities = ["deny"] }');
    assert.deepEqual(
      p.namespaces.map((n) => n.name),
      ['a', 'a'],
    );
    assert.deepEqual(p.namespaces[1].capabilities, ['deny']);
  });

  it('accepts an operator block without a policy, and a namespace with an empty one', () => {
    const p = parsePolicy('operator {}\nnamespace "a" { policy = "" }');
    assert.equal(p.operator, undefined);
    assert.deepEqual(p.namespaces, [{ name: 'a', capabilities: [] }]);
  });

  it('accepts globs and the longest valid name', () => {
    assert.equal(parsePolicy('namespace "*" { policy = "read" }').namespaces[0].name, '*');
    assert.equal(parsePolicy(`namespace "${'a'.repeat(128)}" { policy = "read" }`).namespaces.length, 1);
  });

  it('accepts every plugin level and scale where the reference does', () => {
    for (const level of ['deny', 'read', 'list']) assert.equal(parsePolicy(`plugin { policy = "${level}" }`).plugin, level);
    assert.equal(parsePolicy('node { policy = "scale" }').node, 'scale');
  });
});

describe('parsePolicy: errors', () => {
  const cases: [string, string, string, number | undefined][] = [
    ['syntax', 'namespace "a" { policy = "read"', 'Failed to parse ACL Policy: At 1:33: object expected closing RBRACE got: EOF', 1],
    ['no block', '# only a comment', 'Invalid policy: # only a comment', undefined],
    ['unknown top-level key', 'nodes { policy = "read" }\nfoo = 1', 'Invalid or duplicate policy keys: nodes, foo (line 1)', 1],
    ['unknown key in a block', 'namespace "a" {\n  polcy = "read"\n}', 'Invalid or duplicate policy keys: polcy (line 2)', 2],
    ['duplicate single block', 'node { policy = "read" }\nnode { policy = "write" }', 'Invalid or duplicate policy keys: node (line 2)', 2],
    ['bad namespace name', 'namespace "bad name" { policy = "read" }', 'Invalid namespace name: "bad name" (line 1)', 1],
    ['empty namespace name', 'namespace "" { policy = "read" }', 'Invalid namespace name: "" (line 1)', 1],
    ['too long namespace name', `namespace "${'a'.repeat(129)}" { policy = "read" }`, `Invalid namespace name: "${'a'.repeat(129)}" (line 1)`, 1],
    [
      'namespace without label',
      'namespace { policy = "read" }',
      'Failed to parse ACL Policy: "namespace" needs a label, as in namespace "name" { … } (line 1)',
      1,
    ],
    [
      'bad namespace policy',
      'namespace "web" {\n  policy = "admin"\n}',
      'Invalid namespace policy: namespace "web": "admin" is not deny, read, write or scale (line 2)',
      2,
    ],
    [
      'levels are case-sensitive',
      'namespace "web" { policy = "READ" }',
      'Invalid namespace policy: namespace "web": "READ" is not deny, read, write or scale (line 1)',
      1,
    ],
    [
      'bad namespace capability',
      'namespace "web" { capabilities = ["read-job", "run-job"] }',
      `Invalid namespace capability 'run-job': namespace "web" (line 1)`,
      1,
    ],
    [
      'capabilities not a list',
      'namespace "a" { capabilities = "read-job" }',
      'Failed to parse ACL Policy: "capabilities" must be a list of strings (line 1)',
      1,
    ],
    ['policy not a string', 'namespace "a" { policy = 1 }', 'Failed to parse ACL Policy: "policy" must be a string (line 1)', 1],
    ['variables without paths', 'namespace "a" {\n  variables {}\n}', 'Invalid variable policy: no variable paths in namespace a (line 2)', 2],
    ['empty variable path', 'namespace "a" { variables { path "" { capabilities = ["read"] } } }', 'Invalid missing variable path in namespace a (line 1)', 1],
    [
      'leading slash',
      'namespace "a" { variables { path "/x" { capabilities = ["read"] } } }',
      `Invalid variable path "/x" in namespace a: cannot start with a leading '/' (line 1)`,
      1,
    ],
    [
      'bad variable capability',
      'namespace "a" { variables { path "x" { capabilities = ["admin"] } } }',
      `Invalid variable capability 'admin' in namespace a (line 1)`,
      1,
    ],
    ['bad host volume name', 'host_volume "a_b" { policy = "read" }', 'Invalid host volume name: "a_b" (line 1)', 1],
    [
      'bad host volume policy',
      'host_volume "a" { policy = "list" }',
      'Invalid host volume policy: host_volume "a": "list" is not deny, read, write or scale (line 1)',
      1,
    ],
    ['bad host volume capability', 'host_volume "a" { capabilities = ["mount"] }', `Invalid host volume capability 'mount': host_volume "a" (line 1)`, 1],
    ['bad agent policy', 'agent { policy = "list" }', 'Invalid agent policy: "list" is not deny, read, write or scale (line 1)', 1],
    ['node without policy', 'node {}', 'Invalid node policy: no policy is set (line 1)', 1],
    ['bad operator policy', 'operator { policy = "admin" }', 'Invalid operator policy: "admin" is not deny, read, write or scale (line 1)', 1],
    ['bad quota policy', 'quota { policy = "list" }', 'Invalid quota policy: "list" is not deny, read, write or scale (line 1)', 1],
    ['plugin write', 'plugin { policy = "write" }', 'Invalid plugin policy: "write" is not deny, read or list (line 1)', 1],
    ['operator capabilities', 'operator { capabilities = ["snapshot-save"] }', 'Invalid or duplicate policy keys: capabilities (line 1)', 1],
  ];
  for (const [name, text, message, line] of cases) {
    it(name, () => assert.deepEqual(parseError(text), { message, line }));
  }

  it('reports errors in the reference order: namespaces before single blocks', () => {
    assert.match(parseError('node { policy = "x" }\nnamespace "a b" { policy = "read" }').message, /^Invalid namespace name/);
  });

  it('reports JSON errors with the same texts', () => {
    assert.equal(
      parseError('{"namespace": {"web": {"policy": "admin"}}}').message.split(' (line')[0],
      'Invalid namespace policy: namespace "web": "admin" is not deny, read, write or scale',
    );
    assert.equal(parseError('{"plugin": {"policy": "write"}}').message.split(' (line')[0], 'Invalid plugin policy: "write" is not deny, read or list');
  });
});
