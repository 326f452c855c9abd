/**
 * The gateway worker: a gRPC channel to its first upstream controller, a status report
 * every `statusIntervalMs` (whose answer names the sessions to close), the proxy listener
 * whose connections the controller authorises over that channel (proxy.ts), and the
 * health information the ops listener shows (reference/gateway.md §4.4, §7).
 *
 * `upstream_connection_state` is the channel's own `getConnectivityState(false)`, never
 * inferred: a lost READY connection goes IDLE, and the next status call drives it
 * through CONNECTING to TRANSIENT_FAILURE until the upstream answers again
 * (reference/ecosystem.md §8).
 *
 * @module
 */
import * as grpc from '@grpc/grpc-js';
import type { Logger } from '../../kernel/log/logger.js';
import { VERSION } from '../../kernel/version/index.js';
import { clusterService, WORKER_AUTH_METADATA, type StatusResponse, type WorkerStatus } from './cluster.js';
import type { AuthorizeConnectionRequest, AuthorizeConnectionResponse, ConnectionClosedRequest } from './cluster-protocol.js';
import { ProxyServer, type ClosedConnection, type ProxyGrant } from './proxy.js';

/** Worker operational state (reference/gateway.md §4.4). */
export type WorkerState = 'unknown' | 'active' | 'shutdown';

/** A gRPC connectivity state name (spec 000 "Upstream connection state of a worker"). */
export type UpstreamConnectionState = 'IDLE' | 'CONNECTING' | 'READY' | 'TRANSIENT_FAILURE' | 'SHUTDOWN';

/** The worker part of a health reply: `worker_process_info` (spec 000 "Worker health response"). */
export interface WorkerHealthInfo {
  readonly state: WorkerState;
  readonly active_session_count: number;
  /** Open connections per session id; present only when not empty (reference/gateway.md §4.4). */
  readonly session_connections?: Readonly<Record<string, number>>;
  readonly upstream_connection_state: UpstreamConnectionState;
}

/** Default time between status reports: 2 s. */
const DEFAULT_STATUS_INTERVAL_MS = 2000;

/** Options of {@link Worker}. */
export interface WorkerOptions {
  readonly name: string;
  /** `host:port` of the upstream controller's cluster listener. */
  readonly upstream: string;
  readonly log: Logger;
  /** Time between status reports in ms; default {@link DEFAULT_STATUS_INTERVAL_MS}. */
  readonly statusIntervalMs?: number;
  /** Deadline of one status call in ms; default the interval (at least 500). */
  readonly statusTimeoutMs?: number;
  /** Sent as `authorization: Bearer …` metadata on every call (`worker_auth_token`). */
  readonly authToken?: string;
  /** `worker { tags { … } }`: key → values, reported with every status (targets' `egress_worker_filter`). */
  readonly tags?: Readonly<Record<string, readonly string[]>>;
  /** Called on every change of the upstream channel's connectivity state, in order (metrics, tests). */
  readonly onUpstreamStateChange?: (from: UpstreamConnectionState, to: UpstreamConnectionState) => void;
  /** The proxy listener (`listener "tcp" { purpose = "proxy" }`); none: no sessions here. */
  readonly proxy?: {
    readonly address: string;
    readonly tls?: { readonly certFile: string; readonly keyFile: string };
    /** `max_connections` of the proxy listener; absent = 4096, 0 = no limit. */
    readonly maxConnections?: number;
  };
}

/** Deadline of a connection check or close report, in ms. */
const SESSION_CALL_TIMEOUT_MS = 5000;

/**
 * A worker: construct (state `unknown`), {@link Worker.start} (state `active`), then
 * {@link Worker.gracefulShutdown} or {@link Worker.shutdown} (state `shutdown`).
 */
export class Worker {
  readonly name: string;
  readonly upstream: string;
  private stateValue: WorkerState = 'unknown';
  private readonly client: grpc.Client;
  private readonly log: Logger;
  private readonly onStateChange: WorkerOptions['onUpstreamStateChange'];
  private readonly intervalMs: number;
  private readonly timeoutMs: number;
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<boolean> | undefined;
  private closed = false;
  private readonly proxyServer: ProxyServer | undefined;
  private readonly metadata = new grpc.Metadata();
  private warnedUnauthenticated = false;
  private readonly tags: WorkerStatus['tags'];

