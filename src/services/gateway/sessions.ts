/**
 * The controller's sessions, kept in its state (table `sessions`; issue 20 scope 4): a
 * session authorises connections to one endpoint of one target for one user until it
 * expires, through any worker that presents its authorization token. Being in the state,
 * sessions survive a controller restart (SQLite) and a failover between controllers
 * sharing PostgreSQL; only the leader writes them (followers forward: cluster-forward.ts).
 *
 * Status follows the reference product (Boundary's session states): `pending`
 * (authorised, no connection yet) → `active` (a connection was made) → `canceling`
 * (canceled or expired while connections are open) → `terminated` (no open connection
 * and canceled, expired, or its connection limit used up). Each change is appended to
 * `states` as the reference shows it. Workers are told to close a canceling or terminated
 * session's connections in the answer to their next status report (cluster.ts). The
 * authorization token is `<session id>.<secret>`; only the SHA-256 of the whole token is
 * stored. When a session terminates its brokered credentials are released
 * (domain/broker.ts).
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { secretsEqual, sha256Hex } from '../../kernel/util/sha256.js';
import type { Txn } from '../../kernel/store/index.js';
import { releaseCredentials } from './domain/broker.js';
import { T, type BaseDoc } from './domain/docs.js';
import type { DomainState } from './domain/domain-state.js';
import { newId, PREFIX } from './domain/ids.js';

/** Session status (the reference's session states). */
export type SessionStatus = 'pending' | 'active' | 'canceling' | 'terminated';

/** One connection a worker proxied (or tried to) for a session. Times RFC 3339. */
interface SessionConnectionDoc {
  readonly connection_id: string;
  readonly worker_name: string;
  /** `host:port` of the client as the worker saw it. */
  readonly client_tcp_address: string;
  readonly status: 'connected' | 'closed';
  readonly created_time: string;
  readonly closed_time?: string;
  /** Bytes client → target. */
  readonly bytes_up: number;
  /** Bytes target → client. */
  readonly bytes_down: number;
  readonly closed_reason?: string;
}

/** One entry of a session's status history, newest first (the reference's `states`). */
interface SessionStateDoc {
  readonly status: SessionStatus;
  readonly start_time: string;
  readonly end_time?: string;
}

/** A session document (the reference's session resource fields) in the project scope of its target. */
export interface SessionDoc extends BaseDoc {
  readonly scope_id: string;
  readonly type: 'tcp';
  readonly target_id: string;
  readonly user_id: string;
  /** The auth token the session was authorised with; absent for the recovery credential. */
  readonly auth_token_id?: string;
  readonly host_id?: string;
  readonly host_set_id?: string;
  /** `tcp://host:port`. */
  readonly endpoint: string;
  readonly status: SessionStatus;
  readonly states: readonly SessionStateDoc[];
  readonly expiration_time: string;
  /** -1 = unlimited. */
  readonly connection_limit: number;
  /** The target's `egress_worker_filter` when the session was made. */
  readonly worker_filter?: string;
  readonly termination_reason?: string;
  readonly connections: readonly SessionConnectionDoc[];
  /** SHA-256 of the authorization token; never leaves the controller. */
  readonly token_hash: string;
}

