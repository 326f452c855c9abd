/**
 * Several servers of one service sharing a {@link StateStore} on one PostgreSQL table
 * (issue 8 scope 3; DESIGN.md "Growing past one machine"): one **leader** writes and runs
 * the leader-only work (replication, bootstrap, plugin fingerprinting); the others are
 * **followers** that apply the leader's log and forward writes to it.
 *
 * - Leadership is the session advisory lock of kernel/store/pg-lock.ts (the secrets
 *   service's active/standby lock, on this service's own table): a killed leader's lock is
 *   free within milliseconds and a follower takes it on its next try (`retryMs`). Writes
 *   are fenced by the lock's term, so a partitioned ex-leader cannot write.
 * - On taking the lock, a server catches up with the log **before** it accepts writes, so
 *   its indexes continue the old leader's. On losing it, it stops the leader-only work and
 *   reloads its state (memory may hold a batch the database never got).
 * - Followers apply the log when the change feed (LISTEN/NOTIFY, pg-listen.ts) says the
 *   table changed, and on a periodic check (which also recovers a store whose write
 *   failed, and a feed that missed notifications). A read that must see every
 *   acknowledged write first runs {@link StateLeadership.readBarrier}.
 *
 * @module
 */
import type { Logger } from '../log/logger.js';
import type { PgHaLock } from './pg-lock.js';
import type { PostgresBackend } from './postgres.js';
import type { StateStore } from './state.js';

/** Options of {@link StateLeadership}. */
export interface StateLeadershipOptions {
  readonly backend: PostgresBackend;
  /** Opened with `{ shared: true }` on `backend`. */
  readonly store: StateStore;
  /** This server's address (`host:port`) as the other servers reach it: published while it leads. */
  readonly address: () => string;
  readonly log: Logger;
  /** Pause between lock tries and heartbeats, and between periodic log checks, in ms; default 1000. */
  readonly retryMs?: number;
  /**
   * Starts the leader-only work and makes the leader's first writes; called once the store is
   * caught up and writable, and awaited before this server says it leads ({@link isLeader}).
   */
  readonly onLeader?: () => void | Promise<void>;
  /** Stops the leader-only work; called when leadership is lost (writes are refused already). */
  readonly onFollower?: () => void | Promise<void>;
}

/** What the HTTP layer asks of leadership (kernel/http/api-service.ts). */
export interface Leadership {
  /** Whether this server writes. */
  readonly isLeader: boolean;
  /** The leader's `host:port`; undefined when none is known (or it is this server). */
  readonly leaderAddress: string | undefined;
  /** Whether some server is known to lead (this one, or the one the database names). */
  readonly knownLeader: boolean;
  /** Milliseconds since a follower last heard the database name the leader; 0 on the leader. */
  readonly lastContactMs: number;
  /** Resolves once this server has applied every write acknowledged before the call. */
  readBarrier(): Promise<void>;
  /** Reads who leads from the database now (after a forward to the old leader failed). @throws the database's error. */
  refreshLeader(): Promise<void>;
}

/** Leader election and log following for one shared store; see the module doc. */
export class StateLeadership implements Leadership {
  private readonly lock: PgHaLock;
  private leader = false;
  /** The leader-only work was started (from the start of `onLeader` until `onFollower`). */
  private working = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private unwatch: (() => void) | undefined;
  private readonly retryMs: number;

  constructor(private readonly o: StateLeadershipOptions) {
    this.retryMs = o.retryMs ?? 1000;
    this.lock = o.backend.haLock({ address: o.address, retryMs: this.retryMs });
  }

  /** Starts following the feed and trying for the lock. */
  start(): void {
    const { store, log } = this.o;
    this.unwatch = this.o.backend.watchChanges((change) => {
      if (!store.isWritable) this.follow(change.keys === undefined);
    });
    const tick = () => {
      if (this.stopped) return;
      this.follow(true);
      this.timer = setTimeout(tick, this.retryMs);
    };
    this.timer = setTimeout(tick, this.retryMs);
    this.lock.start({
      onActive: async () => {
        // Every write of the old leader is committed or fenced off by now (our term bump
        // waited for them): read them all before writing after them.
        for (;;) {
          try {
            await store.catchUp(true);
            break;
          } catch (err) {
            if (!this.lock.isActive || this.stopped) return;
            log.warn({ err: (err as Error).message }, 'leadership: cannot catch up with the log yet; retrying');
            await new Promise((r) => setTimeout(r, this.retryMs));
          }
        }
        if (!this.lock.isActive || this.stopped) return;
        store.setWritable(true);
        // The leader's first writes (built-in ACL objects, the initial management token) are
        // made before this server says it leads: until then requests get `No cluster leader`
        // and `status/leader` names none, so a client that waited for a leader and then uses
        // the configured token never meets a 403 `ACL not found` (alone, an agent makes them
        // before it listens: kernel/agent/start.ts).
        this.working = true;
        try {
          await this.o.onLeader?.();
        } catch (err) {
          log.error({ err: (err as Error).message }, 'leadership: the leader-only work failed to start');
        }
        if (!this.lock.isActive || this.stopped) return;
        this.leader = true;
        log.info({ index: store.index }, 'leadership: this server is the leader');
      },
      onStandby: (reason) => {
        store.setWritable(false);
        const was = this.working;
        this.leader = false;
        this.working = false;
        if (!was) return;
        log.warn({ reason }, 'leadership: lost; following the new leader');
        void Promise.resolve(this.o.onFollower?.()).catch((err: Error) => log.error({ err: err.message }, 'leadership: stopping the leader-only work failed'));
        store.reload().catch((err: Error) => log.warn({ err: err.message }, 'leadership: reload after stepping down failed; retrying'));
      },
    });
  }

  /** Whether this server is the leader (holds the lock, caught up, writing). */
  get isLeader(): boolean {
    return this.leader;
  }

  /** The leader's address from the lock's row, unless this server leads or none is known. */
  get leaderAddress(): string | undefined {
    if (this.leader) return undefined;
    const address = this.lock.leader?.leaderAddress;
    return address && address !== this.o.address() ? address : undefined;
  }

  /** @inheritdoc */
  get knownLeader(): boolean {
    return this.leader || this.leaderAddress !== undefined;
  }

  /** @inheritdoc */
  get lastContactMs(): number {
    if (this.leader) return 0;
    const at = this.lock.lastContact;
    return at === 0 ? 0 : Math.max(0, Date.now() - at);
  }

  /** @inheritdoc One read of the next log key on a follower; nothing on the leader. */
  async readBarrier(): Promise<void> {
    if (!this.o.store.isWritable) await this.o.store.catchUp(false);
  }

  /** @inheritdoc */
  refreshLeader(): Promise<void> {
    return this.lock.refreshLeader();
  }

  /** Stops following and gives the lock up (the leader-only work is stopped first). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.unwatch?.();
    if (this.working) await this.o.onFollower?.();
    this.leader = false;
    this.working = false;
    await this.lock.stop();
    if (this.o.store.isWritable) this.o.store.setWritable(false);
  }

  private follow(full: boolean): void {
    this.o.store.catchUp(full).catch((err: Error) => this.o.log.warn({ err: err.message }, 'leadership: cannot read the log; retrying'));
  }
}
