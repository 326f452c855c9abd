/**
 * Input rules of AppRole roles and secret IDs (reference/secrets.md §4.2): which fields
 * a role takes, how a write changes a role, and the limits of a new secret ID. Pure
 * functions; every check runs before anything is built, so a thrown error changes nothing.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { CommaList } from '../../../../kernel/http/index.js';
import { cidrsWithin, parseCidrList } from '../../../../kernel/util/cidr.js';
import { InputError, hasField, parseDuration } from '../../../../kernel/util/duration.js';
import { EMPTY_TOKEN_SETTINGS, TOKEN_FIELDS, applyTokenFields } from '../token-fields.js';
import { newRole, type RoleEntry } from './roles.js';
import type { SecretIdLimits } from './secret-ids.js';

const Duration = Type.Union([Type.String(), Type.Integer()], { description: 'seconds or a duration string ("1h30m")' });

/** Field schemas of `role/:role_name`. */
export const ROLE_FIELDS = {
  ...TOKEN_FIELDS,
  period: { ...Duration, description: 'deprecated alias of token_period' },
  bind_secret_id: Type.Boolean({
    description: 'require a secret ID at login (default true); may be false only while secret_id_bound_cidrs or token_bound_cidrs is set',
  }),
  secret_id_bound_cidrs: CommaList('CIDR blocks logins with this role must come from; empty = anywhere'),
  secret_id_ttl: { ...Duration, description: 'lifetime of new secret IDs; 0 = never expire' },
  secret_id_num_uses: Type.Integer({ minimum: 0, description: 'logins per new secret ID; 0 = unlimited' }),
};

/** Field schemas of `POST role/:role_name/secret-id`. */
export const SECRET_ID_FIELDS = {
  ttl: { ...Duration, description: "lifetime of this secret ID; default and upper bound: the role's secret_id_ttl" },
  num_uses: Type.Integer({ minimum: 0, description: "logins allowed with this secret ID; default and upper bound: the role's secret_id_num_uses" }),
  metadata: Type.Union([Type.String(), Type.Record(Type.String(), Type.String())], {
    description: 'key-value pairs set on the tokens this secret ID logs in: a JSON object (or its text, or base64 of it) or "k1=v1,k2=v2"; not secret',
  }),
  cidr_list: CommaList("CIDR blocks logins with this secret ID must come from; within the role's secret_id_bound_cidrs"),
  token_bound_cidrs: CommaList("CIDR blocks binding the tokens this secret ID logs in; within the role's token_bound_cidrs"),
};

/** Field schemas of `POST role/:role_name/custom-secret-id`. */
export const CUSTOM_SECRET_ID_FIELDS = {
  ...SECRET_ID_FIELDS,
  secret_id: Type.String({ minLength: 1, description: 'the secret ID to register (it is stored only as a hash)' }),
};

function nonNegativeDuration(v: unknown, field: string): number {
  const s = parseDuration(v, field);
  if (s < 0) throw new InputError(`${field}: must not be negative`);
  return s;
}

/**
 * The role after applying the validated fields `d` to `current` (or to a new role with
 * a random role ID). Errors (400 naming the field): token field errors (see
 * `applyTokenFields`), a negative `secret_id_ttl`, a `secret_id_bound_cidrs` item that is
 * not a CIDR block, and a role left without any constraint (`bind_secret_id` false with
 * neither `secret_id_bound_cidrs` nor `token_bound_cidrs`; the reference's rule and text).
 */
export function applyRoleFields(d: Readonly<Record<string, unknown>>, current: RoleEntry | undefined): RoleEntry {
  const settings = applyTokenFields(d, current ?? EMPTY_TOKEN_SETTINGS);
  const ttl = hasField(d, 'secret_id_ttl') ? nonNegativeDuration(d.secret_id_ttl, 'secret_id_ttl') : undefined;
  const cidrs = hasField(d, 'secret_id_bound_cidrs') ? parseCidrList(d.secret_id_bound_cidrs, 'secret_id_bound_cidrs') : undefined;
  const next: RoleEntry = { ...(current ?? newRole(settings)), ...settings };
  if (ttl !== undefined) next.secret_id_ttl = ttl;
  if (hasField(d, 'secret_id_num_uses')) next.secret_id_num_uses = Number(d.secret_id_num_uses);
  if (cidrs !== undefined) next.secret_id_bound_cidrs = cidrs;
  if (hasField(d, 'bind_secret_id')) next.bind_secret_id = d.bind_secret_id === true;
  checkConstraints(next);
  return next;
}

