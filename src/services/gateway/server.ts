/**
 * Runs the access gateway from its validated config: a controller (cluster gRPC server,
 * session API on its api listeners), a worker (channel to its upstream, proxy listener),
 * or both, plus the ops listeners serving `/health` and `/metrics` (spec 000 "Gateway
 * health endpoint"; reference/gateway.md §2, §5, §7).
 *
 * Shutdown (reference/gateway.md §5): with a controller and health served on an ops
 * listener, `/health` answers 503 at once and the gateway waits
 * `graceful_shutdown_wait_duration` while everything else keeps working; then the
 * worker drains (state `shutdown`, no new connections, one last status report, open
 * connections left to end), then the controller's servers stop, then the ops listeners.
 * {@link Gateway.force} (a second signal) cuts the wait and the drain short.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { advertisedAddress, listen, withUi, type Listener } from '../../kernel/http/index.js';
import type { Logger } from '../../kernel/log/logger.js';
import { instrumentHttp, ServiceMetrics } from '../../kernel/metrics/index.js';
import { apiService } from './api.js';
import type { BootstrapLogin, BootstrapOptions } from './domain/bootstrap.js';
import { openController, type ControllerState } from './domain/controller.js';
import type { GatewayDomain } from './domain/domain.js';
import { startClusterServer, type ClusterServer } from './cluster.js';
import { toListenerOptions, type GatewayServerConfig, type ListenerPurpose } from './config.js';
import { opsService } from './health.js';
import { observeGateway } from './metrics.js';
import { sessionAuthority, WorkerDirectory, type SessionAuthorityOptions } from './cluster-authority.js';
import type { SessionStore } from './sessions.js';
import { Worker } from './worker.js';

/** Options of {@link startGateway}. */
export interface GatewayOptions {
  readonly config: GatewayServerConfig;
  readonly log: Logger;
  /** Worker status interval in ms (tests shorten it); default 2000. */
  readonly statusIntervalMs?: number;
  /** Clock in epoch ms; default `Date.now`. */
  readonly now?: () => number;
  /** `cairn dev`: bootstrap with the reference's dev ids and a known admin password. */
  readonly bootstrap?: BootstrapOptions;
  /** Pause between rounds of deleting ended auth tokens, in ms (tests shorten it); default 60000. */
  readonly tokenReapIntervalMs?: number;
  /** Pause between rounds of renewing credential store tokens, in ms (tests shorten it); default 10000. */
  readonly credentialRenewIntervalMs?: number;
  /** Pause between the leader's session sweeps (expiry), in ms; default 1000. */
  readonly sessionSweepIntervalMs?: number;
  /** Told the admin login once, when this controller made the initial resources (for the operator's eyes: never log it). */
  readonly onBootstrap?: (login: BootstrapLogin) => void;
}

/** One bound listener: `url` is `http(s)://host:port` for api/ops, `host:port` for cluster and proxy. */
interface BoundListener {
  readonly purpose: ListenerPurpose;
  readonly url: string;
}

/** A running gateway. */
export interface Gateway {
  /** Controller name (generated `c_…` when the file gave none); absent without a controller. */
  readonly controllerName?: string;
  /** The controller's cluster gRPC server (workers it knows, its address). */
  readonly cluster?: ClusterServer;
  /** The controller's sessions (in its state). */
  readonly sessions?: SessionStore;
  /** The controller's domain model (scopes, users, roles, …) and its state. */
  readonly domain?: GatewayDomain;
  /**
   * The admin login when this start made the initial resources (first start; on
   * PostgreSQL once this controller leads): shown to the operator once, never logged.
   */
  readonly bootstrapLogin?: BootstrapLogin;
  readonly worker?: Worker;
  /** Every started listener: api, cluster, proxy, then ops. */
  readonly listeners: readonly BoundListener[];
  /** Whether `/health` answers 503 (controller shutdown began). */
  readonly shuttingDown: boolean;
  /** The graceful path of §5; resolves when everything is closed. Idempotent. */
  shutdown(): Promise<void>;
  /** Cuts a running grace wait and worker drain short (a second interrupt). */
  force(): void;
}

const genName = (prefix: string) => `${prefix}_${randomBytes(5).toString('hex')}`;

/**
 * Starts every configured part. Errors: rejects when a listener cannot bind (whatever
 * started is closed first).
 */
