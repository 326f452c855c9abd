// Tests of parseRules: every block and global key in HCL and JSON, level spelling, and
// each error with its line (reference acl/policy.go wording; stricter on unknown keys).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BUILTIN_POLICIES } from './builtin.js';
import { nodeIdentityRules, nodeIdentityRulesText, serviceIdentityRules, serviceIdentityRulesText } from './identities.js';
import { RulesError, parseRules, type ParsedRules } from './rules.js';

function parseError(text: string): { message: string; line: number | undefined } {
  try {
    parseRules(text);
  } catch (err) {
    assert.ok(err instanceof RulesError, `expected a RulesError, got ${String(err)}`);
    return { message: err.message, line: err.line };
  }
  assert.fail(`expected ${JSON.stringify(text)} to be refused`);
}

const sorted = (p: ParsedRules) => ({
  global: p.global,
  rules: [...p.rules].sort((a, b) => `${a.resource}|${a.segment}|${a.prefix}`.localeCompare(`${b.resource}|${b.segment}|${b.prefix}`)),
});

const FULL_HCL = `
acl = "write"
operator = "read"
keyring = "read"
mesh = "write"
peering = "read"
service_prefix "" { policy = "read" }
service "web" { policy = "write" intentions = "read" }
node_prefix "" { policy = "read" }
node "n1" { policy = "write" }
key_prefix "app/" { policy = "list" }
key "app/x" { policy = "deny" }
agent_prefix "" { policy = "read" }
agent "a1" { policy = "write" }
event_prefix "" { policy = "read" }
event "deploy" { policy = "write" }
query_prefix "" { policy = "read" }
query "q" { policy = "write" }
session_prefix "" { policy = "write" }
session "s" { policy = "deny" }
`;

const FULL_JSON = JSON.stringify({
  acl: 'write',
  operator: 'read',
  keyring: 'read',
  mesh: 'write',
  peering: 'read',
  service_prefix: { '': { policy: 'read' } },
  service: { web: { policy: 'write', intentions: 'read' } },
  node_prefix: { '': { policy: 'read' } },
  node: { n1: { policy: 'write' } },
  key_prefix: { 'app/': { policy: 'list' } },
  key: { 'app/x': { policy: 'deny' } },
  agent_prefix: { '': { policy: 'read' } },
  agent: { a1: { policy: 'write' } },
  event_prefix: { '': { policy: 'read' } },
  event: { deploy: { policy: 'write' } },
  query_prefix: { '': { policy: 'read' } },
  query: { q: { policy: 'write' } },
  session_prefix: { '': { policy: 'write' } },
  session: { s: { policy: 'deny' } },
});

describe('parseRules', () => {
  it('parses every global key and every block, exact and prefix', () => {
    const p = parseRules(FULL_HCL);
    assert.deepEqual(p.global, { acl: 'write', operator: 'read', keyring: 'read', mesh: 'write', peering: 'read' });
    assert.equal(p.rules.length, 14);
    assert.deepEqual(
      p.rules.find((r) => r.resource === 'service' && !r.prefix),
      { resource: 'service', segment: 'web', prefix: false, policy: 'write', intentions: 'read' },
    );
    assert.deepEqual(
      p.rules.find((r) => r.resource === 'key' && r.prefix),
      { resource: 'key', segment: 'app/', prefix: true, policy: 'list' },
    );
    assert.deepEqual(
      p.rules.find((r) => r.resource === 'session' && !r.prefix),
      { resource: 'session', segment: 's', prefix: false, policy: 'deny' },
    );
  });

  it('parses the JSON form to the same rules', () => {
    assert.deepEqual(sorted(parseRules(FULL_JSON)), sorted(parseRules(FULL_HCL)));
  });

  it('accepts JSON blocks given as lists of objects', () => {
    const p = parseRules('{"service": [{"web": {"policy": "read"}}, {"api": [{"policy": "write"}]}]}');
    assert.deepEqual(
      p.rules.map((r) => [r.segment, r.policy]),
      [
        ['web', 'read'],
        ['api', 'write'],
      ],
    );
  });

  it('keeps repeated blocks for the same segment (the authorizer merges them)', () => {
    const p = parseRules('key "a" { policy = "read" }\nkey "a" { policy = "write" }');
    assert.deepEqual(
      p.rules.map((r) => r.policy),
      ['read', 'write'],
    );
  });

  it('accepts empty text, comments only, and empty global values', () => {
    assert.deepEqual(parseRules(''), { global: {}, rules: [] });
    assert.deepEqual(parseRules('# nothing\n// yet\n'), { global: {}, rules: [] });
    assert.deepEqual(parseRules('acl = ""\noperator = ""'), { global: {}, rules: [] });
  });

  it('reads levels in any case and stores them lower-cased', () => {
    const p = parseRules('acl = "WRITE"\nservice "web" {\n  policy = "Read"\n  intentions = "DENY"\n}\nkey "k" { policy = "LIST" }');
    assert.equal(p.global.acl, 'write');
    assert.deepEqual(
      p.rules.map((r) => [r.policy, r.intentions]),
      [
        ['list', undefined],
        ['read', 'deny'],
      ],
    );
  });

  it('parses the built-in policies and the identity templates', () => {
    const mgmt = parseRules(BUILTIN_POLICIES.get('00000000-0000-0000-0000-000000000001')!.rules);
    assert.deepEqual(mgmt.global, { acl: 'write', keyring: 'write', operator: 'write', mesh: 'write', peering: 'write' });
    assert.ok(mgmt.rules.every((r) => r.prefix && r.segment === '' && r.policy === 'write'));
    assert.equal(mgmt.rules.find((r) => r.resource === 'service')?.intentions, 'write');
    const ro = parseRules(BUILTIN_POLICIES.get('00000000-0000-0000-0000-000000000002')!.rules);
    assert.ok(ro.rules.every((r) => r.policy === 'read') && Object.values(ro.global).every((l) => l === 'read'));
    assert.deepEqual(sorted(parseRules(serviceIdentityRulesText('web'))), sorted(serviceIdentityRules('web')));
    assert.deepEqual(sorted(parseRules(nodeIdentityRulesText('n1'))), sorted(nodeIdentityRules('n1')));
  });
});

