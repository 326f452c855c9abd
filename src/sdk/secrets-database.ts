/**
 * Typed helper for the database secrets engine (`<mount>/config`, `roles`, `creds`,
 * `static-roles`, `static-creds`, `rotate-role`, `rotate-root`, `reset`; the reference's
 * database API, reference/secrets-engines.md §5). Get one with `client.database(mount)`.
 *
 * @module
 */
import type { SecretsTransport } from './secrets-transport.js';
import type { SecretResponse } from './secrets-types.js';

/** Fields of `config/:name` (PostgreSQL): see the engine's path help. */
export interface DatabaseConnectionFields {
  plugin_name: 'postgresql-database-plugin';
  connection_url: string;
  username?: string;
  password?: string;
  verify_connection?: boolean;
  allowed_roles?: string[] | string;
  root_rotation_statements?: string[];
  max_open_connections?: number;
  max_idle_connections?: number;
  /** Seconds or a duration string. */
  max_connection_lifetime?: number | string;
  username_template?: string;
  password_authentication?: 'password' | 'scram-sha-256';
  [extra: string]: unknown;
}

/** Fields of `roles/:name`. TTLs: seconds or a duration string. */
export interface DatabaseRoleFields {
  db_name: string;
  creation_statements: string[] | string;
  revocation_statements?: string[] | string;
  rollback_statements?: string[] | string;
  renew_statements?: string[] | string;
  default_ttl?: number | string;
  max_ttl?: number | string;
}

/** Fields of `static-roles/:name`. */
export interface DatabaseStaticRoleFields {
  db_name: string;
  username: string;
  /** Seconds or a duration string; at least 5 s. */
  rotation_period: number | string;
  rotation_statements?: string[] | string;
}

/** `data` of `static-creds/:name`. */
export interface DatabaseStaticCreds {
  username: string;
  password: string;
  /** RFC 3339. */
  last_vault_rotation: string;
  /** Seconds. */
  rotation_period: number;
  /** Seconds until the next rotation. */
  ttl: number;
}

/**
 * One database mount. Methods throw `SecretsApiError` on statuses ≥ 400 (400 bad input or
 * an unknown role or connection, 500 with the database's message when it cannot be
 * reached) and `SecretsConnectionError` without an answer.
 */
export class DatabaseClient {
  /**
   * @param client The connection the requests go through (its token and namespace apply).
   * @param mount The mount path, e.g. `database`.
   */
  constructor(
    private readonly client: SecretsTransport,
    private readonly mount: string,
  ) {}

  private p(path: string): string {
    return `${this.mount.replace(/^\/+|\/+$/g, '')}/${path}`;
  }

  /** Creates or updates connection `name` (`POST config/:name`; verified first unless `verify_connection` is false). */
  async configure(name: string, fields: DatabaseConnectionFields): Promise<void> {
    await this.client.write(this.p(`config/${encodeURIComponent(name)}`), fields);
  }

  /** Connection `name` without its password, or undefined (`GET config/:name`). */
  async readConnection(name: string): Promise<Record<string, unknown> | undefined> {
    return (await this.client.read(this.p(`config/${encodeURIComponent(name)}`)))?.data ?? undefined;
  }

  /** The connection names (`LIST config`); `[]` when none. */
  async listConnections(): Promise<string[]> {
    return (await this.client.list(this.p('config')))?.data?.keys ?? [];
  }

  /** Deletes connection `name` (`DELETE config/:name`). */
  async deleteConnection(name: string): Promise<void> {
    await this.client.delete(this.p(`config/${encodeURIComponent(name)}`));
  }

  /** Closes connection `name`'s pool; the next use reconnects (`POST reset/:name`). */
  async resetConnection(name: string): Promise<void> {
    await this.client.write(this.p(`reset/${encodeURIComponent(name)}`));
  }

  /** Rotates connection `name`'s root password; the new one is never returned (`POST rotate-root/:name`). */
  async rotateRoot(name: string): Promise<void> {
    await this.client.write(this.p(`rotate-root/${encodeURIComponent(name)}`));
  }

  /** Creates or updates dynamic role `name` (`POST roles/:name`). */
  async writeRole(name: string, fields: DatabaseRoleFields): Promise<void> {
    await this.client.write(this.p(`roles/${encodeURIComponent(name)}`), fields);
  }

  /** Dynamic role `name` (TTLs in seconds, statements as arrays), or undefined (`GET roles/:name`). */
  async readRole(name: string): Promise<Record<string, unknown> | undefined> {
    return (await this.client.read(this.p(`roles/${encodeURIComponent(name)}`)))?.data ?? undefined;
  }

  /** The dynamic role names (`LIST roles`); `[]` when none. */
  async listRoles(): Promise<string[]> {
    return (await this.client.list(this.p('roles')))?.data?.keys ?? [];
  }

  /** Deletes dynamic role `name`; issued users stay until their leases end (`DELETE roles/:name`). */
  async deleteRole(name: string): Promise<void> {
    await this.client.delete(this.p(`roles/${encodeURIComponent(name)}`));
  }

  /** A new database user for role `name` under a lease: the envelope with `lease_id`, `lease_duration` (s) and `data.username` / `data.password` (`GET creds/:name`). */
  async credentials(name: string): Promise<SecretResponse<{ username: string; password: string }>> {
    const res = await this.client.read<{ username: string; password: string }>(this.p(`creds/${encodeURIComponent(name)}`));
    return res!;
  }

  /** Creates or updates static role `name`; a new one's password is rotated at once (`POST static-roles/:name`). */
  async writeStaticRole(name: string, fields: DatabaseStaticRoleFields): Promise<void> {
    await this.client.write(this.p(`static-roles/${encodeURIComponent(name)}`), fields);
  }

  /** Static role `name` (without its password), or undefined (`GET static-roles/:name`). */
  async readStaticRole(name: string): Promise<Record<string, unknown> | undefined> {
    return (await this.client.read(this.p(`static-roles/${encodeURIComponent(name)}`)))?.data ?? undefined;
  }

  /** The static role names (`LIST static-roles`); `[]` when none. */
  async listStaticRoles(): Promise<string[]> {
    return (await this.client.list(this.p('static-roles')))?.data?.keys ?? [];
  }

  /** Deletes static role `name`; the database user stays (`DELETE static-roles/:name`). */
  async deleteStaticRole(name: string): Promise<void> {
    await this.client.delete(this.p(`static-roles/${encodeURIComponent(name)}`));
  }

  /** Static role `name`'s current password and the seconds until its next rotation (`GET static-creds/:name`). */
  async staticCredentials(name: string): Promise<DatabaseStaticCreds> {
    return (await this.client.read<DatabaseStaticCreds>(this.p(`static-creds/${encodeURIComponent(name)}`)))!.data!;
  }

  /** Rotates static role `name`'s password now (`POST rotate-role/:name`). */
  async rotateStaticRole(name: string): Promise<void> {
    await this.client.write(this.p(`rotate-role/${encodeURIComponent(name)}`));
  }
}
