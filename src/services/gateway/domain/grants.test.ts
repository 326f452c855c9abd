/**
 * Grant parsing and evaluation, table-driven against the reference's documented examples.
 * Each case names its source:
 * - FORMATS = https://developer.hashicorp.com/boundary/docs/concepts/security/permissions/permission-grant-formats
 * - PERMS = https://developer.hashicorp.com/boundary/docs/concepts/security/permissions
 * - GRANT_SCOPES = https://developer.hashicorp.com/boundary/docs/commands/roles/set-grant-scopes
 * - PARSE = the reference's parser rules (internal/perms/grants.go, its error texts)
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Acl, type AclResource, type AclRole } from './acl.js';
import { parseGrant } from './grants.js';
import type { ResourceType } from './ids.js';

const FORMATS = 'permission-grant-formats';
const PERMS = 'permissions';
const GRANT_SCOPES = 'roles/set-grant-scopes';
const PARSE = 'grants.go';

describe('grant parsing', () => {
  const valid: Array<[source: string, grant: string, canonical: string]> = [
    [FORMATS, 'ids=hsst_1234567890;actions=read,update', 'ids=hsst_1234567890;actions=read,update'],
    [FORMATS, 'type=host-catalog;actions=create,list', 'type=host-catalog;actions=create,list'],
    [FORMATS, 'ids=hcst_1234567890;type=host-set;actions=create,read,update', 'ids=hcst_1234567890;type=host-set;actions=create,read,update'],
    [FORMATS, 'ids=*;type=host-set;actions=read,update', 'ids=*;type=host-set;actions=read,update'],
    [FORMATS, 'ids=hcst_1234567890;type=*;actions=read,update', 'ids=hcst_1234567890;type=*;actions=read,update'],
    [FORMATS, 'ids=*;type=*;actions=read,list', 'ids=*;type=*;actions=list,read'],
    [FORMATS, 'ids=*;type=host-catalog;output_fields=id,name', 'ids=*;type=host-catalog;output_fields=id,name'],
    [FORMATS, 'ids={{user.id}};actions=read,update', 'ids={{user.id}};actions=read,update'],
    [FORMATS, 'ids={{.Account.Id}};actions=read,change-password', 'ids={{.Account.Id}};actions=change-password,read'],
    [FORMATS, '{"ids":["*"],"type":"target","actions":["read","authorize-session"]}', 'ids=*;type=target;actions=authorize-session,read'],
    [PERMS, 'ids=*;type=target;actions=read,authorize-session', 'ids=*;type=target;actions=authorize-session,read'],
    [PERMS, 'ids=*;type=*;actions=*', 'ids=*;type=*;actions=*'],
    [PARSE, 'id=ttcp_1234567890;actions=read', 'id=ttcp_1234567890;actions=read'],
    [PARSE, 'ids=ttcp_1234567890,ttcp_0987654321;actions=read', 'ids=ttcp_1234567890,ttcp_0987654321;actions=read'],
  ];
  for (const [source, grant, canonical] of valid) {
    it(`accepts ${grant} (${source})`, () => assert.equal(parseGrant(grant).canonical, canonical));
  }

  const invalid: Array<[source: string, grant: string, error: RegExp]> = [
    [FORMATS, 'ids=hsst_1234567890;actions=create', /contains create or list action in a format that does not allow these/],
    [FORMATS, 'type=host-catalog;actions=read', /contains non-create or non-list action in a format that only allows these/],
    [FORMATS, 'type=host-set;actions=create,list', /would not result in any action being authorized/],
    [PARSE, 'ids=*;actions=read', /contains wildcard id and no specified type/],
    [PARSE, 'type=*;actions=read', /contains wildcard type with no id value/],
    [PARSE, 'ids=ttcp_1234567890;type=host-set;actions=read', /contains type host-set that is not a child type of the type \(target\) of the specified id/],
    [PARSE, 'ids=ttcp_1234567890;type=*;actions=read', /contains an id that does not support child types/],
    [PARSE, 'ids=*,ttcp_1234567890;type=target;actions=read', /contains both wildcard and non-wildcard values in "ids" field/],
    [PARSE, 'ids=ttcp_1234567890,hcst_1234567890;actions=read', /contains ids of differently-typed resources/],
    [PARSE, 'id=ttcp_1;ids=ttcp_2;actions=read', /contains both "id" and "ids" fields/],
    [PARSE, 'ids=*;type=widget;actions=read', /unknown type specifier "widget"$/],
    [PARSE, 'ids=*;type=target;actions=fly', /unknown action "fly"$/],
    [PARSE, 'ids=*;type=target;actions=*,read', /"\*" cannot be specified with other actions$/],
    [PARSE, 'ids=*;type=target', /missing actions$/],
    [PARSE, 'ids={{group.id}};actions=read', /unknown template "\{\{group.id\}\}" in grant "ids" value$/],
    [PARSE, 'ids=*;type=target;actions', /wrong number of equal signs/],
    [PARSE, 'ids=*;type=;actions=read', /missing value/],
    [PARSE, 'zz_1234567890;actions=read', /wrong number of equal signs/],
    [PARSE, 'ids=zz_1234567890;actions=read', /contains an id "zz_1234567890" of an unknown resource type/],
    [PARSE, '', /missing grant string$/],
  ];
  for (const [source, grant, error] of invalid) {
    it(`refuses ${JSON.stringify(grant)} (${source})`, () => assert.throws(() => parseGrant(grant), error));
  }
});

/** Scope tree: global → o_1 → p_1, global → o_2 → p_2. */
const PARENT: Record<string, string | undefined> = { global: undefined, o_1: 'global', p_1: 'o_1', o_2: 'global', p_2: 'o_2' };
const parentOf = (s: string) => PARENT[s];