describe('parseRules errors', () => {
  const cases: [string, string, number | undefined][] = [
    // syntax, in the reference's hcl wording
    ['service "web" {\n  policy = "write"\n', 'Failed to parse ACL rules: At 3:2: object expected closing RBRACE got: EOF', 3],
    ['{"acl": "write",}', 'Failed to parse ACL rules: At 1:17: Expected double-quoted property name', 1],
    // unknown keys (the reference ignores them; Cairn names them)
    ['acl = "read"\nfoo = "write"', 'Failed to parse ACL rules: line 2: unknown key "foo"', 2],
    ['service "w" {\n  polcy = "read"\n}', 'Failed to parse ACL rules: line 2: unknown key "polcy" in service "w"', 2],
    ['key "k" {\n  policy = "read"\n  intentions = "read"\n}', 'Failed to parse ACL rules: line 3: unknown key "intentions" in key "k"', 3],
    ['namespace "ns" {\n  acl = "read"\n}', 'Failed to parse ACL rules: line 1: unknown key "namespace"', 1],
    ['service "a" "b" { policy = "read" }', 'Failed to parse ACL rules: line 1: unknown key "b" in service "a"', 1],
    ['{\n  "service": {"web": {"policy": "write", "sentinel": {}}}\n}', 'Failed to parse ACL rules: line 2: unknown key "sentinel" in service "web"', 2],
    // shapes
    ['service { policy = "read" }', 'Failed to parse ACL rules: line 1: "service" needs a label, as in service "name" { … }', 1],
    ['acl = ["read"]', 'Failed to parse ACL rules: line 1: "acl" must be a string', 1],
    ['node "n" {\n  policy = true\n}', 'Failed to parse ACL rules: line 2: "policy" must be a string', 2],
    // levels, in the reference's "Invalid <kind> policy" wording
    ['acl = "list"', 'Invalid acl policy: "list" is not read, write or deny (line 1)', 1],
    ['\noperator = "admin"', 'Invalid operator policy: "admin" is not read, write or deny (line 2)', 2],
    ['keyring = "x"', 'Invalid keyring policy: "x" is not read, write or deny (line 1)', 1],
    ['mesh = "list"', 'Invalid mesh policy: "list" is not read, write or deny (line 1)', 1],
    ['peering = "all"', 'Invalid peering policy: "all" is not read, write or deny (line 1)', 1],
    ['node "n" {\n  policy = "list"\n}', 'Invalid node policy: node "n": "list" is not read, write or deny (line 2)', 2],
    ['service_prefix "" { policy = "admin" }', 'Invalid service_prefix policy: service_prefix "": "admin" is not read, write or deny (line 1)', 1],
    ['key_prefix "a/" { policy = "sudo" }', 'Invalid key_prefix policy: key_prefix "a/": "sudo" is not read, list, write or deny (line 1)', 1],
    [
      'service "w" {\n  policy = "read"\n  intentions = "list"\n}',
      'Invalid service intentions policy: service "w": "list" is not read, write or deny (line 3)',
      3,
    ],
    ['agent "a" {}', 'Invalid agent policy: agent "a": no policy is set (line 1)', 1],
    ['session_prefix "" {\n  policy = ""\n}', 'Invalid session_prefix policy: session_prefix "": "" is not read, write or deny (line 2)', 2],
    ['{\n  "event": {\n    "e": {"policy": "nope"}\n  }\n}', 'Invalid event policy: event "e": "nope" is not read, write or deny (line 3)', 3],
  ];
  for (const [text, message, line] of cases) {
    it(`refuses ${JSON.stringify(text)}`, () => {
      assert.deepEqual(parseError(text), { message, line });
    });
  }

  it('reports the first error in the reference order (acl before blocks before keyring)', () => {
    assert.match(parseError('keyring = "x"\nnode "n" { policy = "y" }\nacl = "z"').message, /^Invalid acl policy: "z"/);
  });
});
