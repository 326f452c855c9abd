/**
 * The kernel objects behind a `jwt`/`oidc` mount, kept in memory per mount and config:
 * JWT validators (one per key source + role validation settings, since creating one
 * reaches the JWKS or discovery URL) and the OIDC flow (one per mount config; it holds the
 * pending logins' state, so the callback must reach the server that made the auth URL,
 * as in the reference). A changed config makes new ones; old ones are dropped when the
 * cache is full.
 *
 * @module
 */
import { createJwtValidator, createOidcFlow, type JwtValidator, type OidcFlow } from '../../../../kernel/authn/index.js';
import type { Logger } from '../../../../kernel/log/logger.js';
import { flowConfig, validatorConfig, type JwtConfig, type ValidationSettings } from './config.js';

/** What the OIDC flow carries from `auth_url` to `callback`. */
export interface OidcPayload {
  /** The role named at `auth_url`. */
  readonly role: string;
}

/** Most validators / flows kept per process; the oldest goes first. */
const MAX_ENTRIES = 256;

/** A small insertion-ordered cache of promises; a rejected promise is not kept. */
class PromiseCache<T> {
  readonly #entries = new Map<string, Promise<T>>();

  get(key: string, make: () => Promise<T>): Promise<T> {
    let p = this.#entries.get(key);
    if (!p) {
      if (this.#entries.size >= MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value as string);
      p = make();
      this.#entries.set(key, p);
      p.catch(() => this.#entries.delete(key));
    }
    return p;
  }
}

const validators = new PromiseCache<JwtValidator>();
const flows = new PromiseCache<OidcFlow<OidcPayload>>();

/**
 * The JWT validator of mount `mountUuid` for `config` and a role's settings.
 * @throws {AuthnError} kind `config` or `unreachable` (the JWKS / discovery URL could not be read).
 */
export function validatorFor(mountUuid: string, config: JwtConfig, v: ValidationSettings, now: () => number): Promise<JwtValidator> {
  const kc = validatorConfig(config, v);
  return validators.get(`${mountUuid}\n${JSON.stringify(kc)}`, () => createJwtValidator(kc, { now }));
}

/**
 * The OIDC flow of mount `mountUuid` for `config` (redirect URIs and scopes come per role).
 * @throws {AuthnError} kind `config` or `unreachable` (discovery failed).
 */
export function flowFor(mountUuid: string, config: JwtConfig, now: () => number, logger?: Logger): Promise<OidcFlow<OidcPayload>> {
  const kc = flowConfig(config);
  return flows.get(`${mountUuid}\n${JSON.stringify(kc)}`, () => createOidcFlow<OidcPayload>(kc, { now, logger, redirectUrisPerRequest: true }));
}
