/**
 * The JWT validators and OIDC flows a service keeps per auth method (or per mount and
 * config): building one reads the JWKS or the discovery document, and an OIDC flow holds
 * its pending logins, so each is built once per version of its method and shared.
 *
 * @module
 */
import { VersionedCache } from '../util/versioned-cache.js';

/** Builds kept at most per cache (the least recently used go first). */
const MAX_BUILDS = 256;

/** Promised builds by key and version; a build that fails is not kept, so the next use retries (the provider may be back). */
export class AuthnBuilds<V> {
  readonly #cache = new VersionedCache<Promise<V>>(MAX_BUILDS);

  /**
   * The build of `key` at `version` (an auth method's name and `ModifyIndex`, say), from
   * `build` when there is none or an older one. A synchronous throw of `build` is thrown.
   */
  get(key: string, version: string | number, build: () => Promise<V>): Promise<V> {
    return this.#cache.get(key, version, () => {
      const p = build();
      p.catch(() => this.#cache.forget(key, p));
      return p;
    });
  }
}