  constructor(options: WorkerOptions) {
    this.name = options.name;
    this.upstream = options.upstream;
    this.log = options.log;
    this.onStateChange = options.onUpstreamStateChange;
    this.tags = Object.entries(options.tags ?? {}).flatMap(([key, values]) => values.map((value) => ({ key, value })));
    if (options.authToken !== undefined) this.metadata.set(WORKER_AUTH_METADATA, `Bearer ${options.authToken}`);
    this.intervalMs = options.statusIntervalMs ?? DEFAULT_STATUS_INTERVAL_MS;
    this.timeoutMs = options.statusTimeoutMs ?? Math.max(500, this.intervalMs);
    const Cluster = clusterService();
    this.client = new Cluster(this.upstream, grpc.credentials.createInsecure(), {
      'grpc.initial_reconnect_backoff_ms': 200,
      'grpc.max_reconnect_backoff_ms': 1000,
    });
    if (options.proxy) {
      this.proxyServer = new ProxyServer({
        ...options.proxy,
        log: this.log,
        authorize: (token, client) => this.authorizeConnection(token, client),
        onClosed: (c) => this.reportClosed(c),
      });
    }
  }

  /** `host:port` of the bound proxy listener; undefined without one (or before {@link Worker.start}). */
  get proxyAddress(): string | undefined {
    return this.proxyServer?.address || undefined;
  }

  /** Open proxied connections (for metrics). */
  get connectionCount(): number {
    return this.proxyServer?.connectionCount ?? 0;
  }

  /** Current operational state. */
  get state(): WorkerState {
    return this.stateValue;
  }

  /** The channel's connectivity state, read without triggering a connection. */
  upstreamConnectionState(): UpstreamConnectionState {
    const s = this.client.getChannel().getConnectivityState(false);
    return grpc.connectivityState[s] as UpstreamConnectionState;
  }

  /** `worker_process_info` for `/health?worker_info=1` (reference/gateway.md §4.2–§4.4). */
  healthInfo(): WorkerHealthInfo {
    const sessions = this.proxyServer?.sessionConnections() ?? [];
    return {
      state: this.stateValue,
      active_session_count: sessions.length,
      ...(sessions.length > 0 && { session_connections: Object.fromEntries(sessions.map((s) => [s.session_id, s.connection_count])) }),
      upstream_connection_state: this.upstreamConnectionState(),
    };
  }

  /**
   * Binds the proxy listener, then starts the status ticker (first report at once) and
   * the state monitor; state becomes `active` (the order of reference/gateway.md §7).
   * @throws {Error} when the proxy address cannot be bound.
   */
  async start(): Promise<void> {
    this.watch(this.upstreamConnectionState());
    await this.proxyServer?.listen();
    this.stateValue = 'active';
    void this.tick();
  }

  /**
   * State `shutdown` and no new proxied connections; one more status report (so the
   * controller stops routing here), then waits for open connections to end on their own
   * (reference/gateway.md §4.4, §5), then {@link Worker.shutdown}. A concurrent
   * {@link Worker.shutdown} cuts the wait short.
   */
  async gracefulShutdown(): Promise<void> {
    if (this.closed) return;
    this.stateValue = 'shutdown';
    this.proxyServer?.stopAccepting();
    await this.inFlight;
    await this.report();
    await this.proxyServer?.drain();
    await this.shutdown();
  }

