/**
 * The controller's sessions: a session authorises connections to one target
 * (`host:port`) until it expires, through any worker that presents its authorization
 * token (issue 4 scope 3; the model of reference/gateway.md §4.4: a session is active
 * while it has connections, workers are told to close a canceled session's connections
 * in the answer to their next status report).
 *
 * Status follows the reference product: `pending` (authorised, no connection yet) →
 * `active` (a connection was made) → `canceling` (canceled or expired while connections
 * are open) → `terminated` (no open connection and canceled, expired, or its connection
 * limit used up). Tokens are kept only as SHA-256 hashes. Sessions live in the
 * controller's memory: a controller restart ends them (docs/compatibility.md).
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../kernel/util/sha256.js';

/** Session status (reference product's session states). */
export type SessionStatus = 'pending' | 'active' | 'canceling' | 'terminated';

/** One connection a worker proxied (or tried to) for a session. */
export interface ConnectionView {
  readonly connection_id: string;
  readonly worker_name: string;
  readonly client_tcp_address: string;
  readonly status: 'connected' | 'closed';
  readonly created_time: string;
  readonly closed_time?: string;
  readonly bytes_up: number;
  readonly bytes_down: number;
  readonly closed_reason?: string;
}

/** A session as the API shows it (field names of the reference product's session resource). */
export interface SessionView {
  readonly id: string;
  readonly type: 'tcp';
  /** `tcp://host:port`. */
  readonly endpoint: string;
  readonly status: SessionStatus;
  readonly created_time: string;
  readonly updated_time: string;
  readonly expiration_time: string;
  /** -1 = unlimited. */
  readonly connection_limit: number;
  readonly termination_reason?: string;
  readonly connections: readonly ConnectionView[];
}

/** A connection the controller allowed: where the worker proxies it, and until when. */
export interface ConnectionGrant {
  readonly sessionId: string;
  readonly connectionId: string;
  /** `host:port`. */
  readonly endpoint: string;
  /** Epoch milliseconds. */
  readonly expirationMs: number;
}

/** Why a connection was refused; the message is safe to show the client. */
export class ConnectionDenied extends Error {}

interface Connection {
  readonly id: string;
  readonly worker: string;
  readonly client: string;
  readonly createdMs: number;
  closedMs?: number;
  bytesUp: number;
  bytesDown: number;
  reason?: string;
}

interface Session {
  readonly id: string;
  readonly endpoint: string;
  readonly tokenHash: string;
  readonly createdMs: number;
  readonly expirationMs: number;
  readonly connectionLimit: number;
  updatedMs: number;
  status: SessionStatus;
  terminationReason?: string;
  readonly connections: Map<string, Connection>;
}

/** How long a terminated session stays listed: 1 hour, in ms. */
export const TERMINATED_RETENTION_MS = 60 * 60 * 1000;

const iso = (ms: number) => new Date(ms).toISOString();
const newId = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;

/** The session table of one controller. Every method takes the current time in epoch ms. */
export class SessionRegistry {
  private readonly sessions = new Map<string, Session>();
  private readonly byToken = new Map<string, Session>();

  /**
   * Authorises a session to `endpoint` (`host:port`) for `ttlMs` milliseconds with at
   * most `connectionLimit` connections (-1 = unlimited). Returns its view and the
   * authorization token, shown to the caller once.
   */
  authorize(input: { endpoint: string; ttlMs: number; connectionLimit: number }, nowMs: number): { session: SessionView; token: string } {
    this.sweep(nowMs);
    const token = randomBytes(32).toString('base64url');
    const s: Session = {
      id: newId('s'),
      endpoint: input.endpoint,
      tokenHash: sha256Hex(token),
      createdMs: nowMs,
      updatedMs: nowMs,
      expirationMs: nowMs + input.ttlMs,
      connectionLimit: input.connectionLimit,
      status: 'pending',
      connections: new Map(),
    };
    this.sessions.set(s.id, s);
    this.byToken.set(s.tokenHash, s);
    return { session: view(s), token };
  }

  /**
   * One new connection through `worker` for the session whose token is `token`.
   * @throws {ConnectionDenied} unknown token; session canceled, terminated or expired;
   *   connection limit reached.
   */
  authorizeConnection(token: string, worker: string, client: string, nowMs: number): ConnectionGrant {
    this.sweep(nowMs);
    const s = this.byToken.get(sha256Hex(token));
    if (!s) throw new ConnectionDenied('unknown session authorization token');
    if (s.status === 'canceling' || s.status === 'terminated') throw new ConnectionDenied(`session ${s.id} is ${s.status}`);
    if (s.connectionLimit >= 0 && s.connections.size >= s.connectionLimit) {
      throw new ConnectionDenied(`session ${s.id} has used its connection limit of ${s.connectionLimit}`);
    }
    const c: Connection = { id: newId('sc'), worker, client, createdMs: nowMs, bytesUp: 0, bytesDown: 0 };
    s.connections.set(c.id, c);
    s.status = 'active';
    s.updatedMs = nowMs;
    return { sessionId: s.id, connectionId: c.id, endpoint: s.endpoint, expirationMs: s.expirationMs };
  }

