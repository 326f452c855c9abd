/**
 * Static roles of a database mount (`static-roles/:name`; reference/secrets-engines.md §5
 * "Static roles"): one existing database user whose password the engine rotates every
 * `rotation_period` (rotation.ts). Stored at `static-role/<name>` in the mount's storage
 * (the reference's key), with the current password, behind the barrier.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { json, type Backend } from '../../../kernel/store/index.js';
import { InputError, formatTime, hasField, parseDuration } from '../../../kernel/util/duration.js';
import { parseStatements } from './statements.js';

/** One stored static role. */
export interface StaticRole {
  readonly username: string;
  readonly db_name: string;
  readonly rotation_statements: string[];
  /** Seconds between rotations (≥ 5). */
  readonly rotation_period: number;
  /** The current password ("" until the first rotation). */
  readonly password: string;
  /** When the password was last rotated, epoch ms (0 = never). */
  readonly last_rotation_ms: number;
  /** A password being set: stored before the database is changed, so a rotation cut short retries with it (the reference's WAL). */
  readonly pending_password?: string;
}

/** The reference's smallest `rotation_period`, seconds. */
const MIN_ROTATION_PERIOD_S = 5;

/** Field schemas of `static-roles/:name`. */
export const STATIC_ROLE_FIELDS = {
  username: Type.String({ description: 'the existing database user whose password is rotated (cannot change)' }),
  db_name: Type.String({ description: 'the connection (config/:name) this role uses' }),
  rotation_period: Type.Union([Type.String(), Type.Integer()], { description: 'seconds or a duration between rotations; at least 5 s' }),
  rotation_statements: Type.Union([Type.String(), Type.Array(Type.String())], {
    description: 'statements setting the password ({{name}}, {{password}}); default: ALTER ROLE … WITH PASSWORD',
  }),
  credential_type: Type.String({ description: 'only "password"' }),
};

/**
 * The role after applying the validated fields `d` to `current`. Errors (400 naming the
 * field, the reference's texts): `username is a required field to create a static
 * account`, `cannot update static account username`, `empty database name attribute`,
 * `rotation_period is required to create static accounts`, a period under 5 s.
 */
export function applyStaticRoleFields(d: Readonly<Record<string, unknown>>, current: StaticRole | undefined): StaticRole {
  const username = hasField(d, 'username') ? String(d.username) : (current?.username ?? '');
  if (username === '') throw new InputError('username: username is a required field to create a static account');
  if (current && username !== current.username) throw new InputError('username: cannot update static account username');
  const db = hasField(d, 'db_name') ? String(d.db_name) : (current?.db_name ?? '');
  if (db === '') throw new InputError('db_name: empty database name attribute');
  if (hasField(d, 'credential_type') && d.credential_type !== 'password') throw new InputError('credential_type: only "password" is supported');
  let period = current?.rotation_period;
  if (hasField(d, 'rotation_period')) period = parseDuration(d.rotation_period, 'rotation_period');
  if (period === undefined) throw new InputError('rotation_period: rotation_period is required to create static accounts');
  if (period < MIN_ROTATION_PERIOD_S) throw new InputError(`rotation_period: rotation_period must be ${MIN_ROTATION_PERIOD_S} seconds or more`);
  return {
    username,
    db_name: db,
    rotation_statements: hasField(d, 'rotation_statements')
      ? parseStatements(d.rotation_statements, 'rotation_statements')
      : (current?.rotation_statements ?? []),
    rotation_period: period,
    password: current?.password ?? '',
    last_rotation_ms: current?.last_rotation_ms ?? 0,
    ...(current?.pending_password ? { pending_password: current.pending_password } : {}),
  };
}

/** The reference's `last_vault_rotation` time of `r`. */
const lastRotation = (r: StaticRole) => formatTime(new Date(r.last_rotation_ms));

/** What `GET static-roles/:name` shows (never the password). */
export const staticRoleView = (r: StaticRole): Record<string, unknown> => ({
  username: r.username,
  db_name: r.db_name,
  rotation_statements: r.rotation_statements,
  rotation_period: r.rotation_period,
  last_vault_rotation: lastRotation(r),
  credential_type: 'password',
});

/** What `GET static-creds/:name` shows: the password and the seconds until the next rotation. */
export function staticCredsView(r: StaticRole, now: Date): Record<string, unknown> {
  const ttl = Math.max(0, Math.floor((r.last_rotation_ms + r.rotation_period * 1000 - now.getTime()) / 1000));
  return { username: r.username, password: r.password, last_vault_rotation: lastRotation(r), rotation_period: r.rotation_period, ttl };
}

const STATIC_ROLE = 'static-role/';

/** The static roles of one mount (`req.storage` or the periodic context's storage). */
export const staticRoleStore = (storage: Backend) => ({
  get: async (name: string) => json.decode<StaticRole>(await storage.get(STATIC_ROLE + name)),
  put: (name: string, r: StaticRole) => storage.put(STATIC_ROLE + name, json.encode(r)),
  delete: (name: string) => storage.delete(STATIC_ROLE + name),
  list: async () => (await storage.list(STATIC_ROLE)).filter((k) => !k.endsWith('/')),
});
