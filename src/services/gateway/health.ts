/**
 * The ops listener's HTTP service: `GET /health` (spec 000 "Gateway health endpoint";
 * reference/gateway.md §2–§4) and `GET /metrics` (Prometheus text format, always served).
 * Everything else is 404, like the reference's Go mux.
 *
 * - Controller process: 200 `{}`; 503 `{}` once shutdown began (a one-way switch).
 * - Worker-only process: always 200.
 * - `?worker_info=1` (Go `ParseBool`) with a worker in the process adds
 *   `worker_process_info` (proto field names; `active_session_count` emitted even when 0).
 * - Health not enabled (no controller with api+ops, no worker): `/health` is 404 too.
 *
 * @module
 */
import { CairnError, PUBLIC, type HttpRequest, type HttpResponse, type HttpService, type Public } from '../../kernel/http/index.js';
import { renderApiError } from './api.js';
import type { MetricsScrape } from '../../kernel/metrics/index.js';
import { parseGoBool } from '../../kernel/util/go-bool.js';
import type { WorkerHealthInfo } from './worker.js';

/** What the health service reads. */
export interface HealthSource {
  /** Whether `/health` is served at all (config: `healthEnabled`). */
  readonly enabled: boolean;
  /** Present when a controller runs here: true once it is shutting down (→ 503). */
  readonly controllerShuttingDown?: () => boolean;
  /** Present when a worker runs here. */
  readonly workerInfo?: () => WorkerHealthInfo;
  /** Renders `/metrics`; absent: `/metrics` is 404 (unit tests of `/health` alone). */
  readonly metrics?: () => Promise<MetricsScrape>;
}

const JSON_TYPE = { 'Content-Type': 'application/json' };

/**
 * One route of the ops listener, declared as the api's are (routes.ts): both are PUBLIC, as
 * the reference serves them to load balancers and scrapers without a token.
 */
export interface OpsRoute {
  readonly method: 'GET';
  readonly pattern: '/health' | '/metrics';
  readonly access: Public;
  /** Whether `source` serves it (else 404, before the method is looked at). */
  readonly served: (source: HealthSource) => boolean;
  readonly handle: (source: HealthSource, req: HttpRequest) => Promise<HttpResponse>;
}

/** `GET /metrics`: the Prometheus scrape. */
async function metrics(source: HealthSource): Promise<HttpResponse> {
  const scrape = await source.metrics!();
  return { status: 200, headers: { 'Content-Type': scrape.contentType }, body: scrape.body };
}

/** `GET /health[?worker_info=<Go bool>]`; see the module doc. */
async function health(source: HealthSource, req: HttpRequest): Promise<HttpResponse> {
  const raw = req.query.get('worker_info');
  const workerInfo = raw === null ? false : parseGoBool(raw);
  if (workerInfo === undefined) {
    throw new CairnError('bad_request', `parsing field "worker_info": strconv.ParseBool: parsing ${JSON.stringify(raw)}: invalid syntax`);
  }
  const body: { worker_process_info?: WorkerHealthInfo } = {};
  if (workerInfo && source.workerInfo) body.worker_process_info = source.workerInfo();
  const status = source.controllerShuttingDown?.() ? 503 : 200;
  return { status, headers: JSON_TYPE, body: JSON.stringify(body) };
}

/** The ops listener's routes. */
export const OPS_ROUTES: readonly OpsRoute[] = [
  { method: 'GET', pattern: '/metrics', access: PUBLIC, served: (s) => s.metrics !== undefined, handle: metrics },
  { method: 'GET', pattern: '/health', access: PUBLIC, served: (s) => s.enabled, handle: health },
];

/** The ops listener's {@link HttpService} for `source`. */
export function opsService(source: HealthSource): HttpService {
  const controller = source.controllerShuttingDown !== undefined;
  return {
    async handle(req: HttpRequest): Promise<HttpResponse> {
      const route = OPS_ROUTES.find((r) => r.pattern === req.path && r.served(source));
      if (!route) return { status: 404, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: '404 page not found\n' };
      if (req.method !== 'GET' && req.method !== 'HEAD') throw new CairnError('method_not_allowed', 'Method Not Allowed');
      return route.handle(source, req);
    },
    renderError(err: CairnError): HttpResponse {
      // Controller: the reference's API error JSON; worker: grpc-gateway's (reference/gateway.md §4.1, §4.3).
      if (controller) return renderApiError(err);
      const body = { code: err.status === 400 ? 3 : err.status === 405 ? 12 : 13, message: err.message, details: [] };
      return { status: err.status, headers: JSON_TYPE, body: JSON.stringify(body) };
    },
  };
}
