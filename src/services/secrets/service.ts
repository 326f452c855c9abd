/**
 * Starting and stopping the secrets service: its core on a Backend, served on one or
 * more listeners.
 *
 * @module
 */
import {
  badRequest,
  listen,
  withUi,
  type UiOptions,
  type HttpRequest,
  type HttpResponse,
  type HttpService,
  type Listener,
  type ListenerOptions,
} from '../../kernel/http/index.js';
import type { Logger } from '../../kernel/log/logger.js';
import { instrumentHttp, labelRoute } from '../../kernel/metrics/index.js';
import type { Backend } from '../../kernel/store/index.js';
import type { SecretsCore } from './core.js';
import { CORE_ENGINES } from './engines.js';
import { SecretsHttp } from './handler.js';
import type { ChangeFeed } from './ha/perf-standby.js';
import { reopenOnSighup } from './audit/sighup.js';
import type { NodeHa } from './ha/node-ha.js';
import { metricsReply } from './metrics.js';
import { SecretsNode } from './node.js';

/** One listener of the secrets service: the kernel's options and the service's own. */
export interface SecretsListenerOptions extends ListenerOptions {
  /**
   * `telemetry { unauthenticated_metrics_access = true }`: `GET /v1/sys/metrics` is answered
   * on this listener without a token, sealed or not (reference: Vault's listener option).
   */
  readonly unauthenticatedMetricsAccess?: boolean;
}

/** Options of {@link startSecretsService}. */
export interface SecretsServiceOptions {
  readonly backend: Backend;
  readonly listeners: readonly SecretsListenerOptions[];
  readonly log: Logger;
  /** Injected clock (tests). */
  readonly clock?: () => Date;
  /** Managed mode: see {@link SecretsNodeOptions.managedNamespaces}. */
  readonly managedNamespaces?: boolean;
  /** What seal status reports as `storage_type`: `sqlite` (default) or `postgresql`. */
  readonly storageType?: string;
  /** Active/standby: see {@link SecretsNodeOptions.ha}. */
  readonly ha?: NodeHa;
  /** The storage's change feed (PostgreSQL): see {@link SecretsNodeOptions.changeFeed}. */
  readonly changeFeed?: ChangeFeed;
  /** `false` = `disable_performance_standby`: see {@link SecretsNodeOptions.performanceStandby}. */
  readonly performanceStandby?: boolean;
  /** A standby forwards client requests to the active server (default), or answers 307 when `false` (`disable_clustering`). */
  readonly requestForwarding?: boolean;
  /** `api_addr`: one of this server's own addresses (with its listener URLs), never forwarded to. */
  readonly apiAddr?: string;
  /** SIGHUP reopens the audit devices' files (log rotation, audit/sighup.ts): the server commands set it, in-process tests do not. */
  readonly reopenAuditOnSighup?: boolean;
  /** Serve the web UI at `/ui/` on every listener (`ui = true`; `cairn dev` adds the other services' sections). */
  readonly ui?: UiOptions;
}

/** A running secrets service. It starts sealed (and uninitialised on new storage). */
export interface SecretsService {
  readonly node: SecretsNode;
  /** The core; throws the 503 sealed error while sealed. */
  readonly core: SecretsCore;
  readonly listeners: readonly Listener[];
  /** Closes the listeners, then the storage. */
  close(): Promise<void>;
}

/** Opens the core and starts every listener; on a listener error, closes what started and rethrows. */
export async function startSecretsService(o: SecretsServiceOptions): Promise<SecretsService> {
  const node = await SecretsNode.open({
    backend: o.backend,
    engines: CORE_ENGINES,
    log: o.log,
    clock: o.clock,
    managedNamespaces: o.managedNamespaces,
    storageType: o.storageType,
    ha: o.ha,
    changeFeed: o.changeFeed,
    performanceStandby: o.performanceStandby,
    apiAddress: () => o.apiAddr ?? listeners[0]?.url ?? '',
  });
  const stopSighup = o.reopenAuditOnSighup ? reopenOnSighup(node.audit) : undefined;
  const listeners: Listener[] = [];
  const http = new SecretsHttp(node, {
    requestForwarding: o.requestForwarding,
    selfAddresses: () => [...(o.apiAddr ? [o.apiAddr] : []), ...listeners.map((l) => l.url)],
    log: o.log,
  });
  try {
    const open = withOpenMetrics(http, node);
    for (const l of o.listeners) {
      const api = l.unauthenticatedMetricsAccess ? open : http;
      listeners.push(await listen(l, instrumentHttp(o.ui ? withUi(api, o.ui) : api, node.metrics), o.log));
    }
  } catch (err) {
    stopSighup?.();
    await Promise.all(listeners.map((l) => l.close()));
    throw err;
  }
  return {
    node,
    get core() {
      return node.requireCore();
    },
    listeners,
    close: async () => {
      await Promise.all(listeners.map((l) => l.close()));
      stopSighup?.();
      await node.stopHa();
      node.audit.close();
      await o.backend.close();
    },
  };
}

/**
 * `http` with `GET /v1/sys/metrics` answered before any token, seal or namespace check
 * but the header's (Vault's `handleMetricsUnauthenticated`, behind its generic wrapper:
 * `X-Secrets-Namespace` → 400 `operation unavailable in namespaces`).
 */
function withOpenMetrics(http: SecretsHttp, node: SecretsNode): HttpService {
  return {
    async handle(req: HttpRequest): Promise<HttpResponse> {
      if (req.path !== '/v1/sys/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) return http.handle(req);
      labelRoute(req, 'sys/metrics');
      if (req.headers['x-secrets-namespace'] !== undefined) throw badRequest('operation unavailable in namespaces');
      return metricsReply(node.metrics, req.query.get('format'), req.headers.accept);
    },
    renderError: (err) => http.renderError(err),
  };
}
