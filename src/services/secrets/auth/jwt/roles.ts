/**
 * Roles of a `jwt`/`oidc` auth mount (reference: vault-plugin-auth-jwt `role/:name`):
 * `role_type` (`oidc`, the default, or `jwt`), the constraints a token must meet
 * (`bound_audiences`, `bound_subject`, `bound_claims` with `bound_claims_type`
 * string|glob), what becomes of its claims (`user_claim` → display name,
 * `claim_mappings` → token metadata, `groups_claim`), the OIDC browser flow's
 * `allowed_redirect_uris` and `oidc_scopes`, time leeways, and the common `token_*`
 * settings. One JSON entry per role at `role/<name>`; writes merge into the current role.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { badRequest, CommaList, commaList } from '../../../../kernel/http/index.js';
import type { Backend } from '../../../../kernel/store/index.js';
import { hasField, parseDuration } from '../../../../kernel/util/duration.js';
import { applyTokenFields, EMPTY_TOKEN_SETTINGS, TOKEN_FIELDS, tokenSettingsView, type TokenSettings } from '../token-fields.js';
import { MountEntryStore } from '../entry-store.js';
import type { SecretsRequest } from '../../types.js';
import { readConfig, type JwtConfig } from './config.js';

/** One stored role. Leeways in seconds: 0 = the reference default, -1 = disabled. */
export interface JwtRole extends TokenSettings {
  role_type: 'jwt' | 'oidc';
  bound_audiences: string[];
  bound_subject: string;
  bound_claims: Record<string, string | string[]>;
  bound_claims_type: 'string' | 'glob';
  claim_mappings: Record<string, string>;
  user_claim: string;
  groups_claim: string;
  allowed_redirect_uris: string[];
  oidc_scopes: string[];
  verbose_oidc_logging: boolean;
  expiration_leeway: number;
  not_before_leeway: number;
  clock_skew_leeway: number;
}

const Leeway = (what: string) => Type.Union([Type.String(), Type.Integer()], { description: `${what}, seconds or a duration; 0 = the default, -1 = disabled` });

/** Field schemas of role writes. */
export const ROLE_FIELDS = {
  role_type: Type.String({ description: '"oidc" (browser flow; the default) or "jwt" (login with a bearer JWT)' }),
  bound_audiences: CommaList("the token's aud must name one of these; required for jwt roles unless another bound is set"),
  bound_subject: Type.String({ description: 'the sub claim the token must carry' }),
  bound_claims: Type.Record(Type.String(), Type.Unknown(), { description: 'claim (or JSON Pointer) → value or list of values it must have' }),
  bound_claims_type: Type.String({ description: '"string" (exact match, default) or "glob" (`*` matches any run of characters)' }),
  claim_mappings: Type.Record(Type.String(), Type.String(), { description: 'claim (or JSON Pointer) → token metadata key' }),
  user_claim: Type.String({ description: "claim whose value names the user (the token's display name); required" }),
  groups_claim: Type.String({ description: 'claim holding the user\'s groups (recorded in token metadata "groups")' }),
  allowed_redirect_uris: CommaList('redirect URIs the OIDC browser flow may return to (loopback URIs match any port)'),
  oidc_scopes: CommaList('scopes requested after openid in the OIDC browser flow'),
  verbose_oidc_logging: Type.Boolean({ description: 'accepted for compatibility; Cairn never logs ID tokens or claims' }),
  expiration_leeway: Leeway('leeway on exp, or added to iat/nbf when exp is absent'),
  not_before_leeway: Leeway('leeway on nbf, or subtracted from exp when nbf and iat are absent'),
  clock_skew_leeway: Leeway('clock skew allowed on exp, nbf and iat'),
  ...TOKEN_FIELDS,
};

/** A role before any field is applied. */
const EMPTY_ROLE: JwtRole = {
  ...EMPTY_TOKEN_SETTINGS,
  role_type: 'oidc',
  bound_audiences: [],
  bound_subject: '',
  bound_claims: {},
  bound_claims_type: 'string',
  claim_mappings: {},
  user_claim: '',
  groups_claim: '',
  allowed_redirect_uris: [],
  oidc_scopes: [],
  verbose_oidc_logging: false,
  expiration_leeway: 0,
  not_before_leeway: 0,
  clock_skew_leeway: 0,
};

function leeway(v: unknown, field: string): number {
  if (v === -1 || v === '-1') return -1;
  const s = parseDuration(v, field);
  if (s < 0) throw badRequest(`${field}: must be -1 (disabled), 0 (default) or positive`);
  return s;
}

function boundClaims(v: unknown, type: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [claim, expected] of Object.entries((v ?? {}) as Record<string, unknown>)) {
    const ok = (x: unknown) => typeof x === 'string' || (type === 'string' && (typeof x === 'number' || typeof x === 'boolean'));
    if (Array.isArray(expected) && expected.every(ok)) out[claim] = expected.map(String);
    else if (ok(expected)) out[claim] = String(expected);
    else throw badRequest(`bound_claims: claim "${claim}" is not a string or list of strings`);
  }
  return out;
}

