/**
 * Who answers the workers' session calls (cluster.ts): the controller whose state is
 * writable (SQLite, or the PostgreSQL leader) answers from its session store; a follower
 * forwards the calls that write (connection authorisation, connection closed) and the
 * worker's status to the leader's api listener, at the Cairn-only internal routes
 * `POST /v1/cluster/authorize-connection`, `/v1/cluster/connection-closed` and
 * `/v1/cluster/worker-status`, with `Authorization: Bearer <worker_auth_token>`. A worker
 * therefore keeps working whichever controller it reports to and whichever leads, and the
 * leader knows every worker (the ones reporting to followers too) when it picks workers
 * for a new session. Without `worker_auth_token` the internal routes are not served, and
 * a follower cannot forward (its workers' connections are refused; docs/compatibility.md).
 *
 * @module
 */
import { sendToLeader } from '../../kernel/http/index.js';
import type { Leadership } from '../../kernel/store/index.js';
import type { AuthorizeConnectionRequest, AuthorizeConnectionResponse, ConnectionClosedRequest, KnownWorker } from './cluster-protocol.js';
import { ConnectionDenied, type SessionStore } from './sessions.js';

/** Time a forwarded call may take, in ms. */
const FORWARD_TIMEOUT_MS = 5000;

/** The workers a controller knows, from their own status reports and those followers forward. */
export class WorkerDirectory {
  private readonly byName = new Map<string, KnownWorker>();

  /** Records `w` (replacing what was known of it). */
  record(w: KnownWorker): void {
    this.byName.set(w.name, w);
  }

  /** Workers by name. */
  get workers(): ReadonlyMap<string, KnownWorker> {
    return this.byName;
  }
}

/** What the cluster server asks about sessions; see the module doc. */
export interface SessionAuthority {
  /** @throws {ConnectionDenied} the reason, shown to the client. @throws {Error} the leader cannot be reached. */
  authorizeConnection(r: AuthorizeConnectionRequest): Promise<AuthorizeConnectionResponse>;
  connectionClosed(r: ConnectionClosedRequest): Promise<void>;
  /** Of `ids` (open on a worker), those whose connections must close. */
  toClose(ids: readonly string[]): string[];
  /** A worker's status was received by this controller. */
  workerSeen(w: KnownWorker): void;
}

/** Options of {@link sessionAuthority}. */
export interface SessionAuthorityOptions {
  readonly sessions: SessionStore;
  /** Whether this controller writes its state now. */
  readonly writable: () => boolean;
  readonly directory: WorkerDirectory;
  /** Several controllers on PostgreSQL: where the leader is. */
  readonly leadership?: Leadership;
  readonly workerAuthToken?: string;
  /** Clock in epoch ms (a forwarded status is dated on arrival: clocks of controllers differ). */
  readonly now: () => number;
  /** Logs a failed forward of a worker status (debug level). */
  readonly onForwardError?: (err: Error) => void;
}

/** The {@link SessionAuthority} of a controller; see the module doc. */
export function sessionAuthority(o: SessionAuthorityOptions): SessionAuthority {
  const forward = async <T>(op: string, body: unknown): Promise<T> => {
    const lead = o.leadership;
    if (!lead || o.workerAuthToken === undefined)
      throw new Error('this controller does not write the state and cannot forward to the leader without "worker_auth_token"');
    const res = await sendToLeader({
      leader: () => lead.leaderAddress,
      refreshLeader: () => lead.refreshLeader(),
      send: (address) =>
        fetch(`http://${address}/v1/cluster/${op}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${o.workerAuthToken}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
        }),
    });
    const json = (await res.json()) as T & { message?: string };
    if (res.status === 403) throw new ConnectionDenied(json.message ?? 'connection refused');
    if (res.status !== 200) throw new Error(`the leader answered ${res.status}: ${json.message ?? ''}`);
    return json;
  };
  return {
    async authorizeConnection(r) {
      if (!o.writable()) return forward('authorize-connection', r);
      const g = await o.sessions.authorizeConnection(r.authorization_token, r.worker_name, r.client_address);
      return { session_id: g.sessionId, connection_id: g.connectionId, endpoint: g.endpoint, expiration_unix_ms: g.expirationMs };
    },
    async connectionClosed(r) {
      if (!o.writable()) return void (await forward('connection-closed', r));
      await o.sessions.connectionClosed({
        sessionId: r.session_id,
        connectionId: r.connection_id,
        bytesUp: r.bytes_up,
        bytesDown: r.bytes_down,
        reason: r.reason,
      });
    },
    toClose: (ids) => o.sessions.toClose(ids),
    workerSeen(w) {
      o.directory.record(w);
      if (!o.writable() && o.leadership) forward('worker-status', w).catch((err: Error) => o.onForwardError?.(err));
    },
  };
}
