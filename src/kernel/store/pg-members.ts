/**
 * Which agents sharing one PostgreSQL table are running: each **member** (an agent, by
 * node name) holds a session-level advisory lock on a dedicated connection
 * ({@link PgMemberLock}); the leader asks which members hold none ({@link ABSENT_MEMBERS_SQL}).
 * PostgreSQL ends a killed process's session, and frees its lock, within milliseconds
 * (reference/ecosystem.md §4); a partitioned agent's session ends when TCP keepalive gives
 * up on it. This stands in for the reference's gossip failure detector (its `serfHealth`
 * check goes critical when a member stops answering probes), which Cairn does not run.
 *
 * The lock is the two-key form `pg_advisory_lock(hashtext('cairn member <table>'),
 * hashtext(<member>))`, so `pg_locks` shows it with `objsubid = 2`, `classid` and `objid`
 * holding the two hashes as unsigned 32-bit numbers. Two members whose names hash alike
 * would look alike: one dead would go unseen while the other runs (2^-32 per pair).
 *
 * @module
 */
import pg from 'pg';
import type { Logger } from '../log/logger.js';

/**
 * `$1` the table, `$2` the member names (text[]): the names whose lock no session holds.
 */
export const ABSENT_MEMBERS_SQL = `SELECT m AS name FROM unnest($2::text[]) AS m
  WHERE NOT EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
    AND l.classid = (hashtext('cairn member ' || $1)::bigint & 4294967295)::oid
    AND l.objid = (hashtext(m)::bigint & 4294967295)::oid)`;

/** Options of {@link PgMemberLock}. */
export interface PgMemberLockOptions {
  readonly client: pg.ClientConfig;
  /** The data table (unquoted): members of one table only. */
  readonly table: string;
  /** This agent's node name. */
  readonly member: string;
  /** Pause before reconnecting after the connection was lost, ms; default 1000. */
  readonly retryMs?: number;
  readonly log?: Logger;
}

/** Holds this agent's member lock while started; a lost connection is re-opened every `retryMs`. */
export class PgMemberLock {
  private running = false;
  private client: pg.Client | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly o: PgMemberLockOptions) {}

  /** Takes the lock now (in the background) and keeps it until {@link stop}. */
  start(): void {
    if (this.running) return;
    this.running = true;
    void this.connect();
  }

  /** Gives the lock up (closes its connection): the leader sees this member gone at its next round. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const c = this.client;
    this.client = undefined;
    await c?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (!this.running) return;
    const c = new pg.Client(this.o.client);
    this.client = c;
    let lost = false;
    const lose = (why: string) => {
      if (lost) return;
      lost = true;
      c.end().catch(() => undefined);
      if (this.client !== c || !this.running) return;
      this.client = undefined;
      this.o.log?.warn({ member: this.o.member, err: why }, 'member lock connection lost; reconnecting');
      this.timer = setTimeout(() => void this.connect(), this.o.retryMs ?? 1000);
    };
    c.on('error', (err) => lose(err.message));
    c.on('end', () => lose('connection ended'));
    try {
      await c.connect();
      // Waits while another session holds it: an agent with this node name already runs.
      await c.query("SELECT pg_advisory_lock(hashtext('cairn member ' || $1), hashtext($2))", [this.o.table, this.o.member]);
    } catch (err) {
      lose((err as Error).message);
    }
  }
}