/**
 * Errors (400): `role` has no constraint left, the reference's `at least one constraint
 * should be enabled on the role` (named after `bind_secret_id`, the one usually turned off).
 */
function checkConstraints(role: RoleEntry): void {
  if (!role.bind_secret_id && !role.secret_id_bound_cidrs?.length && !role.token_bound_cidrs?.length)
    throw new InputError('bind_secret_id: at least one constraint should be enabled on the role');
}

/**
 * `metadata` of a new secret ID as the reference's `ParseArbitraryKeyValues` reads it:
 * an object of strings, the text of one, base64 of that text, or `k1=v1,k2=v2` (itself
 * possibly base64). Errors (400): `metadata: failed to parse metadata: …`.
 */
export function parseMetadata(v: unknown): Record<string, string> {
  if (v === undefined || v === '') return {};
  if (typeof v === 'object' && v !== null) return { ...(v as Record<string, string>) };
  const text = String(v);
  const asJson = (t: string): Record<string, string> | undefined => {
    let o: unknown;
    try {
      o = JSON.parse(t);
    } catch {
      return undefined;
    }
    if (o === null || typeof o !== 'object' || Array.isArray(o) || Object.values(o).some((x) => typeof x !== 'string'))
      throw new InputError('metadata: failed to parse metadata: a JSON value must be an object of strings');
    return o as Record<string, string>;
  };
  const json = asJson(text);
  if (json) return json;
  const decoded = /^[A-Za-z0-9+/]+={0,2}$/.test(text) && text.length % 4 === 0 ? Buffer.from(text, 'base64').toString('utf8') : text;
  const decodedJson = decoded === text ? undefined : asJson(decoded);
  if (decodedJson) return decodedJson;
  const out: Record<string, string> = {};
  for (const pair of decoded.split(',')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new InputError(`metadata: failed to parse metadata: invalid <key,value> pair "${pair}"`);
    out[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim();
  }
  return out;
}

/**
 * Metadata and CIDR bindings of a new secret ID (`metadata`, `cidr_list`,
 * `token_bound_cidrs`). Errors (400 naming the field): a bad metadata text, an item
 * that is not a CIDR block, blocks outside the role's (`secret_id_bound_cidrs` for
 * `cidr_list`, `token_bound_cidrs` for `token_bound_cidrs`; the reference's subset rule).
 */
export function secretIdBindings(d: Readonly<Record<string, unknown>>, role: RoleEntry): Pick<SecretIdLimits, 'metadata' | 'cidrList' | 'tokenBoundCidrs'> {
  const metadata = parseMetadata(d.metadata);
  const cidrList = parseCidrList(d.cidr_list, 'cidr_list');
  const tokenBoundCidrs = parseCidrList(d.token_bound_cidrs, 'token_bound_cidrs');
  const within = (field: string, mine: string[], roles: string[]) => {
    if (!cidrsWithin(mine, roles))
      throw new InputError(
        `${field}: failed to verify subset relationship between CIDR blocks on the role ${JSON.stringify(roles)} and CIDR blocks on the secret ID ${JSON.stringify(mine)}`,
      );
  };
  within('cidr_list', cidrList, role.secret_id_bound_cidrs ?? []);
  within('token_bound_cidrs', tokenBoundCidrs, role.token_bound_cidrs ?? []);
  return { metadata, cidrList, tokenBoundCidrs };
}

/**
 * Limits of a new secret ID: `ttl` and `num_uses` default to the role's and may only
 * tighten them. Errors (400 naming the field): negative or unparsable `ttl`, a value
 * looser than the role's (0, meaning unlimited, is looser than any limit).
 */
export function secretIdLimits(d: Readonly<Record<string, unknown>>, role: RoleEntry): SecretIdLimits {
  let ttlS = role.secret_id_ttl;
  if (hasField(d, 'ttl')) {
    const t = nonNegativeDuration(d.ttl, 'ttl');
    if (role.secret_id_ttl && t > role.secret_id_ttl) throw new InputError("ttl: cannot be longer than the role's secret_id_ttl");
    if (t) ttlS = t;
  }
  let numUses = role.secret_id_num_uses;
  if (hasField(d, 'num_uses')) {
    numUses = Number(d.num_uses);
    if (role.secret_id_num_uses && (numUses === 0 || numUses > role.secret_id_num_uses))
      throw new InputError("num_uses: cannot be higher than the role's secret_id_num_uses");
  }
  return { ttlS, numUses };
}
