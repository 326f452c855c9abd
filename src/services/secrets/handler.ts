/**
 * The secrets service's request pipeline (kernel/http/LIFECYCLE.md): frame → route
 * (mount, then the engine's paths) → authenticate → help → existence check →
 * authorise → validate → handle → render.
 *
 * @module
 */
import {
  CairnError,
  FieldValidator,
  badRequest,
  forbidden,
  helpForPath,
  helpForRoot,
  notFound,
  openapiDocument,
  operationOf,
  pathsUnder,
  unsupportedOperation,
  unsupportedPath,
  type CompiledPath,
  type HttpRequest,
  type HttpResponse,
  type HttpService,
  type Operation,
  type OperationSpec,
} from '../../kernel/http/index.js';
import type { Logger } from '../../kernel/log/logger.js';
import { ALL_ENGINES, engineFor } from './engines.js';
import { canonicalNamespace } from './namespace/registry.js';
import { renderBare, renderError, renderResult } from './envelope.js';
import { VERSION, type SecretsNode } from './node.js';
import { sealTable, type SysRequest } from './sys/seal.routes.js';
import type { SecretsRequest, SecretsResult } from './types.js';

type Path = CompiledPath<SecretsRequest, SecretsResult>;
type OpSpec = OperationSpec<SecretsRequest, SecretsResult>;


/** Go's `strconv.ParseBool`, used by the reference for `?list=` (reference/secrets.md §1.2). */
function parseBool(name: string, v: string | null): boolean {
  if (v === null) return false;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False', ''].includes(v)) return false;
  throw badRequest(`query parameter "${name}": invalid boolean "${v}"`);
}

/**
 * System paths served only in the root namespace (reference/secrets.md §1.1): the
 * seal's own and the service-wide configuration.
 */
const ROOT_ONLY = ['sys/init', 'sys/seal', 'sys/unseal', 'sys/seal-status', 'sys/health', 'sys/leader', 'sys/config/cors'];

/** A header's value (the first, when repeated). */
function firstHeader(req: HttpRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The token of a request: `X-Secrets-Token`, else `Authorization: Bearer` (spec 000 "Authentication" 2). */
export function requestToken(req: HttpRequest): string {
  const header = req.headers['x-secrets-token'];
  if (typeof header === 'string' && header !== '') return header;
  const auth = req.headers.authorization;
  return auth?.startsWith('Bearer ') ? auth.slice(7).trim() : '';
}

/** Parses the JSON body; empty → `{}`. Errors: 400 naming the parse problem. */
function parseBody(req: HttpRequest): Record<string, unknown> {
  if (req.body.length === 0) return {};
  let v: unknown;
  try {
    v = JSON.parse(req.body.toString('utf8'));
  } catch (err) {
    throw badRequest(`failed to parse JSON input: ${(err as Error).message}`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw badRequest('failed to parse JSON input: the body must be a JSON object');
  return v as Record<string, unknown>;
}

/** Query parameters as data (repeated → array), minus the ones the kernel consumes. */
function queryData(q: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of new Set(q.keys())) {
    if (k === 'list' || k === 'help') continue;
    const all = q.getAll(k);
    out[k] = all.length === 1 ? all[0] : all;
  }
  return out;
}

/**
 * Hop-by-hop headers (RFC 9110 §7.6.1), plus the ones the forwarding client sets itself;
 * never copied between the client and the active server.
 */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'content-length']);

/** Marks a request a standby forwarded, so a server that is itself a standby by then answers 503 instead of forwarding again. */
export const FORWARDED_HEADER = 'x-cairn-forwarded';

/** The reference's error when a standby cannot reach the active node (`vault.ErrCannotForward`). */
export const CANNOT_FORWARD = 'cannot forward request; no connection or address not known';

/** How long a forwarded request may take before the standby answers 503. */
const FORWARD_TIMEOUT_MS = 60_000;

/** Options of {@link SecretsHttp}. */
export interface SecretsHttpOptions {
  /**
   * HA standby: forward client requests to the active server (the default, as the
   * reference), or answer 307 to it when `false` (`disable_clustering = true`).
   */
  readonly requestForwarding?: boolean;
  /** This server's own addresses (`api_addr`, listener URLs): a leader address among them is never forwarded to. */
  readonly selfAddresses?: () => readonly string[];
  readonly log?: Logger;
}

/** Header names of a `Connection` header value (also hop-by-hop). */
function connectionTokens(v: string | string[] | null | undefined): Set<string> {
  const all = Array.isArray(v) ? v.join(',') : (v ?? '');
  return new Set(all.split(',').map((t) => t.trim().toLowerCase()).filter((t) => t !== ''));
}

const trimSlash = (u: string) => u.replace(/\/+$/, '');

/** The secrets service as an {@link HttpService}. */
export class SecretsHttp implements HttpService {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private readonly validators = new WeakMap<OperationSpec<any, any>, FieldValidator>();