  /** Records the end of a connection; unknown ids are ignored (the session may be pruned). */
  connectionClosed(input: { sessionId: string; connectionId: string; bytesUp: number; bytesDown: number; reason: string }, nowMs: number): void {
    const s = this.sessions.get(input.sessionId);
    const c = s?.connections.get(input.connectionId);
    if (!s || !c || c.closedMs !== undefined) return;
    Object.assign(c, { closedMs: nowMs, bytesUp: input.bytesUp, bytesDown: input.bytesDown, reason: input.reason });
    s.updatedMs = nowMs;
    this.settle(s, nowMs);
  }

  /** Cancels session `id`; `undefined` when there is none. Idempotent. */
  cancel(id: string, nowMs: number): SessionView | undefined {
    this.sweep(nowMs);
    const s = this.sessions.get(id);
    if (!s) return undefined;
    if (s.status !== 'terminated') this.end(s, 'canceled by user', nowMs);
    return view(s);
  }

  /**
   * The sessions among `sessionIds` (reported open by a worker) whose connections must
   * close: canceling or terminated ones, and unknown ones (a restarted controller no
   * longer vouches for them).
   */
  toClose(sessionIds: readonly string[], nowMs: number): string[] {
    this.sweep(nowMs);
    return sessionIds.filter((id) => {
      const s = this.sessions.get(id);
      return !s || s.status === 'canceling' || s.status === 'terminated';
    });
  }

  /** Session `id`, or `undefined`. */
  get(id: string, nowMs: number): SessionView | undefined {
    this.sweep(nowMs);
    const s = this.sessions.get(id);
    return s && view(s);
  }

  /** Every session, newest first. */
  list(nowMs: number): SessionView[] {
    this.sweep(nowMs);
    return [...this.sessions.values()].reverse().map(view);
  }

  /** Sessions by status (for metrics). */
  countByStatus(nowMs: number): Record<SessionStatus, number> {
    this.sweep(nowMs);
    const out: Record<SessionStatus, number> = { pending: 0, active: 0, canceling: 0, terminated: 0 };
    for (const s of this.sessions.values()) out[s.status]++;
    return out;
  }

  /** Expires sessions past their expiration and forgets long-terminated ones. */
  private sweep(nowMs: number): void {
    for (const s of this.sessions.values()) {
      if (s.status !== 'terminated' && s.status !== 'canceling' && nowMs >= s.expirationMs) this.end(s, 'timed out', nowMs);
      if (s.status === 'terminated' && nowMs - s.updatedMs > TERMINATED_RETENTION_MS) {
        this.sessions.delete(s.id);
        this.byToken.delete(s.tokenHash);
      }
    }
  }

  private end(s: Session, reason: string, nowMs: number): void {
    s.terminationReason = reason;
    s.status = 'canceling';
    s.updatedMs = nowMs;
    this.settle(s, nowMs);
  }

  /** `canceling` → `terminated` once no connection is open; an exhausted limit terminates too. */
  private settle(s: Session, nowMs: number): void {
    const open = [...s.connections.values()].some((c) => c.closedMs === undefined);
    if (open) return;
    const exhausted = s.connectionLimit >= 0 && s.connections.size >= s.connectionLimit;
    if (s.status === 'canceling' || (s.status === 'active' && exhausted)) {
      s.status = 'terminated';
      s.terminationReason ??= 'connection limit reached';
      s.updatedMs = nowMs;
    }
  }
}

function view(s: Session): SessionView {
  return {
    id: s.id,
    type: 'tcp',
    endpoint: `tcp://${s.endpoint}`,
    status: s.status,
    created_time: iso(s.createdMs),
    updated_time: iso(s.updatedMs),
    expiration_time: iso(s.expirationMs),
    connection_limit: s.connectionLimit,
    ...(s.terminationReason !== undefined && { termination_reason: s.terminationReason }),
    connections: [...s.connections.values()].map((c) => ({
      connection_id: c.id,
      worker_name: c.worker,
      client_tcp_address: c.client,
      status: c.closedMs === undefined ? 'connected' : 'closed',
      created_time: iso(c.createdMs),
      ...(c.closedMs !== undefined && { closed_time: iso(c.closedMs) }),
      bytes_up: c.bytesUp,
      bytes_down: c.bytesDown,
      ...(c.reason !== undefined && { closed_reason: c.reason }),
    })),
  };
}