const role = (scopeId: string, grantScopeIds: string[], grants: string[], principalIds = ['u_alice']): AclRole => ({
  id: `r_${scopeId}`,
  scopeId,
  principalIds,
  grantScopeIds,
  grants: grants.map(parseGrant),
});
const res = (type: ResourceType, id: string, scopeId: string, pin?: string): AclResource => ({ type, id, scopeId, pin });

interface EvalCase {
  readonly source: string;
  readonly what: string;
  readonly roles: AclRole[];
  readonly user?: { userId: string; accountId?: string; groupIds?: string[] };
  readonly checks: Array<[AclResource, string, boolean]>;
}

const cases: EvalCase[] = [
  {
    source: FORMATS,
    what: 'id only: read and update on that one resource',
    roles: [role('p_1', ['this'], ['ids=hsst_1234567890;actions=read,update'])],
    checks: [
      [res('host-set', 'hsst_1234567890', 'p_1', 'hcst_1'), 'read', true],
      [res('host-set', 'hsst_1234567890', 'p_1', 'hcst_1'), 'update', true],
      [res('host-set', 'hsst_1234567890', 'p_1', 'hcst_1'), 'delete', false],
      [res('host-set', 'hsst_0000000000', 'p_1', 'hcst_1'), 'read', false],
    ],
  },
  {
    source: FORMATS,
    what: 'type only: create and list on the collection, not on its members',
    roles: [role('p_1', ['this'], ['type=host-catalog;actions=create,list'])],
    checks: [
      [res('host-catalog', '', 'p_1'), 'create', true],
      [res('host-catalog', '', 'p_1'), 'list', true],
      [res('host-catalog', 'hcst_1234567890', 'p_1'), 'read', false],
      [res('target', '', 'p_1'), 'list', false],
    ],
  },
  {
    source: FORMATS,
    what: 'pinned id: host sets inside one catalog',
    roles: [role('p_1', ['this'], ['ids=hcst_1234567890;type=host-set;actions=create,read,update'])],
    checks: [
      [res('host-set', 'hsst_1', 'p_1', 'hcst_1234567890'), 'read', true],
      [res('host-set', '', 'p_1', 'hcst_1234567890'), 'create', true],
      [res('host-set', 'hsst_1', 'p_1', 'hcst_0000000000'), 'read', false],
      [res('host', 'hst_1', 'p_1', 'hcst_1234567890'), 'read', false],
    ],
  },
  {
    source: FORMATS,
    what: 'pinned id with type=*: every contained type',
    roles: [role('p_1', ['this'], ['ids=hcst_1234567890;type=*;actions=read,update'])],
    checks: [
      [res('host-set', 'hsst_1', 'p_1', 'hcst_1234567890'), 'read', true],
      [res('host', 'hst_1', 'p_1', 'hcst_1234567890'), 'update', true],
      [res('host', 'hst_1', 'p_1', 'hcst_1234567890'), 'delete', false],
    ],
  },
  {
    source: PERMS,
    what: 'wildcard id and type: targets, and authorize-session only where granted',
    roles: [role('p_1', ['this'], ['ids=*;type=target;actions=read,authorize-session'])],
    checks: [
      [res('target', 'ttcp_1', 'p_1'), 'authorize-session', true],
      [res('target', 'ttcp_1', 'p_1'), 'delete', false],
      [res('target', 'ttcp_2', 'p_2'), 'authorize-session', false],
      [res('host-catalog', 'hcst_1', 'p_1'), 'read', false],
    ],
  },
  {
    source: PERMS,
    what: 'ids=*;type=*;actions=* allows everything in its scope, nothing elsewhere',
    roles: [role('o_1', ['this'], ['ids=*;type=*;actions=*'])],
    checks: [
      [res('role', 'r_1', 'o_1'), 'set-grants', true],
      [res('user', '', 'o_1'), 'create', true],
      [res('role', 'r_1', 'p_1'), 'read', false],
      [res('role', 'r_1', 'o_2'), 'read', false],
    ],
  },
  {
    source: GRANT_SCOPES,
    what: 'grant scope children: the direct children of the role scope only',
    roles: [role('global', ['children'], ['ids=*;type=*;actions=read'])],
    checks: [
      [res('role', 'r_1', 'o_1'), 'read', true],
      [res('role', 'r_1', 'o_2'), 'read', true],
      [res('role', 'r_1', 'p_1'), 'read', false],
      [res('role', 'r_1', 'global'), 'read', false],
    ],
  },
  {
    source: GRANT_SCOPES,
    what: 'grant scope descendants: every scope below global',
    roles: [role('global', ['descendants'], ['ids=*;type=target;actions=read'])],
    checks: [
      [res('target', 'ttcp_1', 'p_1'), 'read', true],
      [res('target', 'ttcp_1', 'p_2'), 'read', true],
      [res('target', 'ttcp_1', 'global'), 'read', false],
    ],
  },
  {
    source: GRANT_SCOPES,
    what: 'grant scopes this plus a named child scope',
    roles: [role('o_1', ['this', 'p_1'], ['ids=*;type=group;actions=read'])],
    checks: [
      [res('group', 'g_1', 'o_1'), 'read', true],
      [res('group', 'g_1', 'p_1'), 'read', true],
      [res('group', 'g_1', 'p_2'), 'read', false],
    ],
  },
  {
    source: PERMS,
    what: 'principals: u_anon for everyone (limited to listing scopes and authenticating), u_auth for logged-in users, groups',
    roles: [
      role('global', ['this'], ['ids=*;type=auth-method;actions=authenticate,list,delete'], ['u_anon']),
      role('o_1', ['this'], ['ids=*;type=group;actions=read'], ['u_auth']),
      role('o_2', ['this'], ['ids=*;type=group;actions=read'], ['g_devs']),
    ],
    user: { userId: 'u_bob', groupIds: ['g_devs'] },
    checks: [
      [res('auth-method', 'ampw_1', 'global'), 'authenticate', true],
      [res('auth-method', 'ampw_1', 'global'), 'delete', true],
      [res('group', 'g_1', 'o_1'), 'read', true],
      [res('group', 'g_1', 'o_2'), 'read', true],
    ],
  },
  {
    source: PERMS,
    what: 'the anonymous user gets only list and authenticate, whatever the role says',
    roles: [role('global', ['this'], ['ids=*;type=auth-method;actions=authenticate,list,delete', 'ids=*;type=group;actions=read'], ['u_anon'])],
    user: { userId: 'u_anon' },
    checks: [
      [res('auth-method', 'ampw_1', 'global'), 'authenticate', true],
      [res('auth-method', '', 'global'), 'list', true],
      [res('auth-method', 'ampw_1', 'global'), 'delete', false],
      [res('group', 'g_1', 'global'), 'read', false],
    ],
  },
  {
    source: FORMATS,
    what: "templates: {{.Account.Id}} and {{user.id}} name the caller's own account and user",
    roles: [role('global', ['this'], ['ids={{.Account.Id}};actions=read,change-password', 'ids={{user.id}};actions=read'])],
    user: { userId: 'u_alice', accountId: 'acctpw_alice' },
    checks: [
      [res('account', 'acctpw_alice', 'global', 'ampw_1'), 'change-password', true],
      [res('account', 'acctpw_other', 'global', 'ampw_1'), 'change-password', false],
      [res('user', 'u_alice', 'global'), 'read', true],
      [res('user', 'u_other', 'global'), 'read', false],
    ],
  },
  {
    source: PERMS,
    what: 'a role whose principals do not include the user gives nothing',
    roles: [role('global', ['this'], ['ids=*;type=*;actions=*'], ['u_admin'])],
    checks: [[res('scope', 'o_1', 'global'), 'read', false]],
  },
];

