/**
 * Typed helper for the mount table (`sys/mounts`, `reference/secrets.md` §3.5).
 *
 * @module
 */
import type { SecretsClient } from './secrets.js';

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
}

/**
 * Mount management. Methods throw `SecretsApiError` on statuses ≥ 400 (400 for a path in use,
 * 403 without permission) and `SecretsConnectionError` without an answer.
 */
export class SysClient {
  constructor(private readonly client: SecretsClient) {}

  /** The mount table, keyed by path with trailing `/` (`"secret/"`). */
  async mounts(): Promise<Record<string, MountInfo>> {
    const res = await this.client.read<Record<string, MountInfo>>('sys/mounts');
    if (!res) return {};
    if (res.data) return res.data;
    // Older servers answer only with the top-level copy of the map.
    return Object.fromEntries(
      Object.entries(res as unknown as Record<string, unknown>).filter(([k]) => k.endsWith('/')),
    ) as Record<string, MountInfo>;
  }

  /** Mounts an engine at `path` (`POST sys/mounts/<path>`, 204). */
  async enableMount(path: string, options: EnableMountOptions): Promise<void> {
    const body: Record<string, unknown> = { type: options.type };
    if (options.description !== undefined) body.description = options.description;
    if (options.options !== undefined) body.options = options.options;
    if (options.config !== undefined) body.config = options.config;
    await this.client.write(`sys/mounts/${path.replace(/^\/+|\/+$/g, '')}`, body);
  }

  /** Unmounts `path` and deletes all its data (`DELETE sys/mounts/<path>`, 204, idempotent). */
  async disableMount(path: string): Promise<void> {
    await this.client.delete(`sys/mounts/${path.replace(/^\/+|\/+$/g, '')}`);
  }
}
