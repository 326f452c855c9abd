/**
 * Turning a login's credential into an identity (reference/mesh.md §3.2 step 5, §3.5,
 * §4.3–§4.5): one JWT validator or OIDC flow per auth method, built on first use and
 * rebuilt when the method's `ModifyIndex` changes (building one fetches the JWKS or the
 * discovery document). OIDC pending states live inside their flow, in memory, single
 * use, 10 minutes (§5.1), so a changed method drops its pending logins.
 *
 * Status mapping (reference/README.md rule 3: an invalid credential is the client's
 * fault, not the reference's 500): a bearer token or ID token that does not validate,
 * claims that cannot be mapped, a TokenReview that says no, an unknown or replayed OIDC
 * state → 403 with the kernel's text; a bad redirect URI → 400; a validator that cannot
 * be built, an API server or provider that cannot be reached → 500.
 *
 * @module
 */
import {
  AuthnBuilds,
  AuthnError,
  createJwtValidator,
  createOidcFlow,
  identityFromClaims,
  identityFromServiceAccount,
  reviewServiceAccountToken,
  type Identity,
  type JwtValidator,
  type OidcFlow,
} from '../../kernel/authn/index.js';
import { badRequest, CairnError } from '../../kernel/http/index.js';
import type { Indexed, StateStore } from '../../kernel/store/index.js';
import { jwtConfigOf, kubernetesConfigOf, type AuthMethodType, type WireConfig } from './auth-config.js';
import type { AuthMethodDoc } from './auth-docs.js';
import { meshForbidden } from './http.js';

/** What an OIDC login carries from auth-url to callback. */
export interface OidcPayload {
  readonly meta: Readonly<Record<string, string>>;
  readonly namespace: string;
}

/** An auth method as read from the state. */
export type StoredMethod = AuthMethodDoc & Indexed;

/** The validators and flows of one agent's auth methods. */
export class Authenticators {
  private readonly jwts = new AuthnBuilds<JwtValidator>();
  private readonly flows = new AuthnBuilds<OidcFlow<OidcPayload>>();

  constructor(private readonly now: () => number) {}

  /**
   * The identity `bearer` proves for `method` (`jwt` or `kubernetes`).
   * @throws 403 with the validator's text for an invalid token; 400 for an `oidc` method
   *   (`ClaimsFromJWT is incompatible with type "oidc"`); 500 when the validator cannot be built.
   */
  async login(method: StoredMethod, bearer: string): Promise<Identity> {
    if (method.Type === 'oidc') throw badRequest('ClaimsFromJWT is incompatible with type "oidc"');
    if (method.Type === 'kubernetes') {
      try {
        return identityFromServiceAccount(await reviewServiceAccountToken(kubernetesConfigOf(method.Config), bearer));
      } catch (err) {
        throw statusOf(err);
      }
    }
    const validator = await this.cached(this.jwts, method, (c) => createJwtValidator(jwtConfigOf(c), { now: this.now }));
    try {
      return identityOf(method.Config, await validator.validate(bearer));
    } catch (err) {
      throw statusOf(err);
    }
  }

  /**
   * The OIDC flow of an `oidc` method.
   * @throws 400 `GetAuthCodeURL is incompatible with type "<t>"` for another type; 500 when it cannot be built.
   */
  async oidc(method: StoredMethod): Promise<OidcFlow<OidcPayload>> {
    if (method.Type !== 'oidc') throw badRequest(`GetAuthCodeURL is incompatible with type "${method.Type}"`);
    return this.cached(this.flows, method, (c) => createOidcFlow<OidcPayload>(jwtConfigOf(c), { now: this.now }));
  }

  private async cached<V>(builds: AuthnBuilds<V>, method: StoredMethod, build: (c: WireConfig) => Promise<V>): Promise<V> {
    const value = builds.get(method.Name, method.ModifyIndex, () => build(method.Config));
    try {
      return await value;
    } catch (err) {
      throw new CairnError('internal', `auth method validator for "${method.Name}" could not be initialized: ${(err as Error).message}`);
    }
  }
}

/** Claims → identity through the method's mappings. @throws 403 when a claim cannot be mapped. */
export function identityOf(config: WireConfig, claims: Record<string, unknown>): Identity {
  const c = jwtConfigOf(config);
  try {
    return identityFromClaims(claims, c.claimMappings, c.listClaimMappings);
  } catch (err) {
    throw statusOf(err);
  }
}

/** An authentication kernel error as the discovery service's status (see the module comment). */
export function statusOf(err: unknown): Error {
  if (!(err instanceof AuthnError)) return err as Error;
  switch (err.kind) {
    case 'token':
    case 'claims':
    case 'oidc_state':
      return meshForbidden(err.message);
    case 'lookup':
      // `lookup failed: …` is the API server's verdict on the token; anything else (the API's
      // own error, a transport failure, the annotation read) is the server side failing.
      return err.message.startsWith('lookup failed:') ? meshForbidden(err.message) : new CairnError('internal', err.message);
    case 'redirect_uri':
    case 'config':
      return badRequest(err.message);
    default:
      return new CairnError('internal', err.message);
  }
}

/**
 * The write-time reachability check of the reference (reference/mesh.md §4.2): a `jwt`
 * method's JWKS or discovery URL, or an `oidc` method's discovery document, must answer.
 * @throws 400 `Invalid Auth Method: error checking JWKSURL: …` / `… OIDCDiscoveryURL: …`.
 */
export async function checkReachable(type: AuthMethodType, config: WireConfig, now: () => number): Promise<void> {
  try {
    if (type === 'jwt') await createJwtValidator(jwtConfigOf(config), { now });
    if (type === 'oidc') await createOidcFlow(jwtConfigOf(config), { now });
  } catch (err) {
    if (err instanceof AuthnError) throw badRequest(`Invalid Auth Method: ${err.message}`);
    throw err;
  }
}

// Keyed by the agent's state so that no shared wiring (MeshDeps, agent.ts) has to carry
// them: one set per running agent, gone with it.
const perAgent = new WeakMap<StateStore, Authenticators>();

/** The {@link Authenticators} of the agent owning `deps.state`. */
export function authenticatorsOf(deps: { readonly state: StateStore; readonly now: () => number }): Authenticators {
  let a = perAgent.get(deps.state);
  if (!a) perAgent.set(deps.state, (a = new Authenticators(deps.now)));
  return a;
}
