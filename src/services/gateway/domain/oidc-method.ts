/**
 * OIDC auth method attributes (reference:
 * https://developer.hashicorp.com/boundary/docs/concepts/domain-model/auth-methods#oidc-auth-method-attributes
 * and `internal/daemon/controller/handlers/authmethods/oidc.go`): reading them from a
 * create or update body, the view (`client_secret` never shown, `client_secret_hmac` and
 * the derived `callback_url` instead), and the kernel OIDC flow config they make
 * (kernel/authn/oidc.ts). A new method is `inactive`; `:change-state` moves it to
 * `active-private` or `active-public` once issuer, client id, client secret and API URL
 * prefix are set, reaching the provider's discovery document first unless
 * `disable_discovered_config_validation`.
 *
 * @module
 */
import { createHmac, randomBytes } from 'node:crypto';
import { SUPPORTED_ALGS, type AuthMethodConfig } from '../../../kernel/authn/index.js';
import { parsesAsCertificates } from '../../../kernel/authn/config.js';
import type { OidcAttributes, OidcAuthMethodDoc, OidcState } from './docs.js';
import type { Input } from './input.js';

/** The callback path every OIDC auth method shares (the reference's `CallbackEndpoint`); the state names the method. */
const CALLBACK_PATH = '/v1/auth-methods/oidc:authenticate:callback';
/** Where the browser goes after a completed login (the reference's `FinalRedirectEndpoint`). */
export const COMPLETE_PATH = '/authentication-complete';
/** Where the browser goes after a failed one, with `?error=<JSON API error>` (the reference's `AuthenticationErrorsEndpoint`). */
export const ERROR_PATH = '/authentication-error';

/** The states `:change-state` accepts. */
export const OIDC_STATES: readonly OidcState[] = ['inactive', 'active-private', 'active-public'];

/** Claims an account claim map may fill (the reference's `to` values). */
const CLAIM_TARGETS = new Set(['sub', 'name', 'email']);

/** `prefix` without trailing slashes. */
const trimSlash = (s: string) => s.replace(/\/+$/, '');

/** The callback URL of a method with `api_url_prefix` (undefined without one). */
export const callbackUrlOf = (a: OidcAttributes): string | undefined => (a.api_url_prefix ? trimSlash(a.api_url_prefix) + CALLBACK_PATH : undefined);

/** Whether `v` is an absolute http(s) URL. */
function isHttpUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** A list field: `null` clears (→ []), absent keeps `current`; each entry checked by `bad` (a problem text or undefined). */
function list(a: Input, field: string, current: readonly string[] | undefined, bad: (v: string) => string | undefined): readonly string[] | undefined {
  if (a.raw[field] === null) return (a.has(field), undefined);
  const v = a.strings(field);
  if (v === undefined) return current;
  for (const x of v) {
    const problem = bad(x);
    if (problem) {
      a.fail(field, problem);
      break;
    }
  }
  return v;
}

/** A string field: `null` clears, absent keeps `current`; `check` names a problem. */
function str(a: Input, field: string, current: string | undefined, check?: (v: string) => string | undefined): string | undefined {
  const v = a.string(field);
  if (v === null) return undefined;
  if (v === undefined) return current;
  const problem = check?.(v);
  if (problem) a.fail(field, problem);
  return v.trim();
}

/**
 * The OIDC attributes a create (no `current`) or update body gives; problems go to
 * `input` as `attributes.<field>`. `state` is changed only by `:change-state`.
 */
