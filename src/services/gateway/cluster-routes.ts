/**
 * The leader's side of the calls a follower controller forwards for its workers
 * (cluster-authority.ts): `POST /v1/cluster/worker-status`, `/authorize-connection` and
 * `/connection-closed`, each with its body's fields (validated by the dispatcher: the
 * follower sends the gRPC messages as decoded, every field set) and its handler. Their
 * routes, behind `worker_auth_token`, are declared in routes.ts.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import type { AuthorizeConnectionRequest, ConnectionClosedRequest, KnownWorker } from './cluster-protocol.js';
import { sessionAuthority, type SessionAuthorityOptions } from './cluster-authority.js';
import { ok, type RouteReply } from './route.js';
import { ConnectionDenied } from './sessions.js';

/** The body of `POST /v1/cluster/worker-status`: a {@link KnownWorker} (its `lastStatusMs` is replaced by the arrival time). */
export const WORKER_STATUS_FIELDS = {
  name: Type.String(),
  address: Type.String(),
  lastStatusMs: Type.Number(),
  sessionCount: Type.Integer(),
  state: Type.String(),
  releaseVersion: Type.String(),
  tags: Type.Record(Type.String(), Type.Array(Type.String())),
};

/** The body of `POST /v1/cluster/authorize-connection`: an {@link AuthorizeConnectionRequest}. */
export const AUTHORIZE_CONNECTION_FIELDS = { worker_name: Type.String(), authorization_token: Type.String(), client_address: Type.String() };

/** The body of `POST /v1/cluster/connection-closed`: a {@link ConnectionClosedRequest}. */
export const CONNECTION_CLOSED_FIELDS = {
  worker_name: Type.String(),
  session_id: Type.String(),
  connection_id: Type.String(),
  bytes_up: Type.Integer(),
  bytes_down: Type.Integer(),
  reason: Type.String(),
};

/** The leader's side of a forward: this controller's own sessions (never forwarded again). */
const local = (o: SessionAuthorityOptions) => sessionAuthority({ ...o, leadership: undefined });

/** `POST /v1/cluster/worker-status` (the leader's side): records a worker a follower heard from, dated on arrival. */
export async function recordWorkerStatus(o: SessionAuthorityOptions, w: KnownWorker): Promise<RouteReply> {
  o.directory.record({ ...w, lastStatusMs: o.now() });
  return ok({});
}

/** `POST /v1/cluster/connection-closed` (the leader's side). */
export async function recordConnectionClosed(o: SessionAuthorityOptions, r: ConnectionClosedRequest): Promise<RouteReply> {
  await local(o).connectionClosed(r);
  return ok({});
}

/** `POST /v1/cluster/authorize-connection` (the leader's side): the grant, or 403 `{"kind":"PermissionDenied","message"}` with the refusal. */
export async function authorizeForwardedConnection(o: SessionAuthorityOptions, r: AuthorizeConnectionRequest): Promise<RouteReply> {
  try {
    return ok(await local(o).authorizeConnection(r));
  } catch (err) {
    if (err instanceof ConnectionDenied) return { status: 403, body: { kind: 'PermissionDenied', message: err.message } };
    throw err;
  }
}
