/**
 * Typed helper for audit devices (`sys/audit`, `sys/audit-hash`: the reference's API of
 * the same paths). Every call needs a root token or a policy with `sudo` on the path.
 *
 * @module
 */
import type { SecretsTransport } from './secrets-transport.js';

/** One enabled audit device as `GET sys/audit` lists it. */
export interface AuditDeviceInfo {
  /** `file` or `socket`. */
  type: string;
  description: string;
  /** The options it was enabled with (strings), e.g. `{ file_path: '/var/log/cairn/audit.log' }`. */
  options: Record<string, string>;
  local: boolean;
  /** Its path, ending in `/`. */
  path: string;
  [extra: string]: unknown;
}

/** Options of {@link AuditClient.enable}. */
export interface EnableAuditOptions {
  /** `file` or `socket`. */
  type: string;
  description?: string;
  local?: boolean;
  /**
   * Device options, as strings. file: `file_path` (a path, `stdout` or `discard`), `mode`
   * (octal, default `0600`); socket: `address`, `socket_type` (`tcp`, `udp`, `unix`),
   * `write_timeout` (default `2s`); both: `format` (`json`), `prefix`, `log_raw`,
   * `hmac_accessor` (default `true`).
   */
  options?: Record<string, string>;
}

const clean = (path: string) => path.trim().replace(/^\/+|\/+$/g, '');

/**
 * Audit device management. Methods throw `SecretsApiError` on statuses ≥ 400 (400 naming a
 * bad option or a path in use, 403 without `sudo`) and `SecretsConnectionError` without an answer.
 */
export class AuditClient {
  /** @param client The connection the requests go through (its token applies; audit devices live in the root namespace). */
  constructor(private readonly client: SecretsTransport) {}

  /** The enabled devices, keyed by path with trailing `/` (`"file/"`). */
  async list(): Promise<Record<string, AuditDeviceInfo>> {
    const res = await this.client.read<Record<string, AuditDeviceInfo>>('sys/audit');
    return res?.data ?? {};
  }

  /** Enables a device at `path` (`PUT sys/audit/<path>`, 204). */
  async enable(path: string, options: EnableAuditOptions): Promise<void> {
    const body: Record<string, unknown> = { type: options.type };
    if (options.description !== undefined) body.description = options.description;
    if (options.local !== undefined) body.local = options.local;
    if (options.options !== undefined) body.options = options.options;
    await this.client.write(`sys/audit/${clean(path)}`, body);
  }

  /** Disables the device at `path` (`DELETE sys/audit/<path>`, 204; none there is no error). */
  async disable(path: string): Promise<void> {
    await this.client.delete(`sys/audit/${clean(path)}`);
  }

  /**
   * `input` hashed as the device at `path` hashes it (`PUT sys/audit-hash/<path>`):
   * `hmac-sha256:<hex>`, to look a known value up in its log. Throws 400 when no device is at `path`.
   */
  async hash(path: string, input: string): Promise<string> {
    const res = await this.client.write<{ hash: string }>(`sys/audit-hash/${clean(path)}`, { input });
    const hash = res?.data?.hash;
    if (typeof hash !== 'string') throw new Error(`sys/audit-hash/${clean(path)}: the reply holds no hash`);
    return hash;
  }
}
