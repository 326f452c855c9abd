/**
 * Dynamic credentials (`creds/:name`; reference/secrets-engines.md §5 "Credentials
 * response") and their leases: a read creates a database user with the role's creation
 * statements, `VALID UNTIL` its lease's expiry, and returns a renewable lease
 * (`database/creds/<role>/<id>`); renewing moves `VALID UNTIL` (renew statements or the
 * default), revoking drops the user (revocation statements or the default revocation).
 * A revocation that fails (the database down) throws, so the lease manager keeps the
 * lease and retries it (expiry loop, every second), after restarts and failovers too.
 *
 * @module
 */
import { CairnError, badRequest } from '../../../kernel/http/index.js';
import type { SecretLeaseHandlers } from '../lease/handlers.js';
import { DEFAULT_LEASE_TTL_S, type MountEntry } from '../mounts/table.js';
import type { SecretsRequest, SecretsResult } from '../types.js';
import { roleAllowed } from './config.js';
import { activeOnly, connectionOf } from './connection.js';
import { defaultPassword, scramVerifier } from './password.js';
import { createUser, deleteUser, renewUser } from './postgres.js';
import { roleStore, type DynamicRole } from './roles.js';
import { formatExpiration } from './statements.js';
import { DEFAULT_USERNAME_TEMPLATE, compileUsernameTemplate } from './username-template.js';

/** What a lease keeps for renew and revoke (the reference's internal data). */
interface CredsInternal {
  readonly username: string;
  readonly role: string;
  readonly db_name: string;
  /** The role's revocation statements when issued: used once the role is deleted. */
  readonly revocation_statements: string[];
}

const mountDefault = (m: MountEntry) => m.config.default_lease_ttl || DEFAULT_LEASE_TTL_S;
const mountMax = (m: MountEntry) => m.config.max_lease_ttl || DEFAULT_LEASE_TTL_S;
/** The role's max TTL within the mount's, seconds. */
const maxTtlOf = (role: DynamicRole, m: MountEntry) => Math.min(role.max_ttl || mountMax(m), mountMax(m));

/** A token's display name as the reference's username template sees it. */
const displayNameOf = (req: SecretsRequest) => req.token?.display_name ?? 'token';

/**
 * `GET creds/:name`. Errors: 400 `unknown role: <name>`, `"<name>" is not an allowed role`
 * (the connection's `allowed_roles`), the connection missing; 500 with the database's
 * message when it cannot be reached or a statement fails (nothing is leased then).
 */
export async function issueCreds(req: SecretsRequest): Promise<SecretsResult> {
  activeOnly(req.core);
  const name = req.params.name;
  const role = await roleStore(req.storage).get(name);
  if (!role) throw badRequest(`unknown role: ${name}`);
  const { config, pool } = await connectionOf({ mount: req.mount, storage: req.storage, resources: req.core.resources }, role.db_name);
  if (!roleAllowed(config, name)) throw badRequest(`"${name}" is not an allowed role`);
  const ttlS = Math.min(role.default_ttl || mountDefault(req.mount), maxTtlOf(role, req.mount));
  const username = compileUsernameTemplate(config.username_template || DEFAULT_USERNAME_TEMPLATE)({
    DisplayName: displayNameOf(req),
    RoleName: name,
    now: req.now,
  });
  const password = defaultPassword();
  const expiration = formatExpiration(new Date(req.now.getTime() + ttlS * 1000));
  try {
    const sent = config.password_authentication === 'scram-sha-256' ? scramVerifier(password) : password;
    await createUser(pool, role.creation_statements, { name: username, password: sent, expiration });
  } catch (err) {
    // The creation ran in one transaction and was rolled back; rollback statements undo
    // what a statement outside it may have left (best effort, as the reference's WAL rollback).
    if (role.rollback_statements.length) await deleteUser(pool, role.rollback_statements, username).catch(() => undefined);
    throw new CairnError('internal', (err as Error).message);
  }
  const internal: CredsInternal = { username, role: name, db_name: role.db_name, revocation_statements: role.revocation_statements };
  return { data: { username, password }, leaseDuration: ttlS, lease: { renewable: true, internal: { ...internal } } };
}

/** The lease callbacks of database credentials (see the module doc). */
export const credsLeases: SecretLeaseHandlers = {
  async renew({ lease, mount, storage, resources, now, incrementS }) {
    const i = lease.internal as unknown as CredsInternal;
    const role = await roleStore(storage).get(i.role);
    if (!role) throw badRequest(`error during renew: could not find role with name ${i.role}`);
    const maxTtlS = maxTtlOf(role, mount);
    const left = Math.floor((lease.issue_time_ms + maxTtlS * 1000 - now.getTime()) / 1000);
    const ttlS = Math.min(incrementS > 0 ? incrementS : role.default_ttl || mountDefault(mount), left);
    if (ttlS > 0) {
      const { pool } = await connectionOf({ mount, storage, resources }, i.db_name);
      await renewUser(pool, role.renew_statements, i.username, formatExpiration(new Date(now.getTime() + ttlS * 1000)));
    }
    return { ttlS: Math.max(ttlS, 1), maxTtlS };
  },
  async revoke({ lease, mount, storage, resources }) {
    const i = lease.internal as unknown as CredsInternal;
    const role = await roleStore(storage).get(i.role);
    const { pool } = await connectionOf({ mount, storage, resources }, i.db_name);
    await deleteUser(pool, role ? role.revocation_statements : i.revocation_statements, i.username);
  },
};
