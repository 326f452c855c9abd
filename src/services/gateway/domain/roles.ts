/**
 * Roles (reference: https://developer.hashicorp.com/boundary/docs/concepts/domain-model/roles):
 * in any scope; principals (users, groups, `u_anon`, `u_auth`) through
 * `:add-principals`/`:set-principals`/`:remove-principals`; grant strings (grants.ts)
 * through `:add-grants`/`:set-grants`/`:remove-grants`, each checked when given; grant
 * scopes (`this`, `children` from global or an org, `descendants` from global, or a scope
 * below the role's) through `:add-grant-scopes`/`:set-grant-scopes`/`:remove-grant-scopes`,
 * `this` by default (the deprecated single `grant_scope_id` of create and update is
 * taken too). A role item shows its grants parsed (`grants`: `raw`, `canonical`,
 * `json`), as the reference does.
 *
 * @module
 */
import type { CollectionSpec } from './collection.js';
import { T, type GroupDoc, type RoleDoc, type UserDoc } from './docs.js';
import type { GatewayDomain } from './domain.js';
import { parseGrant } from './grants.js';
import type { Input } from './input.js';
import { ANON_USER, AUTH_USER, newId, PREFIX } from './ids.js';
import { inScope } from './principals.js';
import type { Kind } from './resource.js';

/** Roles: in any scope, with their custom actions on principals, grants and grant scopes. */
const roleKind: Kind<RoleDoc> = {
  type: 'role',
  table: T.roles,
  idActions: [
    'no-op',
    'read',
    'update',
    'delete',
    'add-principals',
    'set-principals',
    'remove-principals',
    'add-grants',
    'set-grants',
    'remove-grants',
    'add-grant-scopes',
    'set-grant-scopes',
    'remove-grant-scopes',
  ],
  where: (_d, r) => ({ scopeId: r.scope_id! }),
};

type How = 'add' | 'set' | 'remove';

/** `current` changed by `how` with the values of `field`; each value checked by `problem`. */
function change(
  input: Input,
  field: string,
  { current, how, problem }: { current: readonly string[]; how: How; problem: (v: string) => string | undefined },
): string[] {
  const values = input.strings(field, { required: how !== 'set' }) ?? [];
  if (how !== 'remove') {
    const bad = values.map(problem).find((p) => p !== undefined);
    if (bad) input.fail(field, bad);
  }
  if (how === 'set') return [...new Set(values)];
  if (how === 'remove') return current.filter((x) => !values.includes(x));
  return [...new Set([...current, ...values])];
}

function principalProblem(d: GatewayDomain, id: string): string | undefined {
  if (id === ANON_USER || id === AUTH_USER) return undefined;
  if (d.state.get<UserDoc>(T.users, id) || d.state.get<GroupDoc>(T.groups, id)) return undefined;
  return `Principal "${id}" is not a user, a group, "${ANON_USER}" or "${AUTH_USER}".`;
}

function grantProblem(g: string): string | undefined {
  try {
    parseGrant(g);
    return undefined;
  } catch (err) {
    return `Error parsing grant string "${g}": ${(err as Error).message}`;
  }
}

/** Whether `scopeId` is a grant scope a role in `roleScope` may name (the reference's rules). */
function grantScopeProblem(d: GatewayDomain, role: RoleDoc, v: string): string | undefined {
  const own = d.scope(role.scope_id!)!;
  if (v === 'this') return undefined;
  if (v === 'children') return own.type === 'project' ? '"children" can only be used from the global scope or an org.' : undefined;
  if (v === 'descendants') return own.type === 'global' ? undefined : '"descendants" can only be used from the global scope.';
  const target = d.scope(v);
  if (!target) return `Scope "${v}" does not exist.`;
  if (v === own.id) return `Use "this" for the role's own scope.`;
  for (let p = target.scope_id; p !== undefined; p = d.scope(p)?.scope_id) if (p === own.id) return undefined;
  return `Scope "${v}" is not below the role's scope "${own.id}".`;
}

/**
 * The deprecated single `grant_scope_id` of create and update (the reference before grant
 * scopes became a list): the role's grant scopes become that one scope (`this` for the
 * role's own). Undefined when not given.
 */
function legacyGrantScope(d: GatewayDomain, input: Input, role: RoleDoc): string[] | undefined {
  const v = input.string('grant_scope_id', { nonEmpty: true });
  if (typeof v !== 'string') return undefined;
  const scope = v === role.scope_id ? 'this' : v;
  const problem = grantScopeProblem(d, role, scope);
  if (problem) input.fail('grant_scope_id', problem);
  return [scope];
}

const act =
  (field: 'principal_ids' | 'grant_strings' | 'grant_scope_ids', how: How) =>
  (d: GatewayDomain, input: Input, doc: RoleDoc): Partial<RoleDoc> => {
    const problem =
      field === 'principal_ids'
        ? (v: string) => principalProblem(d, v)
        : field === 'grant_strings'
          ? grantProblem
          : (v: string) => grantScopeProblem(d, doc, v);
    return { [field]: change(input, field, { current: doc[field], how, problem }) };
  };

/** The `grants` of a role item: each grant string raw, canonical and as JSON (unparseable ones left out). */
function grantsView(r: RoleDoc) {
  return r.grant_strings.flatMap((raw) => {
    try {
      const g = parseGrant(raw);
      const json: Record<string, unknown> = {};
      if (g.ids.length > 0) json.ids = g.ids;
      if (g.type) json.type = g.type;
      if (g.actions.size > 0) json.actions = [...g.actions].sort();
      if (g.outputFields) json.output_fields = g.outputFields;
      return [{ raw, canonical: g.canonical, json }];
    } catch {
      return [];
    }
  });
}

/** The `roles` collection: its routes are declared in routes.ts. */
export const roleCollection: CollectionSpec<RoleDoc> = {
  path: 'roles',
  kind: roleKind,
  parentField: 'scope_id',
  recursive: true,
  collection: (d, id) => inScope(d, 'role', id),
  inParent: (doc, id) => doc.scope_id === id,
  async create(d, input, parentId) {
    const draft: RoleDoc = {
      id: '',
      scope_id: parentId,
      principal_ids: [],
      grant_strings: [],
      grant_scope_ids: ['this'],
      created_time: '',
      updated_time: '',
      version: 0,
    };
    return { scope_id: parentId, principal_ids: [], grant_strings: [], grant_scope_ids: legacyGrantScope(d, input, draft) ?? ['this'] };
  },
  update: (d, input, doc) => {
    const scopes = legacyGrantScope(d, input, doc);
    return scopes ? { grant_scope_ids: scopes } : {};
  },
  newId: () => newId(PREFIX.role),
  extra: (_d, r) => ({ grants: grantsView(r) }),
  actions: {
    'add-principals': act('principal_ids', 'add'),
    'set-principals': act('principal_ids', 'set'),
    'remove-principals': act('principal_ids', 'remove'),
    'add-grants': act('grant_strings', 'add'),
    'set-grants': act('grant_strings', 'set'),
    'remove-grants': act('grant_strings', 'remove'),
    'add-grant-scopes': act('grant_scope_ids', 'add'),
    'set-grant-scopes': act('grant_scope_ids', 'set'),
    'remove-grant-scopes': act('grant_scope_ids', 'remove'),
  },
};
