/**
 * The kernel objects behind a `jwt`/`oidc` mount, kept in memory per mount and config:
 * JWT validators (one per key source + role validation settings, since creating one
 * reaches the JWKS or discovery URL) and the OIDC flow (one per mount config; it holds the
 * pending logins' state, so the callback must reach the server that made the auth URL,
 * as in the reference). A changed config makes new ones; old ones are dropped when the
 * cache is full (the least recently used first).
 *
 * @module
 */
import { AuthnBuilds, createJwtValidator, createOidcFlow, type JwtValidator, type OidcFlow } from '../../../../kernel/authn/index.js';
import type { Logger } from '../../../../kernel/log/logger.js';
import { flowConfig, validatorConfig, type JwtConfig, type ValidationSettings } from './config.js';

/** What the OIDC flow carries from `auth_url` to `callback`. */
export interface OidcPayload {
  /** The role named at `auth_url`. */
  readonly role: string;
}

// Keyed by mount and config, so one version each: a changed config is a new key.
const validators = new AuthnBuilds<JwtValidator>();
const flows = new AuthnBuilds<OidcFlow<OidcPayload>>();

/**
 * The JWT validator of mount `mountUuid` for `config` and a role's settings.
 * @throws {AuthnError} kind `config` or `unreachable` (the JWKS / discovery URL could not be read).
 */
export function validatorFor(mountUuid: string, config: JwtConfig, v: ValidationSettings, now: () => number): Promise<JwtValidator> {
  const kc = validatorConfig(config, v);
  return validators.get(`${mountUuid}\n${JSON.stringify(kc)}`, 0, () => createJwtValidator(kc, { now }));
}

/**
 * The OIDC flow of mount `mountUuid` for `config` (redirect URIs and scopes come per role).
 * @throws {AuthnError} kind `config` or `unreachable` (discovery failed).
 */
export function flowFor(mountUuid: string, config: JwtConfig, now: () => number, logger?: Logger): Promise<OidcFlow<OidcPayload>> {
  const kc = flowConfig(config);
  return flows.get(`${mountUuid}\n${JSON.stringify(kc)}`, 0, () => createOidcFlow<OidcPayload>(kc, { now, logger, redirectUrisPerRequest: true }));
}
