// The scheduler's binding-rule model: every rule of reference/sched.md §2.4 with its exact
// text, update lookup and merge, the kernel's write-time bind-name check, the stub.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeAuthMethod, validateAuthMethod, type AuthMethod } from './auth-method.js';
import { bindingRuleStub, decodeBindingRule, validateBindingRule, type BindingRule, type ValidateBindingRuleOptions } from './binding-rule.js';
import { SchedAuthError } from './errors.js';

const NOW = new Date('2026-03-04T05:06:07Z');
const method: AuthMethod = validateAuthMethod(
  decodeAuthMethod({
    Name: 'okta',
    Type: 'OIDC',
    TokenLocality: 'global',
    MaxTokenTTL: '1h',
    Config: { OIDCDiscoveryURL: 'https://idp', OIDCClientID: 'c', OIDCClientSecret: 's', AllowedRedirectURIs: ['http://cb'], ClaimMappings: { team: 'team' } },
  }),
  { others: [], isUpdate: false, now: NOW },
);
const ID = '6f1c2a7e-0d7b-4a53-9f4e-1b2c3d4e5f60';

const upsert = (body: unknown, opts: Partial<ValidateBindingRuleOptions> = {}): BindingRule =>
  validateBindingRule(decodeBindingRule(body), { authMethods: [method], now: NOW, newId: () => ID, ...opts });

function throwsExactly(fn: () => unknown, message: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof SchedAuthError, String(err));
    assert.equal(err.message, message);
    assert.equal(err.status, 400);
    return true;
  });
}
const one = (e: string) => `binding rule 0 invalid: 1 error occurred:\n\t* ${e}\n\n`;
const rule = { AuthMethod: 'okta', BindType: 'policy', BindName: 'ops' };

describe('validateBindingRule: every rule of sched.md §2.4, with its text (400)', () => {
  const table: [rule: string, body: unknown, error: string][] = [
    ['AuthMethod required', { ...rule, AuthMethod: '' }, one('auth method is missing')],
    ['Description at most 256 bytes', { ...rule, Description: 'é'.repeat(129) }, one('description longer than 256')],
    ['BindType required', { ...rule, BindType: '' }, one('bind type is missing')],
    ['role needs a BindName', { ...rule, BindType: 'role', BindName: '' }, one('bind name is missing')],
    ['policy needs a BindName', { ...rule, BindName: '' }, one('bind name is missing')],
    ['management must have no BindName', { ...rule, BindType: 'management' }, one('bind name should be empty')],
    ['BindType role|policy|management', { ...rule, BindType: 'node' }, one('unsupported bind type: "node"')],
    [
      "Selector must parse (the parser text is the kernel filter language's)",
      { ...rule, Selector: 'value.team ==' },
      one('selector is invalid: 1:14: Expected "-", "0", "\\"", "`", [1-9], [a-zA-Z], or whitespace but end of input found.'),
    ],
    [
      'BindName variables must be mapped claims (kernel check)',
      { ...rule, BindName: '${value.group}' },
      one('error interpreting template: unknown variable accessed: value.group'),
    ],
    ['the auth method must exist', { ...rule, AuthMethod: 'nope' }, 'ACL auth method nope not found'],
    ['an update must name a stored rule', { ...rule, ID }, `cannot find binding rule ${ID}`],
  ];
  for (const [name, body, error] of table) {
    it(`${name}: ${JSON.stringify(error)}`, () => throwsExactly(() => upsert(body), error));
  }

  it('collects every error in the reference order', () => {
    throwsExactly(
      () => upsert({ Description: 'x'.repeat(257), BindType: 'admin', Selector: '((' }),
      'binding rule 0 invalid: 4 errors occurred:\n\t* auth method is missing\n\t* description longer than 256\n' +
        '\t* unsupported bind type: "admin"\n' +
        '\t* selector is invalid: 1:3: Expected "(", "-", "0", "\\"", "`", "all", "any", "not", [1-9], [a-zA-Z], or whitespace but end of input found.\n\n',
    );
  });
});

describe('validateBindingRule: create, update, stub', () => {
  const created = upsert({ ...rule, Description: 'ops team', Selector: '"ops" in list.groups', BindName: 'team-${value.team}' });

  it('creates with a generated ID, times, indexes 0 and a hash', () => {
    assert.equal(created.ID, ID);
    assert.equal(created.CreateTime, '2026-03-04T05:06:07Z');
    assert.equal(created.CreateIndex, 0);
    assert.match(created.Hash, /^[A-Za-z0-9+/]{43}=$/);
    assert.equal(upsert({ ...rule, BindType: 'management', BindName: '' }).BindType, 'management');
    assert.equal(upsert({ ...rule, Description: 'é'.repeat(128) }).Description.length, 128);
  });
  it('merges BindName, BindType and AuthMethod from the stored rule; Description and Selector are replaced', () => {
    const stored = { ...created, CreateIndex: 5, ModifyIndex: 6 };
    const later = new Date('2026-03-05T00:00:00Z');
    const r = upsert({ ID }, { existing: stored, now: later });
    assert.equal(r.AuthMethod, 'okta');
    assert.equal(r.BindType, 'policy');
    assert.equal(r.BindName, 'team-${value.team}');
    assert.equal(r.Description, '');
    assert.equal(r.Selector, '');
    assert.equal(r.CreateTime, created.CreateTime);
    assert.equal(r.ModifyTime, '2026-03-05T00:00:00Z');
    assert.equal(r.CreateIndex, 5);
    assert.notEqual(r.Hash, created.Hash);
  });
  it('turns a rule into management without inheriting the name it must not have', () => {
    assert.equal(upsert({ ID, BindType: 'management' }, { existing: created }).BindName, '');
  });
  it('refuses another auth method on update', () => {
    throwsExactly(() => upsert({ ID, AuthMethod: 'other' }, { existing: created }), 'cannot update auth method for binding rule, create a new rule instead');
  });
  it('decodes field names case-insensitively', () => {
    assert.deepEqual(decodeBindingRule({ authmethod: 'okta', BINDTYPE: 'role', bindName: 'r', Bogus: 1 }), {
      ID: '',
      Description: '',
      AuthMethod: 'okta',
      Selector: '',
      BindType: 'role',
      BindName: 'r',
    });
    throwsExactly(() => decodeBindingRule({ BindName: 1 }), 'json: cannot unmarshal number into Go struct field ACLBindingRule.BindName of type string');
  });
  it('the stub has ID, Description, AuthMethod, Hash, CreateIndex, ModifyIndex', () => {
    assert.deepEqual(bindingRuleStub(created), {
      ID,
      Description: 'ops team',
      AuthMethod: 'okta',
      Hash: created.Hash,
      CreateIndex: 0,
      ModifyIndex: 0,
    });
  });
});
