/**
 * Dynamic roles of a database mount (`roles/:name`; reference/secrets-engines.md §5 "Role
 * fields"): the fields a write takes, how a write changes a role, what a read shows, and
 * their storage at `role/<name>` in the mount's storage (the reference's key).
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { json, type Backend } from '../../../kernel/store/index.js';
import { InputError, hasField, parseDuration } from '../../../kernel/util/duration.js';
import { parseStatements } from './statements.js';

/** One stored dynamic role. TTLs in seconds (0 = the mount's). */
export interface DynamicRole {
  readonly db_name: string;
  readonly creation_statements: string[];
  readonly revocation_statements: string[];
  readonly rollback_statements: string[];
  readonly renew_statements: string[];
  readonly default_ttl: number;
  readonly max_ttl: number;
}

const Statements = (what: string) =>
  Type.Union([Type.String(), Type.Array(Type.String())], {
    description: `${what}: a ";"-separated string, base64 of it, a JSON array of strings or base64 of one`,
  });
const Duration = (description: string) => Type.Union([Type.String(), Type.Integer()], { description });

/** Field schemas of `roles/:name`. */
export const ROLE_FIELDS = {
  db_name: Type.String({ description: 'the connection (config/:name) this role uses' }),
  creation_statements: Statements('statements creating the user ({{name}}, {{password}}, {{expiration}})'),
  revocation_statements: Statements('statements removing the user ({{name}}); default: revoke privileges, then DROP ROLE'),
  rollback_statements: Statements('statements undoing a failed creation ({{name}})'),
  renew_statements: Statements('statements run on renewal ({{name}}, {{expiration}}); default: ALTER ROLE … VALID UNTIL'),
  default_ttl: Duration("lease TTL of issued credentials, seconds or a duration; 0 = the mount's default"),
  max_ttl: Duration("longest a lease may be renewed to, seconds or a duration; 0 = the mount's max"),
  credential_type: Type.String({ description: 'only "password"' }),
};

function ttlField(v: unknown, field: string): number {
  const s = parseDuration(v, field);
  if (s < 0) throw new InputError(`${field}: must not be negative`);
  return s;
}

/**
 * The role after applying the validated fields `d` to `current`. Errors (400 naming the
 * field, the reference's texts): `empty database name attribute`, `empty creation
 * statements`, `default_ttl` above `max_ttl`, another `credential_type`, bad statements.
 */
export function applyRoleFields(d: Readonly<Record<string, unknown>>, current: DynamicRole | undefined): DynamicRole {
  const statements = (k: keyof DynamicRole & `${string}_statements`) => (hasField(d, k) ? parseStatements(d[k], k) : (current?.[k] ?? []));
  const db = hasField(d, 'db_name') ? String(d.db_name) : (current?.db_name ?? '');
  if (db === '') throw new InputError('db_name: empty database name attribute');
  if (hasField(d, 'credential_type') && d.credential_type !== 'password') throw new InputError('credential_type: only "password" is supported');
  const role: DynamicRole = {
    db_name: db,
    creation_statements: statements('creation_statements'),
    revocation_statements: statements('revocation_statements'),
    rollback_statements: statements('rollback_statements'),
    renew_statements: statements('renew_statements'),
    default_ttl: hasField(d, 'default_ttl') ? ttlField(d.default_ttl, 'default_ttl') : (current?.default_ttl ?? 0),
    max_ttl: hasField(d, 'max_ttl') ? ttlField(d.max_ttl, 'max_ttl') : (current?.max_ttl ?? 0),
  };
  if (role.creation_statements.length === 0) throw new InputError('creation_statements: empty creation statements');
  if (role.max_ttl > 0 && role.default_ttl > role.max_ttl) throw new InputError('default_ttl: "default_ttl" must not be greater than "max_ttl"');
  return role;
}

/** What `GET roles/:name` shows (TTLs as integer seconds, statements as arrays). */
export const roleView = (r: DynamicRole): Record<string, unknown> => ({ ...r, credential_type: 'password', credential_config: {} });

const ROLE = 'role/';

/** The dynamic roles of one mount (`req.storage`). */
export const roleStore = (storage: Backend) => ({
  get: async (name: string) => json.decode<DynamicRole>(await storage.get(ROLE + name)),
  put: (name: string, r: DynamicRole) => storage.put(ROLE + name, json.encode(r)),
  delete: (name: string) => storage.delete(ROLE + name),
  list: async () => (await storage.list(ROLE)).filter((k) => !k.endsWith('/')),
});