  /** Compiles every operation's validator now: a bad schema stops startup, naming it. */
  constructor(
    private readonly node: SecretsNode,
    private readonly o: SecretsHttpOptions = {},
  ) {
    for (const table of [...ALL_ENGINES.map((e) => e.table), sealTable])
      for (const path of table.paths)
        for (const [op, spec] of Object.entries(path.spec.operations)) if (spec && !spec.rawBody) this.validator(path, op as Operation, spec);
  }

  /** {@inheritDoc HttpService.renderError} */
  renderError(err: CairnError): HttpResponse {
    return renderError(err);
  }

  /** Runs one request through the pipeline; throws {@link CairnError}s for the kernel to render. */
  async handle(req: HttpRequest): Promise<HttpResponse> {
    // CORS applies once unsealed (its configuration is behind the barrier); its headers
    // go on errors too, so a browser can read them.
    const cors = this.node.core?.cors.check(req);
    if (cors?.preflight) return cors.preflight;
    if (!cors || Object.keys(cors.headers).length === 0) return this.route(req);
    try {
      const res = await this.route(req);
      return { ...res, headers: { ...res.headers, ...cors.headers } };
    } catch (err) {
      if (!(err instanceof CairnError)) throw err;
      const res = renderError(err);
      return { ...res, headers: { ...res.headers, ...cors.headers } };
    }
  }

