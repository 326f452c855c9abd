/**
 * Config keys of a listener's connection limits (kernel/http/connection-limits.ts), stated
 * once for every service's file: the timeouts keep the names and defaults of Vault's and
 * Boundary's `listener "tcp"` block (`http_read_header_timeout`, 5s here against their 10s, `http_read_timeout`
 * 30s, `http_idle_timeout` 5m); the total cap `max_connections` (4096) is Cairn's own. The
 * discovery service and the scheduler put them in their `limits` block beside the
 * reference's `http_max_conns_per_client`.
 *
 * @module
 */
import { DEFAULT_CONNECTION_LIMITS as D, type ConnectionLimits } from '../http/connection-limits.js';
import { blockError, cfg, type BlockAt } from './schema.js';

/** The three timeout keys, in seconds (0 = none; `http_idle_timeout` 0 = the read timeout, then the header timeout). */
export const httpTimeoutKeys = {
  http_read_header_timeout: cfg.duration({
    default: D.headerTimeoutMs / 1000,
    min: 0,
    doc: 'time a client has to send the request line and headers; 0 = no limit',
  }),
  http_read_timeout: cfg.duration({
    default: D.requestTimeoutMs / 1000,
    min: 0,
    doc: 'time a client has to send the whole request, body included (replies may take longer); 0 = no limit',
  }),
  http_idle_timeout: cfg.duration({
    default: D.idleTimeoutMs / 1000,
    min: 0,
    doc: 'time an idle keep-alive connection is kept; 0 = http_read_timeout, or http_read_header_timeout when that is 0',
  }),
};

/** The total cap of one listener (`max_connections`; the `limits` blocks call it `http_max_conns`). */
export const maxConnectionsKey = cfg.int({
  default: D.maxConnections,
  min: 0,
  doc: 'most connections open at once; further ones are closed at once; 0 = no limit',
});

/** The reference's per-address cap (`limits { http_max_conns_per_client }`), with the product's own default. */
const maxConnsPerClientKey = <const N extends number>(defaultValue: N) =>
  cfg.int({ default: defaultValue, min: 0, doc: 'most connections open at once from one client IP address; further ones get 429; 0 = no limit' });

/** A validated block holding {@link httpTimeoutKeys}. */
export interface HttpTimeoutValues {
  readonly http_read_header_timeout: number;
  readonly http_read_timeout: number;
  readonly http_idle_timeout: number;
  readonly $at: BlockAt;
}

/**
 * The timeouts of a validated block, in ms.
 * @throws {ConfigError} at `http_read_header_timeout` when it exceeds a non-zero `http_read_timeout`.
 */
export function httpTimeoutsFrom(b: HttpTimeoutValues): Pick<ConnectionLimits, 'headerTimeoutMs' | 'requestTimeoutMs' | 'idleTimeoutMs'> {
  if (b.http_read_timeout > 0 && b.http_read_header_timeout > b.http_read_timeout) {
    throw blockError(
      b.$at,
      'http_read_header_timeout',
      `"http_read_header_timeout" (${b.http_read_header_timeout}s) must not exceed "http_read_timeout" (${b.http_read_timeout}s)`,
    );
  }
  return { headerTimeoutMs: b.http_read_header_timeout * 1000, requestTimeoutMs: b.http_read_timeout * 1000, idleTimeoutMs: b.http_idle_timeout * 1000 };
}

/**
 * The keys of the discovery service's and the scheduler's `limits` block: the reference's
 * `http_max_conns_per_client` (with the product's default: Consul 200, Nomad 100), the total
 * cap `http_max_conns` and the timeouts.
 */
export const limitsBlockKeys = <const N extends number>(perClientDefault: N) => ({
  ...httpTimeoutKeys,
  http_max_conns: maxConnectionsKey,
  http_max_conns_per_client: maxConnsPerClientKey(perClientDefault),
});

/** A validated `limits` block. */
export interface LimitsBlockValues extends HttpTimeoutValues {
  readonly http_max_conns: number;
  readonly http_max_conns_per_client: number;
}

/**
 * The HTTP listener's limits from a validated `limits` block; without one, the defaults
 * with `perClientDefault`. @throws {ConfigError} as {@link httpTimeoutsFrom}.
 */
export function limitsBlockFrom(b: LimitsBlockValues | undefined, perClientDefault: number): ConnectionLimits {
  if (b === undefined) return { maxConnectionsPerClient: perClientDefault };
  return { ...httpTimeoutsFrom(b), maxConnections: b.http_max_conns, maxConnectionsPerClient: b.http_max_conns_per_client };
}
