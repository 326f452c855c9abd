/**
 * The expiry loop: a {@link LeaseManager.revokeDue} round every second, run only by the
 * active server (node.ts starts it when the active core opens and stops it when the
 * server steps down or seals). Leases and the index are stored, so after a restart or a
 * failover the new active server's loop revokes whatever fell due meanwhile.
 *
 * @module
 */
import type { Logger } from '../../../kernel/log/logger.js';
import { Periodic } from '../../../kernel/util/periodic.js';
import type { LeaseManager } from './manager.js';

/** Pause between rounds, ms: leases are revoked within about this long after expiring. */
const LEASE_EXPIRY_INTERVAL_MS = 1000;

/** See the module doc. */
export class LeaseExpiryLoop {
  private readonly periodic: Periodic;

  constructor(leases: LeaseManager, log: Logger, intervalMs = LEASE_EXPIRY_INTERVAL_MS) {
    this.periodic = new Periodic(
      () => leases.revokeDue(),
      intervalMs,
      (err) => log.warn({ err: err.message }, 'due leases could not be revoked; the next round retries'),
    );
  }

  /** Starts the rounds (no-op when started). */
  start(): void {
    this.periodic.start();
  }

  /** Stops the rounds and waits for one in progress. */
  stop(): Promise<void> {
    return this.periodic.stop();
  }
}
