/**
 * Creating and changing ACL tokens inside a state transaction (reference/mesh.md §6.3):
 * the checks of the reference's token writer, with its texts, as 400s. Shared by the
 * token endpoints, bootstrap and (later) login.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { badRequest } from '../../kernel/http/index.js';
import type { Indexed, Txn } from '../../kernel/store/index.js';
import { jsonGoDurationNs } from '../../kernel/util/go-duration.js';
import { isReservedId, tokenHash } from './acl/index.js';
import { nodeIdentities, policyLinks, roleLinks, serviceIdentities, UUID_RE } from './links.js';
import { DEFAULT_NAMESPACE } from './namespace.js';
import { nsField, nsOf, secretKey, T, type Link, type NodeIdentity, type ServiceIdentity, type TokenDoc } from './state.js';

/**
 * The token fields a client may send to create one (PUT /acl/token: the route declares its
 * body, so `Description` and `Local` come typed); the others are checked here with the
 * reference's texts.
 */
export interface TokenInput {
  readonly AccessorID?: unknown;
  readonly SecretID?: unknown;
  readonly Description?: string;
  readonly Policies?: unknown;
  readonly Roles?: unknown;
  readonly ServiceIdentities?: unknown;
  readonly NodeIdentities?: unknown;
  readonly Local?: boolean;
  readonly ExpirationTime?: unknown;
  readonly ExpirationTTL?: unknown;
  readonly AuthMethod?: unknown;
  /** Enterprise: level 1 of the namespace resolution (read by the routes, ns-scope.ts). */
  readonly Namespace?: unknown;
}

/** The token fields of an update (PUT /acl/token/:id): a `Local` of any kind must equal the token's (`Cannot toggle local mode…`). */
export type TokenUpdateInput = Omit<TokenInput, 'Local'> & { readonly Local?: unknown };

/** Shortest token lifetime: 1 minute, in ms (reference/mesh.md §9.1). */
export const MIN_TOKEN_TTL_MS = 60_000;

/** A new UUID outside the reserved prefix. */
export function newId(): string {
  for (;;) {
    const id = randomUUID();
    if (!isReservedId(id)) return id;
  }
}

/** The token with its `Hash` computed from its hashed fields (reference/mesh.md §6.2). */
export function withHash(t: Omit<TokenDoc, 'Hash'>): TokenDoc {
  const hash = tokenHash({
    description: t.Description,
    local: t.Local,
    policyIds: t.Policies.map((p) => p.ID),
    roleIds: t.Roles.map((r) => r.ID),
    serviceIdentities: t.ServiceIdentities.map((s) => ({ serviceName: s.ServiceName, datacenters: s.Datacenters })),
    nodeIdentities: t.NodeIdentities.map((n) => ({ nodeName: n.NodeName, datacenter: n.Datacenter })),
  });
  return { ...t, Hash: hash };
}

/** What a new token holds besides its input (login sets the auth method and expiry). */
export interface NewTokenOptions {
  readonly nowMs: number;
  /** Set by login only; a client-sent `AuthMethod` is refused. */
  readonly authMethod?: string;
  /** Lifetime in ms imposed by the caller (login: the method's `MaxTokenTTL`). */
  readonly ttlMs?: number;
  /** The token's namespace (links resolve in it); `default` when absent. */
  readonly namespace?: string;
}

/**
 * Creates a token from `input`. @throws 400 with the reference's texts: bad or reserved
 * UUIDs, IDs in use, unknown policies/roles, bad identities, bad expiry, `AuthMethod`.
 */
export function createToken(tx: Txn, input: TokenInput, options: NewTokenOptions): TokenDoc & Indexed {
  if (input.AuthMethod !== undefined && input.AuthMethod !== '' && options.authMethod === undefined) {
    throw badRequest('AuthMethod field is disallowed outside of login');
  }
  const accessor = idField(tx, input.AccessorID, 'AccessorID');
  const secret = idField(tx, input.SecretID, 'SecretID');
  const local = input.Local === true;
  const expiration = expirationOf(input, options);
  const ns = options.namespace ?? DEFAULT_NAMESPACE;
  const doc = withHash({
    ...nsField(ns),
    AccessorID: accessor,
    SecretID: secret,
    Description: input.Description ?? '',
    ...linksAndIdentities(tx, input, local, ns),
    Local: local,
    ...(options.authMethod !== undefined && { AuthMethod: options.authMethod }),
    ...(expiration !== undefined && { ExpirationTime: new Date(expiration).toISOString() }),
    CreateTime: new Date(options.nowMs).toISOString(),
  });
  return tx.put(T.tokens, accessor, doc);
}

/**
 * Replaces a token's description and links (reference/mesh.md §6.3 update): the secret,
 * locality, auth method and expiry cannot change. @throws 400 with the reference's texts.
 */
