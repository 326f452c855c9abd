/**
 * Input rules of AppRole roles and secret IDs (reference/secrets.md §4.2): which fields
 * a role takes, how a write changes a role, and the limits of a new secret ID. Pure
 * functions; every check runs before anything is built, so a thrown error changes nothing.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { InputError, hasField, parseDuration } from '../../../../kernel/util/duration.js';
import { EMPTY_TOKEN_SETTINGS, TOKEN_FIELDS, applyTokenFields } from '../token-fields.js';
import { newRole, type RoleEntry } from './roles.js';
import type { SecretIdLimits } from './secret-ids.js';

const Duration = Type.Union([Type.String(), Type.Integer()], { description: 'seconds or a duration string ("1h30m")' });

/** Field schemas of `role/:role_name`. */
export const ROLE_FIELDS = {
  ...TOKEN_FIELDS,
  bind_secret_id: Type.Boolean({ description: 'require a secret ID at login (default true; the only binding supported, so it cannot be turned off)' }),
  secret_id_ttl: { ...Duration, description: 'lifetime of new secret IDs; 0 = never expire' },
  secret_id_num_uses: Type.Integer({ minimum: 0, description: 'logins per new secret ID; 0 = unlimited' }),
};

/** Field schemas of `POST role/:role_name/secret-id`. */
export const SECRET_ID_FIELDS = {
  ttl: { ...Duration, description: 'lifetime of this secret ID; default and upper bound: the role\'s secret_id_ttl' },
  num_uses: Type.Integer({ minimum: 0, description: 'logins allowed with this secret ID; default and upper bound: the role\'s secret_id_num_uses' }),
};

function nonNegativeDuration(v: unknown, field: string): number {
  const s = parseDuration(v, field);
  if (s < 0) throw new InputError(`${field}: must not be negative`);
  return s;
}

/**
 * The role after applying the validated fields `d` to `current` (or to a new role with
 * a random role ID). Errors (400 naming the field): token field errors (see
 * `applyTokenFields`), a negative `secret_id_ttl`, and `bind_secret_id: false`, since a
 * role must keep at least one binding and Cairn has no other (the reference refuses too).
 */
export function applyRoleFields(d: Readonly<Record<string, unknown>>, current: RoleEntry | undefined): RoleEntry {
  const settings = applyTokenFields(d, current ?? EMPTY_TOKEN_SETTINGS);
  const ttl = hasField(d, 'secret_id_ttl') ? nonNegativeDuration(d.secret_id_ttl, 'secret_id_ttl') : undefined;
  if (d.bind_secret_id === false) throw new InputError('bind_secret_id: at least one constraint should be enabled on the role');
  const next: RoleEntry = { ...(current ?? newRole(settings)), ...settings };
  if (ttl !== undefined) next.secret_id_ttl = ttl;
  if (hasField(d, 'secret_id_num_uses')) next.secret_id_num_uses = Number(d.secret_id_num_uses);
  return next;
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
    if (role.secret_id_ttl && t > role.secret_id_ttl) throw new InputError('ttl: cannot be longer than the role\'s secret_id_ttl');
    if (t) ttlS = t;
  }
  let numUses = role.secret_id_num_uses;
  if (hasField(d, 'num_uses')) {
    numUses = Number(d.num_uses);
    if (role.secret_id_num_uses && (numUses === 0 || numUses > role.secret_id_num_uses))
      throw new InputError('num_uses: cannot be higher than the role\'s secret_id_num_uses');
  }
  return { ttlS, numUses };
}
