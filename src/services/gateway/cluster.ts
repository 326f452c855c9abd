/**
 * The controller↔worker gRPC protocol (`proto/cluster.proto`, loaded with proto-loader)
 * and the controller's side of it: the `Cluster` service on the `cluster` listener,
 * which records each worker's latest status (reference/gateway.md §7; DESIGN.md
 * "real gRPC channels between gateway controller and workers").
 *
 * `tsc` does not copy `.proto` files to `dist/`, so the file is looked up beside this
 * module first (tsx runs `src/`) and then at `src/services/gateway/proto/` from `dist/`.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

/** A worker's status report: the `WorkerStatus` message. */
export interface WorkerStatus {
  readonly name: string;
  /** Sessions with at least one connection. */
  readonly session_count: number;
  /** `active`, `shutdown` or `unknown`. */
  readonly state: string;
}

/** What the controller knows of one worker. */
export interface KnownWorker {
  readonly name: string;
  /** Epoch milliseconds of the last status report received. */
  readonly lastStatusMs: number;
  readonly sessionCount: number;
  readonly state: string;
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
  /** Receives every status report (after it is recorded). */
  readonly onStatus?: (status: WorkerStatus) => void;
  /** Clock in epoch milliseconds; default `Date.now`. */
  readonly now?: () => number;
}

/** A running `Cluster` gRPC server. */
export interface ClusterServer {
  /** `host:port` actually bound (the chosen port when 0 was asked). */
  readonly address: string;
  readonly port: number;
  /** Workers by name, from their latest status report. */
  readonly workers: ReadonlyMap<string, KnownWorker>;
  /** Stops the server: waits up to `graceMs` for calls in flight, then forces. */
  close(graceMs?: number): Promise<void>;
}

/**
 * Starts the controller's `Cluster` service on a plaintext gRPC listener.
 * @throws {Error} when the address cannot be bound (message names it).
 */
export async function startClusterServer(options: ClusterServerOptions): Promise<ClusterServer> {
  const now = options.now ?? (() => Date.now());
  const workers = new Map<string, KnownWorker>();
  const server = new grpc.Server();
  server.addService(clusterService().service, {
    Status: (call: grpc.ServerUnaryCall<WorkerStatus, object>, callback: grpc.sendUnaryData<object>) => {
      const s = call.request;
      if (!s.name) {
        callback({ code: grpc.status.INVALID_ARGUMENT, details: 'worker name is required' });
        return;
      }
      workers.set(s.name, { name: s.name, lastStatusMs: now(), sessionCount: s.session_count, state: s.state || 'unknown' });
      options.onStatus?.(s);
      callback(null, {});
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(options.address, grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(new Error(`cannot listen on cluster address "${options.address}": ${err.message}`)) : resolve(p),
    ),
  );
  const host = options.address.slice(0, options.address.lastIndexOf(':'));
  return {
    address: `${host}:${port}`,
    port,
    workers,
    close: (graceMs = 1000) =>
      new Promise<void>((resolve) => {
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
