/**
 * Making and showing scheduler ACL tokens (reference/sched.md §2.5 "ACLToken"): one builder
 * for every way a token is made (bootstrap, `POST /v1/acl/token`, login), so Hash, times
 * and expiry are set the same way everywhere; the read and stub shapes, and the role links
 * as they stand when a token is shown.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { StateStore } from '../../kernel/store/index.js';
import { formatTime } from '../../kernel/util/duration.js';
import { formatGoDuration } from '../../kernel/util/go-duration.js';
import { contentHash } from './auth/stamp.js';
import { T, type RoleDoc, type RoleLink, type TokenDoc } from './state.js';

/** What a caller decides about a new token. */
export interface TokenSpec {
  readonly Name: string;
  readonly Type: 'client' | 'management';
  readonly Policies?: readonly string[];
  readonly Roles?: readonly RoleLink[];
  readonly Global?: boolean;
  /** Lifetime in ns; 0 or absent = never expires. */
  readonly ttlNs?: number;
  /** Given secret (bootstrap with a chosen secret, `cairn dev`); default a random UUID. */
  readonly SecretID?: string;
  readonly AccessorID?: string;
}

/**
 * A new token document: random accessor and secret unless given, `CreateTime` = `nowMs`,
 * `ExpirationTime` = `CreateTime` + TTL (spec 002 "MaxTokenTTL"), `Hash` over what the
 * token grants.
 */
export function makeToken(spec: TokenSpec, nowMs: number): TokenDoc {
  const ttlNs = spec.ttlNs ?? 0;
  const token: Omit<TokenDoc, 'Hash'> = {
    AccessorID: spec.AccessorID ?? randomUUID(),
    SecretID: spec.SecretID ?? randomUUID(),
    Name: spec.Name,
    Type: spec.Type,
    Policies: spec.Policies ?? [],
    Roles: spec.Roles ?? [],
    Global: spec.Global ?? false,
    CreateTime: formatTime(new Date(nowMs)),
    ...(ttlNs > 0 ? { ExpirationTime: formatTime(new Date(nowMs + ttlNs / 1e6)), ExpirationTTL: formatGoDuration(ttlNs) } : {}),
  };
  return { ...token, Hash: tokenHash(token) };
}

/** The token's Hash: base64 blake2b-256 over the fields that say what it grants. */
export function tokenHash(t: Pick<TokenDoc, 'Name' | 'Type' | 'Policies' | 'Roles' | 'Global' | 'ExpirationTime'>): string {
  return contentHash([t.Name, t.Type, t.Policies, t.Roles.map((r) => r.ID), t.Global, t.ExpirationTime ?? null]);
}

/**
 * A token as the API shows it (reference/sched.md §2.5): `SecretID` only when `withSecret`
 * (its creator, a management caller or the token itself), else `""`; `ExpirationTime` and
 * `ExpirationTTL` null/`""`-free as the reference omits them when unset.
 */
export function renderToken(t: TokenDoc & { CreateIndex: number; ModifyIndex: number }, withSecret: boolean): Record<string, unknown> {
  return {
    AccessorID: t.AccessorID,
    SecretID: withSecret ? t.SecretID : '',
    Name: t.Name,
    Type: t.Type,
    Policies: t.Policies.length ? t.Policies : null,
    Roles: t.Roles.length ? t.Roles : null,
    Global: t.Global,
    Hash: t.Hash,
    CreateTime: t.CreateTime,
    ExpirationTime: t.ExpirationTime ?? null,
    ExpirationTTL: t.ExpirationTTL ?? '',
    CreateIndex: t.CreateIndex,
    ModifyIndex: t.ModifyIndex,
  };
}

/** The list item of `GET /v1/acl/tokens` (the reference's ACLTokenListStub: no SecretID). */
export function tokenStub(t: TokenDoc & { CreateIndex: number; ModifyIndex: number }): Record<string, unknown> {
  const { SecretID: _secret, ...rest } = renderToken(t, false);
  return rest;
}

/**
 * The token with its role links as they are now: links to deleted roles dropped, names
 * current (the reference's `fixTokenRoleLinks`).
 */
export function withLiveRoles<D extends TokenDoc>(state: StateStore, t: D): D {
  const roles = t.Roles.flatMap((l) => {
    const role = state.get<RoleDoc>(T.roles, l.ID);
    return role ? [{ ID: l.ID, Name: role.Name }] : [];
  });
  return { ...t, Roles: roles };
}
