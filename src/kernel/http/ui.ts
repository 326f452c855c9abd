/**
 * The web UI on a service's listener (issue 18): `/ui/…` answers the built UI's files
 * (ui-files.ts), `/ui/config.json` tells the UI where each service's API is, and
 * `/ui/proxy/<section>/v1/…` passes API requests on to the other services whose addresses
 * are configured (`cairn dev`: the secrets listener reaches all four; a production
 * server: its `ui_services` block, kernel/config/ui-services.ts), so the UI uses one
 * origin and needs no CORS. `/ui/gateway/metrics` reads the access gateway's `/metrics`
 * from its ops listener (the only place the reference serves them, reference/gateway.md
 * §2) when that address is configured (`ui_services { gateway_ops }`), for the overview's
 * traffic charts (issue 31 item 3). Everything else goes to the service unchanged.
 *
 * The proxy passes on only that service's API (`/v1/…`), only its own headers (its token
 * header, `Authorization`, its `X-<Service>-…` headers: a secrets token never reaches the
 * discovery service), request bodies as bounded by the listener (`max_request_size`),
 * replies up to {@link UI_PROXY_MAX_REPLY_BYTES}; it logs nothing of a request (a token is
 * only ever in a header), and refuses a service that is not configured.
 *
 * @module
 */
import { CairnError } from './errors.js';
import { forwardRequest, type ForwardStyle } from './forward.js';
import type { HttpRequest, HttpResponse, HttpService } from './exchange.js';
import { BUILT_UI_DIR, UI_PROXY_PREFIX, UI_SECURITY_HEADERS, uiFile } from './ui-files.js';

/** The four services' sections of the UI. */
export type UiSection = 'secrets' | 'mesh' | 'sched' | 'gateway';

/** The UI sections' API addresses, and the gateway's ops listener (`gateway_ops`) whose `/metrics` the charts read. */
export type UiServices = Partial<Record<UiSection | 'gateway_ops', string>>;

/** The path under which the UI reads the gateway's metrics. */
const UI_GATEWAY_METRICS_PATH = '/ui/gateway/metrics';

/** Options of {@link withUi}. */
export interface UiOptions {
  /** The section of the service this listener belongs to: its API is this origin's `/v1/`. */
  readonly self: UiSection;
  /**
   * The other services' API addresses (`host:port`, plain HTTP), read at each request (in
   * `cairn dev` they are known only once every service has started); absent or empty =
   * only this service's section.
   */
  readonly others?: () => UiServices;
  /** The built UI's folder; default {@link BUILT_UI_DIR}. */
  readonly root?: string;
}

/** Largest reply the proxy passes back, in bytes (a page of a list is far smaller); a streamed reply is not bounded. */
const UI_PROXY_MAX_REPLY_BYTES = 64 * 1024 * 1024;

/**
 * What a proxied request to `section` carries on (its token header, `Authorization`, its
 * namespace and index headers: `X-<Section>-…`) and what of the reply comes back (the
 * services' own headers, e.g. a blocking query's `X-Mesh-Index`).
 */
const PROXY_STYLES: Readonly<Record<UiSection, ForwardStyle>> = Object.fromEntries(
  (['secrets', 'mesh', 'sched', 'gateway'] as const).map((s) => [
    s,
    {
      tokenHeader: 'x-unused',
      pass: new RegExp(`^(authorization|x-${s}-[a-z0-9-]+)$`, 'i'),
      keep: new RegExp(`^(content-type|allow|x-${s}-[a-z0-9-]+)$`, 'i'),
      maxReplyBytes: UI_PROXY_MAX_REPLY_BYTES,
    },
  ]),
) as Record<UiSection, ForwardStyle>;

/**
 * Wraps `service` so its listener also serves the UI (see the module note). Only GET and
 * HEAD reach the UI's files and config; a proxied request keeps its method and body.
 * @throws CairnError 404 for a proxy section with no configured address or a proxied path
 *   outside `/v1/`, or the gateway's metrics without `gateway_ops`; 405 for another method
 *   on a UI file; 502 when a proxied service cannot be reached or its reply is too large.
 */
