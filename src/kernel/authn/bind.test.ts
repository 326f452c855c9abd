/**
 * Bind-name interpolation and binding-rule evaluation (reference/mesh.md §3.4, §3.5, §6.6;
 * reference/sched.md §2.4). Most cases run selectors through a tiny stub matcher
 * (`path == "v"`, `"v" in path`, throws on anything else) so they test the binder alone;
 * the last block uses the default, the kernel filter language.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  bindIdentity,
  checkBindingRule,
  grantsNothing,
  identityFromClaims,
  interpolateBindName,
  identityFromServiceAccount,
  MESH_BIND_PROFILE,
  SCHED_BIND_PROFILE,
  type BindingRule,
  type SelectorMatcher,
} from './index.js';

const stubMatcher: SelectorMatcher = (selector, data) => {
  const get = (path: string) => path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)?.[k], data);
  let m = /^([\w.]+) == "(.*)"$/.exec(selector);
  if (m) return get(m[1]) === m[2];
  m = /^"(.*)" in ([\w.]+)$/.exec(selector);
  if (m) return ((get(m[2]) as string[] | undefined) ?? []).includes(m[1]);
  throw new Error(`stub cannot parse ${selector}`);
};

const identity = identityFromClaims({ sub: 'Alice-1', team: 'Web', groups: ['admins'] }, { sub: 'sub', team: 'team', email: 'email' }, { groups: 'groups' });
const roles = new Map([['web-role', { id: 'r1', name: 'web-role' }]]);
const policies = new Map([['readers', { id: 'p1', name: 'readers' }]]);
const mesh = {
  profile: MESH_BIND_PROFILE,
  matches: stubMatcher,
  roleByName: (n: string) => roles.get(n),
  policyByName: async (n: string) => policies.get(n),
  datacenter: 'dc1',
};

describe('interpolateBindName', () => {
  it('replaces ${var} with lower-cased values and keeps the rest', () => {
    assert.equal(interpolateBindName('svc-${value.team}-${ value.sub }', { 'value.team': 'Web', 'value.sub': 'A' }), 'svc-web-a');
    assert.equal(interpolateBindName('Plain', {}), 'Plain');
    assert.equal(interpolateBindName('$${value.x}', {}), '${value.x}');
    assert.equal(interpolateBindName('${v}', { v: 'MiXed' }, false), 'MiXed');
  });
  it('refuses unknown variables and broken templates', () => {
    assert.throws(() => interpolateBindName('${list.groups}', { 'value.sub': 'a' }), {
      kind: 'bind',
      message: 'error interpreting template: unknown variable accessed: list.groups',
    });
    assert.throws(() => interpolateBindName('${value.sub', {}), { message: 'error interpreting template: unterminated interpolation' });
    assert.throws(() => interpolateBindName('${a + b}', {}), { message: 'error interpreting template: invalid interpolation "${a + b}"' });
  });
});

describe('bindIdentity (discovery service profile)', () => {
  it('keeps matching rules in order: empty selector matches all; service, node, role, policy', async () => {
    const rules: BindingRule[] = [
      { bindType: 'service', bindName: '${value.team}' },
      { selector: 'value.sub == "Alice-1"', bindType: 'node', bindName: 'node-${value.sub}' },
      { selector: '"admins" in list.groups', bindType: 'role', bindName: 'web-role' },
      { selector: '"nobody" in list.groups', bindType: 'policy', bindName: 'readers' },
      { bindType: 'policy', bindName: 'readers' },
      { bindType: 'service', bindName: '${value.team}' },
    ];
    const b = await bindIdentity(rules, identity, mesh);
    assert.deepEqual(b, {
      serviceIdentities: [{ serviceName: 'web' }],
      nodeIdentities: [{ nodeName: 'node-alice-1', datacenter: 'dc1' }],
      roles: [{ id: 'r1', name: 'web-role' }],
      policies: [{ id: 'p1', name: 'readers' }],
      management: false,
    });
    assert.equal(grantsNothing(b), false);
  });

  it('an invalid selector or an evaluation error is no match', async () => {
    const b = await bindIdentity([{ selector: 'value.sub ===', bindType: 'service', bindName: 'x' }], identity, mesh);
    assert.ok(grantsNothing(b));
  });

  it('missing roles and policies are silently ignored', async () => {
    const b = await bindIdentity(
      [
        { bindType: 'role', bindName: 'nope' },
        { bindType: 'policy', bindName: 'nope' },
      ],
      identity,
      mesh,
    );
    assert.ok(grantsNothing(b));
  });

  it('a computed name that is invalid for its type aborts the login', async () => {
    // value.email is pre-populated with "" (claim absent), so the service name is empty
    await assert.rejects(bindIdentity([{ bindType: 'service', bindName: '${value.email}' }], identity, mesh), {
      kind: 'bind',
      message: 'invalid bind name: ""',
    });
    await assert.rejects(bindIdentity([{ bindType: 'service', bindName: 'a.b' }], identity, mesh), { message: 'invalid bind name: "a.b"' });
    await assert.rejects(bindIdentity([{ bindType: 'role', bindName: '${list.groups}' }], identity, mesh), {
      message: 'error interpreting template: unknown variable accessed: list.groups',
    });
  });

  it('management does not exist for the discovery service', async () => {
    await assert.rejects(bindIdentity([{ bindType: 'management', bindName: '' }], identity, mesh), { message: 'unknown BindType "management"' });
  });
});

describe('bindIdentity (scheduler profile)', () => {
  const sched = { ...mesh, profile: SCHED_BIND_PROFILE };
  it('management grants a management token; roles and policies by name', async () => {
    const b = await bindIdentity(
      [
        { selector: '"admins" in list.groups', bindType: 'management', bindName: '' },
        { bindType: 'role', bindName: 'web-role' },
      ],
      identity,
      sched,
    );
    assert.equal(b.management, true);
    assert.deepEqual(b.roles, [{ id: 'r1', name: 'web-role' }]);
  });
  it('service identities do not exist for the scheduler', async () => {
    await assert.rejects(bindIdentity([{ bindType: 'service', bindName: 'x' }], identity, sched), { message: 'unknown BindType "service"' });
  });
});

describe('checkBindingRule (write time, §6.6)', () => {
  it('interpolates every projected var as "fake"', () => {
    checkBindingRule({ bindType: 'service', bindName: 'svc-${value.team}' }, Object.keys(identity.projected), MESH_BIND_PROFILE);
    assert.throws(() => checkBindingRule({ bindType: 'service', bindName: '${value.nope}' }, Object.keys(identity.projected), MESH_BIND_PROFILE), {
      message: 'error interpreting template: unknown variable accessed: value.nope',
    });
    assert.throws(() => checkBindingRule({ bindType: 'service', bindName: 'Bad Name' }, [], MESH_BIND_PROFILE), { message: 'invalid bind name: "Bad Name"' });
    checkBindingRule({ bindType: 'management', bindName: '' }, [], SCHED_BIND_PROFILE);
  });
});

describe('bindIdentity with the kernel filter language (the default matcher)', () => {
  const { matches: _stub, ...withBexpr } = mesh;
  it('selects on value.*, list.* and serviceaccount.* as the reference examples do (§3.5)', async () => {
    const rules: BindingRule[] = [
      { selector: 'value.sub == "Alice-1" and "admins" in list.groups', bindType: 'service', bindName: 'svc-${value.sub}' },
      { selector: 'value.missing != "x"', bindType: 'node', bindName: 'n1' },
      { selector: '"nobody" in list.groups', bindType: 'policy', bindName: 'readers' },
      { selector: 'value.sub ==', bindType: 'policy', bindName: 'readers' },
      { selector: 'nosuchfield == "x"', bindType: 'policy', bindName: 'readers' },
    ];
    const b = await bindIdentity(rules, identity, withBexpr);
    assert.deepEqual(b.serviceIdentities, [{ serviceName: 'svc-alice-1' }]);
    assert.deepEqual(b.nodeIdentities, [{ nodeName: 'n1', datacenter: 'dc1' }], 'a missing map key is absent, not an error');
    assert.deepEqual(b.policies, [], 'no match, a syntax error and an evaluation error all bind nothing');
    const sa = identityFromServiceAccount({ namespace: 'default', name: 'web', uid: 'u' });
    const k8s = await bindIdentity(
      [{ selector: 'serviceaccount.namespace==default and serviceaccount.name!=vault', bindType: 'service', bindName: '${serviceaccount.name}' }],
      sa,
      withBexpr,
    );
    assert.deepEqual(k8s.serviceIdentities, [{ serviceName: 'web' }]);
  });
});
