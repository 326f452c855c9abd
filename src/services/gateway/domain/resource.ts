/**
 * What every resource kind shares: where the ACL looks for it (its scope, and its pin for
 * contained types), the grant an action on it needs, and its API view (internal fields removed,
 * `scope` and `authorized_actions` added, `output_fields` applied), as the reference's
 * resources show them.
 *
 * @module
 */
import type { AclResource } from './acl.js';
import type { BaseDoc, ScopeDoc } from './docs.js';
import type { Grant } from '../route.js';
import type { Caller, GatewayDomain } from './domain.js';
import type { ResourceType } from './ids.js';

/** One kind of resource. */
export interface Kind<D> {
  readonly type: ResourceType;
  readonly table: string;
  /** Actions on one resource (the reference's `IdActions`), in the order `authorized_actions` lists them. */
  readonly idActions: readonly string[];
  /** The scope the resource is authorised in, and its pin (contained types). */
  where(d: GatewayDomain, doc: D): { readonly scopeId: string; readonly pin?: string };
  /** The user a resource belongs to, for `<action>:self` grants (auth tokens). */
  ownerOf?(doc: D): string;
}

/** Fields that never leave the controller. */
const INTERNAL = new Set(['CreateIndex', 'ModifyIndex', 'password_hash', 'token_hash', 'vault_token', 'secret', 'secrets']);

/** The ACL resource of `doc`. */
function aclResourceOf<D>(d: GatewayDomain, kind: Kind<D>, doc: D & { id: string }): AclResource {
  const w = kind.where(d, doc);
  return { id: doc.id, type: kind.type, scopeId: w.scopeId, pin: w.pin };
}

/** Whether `caller` may do `action` on `r` (a `:self` grant only on what `ownerId` says is theirs). */
export function may(caller: Caller, r: AclResource, action: string, ownerId?: string): boolean {
  const res = caller.acl.allowed(r, action);
  const selfOnly = res.onlySelf || action.endsWith(':self');
  return res.authorized && (!selfOnly || (ownerId !== undefined && ownerId === caller.userId));
}

/** The grant `action` on `doc` needs (its ACL resource, and its owner for `:self` grants): an access rule of route.ts. */
export function grantOn<D>(d: GatewayDomain, kind: Kind<D>, doc: D & { id: string }, action: string): Grant {
  return { resource: aclResourceOf(d, kind, doc), action, owner: kind.ownerOf?.(doc) };
}

/** The `scope` object of an item (the reference's `ScopeInfo`). */
export function scopeInfo(d: GatewayDomain, scopeId: string): Record<string, unknown> | undefined {
  const s: ScopeDoc | undefined = d.scope(scopeId);
  if (!s) return undefined;
  return { id: s.id, type: s.type, name: s.name, description: s.description, parent_scope_id: s.scope_id };
}

/** One item to show: a document, its kind, and fields added to its view. */
export interface ViewedItem<D extends BaseDoc> {
  /** The resource kind `doc` is of (its ACL resource, owner and id actions). */
  readonly kind: Kind<D>;
  /** The stored document. */
  readonly doc: D;
  /** Fields set on the view after the stored ones (e.g. a target's host sources); default none. */
  readonly extra?: Record<string, unknown> | undefined;
}

/**
 * The API view of `item.doc` for `caller`: stored fields minus internal ones, `scope`,
 * `item.extra`, and `authorized_actions` (the id actions the caller may do); only the
 * granted `output_fields` when grants restrict them.
 */
export function view<D extends BaseDoc>(d: GatewayDomain, caller: Caller, { kind, doc, extra = {} }: ViewedItem<D>): Record<string, unknown> {
  const r = aclResourceOf(d, kind, doc);
  const owner = kind.ownerOf?.(doc);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(doc)) if (!INTERNAL.has(k)) out[k] = v;
  if (doc.scope_id) out.scope = scopeInfo(d, doc.scope_id);
  Object.assign(out, extra);
  out.authorized_actions = kind.idActions.filter((a) => may(caller, r, a, owner));
  const fields = caller.acl.outputFields(r);
  if (!fields) return out;
  return Object.fromEntries(Object.entries(out).filter(([k]) => fields.has(k)));
}