export function withUi(service: HttpService, options: UiOptions): HttpService {
  const root = options.root ?? BUILT_UI_DIR;
  return {
    renderError: (err, req) => service.renderError(err, req),
    async handle(req: HttpRequest): Promise<HttpResponse> {
      if (req.path !== '/ui' && !req.path.startsWith('/ui/')) return service.handle(req);
      if (req.path.startsWith(UI_PROXY_PREFIX)) return proxy(req, options);
      if (req.method !== 'GET' && req.method !== 'HEAD') throw new CairnError('method_not_allowed', 'the web UI answers GET and HEAD');
      if (req.path === '/ui') return { status: 301, headers: { Location: '/ui/' } };
      if (req.path === '/ui/config.json') return config(options);
      if (req.path === UI_GATEWAY_METRICS_PATH) return gatewayMetrics(req, options);
      return uiFile(root, req.path.slice('/ui/'.length));
    },
  };
}

/**
 * `/ui/config.json`: `{"sections": {"<section>": "<API base path>"}, "gatewayMetrics"?:
 * "/ui/gateway/metrics"}` for every section this origin reaches: `""` for this service
 * (its API is `/v1/`), `/ui/proxy/<section>` for a proxied one. The UI shows only these
 * sections; `gatewayMetrics` is there when the gateway's ops listener is configured.
 */
function config(options: UiOptions): HttpResponse {
  const others = options.others?.() ?? {};
  const sections: Record<string, string> = { [options.self]: '' };
  for (const name of Object.keys(PROXY_STYLES)) if (others[name as UiSection] && name !== options.self) sections[name] = `${UI_PROXY_PREFIX}${name}`;
  return {
    status: 200,
    headers: { ...UI_SECURITY_HEADERS, 'Content-Type': 'application/json', 'Cache-Control': 'no-store' },
    body: JSON.stringify({ sections, ...(others.gateway_ops && { gatewayMetrics: UI_GATEWAY_METRICS_PATH }) }),
  };
}

/**
 * `GET /ui/gateway/metrics` (or HEAD): the gateway ops listener's `/metrics` (Prometheus
 * text), which the reference serves without a token (reference/gateway.md §2); nothing of
 * the request is passed on but the method.
 * @throws CairnError 404 without `gateway_ops`; 502 when the ops listener cannot be reached.
 */
async function gatewayMetrics(req: HttpRequest, options: UiOptions): Promise<HttpResponse> {
  const address = options.others?.().gateway_ops;
  if (!address) throw new CairnError('not_found', "the gateway's metrics are not reachable through this UI (ui_services { gateway_ops })");
  try {
    return await forwardRequest(OPS_STYLE, { ...req, path: '/metrics', headers: {}, body: Buffer.alloc(0) }, { address, query: new URLSearchParams() });
  } catch (err) {
    throw new CairnError('bad_gateway', `the gateway's ops listener cannot be reached: ${(err as Error).message}`);
  }
}

/** The ops listener's `/metrics`: no header of the browser's is passed on. */
const OPS_STYLE: ForwardStyle = { tokenHeader: 'x-unused', keep: /^content-type$/i, maxReplyBytes: UI_PROXY_MAX_REPLY_BYTES };

async function proxy(req: HttpRequest, options: UiOptions): Promise<HttpResponse> {
  const rest = req.path.slice(UI_PROXY_PREFIX.length);
  const slash = rest.indexOf('/');
  const section = slash < 0 ? rest : rest.slice(0, slash);
  const others = options.others?.() ?? {};
  const known = Object.hasOwn(PROXY_STYLES, section) && Object.hasOwn(others, section);
  const address = !known || section === options.self ? undefined : others[section as UiSection];
  if (!address) throw new CairnError('not_found', `no service "${section}" is reachable through this UI`);
  const path = slash < 0 ? '/' : rest.slice(slash);
  // The services' APIs are all under /v1/; nothing else of theirs (a UI, metrics on another path) is reachable from here.
  if (!path.startsWith('/v1/')) throw new CairnError('not_found', `only the ${section} service's API (/v1/…) is reachable through this UI`);
  try {
    return await forwardRequest(PROXY_STYLES[section as UiSection], { ...req, path: encodePath(path) }, { address });
  } catch (err) {
    throw new CairnError('bad_gateway', `the ${section} service cannot be reached: ${(err as Error).message}`);
  }
}

/** `req.path` arrives percent-decoded; the forwarded URL needs its segments encoded again. */
function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}
