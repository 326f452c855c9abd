/**
 * Active/standby between servers sharing one PostgreSQL table (issue 8 scope 2; DESIGN.md
 * "Growing past one machine"; reference/ecosystem.md §4): the **active** server is the
 * one holding a session-level advisory lock (key derived from the table name), on a
 * dedicated connection. The others are standbys, each **waiting** in `pg_advisory_lock`
 * on its own lock connection; while it waits, the leader row is read every `retryMs` on
 * another connection (what forwarding needs), and a lost lock connection is re-opened.
 *
 * - PostgreSQL frees a session lock as soon as its holder's connection ends (a killed
 *   process: within milliseconds, ecosystem.md §4), and grants it to a waiting standby at
 *   once, so a takeover costs milliseconds rather than a retry interval.
 * - The holder loses activeness **at once** when its lock connection fails or ends (the
 *   `'error'`/`'end'` events), or when a heartbeat on it fails (every `retryMs`).
 * - Fencing: on becoming active the holder bumps a **term** in the HA table
 *   (`<table>_ha`, one row, also holding the leader's addresses) and gives it to the
 *   {@link PostgresBackend}, which checks it inside every write transaction (`FOR SHARE`
 *   on that row). A new active's bump waits for such a transaction and every later one
 *   sees the new term and fails, so a partitioned ex-active cannot write.
 * - Echoes (with the `echo` option): a standby tells the active server it is there by
 *   upserting its row in `<table>_ha_nodes` every `echo.intervalMs`; the active server
 *   lists them ({@link PgHaLock.standbys}, the reference's `sys/ha-status`; pg-ha-echo.ts).
 *
 * @module
 */
import pg from 'pg';
import type { Logger } from '../log/logger.js';
import {
  DEFAULT_ECHO_INTERVAL_MS,
  dropEcho,
  ECHO_EXPIRY_ECHOES,
  ECHO_PRUNE_MS,
  pruneEchoes,
  readEchoes,
  writeEcho,
  type HaEcho,
  type HaEchoRow,
} from './pg-ha-echo.js';

/** The leader row: who is active, since when, and its term. */
export interface PgLeader {
  readonly term: number;
  readonly leaderAddress: string;
  readonly clusterAddress: string;
  readonly activeSince: Date;
}

/** What {@link PgHaLock} tells its owner. */
export interface PgHaEvents {
  /** This server holds the lock now; `term` is already given to the backend's fence. */
  onActive(term: number): void | Promise<void>;
  /** This server lost the lock (its connection failed or ended); writes are already refused. */
  onStandby(reason: string): void;
}

/** Options of {@link PgHaLock}; built by `PostgresBackend.haLock`. */
export interface PgHaLockOptions {
  readonly client: pg.ClientConfig;
  /** The table (unquoted) the key derives from. */
  readonly table: string;
  /** The HA table, quoted for SQL. */
  readonly haTable: string;
  /** What the backend's fence is set to: a term, or `'closed'` (refuse writes). */
  readonly setFence: (fence: number | 'closed') => void;
  /** Address published as the leader's (`api_addr`). */
  readonly address: () => string;
  readonly clusterAddress?: () => string;
  /** Pause between heartbeats, leader-row reads and reconnection tries; default 1000 ms. */
  readonly retryMs?: number;
  /**
   * Runs a read on a connection other than the lock's (the backend's pool): a standby's
   * lock connection is busy waiting for the lock. Absent: the leader row is read on the
   * lock connection only (when it is not waiting).
   */
  readonly query?: (text: string, values?: unknown[]) => Promise<{ rows: unknown[] }>;
  /** The echo table, quoted for SQL (pg-ha-echo.ts); needed with `echo`. */
  readonly haNodesTable?: string;
  /**
   * What this server echoes to the active one while a standby (its addresses are
   * `address` and `clusterAddress`); absent: no echoes (then {@link PgHaLock.standbys} of
   * the others' locks does not list this server). `intervalMs` defaults to 5000.
   */
  readonly echo?: Omit<HaEcho, 'apiAddress' | 'clusterAddress'> & { readonly intervalMs?: number };
  readonly log?: Logger;
}

/** The HA table's row as PostgreSQL returns it. */
interface LeaderRow {
  readonly term: string;
  readonly leader_address: string;
  readonly cluster_address: string;
  readonly active_since: Date;
}

