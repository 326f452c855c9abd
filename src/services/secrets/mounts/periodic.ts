/**
 * Engines' background work on the active server (the reference's `PeriodicFunc` of a
 * logical backend, e.g. the database engine's static-role rotation queue, transit's key
 * auto-rotation): every `intervalMs` each mount of every namespace whose engine declares
 * `periodic` gets one call. node.ts runs it beside the lease expiry loop, only while its
 * core is the active one, so a standby never acts and a failover carries on from storage.
 * One mount's failure is logged and never stops the others (the next round retries).
 *
 * @module
 */
import type { Logger } from '../../../kernel/log/logger.js';
import { Periodic } from '../../../kernel/util/periodic.js';
import type { SecretsCore } from '../core.js';

/** Pause between rounds, ms: the reference's database rotation queue ticks every 5 s; a second keeps `rotation_period` (≥ 5 s) close. */
const ENGINE_PERIODIC_INTERVAL_MS = 1000;

/** See the module doc. */
export class EnginePeriodicLoop {
  private readonly periodic: Periodic;

  constructor(core: SecretsCore, log: Logger, intervalMs = ENGINE_PERIODIC_INTERVAL_MS) {
    this.periodic = new Periodic(
      () => core.runPeriodic((mount, err) => log.warn({ mount: mount.path, err: err.message }, "an engine's periodic work failed; the next round retries")),
      intervalMs,
      (err) => log.warn({ err: err.message }, "the engines' periodic round failed; the next round retries"),
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
