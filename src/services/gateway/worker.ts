/**
 * The gateway worker, first slice: a gRPC channel to its first upstream controller, a
 * status report every `statusIntervalMs`, and the health information the ops listener
 * shows (reference/gateway.md §4.4, §7). Sessions and the proxy listener come later.
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
import { clusterService, type WorkerStatus } from './cluster.js';

/** Worker operational state (reference/gateway.md §4.4). */
export type WorkerState = 'unknown' | 'active' | 'shutdown';

/** A gRPC connectivity state name (spec 000 "Upstream connection state of a worker"). */
export type UpstreamConnectionState = 'IDLE' | 'CONNECTING' | 'READY' | 'TRANSIENT_FAILURE' | 'SHUTDOWN';

/** The worker part of a health reply: `worker_process_info` (spec 000 "Worker health response"). */
export interface WorkerHealthInfo {
  readonly state: WorkerState;
  readonly active_session_count: number;
  readonly upstream_connection_state: UpstreamConnectionState;
}

/** Default time between status reports: 2 s. */
export const DEFAULT_STATUS_INTERVAL_MS = 2000;

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
}

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
  private readonly intervalMs: number;
  private readonly timeoutMs: number;
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<boolean> | undefined;
  private closed = false;

  constructor(options: WorkerOptions) {
    this.name = options.name;
    this.upstream = options.upstream;
    this.log = options.log;
    this.intervalMs = options.statusIntervalMs ?? DEFAULT_STATUS_INTERVAL_MS;
    this.timeoutMs = options.statusTimeoutMs ?? Math.max(500, this.intervalMs);
    const Cluster = clusterService();
    this.client = new Cluster(this.upstream, grpc.credentials.createInsecure(), {
      'grpc.initial_reconnect_backoff_ms': 200,
      'grpc.max_reconnect_backoff_ms': 1000,
    });
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
    return { state: this.stateValue, active_session_count: 0, upstream_connection_state: this.upstreamConnectionState() };
  }

  /** Starts the status ticker (first report at once) and the state monitor; state becomes `active`. */
  start(): void {
    this.watch(this.upstreamConnectionState());
    this.stateValue = 'active';
    void this.tick();
  }

  /**
   * State `shutdown`, then one more status report (so the controller stops routing here;
   * reference/gateway.md §4.4) bounded by the call deadline, then {@link Worker.shutdown}.
   */
  async gracefulShutdown(): Promise<void> {
    if (this.closed) return;
    this.stateValue = 'shutdown';
    await this.inFlight;
    await this.report();
    await this.shutdown();
  }

  /** State `shutdown`; stops the ticker and closes the channel (state `SHUTDOWN`). */
  async shutdown(): Promise<void> {
    this.stateValue = 'shutdown';
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    this.client.close();
  }

  private async tick(): Promise<void> {
    if (this.closed) return;
    await this.report();
    if (!this.closed) this.timer = setTimeout(() => void this.tick(), this.intervalMs);
  }

  /** One Status call; resolves true when the controller acknowledged it. Never rejects. */
  private report(): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    const status: WorkerStatus = { name: this.name, session_count: 0, state: this.stateValue };
    const call = new Promise<boolean>((resolve) => {
      const deadline = new Date(Date.now() + this.timeoutMs);
      const method = (this.client as unknown as Record<string, Function>).Status;
      method.call(this.client, status, { deadline }, (err: grpc.ServiceError | null) => {
        if (err) this.log.debug({ upstream: this.upstream, code: err.code, err: err.details }, 'worker status report failed');
        resolve(err === null);
      });
    });
    this.inFlight = call;
    return call;
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
      if (to !== 'SHUTDOWN') this.watch(to);
    });
  }
}