export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const { config, log } = options;
  const now = options.now ?? (() => Date.now());
  const listeners: BoundListener[] = [];
  const closers: Array<() => Promise<void>> = [];
  const opsListeners: Listener[] = [];
  let cluster: ClusterServer | undefined;
  let sessions: SessionStore | undefined;
  let worker: Worker | undefined;
  let shuttingDown = false;
  let controllerName: string | undefined;
  let controllerState: ControllerState | undefined;
  const metrics = new ServiceMetrics();
  const record = (purpose: ListenerPurpose, url: string) => {
    listeners.push({ purpose, url });
    log.info({ purpose, url }, 'gateway listening');
  };
  try {
    if (config.controller) {
      controllerName = config.controller.name || genName('c');
      const clusterConf = config.listeners.find((l) => l.purpose === 'cluster')!;
      const directory = new WorkerDirectory();
      const cs = await openController({
        config: config.controller,
        log,
        now,
        bootstrap: options.bootstrap,
        reapIntervalMs: options.tokenReapIntervalMs,
        credentialRenewIntervalMs: options.credentialRenewIntervalMs,
        onBootstrap: options.onBootstrap,
        workers: directory,
        sessionSweepIntervalMs: options.sessionSweepIntervalMs,
      });
      controllerState = cs;
      sessions = cs.domain.sessions;
      const authority: SessionAuthorityOptions = {
        sessions,
        writable: () => cs.domain.state.isWritable,
        directory,
        leadership: cs.leadership,
        workerAuthToken: config.controller.workerAuthToken,
        now,
        onForwardError: (err) => log.debug({ err: err.message }, 'cannot forward a worker status to the leader'),
      };
      cluster = await startClusterServer({
        address: clusterConf.address,
        sessions: sessionAuthority(authority),
        directory,
        now,
        workerAuthToken: config.controller.workerAuthToken,
        maxConnections: clusterConf.limits?.maxConnections,
      });
      if (!config.controller.workerAuthToken)
        log.warn('controller has no "worker_auth_token": any process that reaches its cluster listener is taken as a worker');
      const c = cluster;
      closers.push(() => c.close());
      const gatewayApi = apiService({
        workers: () => c.workers,
        authToken: config.controller.authToken,
        now,
        domain: cs.domain,
        leadership: cs.leadership,
        cluster: authority,
      });
      // `ui { enabled = true }`: the UI's gateway section (and the `ui_services` others) beside the API, as the other services serve theirs.
      const apiSvc = config.ui ? withUi(gatewayApi, { self: 'gateway', others: () => config.uiServices ?? {} }) : gatewayApi;
      if (!config.controller.authToken) log.warn('controller has no "auth_token" (recovery credential): its workers api refuses every request');
      let first: string | undefined;
      for (const l of config.listeners.filter((x) => x.purpose === 'api')) {
        const api = await listen(toListenerOptions(l), instrumentHttp(apiSvc, metrics), log);
        closers.push(() => api.close());
        record('api', api.url);
        // Followers forward to this address: a wildcard bind is published as the host name.
        const host = new URL(api.url).hostname;
        first ??= advertisedAddress(api.url, host === '0.0.0.0' || host === '[::]' ? hostname() : undefined);
      }
      cs.startLeadership(first ?? '');
      record('cluster', cluster.address);
      log.info({ name: controllerName }, 'gateway controller started');
    }
    if (config.worker) {
      const upstream = config.worker.initialUpstreams[0] ?? cluster?.address ?? '127.0.0.1:9201';
      const proxy = config.listeners.find((x) => x.purpose === 'proxy');
      worker = new Worker({
        name: config.worker.name || genName('w'),
        upstream,
        log,
        statusIntervalMs: options.statusIntervalMs,
        authToken: config.worker.workerAuthToken,
        tags: config.worker.tags,
        proxy: proxy && { address: proxy.address, tls: proxy.tls, maxConnections: proxy.limits?.maxConnections },
      });
      await worker.start();
      log.info({ name: worker.name, upstream }, 'gateway worker started');
      if (worker.proxyAddress) record('proxy', worker.proxyAddress);
      else log.warn('worker has no listener with purpose = "proxy": it cannot proxy sessions');
    }
    const w = worker;
    const c = cluster;
    const s = sessions;
    observeGateway(metrics, {
      controller: c && s ? { cluster: c, sessions: s, shuttingDown: () => shuttingDown, now } : undefined,
      worker: w,
    });
    const health = opsService({
      enabled: config.healthEnabled,
      controllerShuttingDown: config.controller ? () => shuttingDown : undefined,
      workerInfo: w ? () => w.healthInfo() : undefined,
      metrics: () => metrics.scrape('prometheus'),
    });
    for (const l of config.listeners.filter((x) => x.purpose === 'ops')) {
      const ops = await listen(toListenerOptions(l), health, log);
      opsListeners.push(ops);
      record('ops', ops.url);
    }
  } catch (err) {
    await worker?.shutdown();
    await Promise.allSettled([...closers, ...opsListeners.map((o) => () => o.close())].map((c) => c()));
    // The state closes last, once nothing serves requests from it.
    await controllerState?.close();
    throw err;
  }

  let wake: (() => void) | undefined;
  let done: Promise<void> | undefined;
  const stop = async () => {
    const waitMs = config.controller?.gracefulShutdownWaitMs ?? 0;
    if (config.controller && config.healthEnabled) {
      shuttingDown = true;
      if (waitMs > 0) {
        log.info({ wait_ms: waitMs }, `health is enabled, waiting ${waitMs / 1000}s before shutdown`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, waitMs);
          wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
      }
    }
    log.info('gateway shutdown triggered');
    await worker?.gracefulShutdown();
    await Promise.allSettled(closers.map((c) => c()));
    await controllerState?.close().catch((err: Error) => log.warn({ err: err.message }, 'controller state did not close cleanly'));
    await Promise.allSettled(opsListeners.map((o) => o.close()));
  };
  return {
    controllerName,
    cluster,
    sessions,
    domain: controllerState?.domain,
    get bootstrapLogin() {
      return controllerState?.bootstrapped();
    },
    worker,
    listeners,
    get shuttingDown() {
      return shuttingDown;
    },
    shutdown: () => (done ??= stop()),
    force: () => {
      wake?.();
      void worker?.shutdown();
    },
  };
}
