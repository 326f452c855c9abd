// Tests of parsePolicy: HCL and JSON forms, legacy `policy =` values, pattern rules and
// the error messages of bad input (reference/secrets.md §5.1).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PolicyParseError, parsePolicy, type Policy } from './parse.js';

const rules = (p: Policy) => p.rules.map((r) => [r.pattern, [...r.capabilities].sort()]);

function parseError(text: string): string {
  try {
    parsePolicy('p', text);
  } catch (err) {
    assert.ok(err instanceof PolicyParseError, `expected a PolicyParseError, got ${String(err)}`);
    return err.message;
  }
  assert.fail(`expected ${JSON.stringify(text)} to be refused`);
}

describe('parsePolicy', () => {
  it('parses HCL path blocks in document order, keeping the text', () => {
    const text = '# team a\npath "secret/data/*" {\n  capabilities = ["create", "read", "update"]\n}\npath "secret/metadata/+" { capabilities = ["list"] }\n';
    const p = parsePolicy('web', text);
    assert.equal(p.name, 'web');
    assert.equal(p.text, text);
    assert.deepEqual(rules(p), [
      ['secret/data/*', ['create', 'read', 'update']],
      ['secret/metadata/+', ['list']],
    ]);
  });

  it('parses the JSON form to the same rules', () => {
    const json = parsePolicy('j', JSON.stringify({ path: { 'secret/data/*': { capabilities: ['read'] }, 'secret/x': { capabilities: ['list'] } } }));
    const hcl = parsePolicy('h', 'path "secret/data/*" { capabilities = ["read"] }\npath "secret/x" { capabilities = ["list"] }');
    assert.deepEqual(rules(json), rules(hcl));
  });

  it('accepts an empty policy, a top-level name and a comment key', () => {
    assert.deepEqual(parsePolicy('e', '# nothing yet\n').rules, []);
    assert.deepEqual(rules(parsePolicy('n', 'name = "n"\npath "a" {\n  comment = "why"\n  capabilities = []\n}')), [['a', []]]);
  });

  it('strips a leading "/"', () => {
    assert.deepEqual(rules(parsePolicy('p', 'path "/secret/a" { capabilities = ["read"] }')), [['secret/a', ['read']]]);
  });

  it('maps the legacy policy values to capabilities', () => {
    const p = parsePolicy('p', ['deny', 'read', 'write', 'sudo'].map((v) => `path "${v}" { policy = "${v}" }`).join('\n'));
    assert.deepEqual(rules(p), [
      ['deny', ['deny']],
      ['read', ['list', 'read']],
      ['write', ['create', 'delete', 'list', 'read', 'update']],
      ['sudo', ['create', 'delete', 'list', 'read', 'sudo', 'update']],
    ]);
  });

  it('lets deny wipe the other capabilities of its rule', () => {
    assert.deepEqual(rules(parsePolicy('p', 'path "a" { capabilities = ["read", "deny", "list"] }')), [['a', ['deny']]]);
    assert.deepEqual(rules(parsePolicy('p', 'path "a" {\n  policy = "write"\n  capabilities = ["deny"]\n}')), [['a', ['deny']]]);
  });

  it('knows every capability', () => {
    const p = parsePolicy('p', 'path "a" { capabilities = ["create", "read", "update", "delete", "list", "patch", "sudo"] }');
    assert.deepEqual(rules(p), [['a', ['create', 'delete', 'list', 'patch', 'read', 'sudo', 'update']]]);
  });

  it('refuses an unknown capability, naming path and capability', () => {
    assert.equal(parseError('path "x" { capabilities = ["read", "y"] }'), 'failed to parse policy: path "x": invalid capability "y"');
    assert.equal(parseError('path "x" { capabilities = ["READ"] }'), 'failed to parse policy: path "x": invalid capability "READ"');
  });

  it('refuses an unknown legacy policy value', () => {
    assert.equal(parseError('path "x" { policy = "admin" }'), 'failed to parse policy: path "x": invalid policy "admin"');
  });

  it('refuses "+*" and a "*" that is not last', () => {
    assert.equal(
      parseError('path "secret/+*" { capabilities = ["read"] }'),
      `failed to parse policy: path "secret/+*": invalid use of wildcards ('+*' is forbidden)`,
    );
    assert.equal(
      parseError('path "secret/*/x" { capabilities = ["read"] }'),
      'failed to parse policy: path "secret/*/x": "*" is only allowed as the last character',
    );
  });

  it('refuses unknown keys, naming them', () => {
    assert.equal(parseError('paths "a" { capabilities = ["read"] }'), 'failed to parse policy: invalid key "paths"');
    assert.equal(parseError('path "a" { capabilites = ["read"] }'), 'failed to parse policy: path "a": invalid key "capabilites"');
    assert.equal(parseError('path "a" "b" { capabilities = ["read"] }'), 'failed to parse policy: path "a": invalid key "b"');
  });

  it('refuses the keys it does not enforce', () => {
    const msg = parseError('path "a" {\n  capabilities = ["update"]\n  mfa_methods = ["totp"]\n}');
    assert.equal(msg, 'failed to parse policy: path "a": "mfa_methods" is not supported');
  });

  it('reads min_wrapping_ttl / max_wrapping_ttl in seconds (duration strings or numbers)', () => {
    const p = parsePolicy('w', 'path "a" {\n  capabilities = ["read"]\n  min_wrapping_ttl = "1m"\n  max_wrapping_ttl = 3600\n}');
    assert.deepEqual(p.rules[0].wrapping, { min: 60, max: 3600 });
    assert.equal(parsePolicy('n', 'path "a" { capabilities = ["read"] }').rules[0].wrapping, undefined);
    assert.equal(
      parseError('path "a" {\n  capabilities = ["read"]\n  min_wrapping_ttl = "-1m"\n}'),
      'failed to parse policy: path "a": error parsing min_wrapping_ttl: must not be negative',
    );
  });

  it('refuses malformed shapes', () => {
    assert.equal(parseError('path "a" { capabilities = "read" }'), 'failed to parse policy: path "a": "capabilities" must be a list of strings');
    assert.equal(parseError('path "a" { capabilities = [1] }'), 'failed to parse policy: path "a": "capabilities" must be a list of strings');
    assert.match(parseError('path = "a"'), /^failed to parse policy: "path" must be a block/);
    assert.match(parseError('[1]'), /^failed to parse policy: /);
  });

  it('reports syntax errors with line and column', () => {
    assert.equal(
      parseError('path "a" {\n  capabilities = ["read"]\n}\npath "b" {\n  capabilities = ["list"]\n'),
      'failed to parse policy: line 6, column 2: object expected closing RBRACE got: EOF',
    );
    assert.equal(
      parseError('path "a" {\n  capabilities = ["read"],\n}\n}'),
      'failed to parse policy: line 4, column 1: expected: IDENT | STRING | ASSIGN | LBRACE got: RBRACE',
    );
    assert.equal(parseError('{bad json'), 'failed to parse policy: line 1, column 4: illegal char');
  });
});