export function oidcAttributes(input: Input, current?: OidcAttributes): OidcAttributes {
  const a = input.object('attributes');
  if (a.has('state')) a.fail('state', 'The state is changed with the :change-state action.');
  if (a.has('callback_url')) a.fail('callback_url', 'This field is read only: it is derived from api_url_prefix.');
  if (a.has('client_secret_hmac')) a.fail('client_secret_hmac', 'This field is read only.');
  // The reference strips a pasted discovery path: `…/.well-known/openid-configuration`.
  const issuer = str(a, 'issuer', current?.issuer, (v) => (isHttpUrl(v.split('.well-known/')[0]) ? undefined : 'Must be an http or https URL.'));
  const secretSent = a.string('client_secret');
  let client_secret = current?.client_secret;
  let client_secret_hmac = current?.client_secret_hmac;
  if (secretSent === null) client_secret = client_secret_hmac = undefined;
  else if (typeof secretSent === 'string') {
    if (secretSent.trim() === '') a.fail('client_secret', 'Must not be empty.');
    client_secret = secretSent;
    // Shows that the secret changed without telling anything about it: the key is thrown away.
    client_secret_hmac = createHmac('sha256', randomBytes(32)).update(secretSent).digest('base64url');
  }
  const maxAge =
    a.raw.max_age === null ? (a.has('max_age'), undefined) : a.raw.max_age === -1 ? (a.has('max_age'), -1) : (a.int('max_age', { min: 0 }) ?? current?.max_age);
  const disable = a.bool('disable_discovered_config_validation');
  return {
    state: current?.state ?? 'inactive',
    issuer: issuer?.split('.well-known/')[0],
    client_id: str(a, 'client_id', current?.client_id),
    client_secret,
    client_secret_hmac,
    api_url_prefix: str(a, 'api_url_prefix', current?.api_url_prefix, (v) => (isHttpUrl(v) ? undefined : 'Must be an http or https URL.')),
    allowed_audiences: list(a, 'allowed_audiences', current?.allowed_audiences, () => undefined),
    signing_algorithms: list(a, 'signing_algorithms', current?.signing_algorithms, (v) =>
      (SUPPORTED_ALGS as readonly string[]).includes(v) ? undefined : `Unsupported signing algorithm "${v}"; one of ${SUPPORTED_ALGS.join(', ')}.`,
    ),
    claims_scopes: list(a, 'claims_scopes', current?.claims_scopes, (v) =>
      v === 'openid' ? 'openid is a default scope and cannot be added as optional claims_scopes.' : undefined,
    ),
    account_claim_maps: list(a, 'account_claim_maps', current?.account_claim_maps, (v) => {
      const [from, to, ...rest] = v.split('=');
      return !from || !to || rest.length > 0
        ? `Invalid account claim map "${v}": want "from=to".`
        : CLAIM_TARGETS.has(to)
          ? undefined
          : `Invalid account claim map "${v}": "${to}" is not one of sub, name, email.`;
    }),
    max_age: maxAge,
    disable_discovered_config_validation: disable ?? current?.disable_discovered_config_validation,
    idp_ca_certs: list(a, 'idp_ca_certs', current?.idp_ca_certs, (v) => (parsesAsCertificates(v) ? undefined : 'Must be PEM certificates.')),
  };
}

/** The fields an active method needs (the reference's "incomplete auth method" check), as `attributes.<field>` problems. */
export function incomplete(a: OidcAttributes): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of ['issuer', 'client_id', 'client_secret', 'api_url_prefix'] as const)
    if (!a[f]) out[`attributes.${f}`] = 'This field is required for an active auth method.';
  return out;
}

/** The attributes as the API shows them: no `client_secret`, `callback_url` derived. */
export function oidcAttributesView(doc: OidcAuthMethodDoc): Record<string, unknown> {
  const { client_secret: _secret, ...shown } = doc.attributes;
  const out: Record<string, unknown> = { ...shown };
  const callback = callbackUrlOf(doc.attributes);
  if (callback) out.callback_url = callback;
  return out;
}

/** The kernel flow config of a method (its callback URL is the only redirect URI). */
export function flowConfigOf(a: OidcAttributes): AuthMethodConfig {
  return {
    oidcDiscoveryUrl: a.issuer,
    oidcDiscoveryCaCert: a.idp_ca_certs?.length ? a.idp_ca_certs.join('\n') : undefined,
    jwtSupportedAlgs: a.signing_algorithms,
    oidcClientId: a.client_id,
    oidcClientSecret: a.client_secret,
    allowedRedirectUris: [callbackUrlOf(a)!],
    oidcScopes: a.claims_scopes,
  };
}

/** The claim a method reads for `to` (`sub`, `name`, `email`): a claim map's `from`, else `to` itself. */
export function claimFor(a: OidcAttributes, to: 'sub' | 'name' | 'email'): string {
  for (const m of a.account_claim_maps ?? []) {
    const [from, target] = m.split('=');
    if (target === to) return from;
  }
  return to;
}
