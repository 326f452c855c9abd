/**
 * The controller↔worker gRPC protocol (`proto/cluster.proto`, loaded with proto-loader)
 * and the controller's side of it: the `Cluster` service on the `cluster` listener, which
 * records each worker's latest status, answers it with the sessions to close, and checks
 * session tokens for the workers' proxied connections (reference/gateway.md §4.4, §7;
 * DESIGN.md "real gRPC channels between gateway controller and workers").
 *
 * `tsc` does not copy `.proto` files to `dist/`, so the file is looked up beside this
 * module first (tsx runs `src/`) and then at `src/services/gateway/proto/` from `dist/`.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { capConnections, DEFAULT_CONNECTION_LIMITS, splitAddress } from '../../kernel/http/index.js';
import { secretsEqual } from '../../kernel/util/sha256.js';
import type { SessionAuthority, WorkerDirectory } from './cluster-authority.js';
import type { AuthorizeConnectionRequest, AuthorizeConnectionResponse, ConnectionClosedRequest, KnownWorker } from './cluster-protocol.js';
import { ConnectionDenied } from './sessions.js';

/** A worker's status report: the `WorkerStatus` message. */
export interface WorkerStatus {
  readonly name: string;
  /** Sessions with at least one connection. */
  readonly session_count: number;
  /** `active`, `shutdown` or `unknown`. */
  readonly state: string;
  /** `host:port` of the worker's proxy listener; empty without one. */
  readonly address: string;
  /** Open connections per session. */
  readonly sessions: readonly { readonly session_id: string; readonly connection_count: number }[];
  /** The worker's release, `Cairn v<version>`; `''` from a worker that does not send it. */
  readonly release_version: string;
  /** The worker's `tags` (key → values), for targets' `egress_worker_filter`. */
  readonly tags: readonly { readonly key: string; readonly value: string }[];
}

/** The `StatusResponse` message. */
export interface StatusResponse {
  readonly cancel_session_ids: readonly string[];
}

/** Tags as a record of value lists, from the `Tag` messages. */
function tagsOf(tags: WorkerStatus['tags'] | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const t of tags ?? []) (out[t.key] ??= []).push(t.value);
  return out;
}

const CANDIDATES = ['./proto/cluster.proto', '../../../src/services/gateway/proto/cluster.proto'].map((p) => fileURLToPath(new URL(p, import.meta.url)));

let loaded: grpc.ServiceClientConstructor | undefined;

/**
 * The generated `cairn.gateway.v1.Cluster` client constructor (its `service` property is
 * the service definition for servers). Loaded once.
 * @throws {Error} naming the paths tried when the proto file is not found.
 */
export function clusterService(): grpc.ServiceClientConstructor {
  if (loaded) return loaded;
  const file = CANDIDATES.find((p) => existsSync(p));
  if (!file) throw new Error(`gateway: cluster.proto not found (looked in ${CANDIDATES.join(', ')})`);
  const def = protoLoader.loadSync(file, { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true });
  const pkg = grpc.loadPackageDefinition(def) as unknown as { cairn: { gateway: { v1: { Cluster: grpc.ServiceClientConstructor } } } };
  loaded = pkg.cairn.gateway.v1.Cluster;
  return loaded;
}

/** Options of {@link startClusterServer}. */
export interface ClusterServerOptions {
  /** `host:port`; port 0 picks a free port. */
  readonly address: string;
  /** Answers the session calls (the state's sessions, or the leader through a follower). */
  readonly sessions: SessionAuthority;
  /** Where reporting workers are recorded. */
  readonly directory: WorkerDirectory;
  /**
   * When set, every call must carry metadata `authorization: Bearer <workerAuthToken>`
   * (`worker_auth_token` in both configs), else UNAUTHENTICATED.
   */
  readonly workerAuthToken?: string;
  /** Receives every status report (after it is recorded). */
  readonly onStatus?: (status: WorkerStatus) => void;
  /** Clock in epoch milliseconds; default `Date.now`. */
  readonly now?: () => number;
  /** Most connections open at once (`max_connections`; further ones are closed at once); absent = 4096, 0 = no limit. */
  readonly maxConnections?: number;
}

/** A running `Cluster` gRPC server. */
export interface ClusterServer {
  /** `host:port` actually bound (the chosen port when 0 was asked). */
  readonly address: string;
  readonly port: number;
  /** Workers by name, from their latest status report (and, on the leader, those followers forwarded). */
  readonly workers: ReadonlyMap<string, KnownWorker>;
  /** Stops the server: waits up to `graceMs` for calls in flight, then forces. */
  close(graceMs?: number): Promise<void>;
}