/** `CREATE TABLE IF NOT EXISTS` of the HA table (one row, id = 1). */
const haTableDdl = (haTable: string) =>
  `CREATE TABLE IF NOT EXISTS ${haTable} (id integer PRIMARY KEY, term bigint NOT NULL, leader_address text NOT NULL,
     cluster_address text NOT NULL, active_since timestamptz NOT NULL)`;

/** The session advisory lock of one server group; see the module doc. */
export class PgHaLock {
  private client: pg.Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private active = false;
  private busy = false;
  private cachedLeader: PgLeader | undefined;
  private contactAt = 0;
  private echoAt = 0;
  private prunedAt = 0;
  private readonly retryMs: number;

  constructor(private readonly o: PgHaLockOptions) {
    this.retryMs = o.retryMs ?? 1000;
  }

  /** Whether this server holds the lock. */
  get isActive(): boolean {
    return this.active;
  }

  /** The leader row as last read (each try and heartbeat reads it). */
  get leader(): PgLeader | undefined {
    return this.cachedLeader;
  }

  /** When (epoch ms) the leader row was last read (each try and heartbeat); 0 before the first. */
  get lastContact(): number {
    return this.contactAt;
  }

  /**
   * Starts waiting for the lock now; every `retryMs` after: a heartbeat while active, a
   * leader-row read while waiting, a new lock connection when it was lost.
   */
  start(events: PgHaEvents): void {
    if (this.running) return;
    this.running = true;
    this.o.setFence('closed');
    const tick = () => {
      if (!this.running) return;
      if (!this.busy) void this.step(events);
      else if (!this.active) {
        void this.refreshLeader().catch((err: Error) => this.o.log?.debug({ err: err.message }, 'HA: cannot read the leader row'));
        void this.sendEcho().catch((err: Error) => this.o.log?.debug({ err: err.message }, "HA: cannot record this standby's echo"));
      }
      this.timer = setTimeout(tick, this.retryMs);
    };
    tick();
  }

  /** Stops trying and gives the lock up (closes its connection); writes are refused from now on. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.o.setFence('closed');
    this.active = false;
    const c = this.client;
    this.client = undefined;
    await c?.end().catch(() => undefined);
    // Leaves the active server's list at once rather than when the echo expires.
    await this.dropOwnEcho();
  }

  /**
   * The standbys that echoed since this server took the lock, at most
   * {@link ECHO_EXPIRY_ECHOES} intervals ago, by API address; `[]` when not active or
   * without echoes configured. @throws PostgreSQL's error.
   */
  async standbys(): Promise<HaEchoRow[]> {
    const since = this.cachedLeader?.activeSince;
    if (!this.active || !since || !this.o.query || !this.o.haNodesTable || !this.o.echo) return [];
    const expiry = ECHO_EXPIRY_ECHOES * (this.o.echo.intervalMs ?? DEFAULT_ECHO_INTERVAL_MS);
    if (Date.now() - this.prunedAt > ECHO_PRUNE_MS / 60) {
      this.prunedAt = Date.now();
      await pruneEchoes(this.o.query, this.o.haNodesTable, ECHO_PRUNE_MS);
    }
    return readEchoes(this.o.query, { haNodesTable: this.o.haNodesTable, selfId: this.o.echo.nodeId, since, expiryMs: expiry });
  }

  /** A standby's echo, when its interval has passed since the last one. */
  private async sendEcho(): Promise<void> {
    const echo = this.o.echo;
    if (!echo || !this.o.query || !this.o.haNodesTable) return;
    const now = Date.now();
    if (now - this.echoAt < (echo.intervalMs ?? DEFAULT_ECHO_INTERVAL_MS)) return;
    this.echoAt = now;
    await writeEcho(this.o.query, this.o.haNodesTable, {
      nodeId: echo.nodeId,
      hostname: echo.hostname,
      version: echo.version,
      apiAddress: this.o.address(),
      clusterAddress: this.o.clusterAddress?.() ?? '',
    });
  }

  private async dropOwnEcho(): Promise<void> {
    this.echoAt = 0;
    if (!this.o.echo || !this.o.query || !this.o.haNodesTable) return;
    await dropEcho(this.o.query, this.o.haNodesTable, this.o.echo.nodeId).catch((err: Error) =>
      this.o.log?.debug({ err: err.message }, "HA: cannot remove this server's echo"),
    );
  }