describe('parsePolicy parameter constraints', () => {
  it('reads the HCL and JSON forms alike, names lower-cased, none → undefined', () => {
    const hcl = parsePolicy(
      'h',
      'path "a" {\n  capabilities = ["update"]\n  allowed_parameters = { "TTL" = [] "*" = ["x*", 3, true] }\n  denied_parameters = { "y" = [] }\n  required_parameters = ["z", "z"]\n}',
    );
    const json = parsePolicy(
      'j',
      JSON.stringify({
        path: {
          a: { capabilities: ['update'], allowed_parameters: { TTL: [], '*': ['x*', 3, true] }, denied_parameters: { y: [] }, required_parameters: ['z', 'z'] },
        },
      }),
    );
    for (const p of [hcl, json]) {
      const c = p.rules[0].params!;
      assert.deepEqual(Object.fromEntries(c.allowed!), { ttl: [], '*': ['x*', 3, true] });
      assert.deepEqual([...c.denied!], [['y', []]]);
      assert.deepEqual(c.required, ['z']);
    }
    assert.equal(parsePolicy('n', 'path "a" { capabilities = ["read"] }').rules[0].params, undefined);
    assert.equal(parsePolicy('e', 'path "a" {\n capabilities = ["read"]\n allowed_parameters = {}\n}').rules[0].params, undefined);
  });

  it('names the field of a malformed constraint', () => {
    assert.match(
      parseError('path "a" {\n capabilities = ["update"]\n allowed_parameters = "x"\n}'),
      /^failed to parse policy: path "a": "allowed_parameters" must be a map/,
    );
    assert.match(
      parseError('path "a" {\n capabilities = ["update"]\n denied_parameters = { "k" = [{ "x" = 1 }] }\n}'),
      /^failed to parse policy: path "a": "denied_parameters\.k" must be a list/,
    );
    assert.equal(
      parseError('path "a" {\n capabilities = ["update"]\n required_parameters = [1]\n}'),
      'failed to parse policy: path "a": "required_parameters" must be a list of strings',
    );
  });
});