  private async route(req: HttpRequest): Promise<HttpResponse> {
    // Frame.
    if (!req.path.startsWith('/v1/')) throw notFound();
    let full = req.path.slice(4);
    // The reference redirects these (301); Cairn answers 404 with a body (reference/README.md).
    if (full.includes('//') || /(^|\/)\.\.?(\/|$)/.test(full)) throw unsupportedPath(full);
    const method = operationOf(req.method, parseBool('list', req.query.get('list')));
    if (!method) throw new CairnError('method_not_allowed', []);
    if (method === 'patch' && !String(req.headers['content-type'] ?? '').startsWith('application/merge-patch+json'))
      throw new CairnError('unsupported_media_type', `PATCH requires Content-Type of application/merge-patch+json, provided ${req.headers['content-type'] ?? ''}`);
    const help = (req.query.get('help') ?? '') !== '';
    const body = method === 'write' || method === 'patch' ? parseBody(req) : {};

    // The seal's own paths answer before the seal check (reference/secrets.md §1.7), and
    // only in the root namespace (§1.1).
    const headerNs = canonicalNamespace(firstHeader(req, 'x-secrets-namespace'));
    const sys = full.startsWith('sys/') ? sealTable.match(full.slice(4)) : undefined;
    if (sys && headerNs !== '') throw badRequest('operation unavailable in namespaces');
    if (sys) {
      const op: Operation = method === 'write' ? 'update' : method;
      const spec = sys.path.spec.operations[op];
      if (!spec) throw new CairnError('method_not_allowed', []);
      const { data } = this.validator(sys.path, op, spec).validate(op === 'update' ? body : queryData(req.query));
      return spec.handle({ node: this.node, data, token: requestToken(req) } satisfies SysRequest) as Promise<HttpResponse>;
    }
    // An HA standby forwards the request to the active server (reference: 307 when
    // request forwarding is off); seal paths above are answered here.
    if (this.node.standby) return this.o.requestForwarding === false ? this.redirectToActive(req) : this.forwardToActive(req);
    const core = this.node.requireCore();

    // Namespace: header and path together, the deepest existing namespace wins, so every
    // split of the namespace between the two is the same request (spec 000
    // "Authentication" 5; reference/secrets.md §6).
    const combined = headerNs + full;
    const nsEntry = core.namespaces.longestPrefix(combined);
    if (!nsEntry.path.startsWith(headerNs)) throw notFound(`namespace "${headerNs}" not found`);
    full = combined.slice(nsEntry.path.length);
    if (nsEntry.path !== '' && ROOT_ONLY.some((p) => full === p || full.startsWith(p + '/'))) throw badRequest('operation unavailable in namespaces');
    const ns = await core.scope(nsEntry);

    // Route.
    const mount = ns.mounts.route(full);
    const relative = mount ? full.slice(Math.min(mount.path.length, full.length)) : '';
    const engine = mount && engineFor(mount);
    const routed = method === 'list' ? relative.replace(/\/+$/, '') : relative;
    const match = engine?.table.match(routed);

    // Authenticate.
    const now = core.now();
    const token = await core.tokens.lookup(requestToken(req), now);
    if (!token && !(match?.path.spec.unauthenticated && !help)) throw forbidden();
    if (!mount || !engine) throw notFound(`no handler for route "${full}". route entry not found.`);
    if (help) return this.help(full, routed, engine.description, engine.table.paths, match?.path);
    if (!match) throw unsupportedPath(full);

    const ctx: SecretsRequest = {
      id: req.id,
      operation: 'update',
      path: method === 'list' ? routed + '/' : routed,
      params: match.params,
      data: {},
      body,
      token,
      mount,
      storage: core.storageFor(mount),
      core,
      ns,
      now,
    };

    // Existence check, then authorise.
    const spec = match.path.spec;
    let op: Operation = method === 'write' ? 'update' : method;
    if (method === 'write' && spec.exists) op = (await spec.exists(ctx)) ? 'update' : 'create';
    const opSpec = spec.operations[op] ?? (op === 'create' ? spec.operations.update : op === 'update' ? spec.operations.create : undefined);
    if (!opSpec) throw unsupportedOperation();
    const aclPath = method === 'list' ? full.replace(/\/*$/, '/') : full;
    // The ACL also tries a list path without its trailing `/` (reference/secrets.md §5.2).
    if (token && !spec.unauthenticated && !(await core.allowed(token, aclPath, op, nsEntry)))
      throw forbidden();

    // Validate and handle.
    const input = op === 'create' || op === 'update' || op === 'patch' ? body : queryData(req.query);
    const { data, ignored } = opSpec.rawBody ? { data: {}, ignored: [] } : this.validator(match.path, op, opSpec).validate(input);
    const result = await opSpec.handle({ ...ctx, operation: op, data });
    return renderResult({ requestId: req.id, operation: op, mountType: mount.type, result, ignored });
  }

  /** 307 to the same path and query on the active server; 503 while no active server is known. */
  private redirectToActive(req: HttpRequest): HttpResponse {
    if (this.node.activating) throw new CairnError('unavailable', 'this server is becoming the active one; retry');
    const leader = this.node.leaderAddress;
    if (leader === '') throw new CairnError('unavailable', 'this server is a standby and no active server is known yet');
    const query = req.query.toString();
    return { status: 307, headers: { location: `${leader.replace(/\/+$/, '')}${req.path}${query ? `?${query}` : ''}` } };
  }

  /**
   * Sends the request to the active server (method, path, query, body, every header but
   * the hop-by-hop ones) and passes its reply back (status, headers, body). 503 with
   * {@link CANNOT_FORWARD} while no other active server is known or it cannot be reached.
   */
  private async forwardToActive(req: HttpRequest): Promise<HttpResponse> {
    if (this.node.activating) throw new CairnError('unavailable', 'this server is becoming the active one; retry');
    const leader = trimSlash(this.node.leaderAddress);
    const self = this.o.selfAddresses?.().map(trimSlash) ?? [];
    // No leader, a stale leader row naming this server, or a request another standby
    // already forwarded: never forward (no loops).
    if (leader === '' || self.includes(leader) || req.headers[FORWARDED_HEADER] !== undefined) throw new CairnError('unavailable', CANNOT_FORWARD);
    const drop = connectionTokens(req.headers.connection);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || HOP_BY_HOP.has(name) || drop.has(name)) continue;
      for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
    }
    headers.set(FORWARDED_HEADER, '1');
    const query = req.query.toString();
    const path = req.path.split('/').map(encodeURIComponent).join('/');
    const withBody = req.body.length > 0 && req.method !== 'GET' && req.method !== 'HEAD';
    let res: Response;
    let body: Buffer;
    try {
      res = await fetch(`${leader}${path}${query ? `?${query}` : ''}`, {
        method: req.method,
        headers,
        body: withBody ? new Uint8Array(req.body) : undefined,
        redirect: 'manual',
        signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
      });
      body = Buffer.from(await res.arrayBuffer());
    } catch (err) {
      const cause = (err as { cause?: { message?: string } }).cause?.message;
      this.o.log?.warn({ leader, err: cause ?? (err as Error).message }, 'HA: cannot forward the request to the active server');
      throw new CairnError('unavailable', CANNOT_FORWARD);
    }
    const dropBack = connectionTokens(res.headers.get('connection'));
    const out: Record<string, string> = {};
    res.headers.forEach((value, name) => {
      // fetch has already decoded the body: its encoding and length no longer apply.
      if (HOP_BY_HOP.has(name) || dropBack.has(name) || name === 'content-encoding') return;
      out[name] = value;
    });
    return { status: res.status, headers: out, body: req.method === 'HEAD' || body.length === 0 ? undefined : body };
  }

  /** `?help=1`: help text and an OpenAPI fragment for the path and the paths beneath it (spec 000 "Help response"). */
  private help(full: string, routed: string, description: string, paths: readonly Path[], matched?: Path): HttpResponse {
    const info = { title: 'Cairn secrets service API', description: 'HTTP API of the secrets service. All API routes are prefixed with `/v1/`.', version: VERSION };
    const under = pathsUnder(paths, routed);
    if (routed === '') return renderBare(200, { help: helpForRoot(description, paths), see_also: null, openapi: openapiDocument(under, info) });
    if (under.size === 0) throw unsupportedPath(full);
    const self = matched ?? under.get('/');
    const text = self ? helpForPath(full, self) : [...new Set(under.values())].map((p) => helpForPath(full, p)).join('\n\n');
    return renderBare(200, { help: text, see_also: null, openapi: openapiDocument(under, info) });
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private validator(path: CompiledPath<any, any>, op: Operation, spec: OperationSpec<any, any>): FieldValidator {
    let v = this.validators.get(spec);
    if (!v) {
      v = new FieldValidator(spec.fields ?? path.spec.fields ?? {}, spec.required ?? [], `${op} ${path.spec.pattern}`);
      this.validators.set(spec, v);
    }
    return v;
  }
}