export function updateToken(tx: Txn, existing: TokenDoc, input: TokenUpdateInput): TokenDoc & Indexed {
  const id = existing.AccessorID;
  if (input.SecretID !== undefined && input.SecretID !== '' && input.SecretID !== existing.SecretID) {
    throw badRequest("Changing a token's SecretID is not permitted");
  }
  if (input.Local !== undefined && input.Local !== existing.Local) throw badRequest(`Cannot toggle local mode of ${id}`);
  if (input.AuthMethod !== undefined && input.AuthMethod !== '' && input.AuthMethod !== existing.AuthMethod)
    throw badRequest(`Cannot change AuthMethod of ${id}`);
  if (input.ExpirationTTL !== undefined && input.ExpirationTTL !== 0 && input.ExpirationTTL !== '') throw badRequest(`Cannot change expiration time of ${id}`);
  if (input.ExpirationTime !== undefined && input.ExpirationTime !== null) {
    const want = typeof input.ExpirationTime === 'string' ? Date.parse(input.ExpirationTime) : NaN;
    const have = existing.ExpirationTime === undefined ? NaN : Date.parse(existing.ExpirationTime);
    if (want !== have) throw badRequest(`Cannot change expiration time of ${id}`);
  }
  const { Hash: _old, ...rest } = existing;
  const doc = withHash({
    ...rest,
    Description: input.Description ?? '',
    ...linksAndIdentities(tx, input, existing.Local, nsOf(existing)),
  });
  return tx.put(T.tokens, id, doc);
}

function linksAndIdentities(tx: Txn, input: TokenUpdateInput, local: boolean, ns: string) {
  const identities: { ServiceIdentities: ServiceIdentity[]; NodeIdentities: NodeIdentity[] } = {
    ServiceIdentities: serviceIdentities(input.ServiceIdentities, 'token', local),
    NodeIdentities: nodeIdentities(input.NodeIdentities, 'token'),
  };
  const links: { Policies: Link[]; Roles: Link[] } = { Policies: policyLinks(tx, input.Policies, ns), Roles: roleLinks(tx, input.Roles, ns) };
  return { ...links, ...identities };
}

/** An optional client-chosen UUID, or a new one. */
function idField(tx: Txn, value: unknown, field: 'AccessorID' | 'SecretID'): string {
  if (value === undefined || value === null || value === '') return newId();
  if (typeof value !== 'string' || !UUID_RE.test(value)) throw badRequest(`Invalid Token: ${field} - not a valid UUID`);
  if (isReservedId(value)) throw badRequest(`Invalid Token: ${field} - UUIDs with the prefix "00000000-0000-0000-0000-0000000000" are reserved`);
  // Both spaces: an accessor may not equal any secret, nor the reverse.
  if (tx.get(T.tokens, value) || tx.getBy(T.tokens, 'secret', secretKey(value))) throw badRequest(`Invalid Token: ${field} is already in use`);
  return value;
}

/** The expiry in epoch ms, or undefined; checks the reference's rules. */
function expirationOf(input: TokenInput, options: NewTokenOptions): number | undefined {
  const hasTime = input.ExpirationTime !== undefined && input.ExpirationTime !== null && input.ExpirationTime !== '';
  const hasTtl = input.ExpirationTTL !== undefined && input.ExpirationTTL !== null && input.ExpirationTTL !== '' && input.ExpirationTTL !== 0;
  if (hasTime && hasTtl) throw badRequest('Token Expiration TTL and Expiration Time cannot both be set');
  if (options.ttlMs !== undefined) return options.ttlMs > 0 ? options.nowMs + options.ttlMs : undefined;
  if (hasTtl) {
    const raw = input.ExpirationTTL;
    // A string duration, or a number of nanoseconds (Go's time.Duration in JSON).
    const ns = typeof raw === 'number' || typeof raw === 'string' ? jsonGoDurationNs(raw) : undefined;
    if (typeof raw === 'number' && typeof ns === 'string') throw badRequest(`Token Expiration TTL: ${ns}`);
    if (typeof ns !== 'number') throw badRequest(`Token Expiration TTL '${String(raw)}' is not a duration`);
    const ms = ns / 1e6;
    if (ms <= 0) throw badRequest(`Token Expiration TTL '${String(raw)}' should be > 0`);
    if (ms < MIN_TOKEN_TTL_MS) throw badRequest(`ExpirationTime cannot be less than 1m0s in the future (was ${String(raw)})`);
    return options.nowMs + ms;
  }
  if (hasTime) {
    const at = typeof input.ExpirationTime === 'string' ? Date.parse(input.ExpirationTime) : NaN;
    if (Number.isNaN(at)) throw badRequest('ExpirationTime must be an RFC 3339 time');
    if (at < options.nowMs) throw badRequest('ExpirationTime cannot be before CreateTime');
    if (at - options.nowMs < MIN_TOKEN_TTL_MS) throw badRequest('ExpirationTime cannot be less than 1m0s in the future');
    return at;
  }
  return undefined;
}