/** What a new session is made of. */
export interface NewSession {
  readonly id: string;
  readonly scopeId: string;
  readonly targetId: string;
  readonly userId: string;
  readonly authTokenId?: string;
  readonly hostId?: string;
  readonly hostSetId?: string;
  /** `host:port`. */
  readonly address: string;
  /** Epoch ms. */
  readonly expirationMs: number;
  readonly connectionLimit: number;
  readonly workerFilter?: string;
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

/** How long a terminated session stays listed: 1 hour, in ms (the reference deletes terminated sessions after an hour). */
const TERMINATED_RETENTION_MS = 60 * 60 * 1000;

/** The session id a token names (`s_<10>.<secret>`); undefined when it is not shaped so. */
function sessionIdOfToken(token: string): string | undefined {
  return /^(s_[0-9A-Za-z]{10})\./.exec(token)?.[1];
}

/** `host:port` of an `endpoint` (`tcp://host:port`). */
const addressOfEndpoint = (endpoint: string): string => endpoint.replace(/^tcp:\/\//, '');

const isOpen = (c: SessionConnectionDoc) => c.status === 'connected';
const ended = (s: SessionDoc) => s.status === 'canceling' || s.status === 'terminated';

/** The session store of one controller; writes only where the state is writable (the leader). */
export class SessionStore {
  constructor(private readonly d: DomainState) {}

  private iso(ms = this.d.now()): string {
    return new Date(ms).toISOString();
  }

  /** Session `id`, or undefined. */
  get(id: string): SessionDoc | undefined {
    return this.d.state.get<SessionDoc>(T.sessions, id);
  }

  /** Every session. */
  list(): SessionDoc[] {
    return this.d.state.list<SessionDoc>(T.sessions);
  }

  /** A fresh session id (`s_…`). */
  newId(): string {
    return newId(PREFIX.session);
  }

  /**
   * Stores a new `pending` session. Returns it and its authorization token (shown to the
   * caller once).
   */
  async create(n: NewSession): Promise<{ session: SessionDoc; token: string }> {
    const token = `${n.id}.${randomBytes(32).toString('base64url')}`;
    const now = this.iso();
    const doc: SessionDoc = {
      id: n.id,
      scope_id: n.scopeId,
      type: 'tcp',
      target_id: n.targetId,
      user_id: n.userId,
      ...(n.authTokenId !== undefined && { auth_token_id: n.authTokenId }),
      ...(n.hostId !== undefined && { host_id: n.hostId }),
      ...(n.hostSetId !== undefined && { host_set_id: n.hostSetId }),
      endpoint: `tcp://${n.address}`,
      status: 'pending',
      states: [{ status: 'pending', start_time: now }],
      expiration_time: this.iso(n.expirationMs),
      connection_limit: n.connectionLimit,
      ...(n.workerFilter !== undefined && { worker_filter: n.workerFilter }),
      connections: [],
      token_hash: sha256Hex(token),
      created_time: now,
      updated_time: now,
      version: 1,
    };
    await this.d.state.txn((tx) => tx.put(T.sessions, doc.id, doc));
    return { session: doc, token };
  }

  /**
   * One new connection through `worker` for the session whose token is `token`.
   * @throws {ConnectionDenied} unknown token; session canceling, terminated or expired;
   *   connection limit reached.
   */
  async authorizeConnection(token: string, worker: string, client: string): Promise<ConnectionGrant> {
    const id = sessionIdOfToken(token);
    const found = id === undefined ? undefined : this.get(id);
    if (!found || !secretsEqual(sha256Hex(token), found.token_hash)) throw new ConnectionDenied('unknown session authorization token');
    const connectionId = `sc_${randomBytes(8).toString('hex')}`;
    const { result } = await this.d.state.txn((tx) => {
      const s = tx.get<SessionDoc>(T.sessions, found.id);
      if (!s) throw new ConnectionDenied('unknown session authorization token');
      if (ended(s)) return { denied: `session ${s.id} is ${s.status}` };
      if (this.d.now() >= Date.parse(s.expiration_time)) return { denied: `session ${s.id} has expired` };
      if (s.connection_limit >= 0 && s.connections.length >= s.connection_limit)
        return { denied: `session ${s.id} has used its connection limit of ${s.connection_limit}` };
      const now = this.iso();
      const c: SessionConnectionDoc = {
        connection_id: connectionId,
        worker_name: worker,
        client_tcp_address: client,
        status: 'connected',
        created_time: now,
        bytes_up: 0,
        bytes_down: 0,
      };
      this.put(tx, s, { connections: [...s.connections, c] }, 'active');
      return { grant: { sessionId: s.id, connectionId, endpoint: addressOfEndpoint(s.endpoint), expirationMs: Date.parse(s.expiration_time) } };
    });
    if ('denied' in result) throw new ConnectionDenied(result.denied);
    return result.grant;
  }

  /** Records the end of a connection; unknown ids are ignored (the session may be gone). */
  async connectionClosed(input: { sessionId: string; connectionId: string; bytesUp: number; bytesDown: number; reason: string }): Promise<void> {
    const { result } = await this.d.state.txn((tx) => {
      const s = tx.get<SessionDoc>(T.sessions, input.sessionId);
      const c = s?.connections.find((x) => x.connection_id === input.connectionId);
      if (!s || !c || c.status === 'closed') return undefined;
      const closed: SessionConnectionDoc = {
        ...c,
        status: 'closed',
        closed_time: this.iso(),
        bytes_up: input.bytesUp,
        bytes_down: input.bytesDown,
        closed_reason: input.reason,
      };
      const connections = s.connections.map((x) => (x === c ? closed : x));
      const status = settled({ ...s, connections });
      const limitUsed = status === 'terminated' && s.status === 'active';
      return this.put(tx, s, { connections, ...(limitUsed && { termination_reason: 'connection limit reached' }) }, status);
    });
    await this.released(result);
  }

  /**
   * Cancels session `id` (`canceling` while connections are open, else `terminated`);
   * undefined when there is none. Idempotent.
   */
  async cancel(id: string, reason = 'canceled'): Promise<SessionDoc | undefined> {
    const { result } = await this.d.state.txn((tx) => {
      const s = tx.get<SessionDoc>(T.sessions, id);
      if (!s || ended(s)) return s;
      return this.end(tx, s, reason);
    });
    await this.released(result);
    return result;
  }

  /**
   * The sessions among `sessionIds` (reported open by a worker) whose connections must
   * close: canceling, terminated, expired or unknown ones (deleted: no longer vouched for).
   */
  toClose(sessionIds: readonly string[]): string[] {
    const now = this.d.now();
    return sessionIds.filter((id) => {
      const s = this.get(id);
      return !s || ended(s) || now >= Date.parse(s.expiration_time);
    });
  }

  /**
   * The leader's periodic pass: sessions past their expiration end (`timed out`),
   * terminated ones older than {@link TERMINATED_RETENTION_MS} are deleted.
   */
  async sweep(): Promise<void> {
    const now = this.d.now();
    for (const s of this.list()) {
      if (!ended(s) && now >= Date.parse(s.expiration_time)) {
        const { result } = await this.d.state.txn((tx) => {
          const cur = tx.get<SessionDoc>(T.sessions, s.id);
          return cur && !ended(cur) ? this.end(tx, cur, 'timed out') : undefined;
        });
        await this.released(result);
      } else if (s.status === 'terminated' && now - Date.parse(s.updated_time) > TERMINATED_RETENTION_MS) {
        await this.d.state.txn((tx) => tx.delete(T.sessions, s.id));
      }
    }
  }

  /** Sessions by status (metrics). */
  countByStatus(): Record<SessionStatus, number> {
    const out: Record<SessionStatus, number> = { pending: 0, active: 0, canceling: 0, terminated: 0 };
    for (const s of this.list()) out[s.status]++;
    return out;
  }

  /** Ends `s` with `reason`: canceling, or terminated at once without open connections. */
  private end(tx: Txn, s: SessionDoc, reason: string): SessionDoc {
    return this.put(tx, s, { termination_reason: reason }, s.connections.some(isOpen) ? 'canceling' : 'terminated');
  }

  /** Writes `s` with `fields`, moving it to `status` (a new `states` entry when it changes). */
  private put(tx: Txn, s: SessionDoc, fields: Partial<SessionDoc>, status: SessionStatus): SessionDoc {
    const now = this.iso();
    const { CreateIndex: _c, ModifyIndex: _m, ...clean } = s as SessionDoc & { CreateIndex?: number; ModifyIndex?: number };
    let states = s.states;
    if (status !== s.status) states = [{ status, start_time: now }, ...s.states.map((x, i) => (i === 0 ? { ...x, end_time: now } : x))];
    const next: SessionDoc = { ...clean, ...fields, status, states, updated_time: now, version: s.version + 1 };
    tx.put(T.sessions, s.id, next);
    return next;
  }

  /** Releases the credentials of `s` when it just terminated. */
  private async released(s: SessionDoc | undefined): Promise<void> {
    if (s?.status === 'terminated') await releaseCredentials(this.d, s.id);
  }
}

/**
 * The status of `s` once a connection closed: `canceling` → `terminated` when none is
 * open; an `active` session whose connection limit is used up and none open terminates too.
 */
function settled(s: SessionDoc): SessionStatus {
  if (s.connections.some(isOpen)) return s.status;
  if (s.status === 'canceling') return 'terminated';
  if (s.status === 'active' && s.connection_limit >= 0 && s.connections.length >= s.connection_limit) return 'terminated';
  return s.status;
}
