/**
 * Request metrics of a service's HTTP API (issue 14 item 7): every request counted and
 * timed by method, route and status.
 *
 * The route label is the **pattern** of the route that served the request (`kv/data/:path+`,
 * `acl/token/:id`), set by the service's dispatcher with {@link labelRoute} once it has
 * matched; never the raw path, which holds names chosen by users (unbounded label values)
 * and sometimes secrets (`?token=`, a token in a path). A request no route took is
 * labelled {@link UNMATCHED_ROUTE}, one forwarded elsewhere before routing {@link FORWARDED_ROUTE}.
 *
 * Latency is measured from the dispatcher's start to its reply being ready (for a blocking
 * query that includes its wait; for a streamed reply, until its headers).
 *
 * @module
 */
import { CairnError } from '../http/errors.js';
import type { HttpRequest, HttpResponse, HttpService } from '../http/exchange.js';
import { RequestTally } from './request-tally.js';
import type { ServiceMetrics } from './service-metrics.js';

/** Route label of a request that matched no route (unknown path, forwarded before routing, …). */
const UNMATCHED_ROUTE = 'unmatched';

/** Route label of a request sent on to another server before routing (another datacenter or region, an active server). */
export const FORWARDED_ROUTE = 'forwarded';

/** Upper bounds of the latency buckets, in seconds: 1 ms to 10 s. */
const LATENCY_BUCKETS_S = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Methods kept as they are; any other becomes `OTHER` (label values stay a closed set). */
const METHODS = ['GET', 'HEAD', 'PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS', 'LIST'];

/**
 * Where {@link labelRoute} keeps a request's route on the request itself: a property
 * costs a fraction of a WeakMap entry per request (issue 15), and dies with the request.
 */
const ROUTE = Symbol('cairn.route');
type Labelled = HttpRequest & { [ROUTE]?: string };

/** The request tally of each registry, made once however many listeners a service has. */
const byRegistry = new WeakMap<ServiceMetrics, RequestTally>();

function requestTally(metrics: ServiceMetrics): RequestTally {
  let tally = byRegistry.get(metrics);
  if (tally) return tally;
  tally = new RequestTally({
    counter: { name: 'cairn_http_requests_total', help: 'HTTP requests served, by method, route pattern and status.' },
    histogram: {
      name: 'cairn_http_request_duration_seconds',
      help: 'Time to handle an HTTP request until its reply is ready, in seconds, by method, route pattern and status.',
    },
    bounds: LATENCY_BUCKETS_S,
    methods: METHODS,
  });
  tally.register(metrics.registry);
  byRegistry.set(metrics, tally);
  return tally;
}

/**
 * Records that `req` was served by the route `pattern` (a dispatcher calls it after
 * matching; the last call wins). `pattern` must come from a route table, never from the request.
 */
export function labelRoute(req: HttpRequest, pattern: string): void {
  (req as Labelled)[ROUTE] = pattern;
}

/**
 * Wraps `service` so each request it handles is counted in `cairn_http_requests_total`
 * and timed in `cairn_http_request_duration_seconds` (labels `method`, `route`, `status`)
 * of `metrics`. A thrown error counts with the status it renders to (a
 * {@link CairnError}'s, else 500). Returns the wrapped service; `service` is unchanged.
 * Several services (listeners) may be wrapped with one `metrics`: they share its counters.
 */
export function instrumentHttp(service: HttpService, metrics: ServiceMetrics): HttpService {
  const tally = requestTally(metrics);
  const record = (req: HttpRequest, status: number, started: bigint) =>
    tally.observe(req.method, (req as Labelled)[ROUTE] ?? UNMATCHED_ROUTE, status, Number(process.hrtime.bigint() - started) / 1e9);
  return {
    async handle(req: HttpRequest): Promise<HttpResponse> {
      const started = process.hrtime.bigint();
      try {
        const res = await service.handle(req);
        record(req, res.status, started);
        return res;
      } catch (err) {
        record(req, err instanceof CairnError ? err.status : 500, started);
        throw err;
      }
    },
    renderError: (err, req) => service.renderError(err, req),
  };
}
