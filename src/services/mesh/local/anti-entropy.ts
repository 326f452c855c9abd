/**
 * When an agent's node entries are synced to the catalog (the anti-entropy of
 * local-agent.ts; reference/mesh-catalog.md "Agent"): at once after each change (coalesced
 * with a sync in flight), every `syncIntervalMs` (60 s, with jitter of up to a tenth) to
 * repair what the catalog lost or gained behind the agent's back, and again after a
 * failure (1 s, then twice as long each time, at most the sync period). How one sync
 * reaches the catalog is sync.ts.
 *
 * @module
 */
import type { Logger } from '../../../kernel/log/logger.js';
import type { StateStore } from '../../../kernel/store/index.js';
import { sendEntries, writeEntries, type NodeEntries, type SendToLeader } from './sync.js';

/** Options of {@link AntiEntropy}. */
export interface AntiEntropyOptions {
  readonly state: StateStore;
  readonly log: Logger;
  /** Clock in epoch ms. */
  readonly now: () => number;
  /** Full sync period in ms; default 60 s. */
  readonly syncIntervalMs?: number;
  /** Sends a catalog write to the leader, when this agent follows a shared state (sync.ts). */
  readonly sendToLeader?: SendToLeader;
  /** The node's entries as the agent owns them, read at each sync. */
  readonly entries: () => NodeEntries;
}

/** First retry delay of a failed sync, ms. */
const RETRY_FIRST_MS = 1_000;

/** The sync loop of one agent; see the module doc. */
export class AntiEntropy {
  private syncing: Promise<void> | undefined;
  private again = false;
  private started = false;
  private closed = false;
  /** Delay before retrying a failed sync, ms (doubles up to the sync period; reset by a success). */
  private retryMs = RETRY_FIRST_MS;
  private retryTimer: NodeJS.Timeout | undefined;
  private syncTimer: NodeJS.Timeout | undefined;
  private warnedReadOnly = false;

  constructor(private readonly o: AntiEntropyOptions) {}

  /** Starts the periodic sync, and syncs now. */
  start(): void {
    this.started = true;
    const every = this.o.syncIntervalMs ?? 60_000;
    const tick = () => {
      this.syncTimer = setTimeout(
        () => {
          this.request();
          tick();
        },
        every + Math.random() * (every / 10),
      );
      this.syncTimer.unref();
    };
    tick();
    this.request();
  }

  /** Stops the timers and waits for a sync in flight. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.syncTimer);
    clearTimeout(this.retryTimer);
    await this.syncing;
  }

  /**
   * Syncs soon (coalesced with a sync in flight; nothing before {@link start} or after
   * {@link close}). A failure is logged and retried.
   */
  request(): void {
    if (this.closed || !this.started) return;
    if (this.syncing) {
      this.again = true;
      return;
    }
    this.syncing = (async () => {
      do {
        this.again = false;
        try {
          await this.syncNow();
          this.retryMs = RETRY_FIRST_MS;
        } catch (err) {
          this.o.log.warn({ err, retryInMs: this.retryMs }, 'anti-entropy sync to the catalog failed');
          clearTimeout(this.retryTimer);
          this.retryTimer = setTimeout(() => this.request(), this.retryMs);
          this.retryTimer.unref();
          this.retryMs = Math.min(this.retryMs * 2, this.o.syncIntervalMs ?? 60_000);
        }
      } while (this.again && !this.closed);
      this.syncing = undefined;
    })();
  }

  /** One full sync of the node's entries: into the state when this agent may write it, else through the leader. */
  private async syncNow(): Promise<void> {
    const { state } = this.o;
    const want = this.o.entries();
    if (state.isWritable) return writeEntries(state, want, this.o.now());
    if (this.o.sendToLeader) return sendEntries(state, want, this.o.sendToLeader);
    if (!this.warnedReadOnly) this.o.log.info('this agent follows a shared state: its local services and checks are not synced to the catalog');
    this.warnedReadOnly = true;
  }
}
