/**
 * Grant evaluation (reference: Boundary's permissions model,
 * https://developer.hashicorp.com/boundary/docs/concepts/security/permissions, and its
 * `internal/perms/acl.go`): which grants apply to a request, and whether they allow an
 * action on a resource.
 *
 * - A role applies to a user when one of its principals is the user, a group the user is a
 *   member of, `u_anon` (everyone), or `u_auth` (everyone with a valid token).
 * - A role's grants take effect in its grant scopes: `this` (the role's own scope),
 *   `children` (the direct children of the role's scope; global and org roles),
 *   `descendants` (every scope below global; global roles), or a scope id.
 * - A grant matches a resource in one of four ways (acl.go's cases): its id
 *   (`ids=ttcp_1;actions=read`, not for create/list); its pin, for a contained type
 *   (`ids=hcst_1;type=host-set;actions=read`); its collection, for create and list on a
 *   top-level type (`type=target;actions=create,list`); a wildcard id with the resource's
 *   type or `*` (`ids=*;type=target;actions=read`).
 * - An action is allowed by the grant naming it or `*`; `<action>:self` allows it on the
 *   caller's own resources only (auth tokens).
 * - The anonymous user (no token) is limited to listing scopes and listing and
 *   authenticating to auth methods, whatever roles say (the reference's anonymous
 *   restrictions).
 * - `output_fields` of the matching grants are united; none set means every field.
 *
 * Resources the later issues add (targets, host catalogs, sessions, credential stores)
 * evaluate the same way: a {@link AclResource} with their scope and, for contained types,
 * their pin.
 *
 * @module
 */
import { ANON_USER, AUTH_USER, type ResourceType } from './ids.js';
import { isTopLevel, type Grant } from './grants.js';

/** What a request acts on: `id` empty for a collection (create, list). */
export interface AclResource {
  readonly id: string;
  readonly type: ResourceType;
  /** The scope the resource (or collection) is in. */
  readonly scopeId: string;
  /** For contained types (accounts, host sets, …): the id of the containing resource. */
  readonly pin?: string;
}

/** A role reduced to what evaluation needs. */
export interface AclRole {
  readonly id: string;
  readonly scopeId: string;
  readonly principalIds: readonly string[];
  readonly grantScopeIds: readonly string[];
  readonly grants: readonly Grant[];
}

/** Who asks. */
export interface AclPrincipal {
  /** `u_anon` without a token, else the token's user (or `u_recovery`). */
  readonly userId: string;
  readonly accountId?: string;
  /** Groups the user is a member of. */
  readonly groupIds: readonly string[];
}

/** The outcome of {@link Acl.allowed}. */
export interface AclResult {
  readonly authorized: boolean;
  /** Authorized only through `<action>:self`: the caller must own the resource. */
  readonly onlySelf: boolean;
}

interface Entry {
  readonly grant: Grant;
  /** The grant's ids with templates substituted. */
  readonly ids: readonly string[];
  readonly inScope: (scopeId: string) => boolean;
}

const ANON_ALLOWED: Readonly<Partial<Record<ResourceType, readonly string[]>>> = {
  scope: ['list', 'no-op'],
  'auth-method': ['list', 'authenticate'],
};

/** Whether role `r` applies to `p`. */
function roleApplies(r: AclRole, p: AclPrincipal): boolean {
  return r.principalIds.some((id) => id === ANON_USER || id === p.userId || (id === AUTH_USER && p.userId !== ANON_USER) || p.groupIds.includes(id));
}

/** The grants in effect for one principal; see the module doc. */
export class Acl {
  private readonly entries: Entry[] = [];
  /** The recovery credential: every action everywhere (the reference's recovery KMS user). */
  private readonly all: boolean;

  /**
   * @param roles every role (those that do not apply to `principal` are skipped)
   * @param parentOf a scope's parent id (undefined for global and unknown scopes)
   * @param all true for the recovery credential
   */
  constructor(
    readonly principal: AclPrincipal,
    roles: readonly AclRole[],
    private readonly parentOf: (scopeId: string) => string | undefined,
    all = false,
  ) {
    this.all = all;
    for (const role of roles) {
      if (!roleApplies(role, principal)) continue;
      for (const gs of role.grantScopeIds) {
        const inScope = this.scopeTest(role.scopeId, gs);
        for (const grant of role.grants) {
          const ids = grant.ids.map((id) => substitute(id, principal));
          this.entries.push({ grant, ids, inScope });
        }
      }
    }
  }

  private scopeTest(roleScope: string, grantScope: string): (s: string) => boolean {
    if (grantScope === 'this') return (s) => s === roleScope;
    if (grantScope === 'children') return (s) => s !== roleScope && this.parentOf(s) === roleScope;
    if (grantScope === 'descendants') {
      return (s) => {
        for (let p = this.parentOf(s); p !== undefined; p = this.parentOf(p)) if (p === roleScope) return true;
        return false;
      };
    }
    return (s) => s === grantScope;
  }

  /** Whether `action` is allowed on `r` (see the module doc). */
  allowed(r: AclResource, action: string): AclResult {
    if (this.all) return { authorized: true, onlySelf: false };
    if (this.principal.userId === ANON_USER && !(ANON_ALLOWED[r.type] ?? []).includes(action)) return { authorized: false, onlySelf: false };
    let self = false;
    for (const e of this.entries) {
      if (!e.inScope(r.scopeId) || !matches(e, r, action)) continue;
      const acts = e.grant.actions;
      if (acts.has('*') || acts.has(action)) return { authorized: true, onlySelf: false };
      if (acts.has(`${action}:self`)) self = true;
    }
    return { authorized: self, onlySelf: self };
  }

  /** The output fields the grants matching `r` allow; undefined: every field. */
  outputFields(r: AclResource): ReadonlySet<string> | undefined {
    if (this.all) return undefined;
    let fields: Set<string> | undefined;
    for (const e of this.entries) {
      if (!e.grant.outputFields || !e.inScope(r.scopeId) || !matches(e, r, undefined)) continue;
      if (e.grant.outputFields.includes('*')) return undefined;
      fields ??= new Set();
      for (const f of e.grant.outputFields) fields.add(f);
    }
    return fields;
  }
}

function substitute(id: string, p: AclPrincipal): string {
  if (!id.startsWith('{{')) return id;
  const name = id.replace(/^\{\{/, '').replace(/\}\}$/, '').trim();
  if (name === 'user.id' || name === '.User.Id') return p.userId;
  // No account (recovery, anonymous): the template stays, and no resource id matches it.
  return p.accountId ?? id;
}

/** acl.go's four cases; `action` undefined matches regardless of the collection rule (output fields). */
function matches(e: Entry, r: AclResource, action: string | undefined): boolean {
  const t = e.grant.type;
  const collectionAction = action === 'create' || action === 'list';
  for (const id of e.ids.length > 0 ? e.ids : ['']) {
    if (id !== '' && id !== '*' && id === r.id && !collectionAction) return true;
    if (id !== '' && id === r.pin && t !== undefined && (t === r.type || t === '*') && !isTopLevel(r.type)) return true;
    if (id === '' && r.id === '' && t === r.type && isTopLevel(r.type) && (action === undefined || collectionAction)) return true;
    if (id === '*' && (t === '*' || t === r.type)) return true;
  }
  return false;
}
