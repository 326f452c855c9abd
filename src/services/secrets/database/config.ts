/**
 * Connection configurations of a database mount (`config/:name`; reference/secrets-engines.md
 * §5 "Connection config fields"): the fields a write takes, how a write changes the stored
 * configuration, what a read shows (never the password), and their storage at
 * `config/<name>` in the mount's storage (behind the barrier: the root password is stored
 * only there). Only the PostgreSQL plugin exists.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { CommaList, commaList } from '../../../kernel/http/index.js';
import { json, type Backend } from '../../../kernel/store/index.js';
import { InputError, hasField, parseBoolField, parseDuration, parseIntField } from '../../../kernel/util/duration.js';
import { parseStatements } from './statements.js';
import { compileUsernameTemplate } from './username-template.js';

/** The one plugin Cairn has (the reference's built-in PostgreSQL plugin). */
const POSTGRES_PLUGIN = 'postgresql-database-plugin';

/** One stored connection. Durations in seconds. */
export interface ConnectionConfig {
  readonly plugin_name: string;
  readonly verify_connection: boolean;
  /** Role names allowed to use it; `*` = any; empty = none. */
  readonly allowed_roles: string[];
  readonly root_rotation_statements: string[];
  /** `""` = the default generator (password.ts). */
  readonly password_policy: string;
  readonly connection_url: string;
  readonly username: string;
  /** The root password (only ever stored behind the barrier, never returned). */
  readonly password: string;
  readonly max_open_connections: number;
  readonly max_idle_connections: number;
  readonly max_connection_lifetime: number;
  /** `""` = the plugin's default (username-template.ts). */
  readonly username_template: string;
  readonly password_authentication: 'password' | 'scram-sha-256';
  readonly disable_escaping: boolean;
}

const Statements = Type.Union([Type.String(), Type.Array(Type.String())], {
  description: 'SQL statements: a ";"-separated string, base64 of it, a JSON array of strings or base64 of one',
});
const Flag = (description: string) => Type.Union([Type.Boolean(), Type.String()], { description });
const Int = (description: string) => Type.Union([Type.Integer(), Type.String()], { description });

/** Field schemas of `config/:name`. */
export const CONFIG_FIELDS = {
  plugin_name: Type.String({ description: 'the database plugin: postgresql-database-plugin (the only one)' }),
  plugin_version: Type.String({ description: 'accepted and ignored: the plugin is built in' }),
  verify_connection: Flag('connect to the database before storing the configuration (default true)'),
  allowed_roles: CommaList('roles allowed to use this connection; "*" = any; empty = none'),
  root_rotation_statements: Statements,
  password_policy: Type.String({ description: 'must be empty: the default generator (20 characters: letters, digits, a dash)' }),
  connection_url: Type.String({ description: 'PostgreSQL URL; {{username}} and {{password}} are replaced by username and password' }),
  username: Type.String({ description: 'the root user' }),
  password: Type.String({ description: 'the root password (never returned)' }),
  max_open_connections: Int('most connections open at once (default 4)'),
  max_idle_connections: Int('accepted for compatibility; idle connections close after 30 s (see docs/compatibility.md)'),
  max_connection_lifetime: Type.Union([Type.String(), Type.Integer()], { description: 'longest a connection is reused, seconds or a duration; 0 = forever' }),
  username_template: Type.String({ description: 'template of generated usernames (default: v-<display>-<role>-<random>-<unix time>)' }),
  password_authentication: Type.String({ description: '"password" (default) or "scram-sha-256": send a SCRAM verifier instead of the password' }),
  disable_escaping: Flag('do not URL-escape username and password in connection_url'),
};

/** Most connections one pool may open (a bound on input). */
const MAX_OPEN = 1000;

/**
 * The configuration after applying the validated fields `d` to `current` (or a new one).
 * Errors (400 naming the field): a missing or unknown `plugin_name`, a missing
 * `connection_url`, a non-empty `password_policy`, an unknown `password_authentication`,
 * a malformed `username_template`, out-of-range numbers, malformed statements.
 */
