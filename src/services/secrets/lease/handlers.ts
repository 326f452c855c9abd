/**
 * What an engine that issues leased secrets provides so the lease manager can renew and
 * revoke them (the reference's `framework.Secret` `Renew` / `Revoke`), and what its read
 * returns to ask for a lease.
 *
 * @module
 */
import type { Backend } from '../../../kernel/store/index.js';
import type { EngineResources } from '../engine-resources.js';
import type { MountEntry } from '../mounts/table.js';
import type { LeaseEntry } from './entry.js';

/** The lease an engine asks for on a result (`SecretsResult.lease`); its TTL is the result's `leaseDuration`. */
export interface LeaseRequest {
  readonly renewable: boolean;
  /** Kept with the lease for the engine's renew and revoke (never sent to clients). */
  readonly internal?: Readonly<Record<string, unknown>>;
}

/** What the engine's renew and revoke are given. */
interface LeaseContext {
  readonly lease: LeaseEntry;
  readonly mount: MountEntry;
  /** The mount's own storage. */
  readonly storage: Backend;
  /** The core's open resources (the database engine's connection pools). */
  readonly resources: EngineResources;
  readonly now: Date;
  /** Renewals: the seconds the caller asked for (`increment`; 0 = none). 0 on revoke. */
  readonly incrementS: number;
}

/** What a renewal returns: the engine's TTL (seconds, 0 = none) and data for the reply. */
interface RenewResult {
  readonly ttlS: number;
  /** The engine's own max TTL (seconds from issue; e.g. a database role's `max_ttl`), below the mount's; absent = the mount's. */
  readonly maxTtlS?: number;
  readonly data?: Record<string, unknown> | null;
}

/** An engine's lease callbacks. Errors thrown are the client's (renew) or retried by the expiry loop (revoke). */
export interface SecretLeaseHandlers {
  renew(ctx: LeaseContext): Promise<RenewResult>;
  /** Undoes the secret (a database user dropped, …); passthrough secrets have nothing to undo. */
  revoke(ctx: LeaseContext): Promise<void>;
}
