/**
 * Typed helpers for system endpoints: the mount table (`sys/mounts`, `reference/secrets.md`
 * §3.5), auth methods (`sys/auth`, §3.6) and the seal lifecycle (`sys/init`, `sys/seal-status`,
 * `sys/unseal`, `sys/seal`, `sys/health`, §3.1–§3.4).
 *
 * @module
 */
import type { SecretsTransport } from './secrets-transport.js';
import { SecretsApiError } from './secrets-errors.js';
import type { EnableAuthOptions, HaStatus, HealthStatus, InitOptions, InitResponse, RemountStatus, SealStatus, TuneMountOptions } from './secrets-sys-types.js';

export type {
  EnableAuthOptions,
  HaNode,
  HaStatus,
  HealthStatus,
  InitOptions,
  InitResponse,
  RemountStatus,
  SealStatus,
  TuneMountOptions,
} from './secrets-sys-types.js';

/** One entry of the mount table. */
export interface MountInfo {
  /** Engine type: `kv`, `system`, `cubbyhole`, … */
  type: string;
  description: string;
  accessor?: string;
  /** Engine options; KV sets `{"version":"2"}` for versioned mounts, `null` when none. */
  options: Record<string, string> | null;
  config?: { default_lease_ttl?: number; max_lease_ttl?: number; [extra: string]: unknown };
  local?: boolean;
  seal_wrap?: boolean;
  uuid?: string;
  [extra: string]: unknown;
}

/** Options of {@link SysClient.enableMount}. */
export interface EnableMountOptions {
  /** Engine type, e.g. `kv` (or the aliases `kv-v1`, `kv-v2`). */
  type: string;
  description?: string;
  /** Engine options; `{ version: '2' }` makes a KV mount versioned. */
  options?: Record<string, string>;
  /** Lease settings: `default_lease_ttl`, `max_lease_ttl` as duration strings or seconds. */
  config?: Record<string, unknown>;
  /** Do not replicate the mount. */
  local?: boolean;
  /** Seal-wrap the engine's critical values (accepted for compatibility). */
  sealWrap?: boolean;
}

const trimSlashes = (path: string) => path.replace(/^\/+|\/+$/g, '');

/** `data` of a `sys/mounts`-style answer, or the top-level copy older servers give alone. */
function mountMap(res: { data: unknown } | undefined): Record<string, MountInfo> {
  if (!res) return {};
  if (res.data) return res.data as Record<string, MountInfo>;
  return Object.fromEntries(Object.entries(res as unknown as Record<string, unknown>).filter(([k]) => k.endsWith('/'))) as Record<string, MountInfo>;
}

/**
 * System endpoints. Methods throw `SecretsApiError` on statuses ≥ 400 (400 for a path in use
 * or a bad unseal key, 403 without permission) and `SecretsConnectionError` without an answer.
 */
export class SysClient {
  /** @param client The connection the requests go through (its token and namespace apply). */
  constructor(private readonly client: SecretsTransport) {}

  /** The mount table, keyed by path with trailing `/` (`"secret/"`). */
  async mounts(): Promise<Record<string, MountInfo>> {
    return mountMap(await this.client.read<Record<string, MountInfo>>('sys/mounts'));
  }

  /** Mounts an engine at `path` (`POST sys/mounts/<path>`, 204). */
  async enableMount(path: string, options: EnableMountOptions): Promise<void> {
    const body: Record<string, unknown> = { type: options.type };
    if (options.description !== undefined) body.description = options.description;
    if (options.options !== undefined) body.options = options.options;
    if (options.config !== undefined) body.config = options.config;
    if (options.local !== undefined) body.local = options.local;
    if (options.sealWrap !== undefined) body.seal_wrap = options.sealWrap;
    await this.client.write(`sys/mounts/${trimSlashes(path)}`, body);
  }

  /** Changes the mount at `path`: only the fields given (`POST sys/mounts/<path>/tune`, 204). */
  async tuneMount(path: string, options: TuneMountOptions): Promise<void> {
    await this.client.write(`sys/mounts/${trimSlashes(path)}/tune`, { ...options });
  }

  /**
   * Moves the secrets engine at `from` to `to`, revoking its leases (`POST sys/remount`; needs
   * `sudo`). Returns the migration id to follow with {@link remountStatus}, or `undefined`
   * when the server answered 204 (servers before migration ids moved before answering).
   * @throws SecretsApiError 400 naming the problem (`no matching mount at "x/"`, `path is already in use at y/`).
   */
  async remount(from: string, to: string): Promise<string | undefined> {
    const res = await this.client.write<{ migration_id?: string }>('sys/remount', { from, to });
    return res?.data?.migration_id ?? undefined;
  }

  /** How the move `migrationId` went (`GET sys/remount/status/<id>`). @throws SecretsApiError 400 for an unknown id. */
  async remountStatus(migrationId: string): Promise<RemountStatus> {
    const res = await this.client.read<RemountStatus>(`sys/remount/status/${encodeURIComponent(migrationId)}`);
    if (!res?.data) throw new Error('sys/remount/status returned no body');
    return res.data;
  }