describe('grant evaluation', () => {
  for (const c of cases) {
    it(`${c.what} (${c.source})`, () => {
      const acl = new Acl({ userId: c.user?.userId ?? 'u_alice', accountId: c.user?.accountId, groupIds: c.user?.groupIds ?? [] }, c.roles, parentOf);
      for (const [r, action, want] of c.checks) {
        assert.equal(acl.allowed(r, action).authorized, want, `${action} on ${r.type} "${r.id}" in ${r.scopeId}${r.pin ? ` (pin ${r.pin})` : ''}`);
      }
    });
  }

  it(`<action>:self allows the action only on the caller's own resources (${FORMATS})`, () => {
    const acl = new Acl(
      { userId: 'u_alice', groupIds: [] },
      [role('global', ['this'], ['ids=*;type=auth-token;actions=list,read:self,delete:self'])],
      parentOf,
    );
    assert.deepEqual(acl.allowed(res('auth-token', 'at_1', 'global'), 'read'), { authorized: true, onlySelf: true });
    assert.deepEqual(acl.allowed(res('auth-token', '', 'global'), 'list'), { authorized: true, onlySelf: false });
    assert.equal(acl.allowed(res('auth-token', 'at_1', 'global'), 'update').authorized, false);
  });

  it(`output_fields of the matching grants are united; none set means every field (${FORMATS})`, () => {
    const acl = new Acl(
      { userId: 'u_alice', groupIds: [] },
      [
        role(
          'p_1',
          ['this'],
          ['ids=*;type=host-catalog;actions=read', 'ids=*;type=host-catalog;output_fields=id,name', 'ids=*;type=host-catalog;output_fields=scope_id'],
        ),
      ],
      parentOf,
    );
    assert.deepEqual([...acl.outputFields(res('host-catalog', 'hcst_1', 'p_1'))!].sort(), ['id', 'name', 'scope_id']);
    const open = new Acl({ userId: 'u_alice', groupIds: [] }, [role('p_1', ['this'], ['ids=*;type=host-catalog;actions=read'])], parentOf);
    assert.equal(open.outputFields(res('host-catalog', 'hcst_1', 'p_1')), undefined);
  });
});
