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
import { bearerToken, CairnError, parseJsonBody, sendToLeader, type HttpRequest, type HttpResponse } from '../../kernel/http/index.js';
import type { Leadership } from '../../kernel/store/index.js';
import { secretsEqual } from '../../kernel/util/sha256.js';
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
    if (!lead || o.workerAuthToken === undefined) throw new Error('this controller does not write the state and cannot forward to the leader without "worker_auth_token"');
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
      await o.sessions.connectionClosed({ sessionId: r.session_id, connectionId: r.connection_id, bytesUp: r.bytes_up, bytesDown: r.bytes_down, reason: r.reason });
    },
    toClose: (ids) => o.sessions.toClose(ids),
    workerSeen(w) {
      o.directory.record(w);
      if (!o.writable() && o.leadership) forward('worker-status', w).catch((err: Error) => o.onForwardError?.(err));
    },
  };
}

/**
 * Serves the internal routes (the leader's side of the forwarding) when `rel` (the path
 * after `/v1/`) is one of them; undefined otherwise.
 * @throws CairnError 404 without `worker_auth_token`; 401 wrong credential; 503 when this
 *   controller does not write (a stale forward); 400 malformed body.
 */
export async function serveClusterForward(req: HttpRequest, rel: string, o: SessionAuthorityOptions): Promise<HttpResponse | undefined> {
  const m = /^cluster\/(authorize-connection|connection-closed|worker-status)$/.exec(rel);
  if (!m) return undefined;
  if (o.workerAuthToken === undefined) throw new CairnError('not_found', `path ${req.path} not found`);
  if (req.method !== 'POST') throw new CairnError('method_not_allowed', `method ${req.method} is not allowed on ${req.path}`);
  const given = bearerToken(req.headers, 'any-case-one-word');
  if (given === undefined || !secretsEqual(given, o.workerAuthToken)) throw new CairnError('unauthenticated', 'worker authentication failed: check worker_auth_token');
  if (!o.writable()) throw new CairnError('unavailable', 'this controller does not lead');
  let body: Record<string, unknown>;
  try {
    body = parseJsonBody(req.body) as Record<string, unknown>;
  } catch (err) {
    throw new CairnError('bad_request', `malformed JSON body: ${(err as Error).message}`);
  }
  const reply = (status: number, value: unknown): HttpResponse => ({ status, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(value) });
  const local = sessionAuthority({ ...o, leadership: undefined });
  if (m[1] === 'worker-status') {
    o.directory.record({ ...(body as unknown as KnownWorker), lastStatusMs: o.now() });
    return reply(200, {});
  }
  if (m[1] === 'connection-closed') {
    await local.connectionClosed(body as unknown as ConnectionClosedRequest);
    return reply(200, {});
  }
  try {
    return reply(200, await local.authorizeConnection(body as unknown as AuthorizeConnectionRequest));
  } catch (err) {
    if (err instanceof ConnectionDenied) return reply(403, { kind: 'PermissionDenied', message: err.message });
    throw err;
  }
}