export function applyConfigFields(d: Readonly<Record<string, unknown>>, current: ConnectionConfig | undefined): ConnectionConfig {
  const pick = <T>(k: string, parse: (v: unknown) => T, fallback: T): T => (hasField(d, k) ? parse(d[k]) : fallback);
  const plugin = pick('plugin_name', String, current?.plugin_name ?? '');
  if (plugin === '') throw new InputError('plugin_name: empty plugin name');
  if (plugin !== POSTGRES_PLUGIN) throw new InputError(`plugin_name: unsupported plugin "${plugin}": Cairn has only ${POSTGRES_PLUGIN}`);
  const connectionUrl = pick('connection_url', String, current?.connection_url ?? '');
  if (connectionUrl === '') throw new InputError('connection_url: connection_url cannot be empty');
  const policy = pick('password_policy', String, current?.password_policy ?? '');
  if (policy !== '') throw new InputError('password_policy: password policies are not supported; leave it empty for the default generator');
  const auth = pick('password_authentication', String, current?.password_authentication ?? 'password');
  if (auth !== 'password' && auth !== 'scram-sha-256') throw new InputError(`password_authentication: must be "password" or "scram-sha-256", not "${auth}"`);
  const template = pick('username_template', String, current?.username_template ?? '');
  if (template !== '') compileUsernameTemplate(template);
  const lifetime = pick('max_connection_lifetime', (v) => parseDuration(v, 'max_connection_lifetime'), current?.max_connection_lifetime ?? 0);
  if (lifetime < 0) throw new InputError('max_connection_lifetime: must not be negative');
  return {
    plugin_name: plugin,
    verify_connection: pick('verify_connection', (v) => parseBoolField(v, 'verify_connection'), true),
    allowed_roles: pick('allowed_roles', commaList, current?.allowed_roles ?? []),
    root_rotation_statements: pick('root_rotation_statements', (v) => parseStatements(v, 'root_rotation_statements'), current?.root_rotation_statements ?? []),
    password_policy: '',
    connection_url: connectionUrl,
    username: pick('username', String, current?.username ?? ''),
    password: pick('password', String, current?.password ?? ''),
    max_open_connections: pick('max_open_connections', (v) => parseIntField(v, 'max_open_connections', 1, MAX_OPEN), current?.max_open_connections ?? 4),
    max_idle_connections: pick('max_idle_connections', (v) => parseIntField(v, 'max_idle_connections', -1, MAX_OPEN), current?.max_idle_connections ?? 0),
    max_connection_lifetime: lifetime,
    username_template: template,
    password_authentication: auth,
    disable_escaping: pick('disable_escaping', (v) => parseBoolField(v, 'disable_escaping'), current?.disable_escaping ?? false),
  };
}

/** `url` with a literal password in it (not the `{{password}}` placeholder) shown as `*****`. */
function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)([^@]*)@/i, (whole, head: string, pw: string) =>
    /^\{\{\s*password\s*\}\}$/.test(pw) ? whole : `${head}*****@`,
  );
}

/** What `GET config/:name` shows: everything but the password, also when written into `connection_url` (the reference's reply shape). */
export function configView(c: ConnectionConfig): Record<string, unknown> {
  return {
    plugin_name: c.plugin_name,
    plugin_version: '',
    allowed_roles: c.allowed_roles,
    root_credentials_rotate_statements: c.root_rotation_statements,
    password_policy: c.password_policy,
    verify_connection: c.verify_connection,
    connection_details: {
      connection_url: redactUrl(c.connection_url),
      username: c.username,
      max_open_connections: c.max_open_connections,
      max_idle_connections: c.max_idle_connections,
      max_connection_lifetime: `${c.max_connection_lifetime}s`,
      username_template: c.username_template,
      password_authentication: c.password_authentication,
      disable_escaping: c.disable_escaping,
    },
  };
}

/** Whether role `role` may use connection `c` (`allowed_roles`: `*` or the name; the reference's `strutil.StrListContainsGlob` without globs). */
export const roleAllowed = (c: ConnectionConfig, role: string): boolean => c.allowed_roles.includes('*') || c.allowed_roles.includes(role);

const CONFIG = 'config/';

/** The connections of one mount (`req.storage`). */
export const configStore = (storage: Backend) => ({
  get: async (name: string) => json.decode<ConnectionConfig>(await storage.get(CONFIG + name)),
  put: (name: string, c: ConnectionConfig) => storage.put(CONFIG + name, json.encode(c)),
  delete: (name: string) => storage.delete(CONFIG + name),
  list: async () => (await storage.list(CONFIG)).filter((k) => !k.endsWith('/')),
});