  /**
   * State `shutdown`; closes every proxied connection (reported as `worker shutdown`),
   * stops the ticker and closes the channel (state `SHUTDOWN`).
   */
  async shutdown(): Promise<void> {
    this.stateValue = 'shutdown';
    if (this.closed) return;
    this.proxyServer?.close('worker shutdown');
    this.closed = true;
    clearTimeout(this.timer);
    // Let the connections just ended close and send their reports before the channel closes.
    if (this.proxyServer) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.proxyServer.drain(), new Promise((r) => (timer = setTimeout(r, 500)))]);
      clearTimeout(timer);
    }
    this.client.close();
  }

  private async tick(): Promise<void> {
    if (this.closed) return;
    await this.report();
    if (!this.closed) this.timer = setTimeout(() => void this.tick(), this.intervalMs);
  }

  /**
   * One Status call; closes the sessions the answer names. Resolves true when the
   * controller acknowledged it. Never rejects.
   */
  private report(): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    const sessions = this.proxyServer?.sessionConnections() ?? [];
    const status: WorkerStatus = {
      name: this.name,
      session_count: sessions.length,
      state: this.stateValue,
      address: this.proxyAddress ?? '',
      sessions,
      release_version: `Cairn v${VERSION}`,
      tags: this.tags,
    };
    const call = this.unary<WorkerStatus, StatusResponse>('Status', status, this.timeoutMs).then(
      (r) => {
        if (r.cancel_session_ids.length > 0) this.proxyServer?.closeSessions(r.cancel_session_ids, 'session canceled');
        return true;
      },
      (err: grpc.ServiceError) => {
        if (err.code === grpc.status.UNAUTHENTICATED && !this.warnedUnauthenticated) {
          // Once: a wrong worker_auth_token does not fix itself, but it must not flood the log.
          this.warnedUnauthenticated = true;
          this.log.error({ upstream: this.upstream, err: err.details }, 'the controller refused this worker');
        }
        this.log.debug({ upstream: this.upstream, code: err.code, err: err.details }, 'worker status report failed');
        return false;
      },
    );
    this.inFlight = call;
    return call;
  }

  /** Asks the controller whether `token` may open a connection (proxy.ts). */
  private async authorizeConnection(token: string, client: string): Promise<ProxyGrant> {
    if (this.stateValue !== 'active') throw new Error('worker is shutting down');
    const req: AuthorizeConnectionRequest = { worker_name: this.name, authorization_token: token, client_address: client };
    try {
      const r = await this.unary<AuthorizeConnectionRequest, AuthorizeConnectionResponse>('AuthorizeConnection', req, SESSION_CALL_TIMEOUT_MS);
      return { sessionId: r.session_id, connectionId: r.connection_id, endpoint: r.endpoint, expirationMs: r.expiration_unix_ms };
    } catch (err) {
      const e = err as grpc.ServiceError;
      throw new Error(e.code === grpc.status.PERMISSION_DENIED ? e.details : `controller unavailable: ${e.details}`);
    }
  }

  /** Tells the controller a connection ended; a failure is logged, never thrown. */
  private reportClosed(c: ClosedConnection): void {
    const req: ConnectionClosedRequest = {
      worker_name: this.name,
      session_id: c.sessionId,
      connection_id: c.connectionId,
      bytes_up: c.bytesUp,
      bytes_down: c.bytesDown,
      reason: c.reason,
    };
    this.unary('ConnectionClosed', req, SESSION_CALL_TIMEOUT_MS).catch((err: grpc.ServiceError) =>
      this.log.warn({ session_id: c.sessionId, connection_id: c.connectionId, err: err.details }, 'cannot report a closed connection to the controller'),
    );
  }

  /** One unary call on the `Cluster` service with a deadline of `timeoutMs`. */
  private unary<Req, Res>(method: string, request: Req, timeoutMs: number): Promise<Res> {
    return new Promise((resolve, reject) => {
      const fn = (this.client as unknown as Record<string, Function>)[method];
      fn.call(this.client, request, this.metadata, { deadline: new Date(Date.now() + timeoutMs) }, (err: grpc.ServiceError | null, res: Res) =>
        err ? reject(err) : resolve(res),
      );
    });
  }

  /** Logs every connectivity change; re-armed until SHUTDOWN (reference/gateway.md §4.4). */
  private watch(from: UpstreamConnectionState): void {
    const channel = this.client.getChannel();
    channel.watchConnectivityState(grpc.connectivityState[from], Infinity, () => {
      const to = this.upstreamConnectionState();
      if (to === 'TRANSIENT_FAILURE') {
        this.log.error({ upstream: this.upstream }, 'upstream connection entered transient failure state; worker cannot reach upstream');
      } else {
        this.log.info({ upstream: this.upstream, from, to }, 'upstream connection state changed');
      }
      this.onStateChange?.(from, to);
      if (to !== 'SHUTDOWN') this.watch(to);
    });
  }
}