  /**
   * The mount serving `path` (`GET sys/internal/ui/mounts/<path>`): its type, options
   * (`{"version":"2"}` for KV v2) and mount `path`; `undefined` when no engine serves it.
   * Throws 403 when the token holds no capability on the path.
   */
  async mountOf(path: string): Promise<(MountInfo & { path: string }) | undefined> {
    const res = await this.client.read<MountInfo & { path: string }>(`sys/internal/ui/mounts/${path.replace(/^\/+|\/+$/g, '')}`);
    return res?.data ?? undefined;
  }

  /** Unmounts `path` and deletes all its data (`DELETE sys/mounts/<path>`, 204, idempotent). */
  async disableMount(path: string): Promise<void> {
    await this.client.delete(`sys/mounts/${path.replace(/^\/+|\/+$/g, '')}`);
  }

  /** The enabled auth methods, keyed by path with trailing `/` (`"token/"`, `"userpass/"`). */
  async listAuth(): Promise<Record<string, MountInfo>> {
    return mountMap(await this.client.read<Record<string, MountInfo>>('sys/auth'));
  }

  /** Enables an auth method at `path` (`POST sys/auth/<path>`, 204; needs `sudo`). */
  async enableAuth(path: string, options: EnableAuthOptions): Promise<void> {
    const body: Record<string, unknown> = { type: options.type };
    if (options.description !== undefined) body.description = options.description;
    if (options.config !== undefined) body.config = options.config;
    if (options.local !== undefined) body.local = options.local;
    await this.client.write(`sys/auth/${trimSlashes(path)}`, body);
  }

  /** Disables the auth method at `path`, revoking its tokens (`DELETE sys/auth/<path>`, 204). */
  async disableAuth(path: string): Promise<void> {
    await this.client.delete(`sys/auth/${trimSlashes(path)}`);
  }

  /** Whether the server is initialised (`GET sys/init`). */
  async initStatus(): Promise<boolean> {
    const res = (await this.client.read('sys/init')) as unknown as { initialized?: unknown } | undefined;
    return res?.initialized === true;
  }

  /**
   * Initialises the server (`PUT sys/init`): makes the keys, splits the unseal key into
   * `secretShares` shares of which `secretThreshold` unseal. The server stays sealed.
   * Returns the raw body: `keys` (hex), `keys_base64` and `root_token`.
   */
  async init(options: InitOptions): Promise<InitResponse> {
    const res = await this.client.write('sys/init', { secret_shares: options.secretShares, secret_threshold: options.secretThreshold });
    if (!res) throw new Error('sys/init returned no body');
    return res as unknown as InitResponse;
  }

  /** The seal status (`GET sys/seal-status`, unauthenticated). */
  async sealStatus(): Promise<SealStatus> {
    const res = await this.client.read('sys/seal-status');
    if (!res) throw new Error('sys/seal-status returned no body');
    return res as unknown as SealStatus;
  }

  /** Submits one unseal key share, hex or base64 (`PUT sys/unseal`); returns the new seal status. */
  async unseal(key: string): Promise<SealStatus> {
    return this.unsealRequest({ key });
  }

  /** Discards the shares submitted so far (`PUT sys/unseal {"reset":true}`); returns the seal status. */
  async unsealReset(): Promise<SealStatus> {
    return this.unsealRequest({ reset: true });
  }

  /** Seals the server (`PUT sys/seal`, 204; needs `root` or `sudo` on `sys/seal`). */
  async seal(): Promise<void> {
    await this.client.write('sys/seal');
  }

  /**
   * Health (`GET sys/health`, unauthenticated). The health statuses (429, 472, 473, 501, 503)
   * are not errors: the body is returned with the `status` code added.
   *
   * @throws SecretsApiError when the answer carries no health body.
   */
  async health(): Promise<HealthStatus> {
    const res = await this.client.raw('GET', 'sys/health');
    const body = res.body;
    if (typeof body === 'object' && body !== null && !Array.isArray(body) && 'initialized' in body) {
      return { ...(body as Record<string, unknown>), status: res.status } as HealthStatus;
    }
    const errors =
      typeof body === 'object' && body !== null && Array.isArray((body as { errors?: unknown }).errors)
        ? (body as { errors: unknown[] }).errors.map(String)
        : [];
    throw new SecretsApiError(res.status, errors, { method: 'GET', path: '/v1/sys/health' });
  }

  /**
   * The HA status (`GET sys/ha-status`; needs `read` on `sys/ha-status`, root namespace
   * only): the active server, then the standbys it heard from since it became active. A
   * standby forwards the request to the active server. Without HA: the one server.
   * @throws SecretsApiError 403 without permission, 503 sealed or no active server reachable.
   */
  async haStatus(): Promise<HaStatus> {
    const res = await this.client.read<{ nodes: HaStatus['nodes'] }>('sys/ha-status');
    return { nodes: res?.data?.nodes ?? [] };
  }

  private async unsealRequest(body: Record<string, unknown>): Promise<SealStatus> {
    const res = await this.client.write('sys/unseal', body);
    if (!res) throw new Error('sys/unseal returned no body');
    return res as unknown as SealStatus;
  }
}
