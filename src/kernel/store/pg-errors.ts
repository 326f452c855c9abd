/**
 * How {@link PostgresBackend} (postgres.ts) tells PostgreSQL failures apart: a lost
 * connection (the operation may run again on a fresh one), a transaction the server rolled
 * back for a lock conflict (the group may run again), a write refused by the HA fence, and
 * the two states of a group lost on its way (nothing sent yet, or `COMMIT` sent). Also the
 * one shape of every error a caller sees: it names the server, never the password.
 *
 * @module
 */
import pg from 'pg';

/** A failed `BEGIN`: nothing of the group reached the server, so it may be retried. */
export class BeginFailed extends Error {}

/**
 * A write refused by the HA fence (see pg-lock.ts): this server is not the active one, or
 * another server became active since (a newer term). Nothing was written.
 */
export class FencedWriteError extends Error {
  readonly code = 'CAIRN_FENCED';
}

/** The connection was lost while `COMMIT` was on its way: the server may or may not have committed. */
export class CommitOutcomeUnknown extends Error {}

/** `08…` connection exceptions, `57P0x` shutdowns and FATAL/PANIC reports, or a socket/`pg` error without a SQLSTATE. */
export function isConnectionLoss(err: unknown): boolean {
  if (err instanceof FencedWriteError) return false;
  if (!(err instanceof pg.DatabaseError)) return !(err instanceof TypeError || err instanceof RangeError);
  const code = err.code ?? '';
  return code.startsWith('08') || code.startsWith('57P') || err.severity === 'FATAL' || err.severity === 'PANIC';
}

/** Deadlock or serialization failure: the transaction was rolled back as a whole and may run again. */
export function isRetryableTxn(err: unknown): boolean {
  return err instanceof pg.DatabaseError && (err.code === '40P01' || err.code === '40001');
}

/**
 * The error a caller sees: `PostgreSQL <target>: <what>: <reason>`, with `err` as its
 * cause and PostgreSQL's SQLSTATE (or the socket's code) kept as `code`. `target` is
 * `user@host:port/database` (pg-schema.ts `describeConnectionUrl`), never the password.
 */
export function pgError(target: string, what: string, err: unknown): Error {
  const e = err as { message?: string; code?: string };
  const reason = e?.message || e?.code || String(err);
  return Object.assign(new Error(`PostgreSQL ${target}: ${what}: ${reason}`, { cause: err }), e?.code ? { code: e.code } : {});
}