  /** Waiting for the lock until it is ours (standby), or one heartbeat (active). */
  private async step(events: PgHaEvents): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const c = await this.connection(events);
      if (!this.active) {
        await this.readLeader((text) => c.query(text));
        // Returns once the holder's session ends; the wait ends early (an error) when this connection does.
        await c.query("SELECT pg_advisory_lock(hashtext('cairn ha ' || $1))", [this.o.table]);
        if (this.running && this.client === c) {
          await c.query(haTableDdl(this.o.haTable));
          const t = await c.query<LeaderRow>(
            `INSERT INTO ${this.o.haTable} AS h (id, term, leader_address, cluster_address, active_since) VALUES (1, 1, $1, $2, now())
             ON CONFLICT (id) DO UPDATE SET term = h.term + 1, leader_address = EXCLUDED.leader_address,
               cluster_address = EXCLUDED.cluster_address, active_since = EXCLUDED.active_since
             RETURNING term, leader_address, cluster_address, active_since`,
            [this.o.address(), this.o.clusterAddress?.() ?? ''],
          );
          const term = Number(t.rows[0].term);
          if (this.client !== c) return; // lost meanwhile
          // The row as we wrote it: `leader` names this server from the moment it is active.
          this.remember(t.rows[0]);
          this.active = true;
          this.o.setFence(term);
          this.o.log?.info({ term }, 'HA: this server is active (holds the lock)');
          void this.dropOwnEcho();
          await events.onActive(term);
        }
        return;
      }
      await this.readLeader((text) => c.query(text));
    } catch (err) {
      if (!this.running) return;
      if (this.client) this.lose(events, `lock connection failed: ${(err as Error).message}`);
      else this.o.log?.warn({ err: (err as Error).message }, 'HA: cannot reach PostgreSQL; retrying');
    } finally {
      this.busy = false;
    }
  }

  /**
   * Reads the leader row now on the side connection (a standby's lock connection is busy
   * waiting): every `retryMs` while waiting, and when a forward to the leader failed (a
   * new leader may have taken over since the last read). No-op without `query`.
   * @throws PostgreSQL's error.
   */
  async refreshLeader(): Promise<void> {
    if (this.o.query) await this.readLeader(this.o.query);
  }

  private async readLeader(query: (text: string) => Promise<{ rows: unknown[] }>): Promise<void> {
    const r = await query(`SELECT term, leader_address, cluster_address, active_since FROM ${this.o.haTable} WHERE id = 1`).catch((err: { code?: string }) => {
      if (err?.code === '42P01') return { rows: [] }; // no leader yet
      throw err;
    });
    this.remember(r.rows[0] as LeaderRow | undefined);
  }

  private remember(row: LeaderRow | undefined): void {
    this.contactAt = Date.now();
    this.cachedLeader = row && {
      term: Number(row.term),
      leaderAddress: row.leader_address,
      clusterAddress: row.cluster_address,
      activeSince: row.active_since,
    };
  }

  /** The lock connection, opened when missing; its loss demotes at once. */
  private async connection(events: PgHaEvents): Promise<pg.Client> {
    if (this.client) return this.client;
    const c = new pg.Client({ ...this.o.client, application_name: 'cairn-ha' });
    c.on('error', (err) => this.lose(events, `lock connection error: ${err.message}`, c));
    c.on('end', () => this.lose(events, 'lock connection ended', c));
    try {
      await c.connect();
    } catch (err) {
      c.removeAllListeners('end');
      await c.end().catch(() => undefined);
      throw err;
    }
    if (!this.running) {
      await c.end().catch(() => undefined);
      throw new Error('stopped');
    }
    this.client = c;
    return c;
  }

  /** The lock connection is gone: refuse writes now, tell the owner, try again later on a new connection. */
  private lose(events: PgHaEvents, reason: string, c: pg.Client | undefined = this.client): void {
    if (c !== this.client || c === undefined) return;
    this.client = undefined;
    c.end().catch(() => undefined);
    this.o.setFence('closed');
    if (!this.active) return;
    this.active = false;
    this.o.log?.warn({ reason }, 'HA: lost the lock; stepping down to standby');
    events.onStandby(reason);
  }
}
