/**
 * The part of ACL token resolution the discovery service and the scheduler share: a
 * secret is found through the tokens table's unique `secret` index (whose key is a digest
 * of the secret, never the secret itself, so the lookup time says nothing about how much of
 * a guess was right), an expired token is as good as absent, and two caches spare the
 * policy parser and the authorizer build on every request. What a token grants, which
 * token stands for "no secret" and the error of a refusal stay with each service.
 *
 * @module
 */
import type { Indexed, StateStore } from '../store/index.js';
import { VersionedCache } from '../util/versioned-cache.js';

/** Authorizers remembered at most (the least recently used go first). */
const MAX_AUTHORIZERS = 10_000;
/** Parsed policies remembered at most (the least recently used go first). */
const MAX_POLICIES = 10_000;

/** What resolution reads of a stored token. */
export interface AclTokenFields {
  readonly AccessorID: string;
  /** RFC 3339; absent: the token never expires. */
  readonly ExpirationTime?: string;
}

/** Options of {@link AclTokenResolver}. */
export interface AclTokenResolverOptions<P> {
  readonly state: StateStore;
  /** The service's table names. */
  readonly tables: { readonly tokens: string; readonly policies: string; readonly roles: string };
  /** The key of the tokens table's `secret` index for a secret. */
  readonly secretKey: (secret: string) => string;
  /** Parses a policy's rules text. @throws as the service's parser does. */
  readonly parse: (rules: string) => P;
  /** Clock in epoch ms. */
  readonly now: () => number;
}

/** True when `t` has an `ExpirationTime` at or before `nowMs`. */
export function tokenExpired(t: AclTokenFields, nowMs: number): boolean {
  return t.ExpirationTime !== undefined && Date.parse(t.ExpirationTime) <= nowMs;
}

/** Token lookup and the resolution caches of one agent; `T` is its token document, `P` a parsed policy, `A` an authorizer. */
export class AclTokenResolver<T extends AclTokenFields, P, A> {
  readonly #authorizers = new VersionedCache<A>(MAX_AUTHORIZERS);
  readonly #policies = new VersionedCache<P>(MAX_POLICIES);

  constructor(private readonly o: AclTokenResolverOptions<P>) {}

  /** The stored token whose secret is `secret`, if it exists and has not expired. */
  lookup(secret: string): (T & Indexed) | undefined {
    const t = this.o.state.getBy<T>(this.o.tables.tokens, 'secret', this.o.secretKey(secret));
    return t && !tokenExpired(t, this.o.now()) ? t : undefined;
  }

  /**
   * The authorizer of `token` (stored at `modifyIndex`), from `build` when the token, a
   * policy or a role changed since the last build: the stamp is the token's index and the
   * indexes of the policy and role tables (memory, so a write is seen at once).
   */
  authorizer(token: T, modifyIndex: number, build: () => A): A {
    const { policies, roles } = this.o.tables;
    return this.#authorizers.get(token.AccessorID, `${modifyIndex}/${this.o.state.latestIndex(policies, roles)}`, build);
  }

  /** The parsed rules of the policy `key` (its ID or name) stored at `modifyIndex`, parsed once per index. */
  policy(key: string, modifyIndex: number, rules: string): P {
    return this.#policies.get(key, modifyIndex, () => this.o.parse(rules));
  }
}
