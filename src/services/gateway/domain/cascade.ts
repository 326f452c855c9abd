/**
 * What a delete takes with it, as the reference's foreign keys do: a scope its child
 * scopes and everything in them; an auth method its accounts; an account its place in
 * its user and its auth tokens; a user its memberships, its principal entries and its
 * tokens; a group its principal entries; a host catalog its hosts and host sets; a host
 * its place in host sets; a host set its place in targets' host sources; a credential
 * store its libraries or credentials, and their place in targets' brokered sources.
 * Documents that lose a reference get a new `version`.
 *
 * @module
 */
import type { Txn } from '../../../kernel/store/index.js';
import {
  T,
  type AccountDoc,
  type AuthMethodDoc,
  type AuthTokenDoc,
  type BaseDoc,
  type CredentialDoc,
  type CredentialLibraryDoc,
  type CredentialStoreDoc,
  type GroupDoc,
  type HostCatalogDoc,
  type HostDoc,
  type HostSetDoc,
  type RoleDoc,
  type ScopeDoc,
  type TargetDoc,
  type UserDoc,
} from './docs.js';

/** A list field of the documents of one table: `field` of every document of `table`. */
export interface LinkList<D extends BaseDoc> {
  /** The table's name (`T.roles`, …). */
  readonly table: string;
  /** The field holding a list of ids (`principal_ids`, …). */
  readonly field: keyof D & string;
}

/**
 * Rewrites every document of `link.table` whose list `link.field` holds `id`, without it
 * (a new `version`, `updated_time` = `now`, an ISO time).
 */
export function unlink<D extends BaseDoc>(tx: Txn, { table, field }: LinkList<D>, id: string, now: string): void {
  for (const doc of tx.list<D>(table)) {
    const list = doc[field] as unknown as readonly string[];
    if (!list.includes(id)) continue;
    const { CreateIndex: _c, ModifyIndex: _m, ...rest } = doc;
    tx.put(table, doc.id, { ...rest, [field]: list.filter((x) => x !== id), version: doc.version + 1, updated_time: now });
  }
}

function deleteTokens(tx: Txn, match: (t: AuthTokenDoc) => boolean): void {
  for (const t of tx.list<AuthTokenDoc>(T.authTokens)) if (match(t)) tx.delete(T.authTokens, t.id);
}

/** Deletes account `id`, unlinks it from its user, deletes its tokens. */
export function deleteAccount(tx: Txn, id: string, now: string): void {
  tx.delete(T.accounts, id);
  unlink<UserDoc>(tx, { table: T.users, field: 'account_ids' }, id, now);
  deleteTokens(tx, (t) => t.account_id === id);
}

/** Deletes auth method `id` and its accounts. */
export function deleteAuthMethod(tx: Txn, id: string, now: string): void {
  tx.delete(T.authMethods, id);
  for (const a of tx.list<AccountDoc>(T.accounts)) if (a.auth_method_id === id) deleteAccount(tx, a.id, now);
}

/** Deletes user `id`, its group memberships, its principal entries and its tokens. */
export function deleteUser(tx: Txn, id: string, now: string): void {
  tx.delete(T.users, id);
  unlink<GroupDoc>(tx, { table: T.groups, field: 'member_ids' }, id, now);
  unlink<RoleDoc>(tx, { table: T.roles, field: 'principal_ids' }, id, now);
  deleteTokens(tx, (t) => t.user_id === id);
}

/** Deletes group `id` and its principal entries. */
export function deleteGroup(tx: Txn, id: string, now: string): void {
  tx.delete(T.groups, id);
  unlink<RoleDoc>(tx, { table: T.roles, field: 'principal_ids' }, id, now);
}

/** Deletes scope `id`, the scopes below it and everything in them. */
export function deleteScope(tx: Txn, id: string, now: string): void {
  const doomed = [id];
  const scopes = tx.list<ScopeDoc>(T.scopes);
  for (let i = 0; i < doomed.length; i++) for (const s of scopes) if (s.scope_id === doomed[i]) doomed.push(s.id);
  const inDoomed = (d: { scope_id?: string }) => d.scope_id !== undefined && doomed.includes(d.scope_id);
  for (const am of tx.list<AuthMethodDoc>(T.authMethods)) if (inDoomed(am)) deleteAuthMethod(tx, am.id, now);
  for (const u of tx.list<UserDoc>(T.users)) if (inDoomed(u)) deleteUser(tx, u.id, now);
  for (const g of tx.list<GroupDoc>(T.groups)) if (inDoomed(g)) deleteGroup(tx, g.id, now);
  for (const r of tx.list<RoleDoc>(T.roles)) if (inDoomed(r)) tx.delete(T.roles, r.id);
  for (const c of tx.list<HostCatalogDoc>(T.hostCatalogs)) if (inDoomed(c)) deleteHostCatalog(tx, c.id, now);
  for (const t of tx.list<TargetDoc>(T.targets)) if (inDoomed(t)) tx.delete(T.targets, t.id);
  deleteCredentialStores(tx, inDoomed, now);
  deleteTokens(tx, inDoomed);
  for (const s of doomed) tx.delete(T.scopes, s);
  // Roles elsewhere that named a deleted scope as a grant scope lose it.
  for (const r of tx.list<RoleDoc>(T.roles))
    for (const s of doomed) if (r.grant_scope_ids.includes(s)) unlink<RoleDoc>(tx, { table: T.roles, field: 'grant_scope_ids' }, s, now);
}

/** Deletes host set `id` and removes it from the host sources of targets. */
export function deleteHostSet(tx: Txn, id: string, now: string): void {
  tx.delete(T.hostSets, id);
  unlink<TargetDoc>(tx, { table: T.targets, field: 'host_source_ids' }, id, now);
}

/** Deletes host `id` and removes it from the host sets holding it. */
export function deleteHost(tx: Txn, id: string, now: string): void {
  tx.delete(T.hosts, id);
  unlink<HostSetDoc>(tx, { table: T.hostSets, field: 'host_ids' }, id, now);
}

/** Deletes host catalog `id`, its hosts and its host sets (and those sets' places in targets). */
export function deleteHostCatalog(tx: Txn, id: string, now: string): void {
  tx.delete(T.hostCatalogs, id);
  for (const s of tx.list<HostSetDoc>(T.hostSets)) if (s.host_catalog_id === id) deleteHostSet(tx, s.id, now);
  for (const h of tx.list<HostDoc>(T.hosts)) if (h.host_catalog_id === id) tx.delete(T.hosts, h.id);
}

/** Deletes store `storeId`'s libraries and credentials and unlinks them from targets (inside the deleting transaction). */
export function deleteStoreContents(tx: Txn, storeId: string, now: string): void {
  for (const table of [T.credentialLibraries, T.credentials]) {
    for (const c of tx.list<CredentialLibraryDoc | CredentialDoc>(table)) {
      if (c.credential_store_id !== storeId) continue;
      tx.delete(table, c.id);
      unlink<TargetDoc>(tx, { table: T.targets, field: 'brokered_credential_source_ids' }, c.id, now);
    }
  }
}

/** Deletes every credential store of the scopes `inScope` accepts, with what they hold (a scope's delete). */
function deleteCredentialStores(tx: Txn, inScope: (doc: BaseDoc) => boolean, now: string): void {
  for (const s of tx.list<CredentialStoreDoc>(T.credentialStores)) {
    if (!inScope(s)) continue;
    tx.delete(T.credentialStores, s.id);
    deleteStoreContents(tx, s.id, now);
  }
}
