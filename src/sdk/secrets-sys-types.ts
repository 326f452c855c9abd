/**
 * Wire shapes of the seal lifecycle and auth-method endpoints used by `SysClient`
 * (`reference/secrets.md` §3.1–§3.4, §3.6). These bodies have no envelope.
 *
 * @module
 */

/** Input of `SysClient.init`. */
export interface InitOptions {
  /** Number of unseal key shares to make (1–255). */
  secretShares: number;
  /** Number of shares needed to unseal (1–`secretShares`; more than 1 when there are several shares). */
  secretThreshold: number;
}

/** Body of `PUT sys/init`: the unseal key shares and the initial root token. */
export interface InitResponse {
  /** Shares, hex. */
  keys: string[];
  /** The same shares, base64. */
  keys_base64: string[];
  root_token: string;
  [extra: string]: unknown;
}

/** Body of `GET sys/seal-status` and `PUT sys/unseal`. */
export interface SealStatus {
  /** Seal type, `shamir`. */
  type: string;
  initialized: boolean;
  sealed: boolean;
  /** Threshold: shares needed to unseal (0 before init). */
  t: number;
  /** Total shares (0 before init). */
  n: number;
  /** Shares submitted so far in the current unseal attempt. */
  progress: number;
  /** Identifies the current unseal attempt; `""` when none is under way. */
  nonce: string;
  version: string;
  build_date?: string;
  migration?: boolean;
  recovery_seal?: boolean;
  storage_type?: string;
  /** Present once unsealed. */
  cluster_name?: string;
  /** Present once unsealed. */
  cluster_id?: string;
  [extra: string]: unknown;
}

/** Body of `GET sys/health`, plus the HTTP status that carried it. */
export interface HealthStatus {
  /** 200 active, 429 standby, 501 not initialised, 503 sealed (unless overridden by query). */
  status: number;
  initialized: boolean;
  sealed: boolean;
  standby: boolean;
  performance_standby?: boolean;
  replication_performance_mode?: string;
  replication_dr_mode?: string;
  /** Unix seconds. */
  server_time_utc: number;
  version: string;
  cluster_name?: string;
  cluster_id?: string;
  [extra: string]: unknown;
}

/** Options of `SysClient.enableAuth`. */
export interface EnableAuthOptions {
  /** Auth method type: `userpass`, `approle`. */
  type: string;
  description?: string;
  /** Lease settings: `default_lease_ttl`, `max_lease_ttl` as duration strings or seconds. */
  config?: Record<string, unknown>;
  /** Do not replicate the method. */
  local?: boolean;
}

/** One server of `SysClient.haStatus` (`GET sys/ha-status`; the reference's `HANode`). */
export interface HaNode {
  hostname: string;
  /** The server's API address (`api_addr`, or its first listener's URL). */
  api_address: string;
  cluster_address: string;
  /** The active server (the one that answered); the others are standbys. */
  active_node: boolean;
  /** When the active server last heard from this standby (RFC 3339); `null` for the active server. */
  last_echo: string | null;
  version: string;
  [extra: string]: unknown;
}

/** `GET sys/ha-status`: the active server first, then the standbys it heard from since it became active. */
export interface HaStatus {
  nodes: HaNode[];
}

/**
 * Options of `SysClient.tuneMount` (`POST sys/mounts/<path>/tune`, reference/secrets.md §3.5):
 * only what is given changes.
 */
export interface TuneMountOptions {
  description?: string;
  /** Duration string (`1h`) or seconds; 0 = the system default. */
  default_lease_ttl?: string | number;
  /** Duration string or seconds; 0 = the system default. */
  max_lease_ttl?: string | number;
  /** Engine options, merged into the mount's; the KV `version` cannot change. */
  options?: Record<string, string>;
}

/** Body of `GET sys/remount/status/:migration_id` (the reference's mount migration status). */
export interface RemountStatus {
  migration_id: string;
  migration_info: {
    /** Namespace and mount path, e.g. `secret/`. */
    source_mount: string;
    target_mount: string;
    /** `in-progress`, `success` or `failure`. */
    status: string;
    [extra: string]: unknown;
  };
}