/** Metadata key of the worker's credential. */
export const WORKER_AUTH_METADATA = 'authorization';

/**
 * Starts the controller's `Cluster` service on a plaintext gRPC listener. Calls without
 * the worker credential (when one is configured) fail with UNAUTHENTICATED, calls without
 * a worker name with INVALID_ARGUMENT, a refused connection with PERMISSION_DENIED and the
 * reason.
 * @throws {Error} when the address cannot be bound (message names it).
 */
export async function startClusterServer(options: ClusterServerOptions): Promise<ClusterServer> {
  const now = options.now ?? (() => Date.now());
  const { sessions, workerAuthToken } = options;
  const workers = options.directory;
  /** Why a call is refused before it is handled, or undefined. */
  const refusal = (call: grpc.ServerUnaryCall<unknown, unknown>, workerName: string): Partial<grpc.StatusObject> | undefined => {
    if (workerAuthToken !== undefined) {
      const given = call.metadata.get(WORKER_AUTH_METADATA)[0];
      if (typeof given !== 'string' || !secretsEqual(given, `Bearer ${workerAuthToken}`)) {
        return { code: grpc.status.UNAUTHENTICATED, details: 'worker authentication failed: check worker_auth_token' };
      }
    }
    if (!workerName) return { code: grpc.status.INVALID_ARGUMENT, details: 'worker name is required' };
    return undefined;
  };
  const server = new grpc.Server();
  server.addService(clusterService().service, {
    Status: (call: grpc.ServerUnaryCall<WorkerStatus, StatusResponse>, callback: grpc.sendUnaryData<StatusResponse>) => {
      const s = call.request;
      const refused = refusal(call, s.name);
      if (refused) return callback(refused);
      sessions.workerSeen({
        name: s.name,
        address: s.address,
        lastStatusMs: now(),
        sessionCount: s.session_count,
        state: s.state || 'unknown',
        releaseVersion: s.release_version ?? '',
        tags: tagsOf(s.tags),
      });
      options.onStatus?.(s);
      callback(null, { cancel_session_ids: sessions.toClose(s.sessions.map((x) => x.session_id)) });
    },
    AuthorizeConnection: (
      call: grpc.ServerUnaryCall<AuthorizeConnectionRequest, AuthorizeConnectionResponse>,
      callback: grpc.sendUnaryData<AuthorizeConnectionResponse>,
    ) => {
      const r = call.request;
      const refused = refusal(call, r.worker_name);
      if (refused) return callback(refused);
      sessions.authorizeConnection(r).then(
        (g) => callback(null, g),
        (err: Error) => callback({ code: err instanceof ConnectionDenied ? grpc.status.PERMISSION_DENIED : grpc.status.UNAVAILABLE, details: err.message }),
      );
    },
    ConnectionClosed: (call: grpc.ServerUnaryCall<ConnectionClosedRequest, object>, callback: grpc.sendUnaryData<object>) => {
      const r = call.request;
      const refused = refusal(call, r.worker_name);
      if (refused) return callback(refused);
      sessions.connectionClosed(r).then(
        () => callback(null, {}),
        (err: Error) => callback({ code: grpc.status.UNAVAILABLE, details: err.message }),
      );
    },
  });
  // Connections are accepted by our own socket server and handed to gRPC, so the
  // listener's connection cap applies (grpc-js has no option for it).
  const sockets = net.createServer();
  capConnections(sockets, { maxConnections: options.maxConnections ?? DEFAULT_CONNECTION_LIMITS.maxConnections, maxConnectionsPerClient: 0 }, (socket) =>
    socket.destroy(),
  );
  const injector = server.createConnectionInjector(grpc.ServerCredentials.createInsecure());
  sockets.on('connection', (socket) => injector.injectConnection(socket));
  const port = await new Promise<number>((resolve, reject) => {
    let bind: { host: string; port: number };
    try {
      bind = splitAddress(options.address);
    } catch (err) {
      return reject(new Error(`cannot listen on cluster address "${options.address}": ${(err as Error).message}`));
    }
    sockets.once('error', (err) => reject(new Error(`cannot listen on cluster address "${options.address}": ${err.message}`)));
    sockets.listen(bind.port, bind.host, () => resolve((sockets.address() as net.AddressInfo).port));
  });
  const host = options.address.slice(0, options.address.lastIndexOf(':'));
  return {
    address: `${host}:${port}`,
    port,
    get workers() {
      return workers.workers;
    },
    close: (graceMs = 1000) =>
      new Promise<void>((resolve) => {
        sockets.close();
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}