/**
 * Applies a write's fields to `current` (a new role when undefined) and checks the
 * result as the reference does. Errors (400): unknown `role_type` / `bound_claims_type`,
 * no `user_claim`, a `jwt` role without any bound, an `oidc` role without
 * `allowed_redirect_uris`, two claims mapped to one key, bad `token_*` fields.
 */
export function applyRoleFields(d: Readonly<Record<string, unknown>>, current: JwtRole | undefined): JwtRole {
  const r: JwtRole = { ...(current ?? EMPTY_ROLE), ...applyTokenFields(d, current ?? EMPTY_ROLE) };
  if (hasField(d, 'role_type')) {
    const t = String(d.role_type).toLowerCase();
    if (t !== 'jwt' && t !== 'oidc') throw badRequest(`invalid 'role_type': ${t}`);
    r.role_type = t;
  }
  if (hasField(d, 'bound_claims_type')) {
    const t = String(d.bound_claims_type);
    if (t !== 'string' && t !== 'glob') throw badRequest(`invalid 'bound_claims_type': ${t}`);
    r.bound_claims_type = t;
  }
  for (const f of ['bound_audiences', 'allowed_redirect_uris', 'oidc_scopes'] as const) if (hasField(d, f)) r[f] = commaList(d[f]);
  for (const f of ['bound_subject', 'user_claim', 'groups_claim'] as const) if (hasField(d, f)) r[f] = String(d[f]);
  for (const f of ['expiration_leeway', 'not_before_leeway', 'clock_skew_leeway'] as const) if (hasField(d, f)) r[f] = leeway(d[f], f);
  if (hasField(d, 'verbose_oidc_logging')) r.verbose_oidc_logging = d.verbose_oidc_logging === true;
  if (hasField(d, 'claim_mappings')) {
    const m = { ...(d.claim_mappings as Record<string, string>) };
    const targets = Object.values(m);
    const dup = targets.find((t, i) => targets.indexOf(t) !== i);
    if (dup !== undefined) throw badRequest(`claim_mappings contains multiple mappings for key "${dup}"`);
    r.claim_mappings = m;
  }
  if (hasField(d, 'bound_claims') || hasField(d, 'bound_claims_type')) {
    r.bound_claims = boundClaims(hasField(d, 'bound_claims') ? d.bound_claims : r.bound_claims, r.bound_claims_type);
  }
  if (!r.user_claim) throw badRequest('a user claim must be defined on the role');
  if (r.role_type === 'oidc' && r.allowed_redirect_uris.length === 0) {
    throw badRequest(`'allowed_redirect_uris' must be set if 'role_type' is 'oidc' or unspecified.`);
  }
  const bounded = r.bound_audiences.length || r.bound_subject || Object.keys(r.bound_claims).length || r.token_bound_cidrs?.length;
  if (r.role_type === 'jwt' && !bounded) throw badRequest('must have at least one bound constraint when creating/updating a role');
  return r;
}

/** The wire shape of `GET role/:name`. */
export function roleView(r: JwtRole): Record<string, unknown> {
  return {
    ...tokenSettingsView(r),
    role_type: r.role_type,
    bound_audiences: [...r.bound_audiences],
    bound_subject: r.bound_subject,
    bound_claims: r.bound_claims,
    bound_claims_type: r.bound_claims_type,
    claim_mappings: r.claim_mappings,
    user_claim: r.user_claim,
    groups_claim: r.groups_claim,
    allowed_redirect_uris: [...r.allowed_redirect_uris],
    oidc_scopes: [...r.oidc_scopes],
    verbose_oidc_logging: r.verbose_oidc_logging,
    expiration_leeway: r.expiration_leeway,
    not_before_leeway: r.not_before_leeway,
    clock_skew_leeway: r.clock_skew_leeway,
  };
}

/** The roles of one jwt mount. */
export class JwtRoleStore extends MountEntryStore<JwtRole> {
  /**
   * @param storage the mount's storage view (`req.storage`)
   * @param mountUuid the mount's uuid, scoping the write lock
   */
  constructor(storage: Backend, mountUuid: string) {
    super(storage, mountUuid, 'role/');
  }
}

/** The role store of the request's mount. */
export const jwtRolesOf = (req: SecretsRequest): JwtRoleStore => new JwtRoleStore(req.storage, req.mount.uuid);

/**
 * The config and the role a login names (or the default role).
 * Errors (400): `could not load configuration`, `missing role`, `role "<r>" could not be found`.
 */
export async function configAndRole(req: SecretsRequest, roleField: unknown): Promise<{ config: JwtConfig; name: string; role: JwtRole }> {
  const config = await readConfig(req.storage);
  if (!config) throw badRequest('could not load configuration');
  const name = (roleField === undefined || roleField === '' ? config.default_role : String(roleField)).toLowerCase();
  if (!name) throw badRequest('missing role');
  const role = await jwtRolesOf(req).get(name);
  if (!role) throw badRequest(`role "${name}" could not be found`);
  return { config, name, role };
}
