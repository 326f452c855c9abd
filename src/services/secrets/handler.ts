/**
 * The secrets service's request pipeline (kernel/http/LIFECYCLE.md): frame → route
 * (mount, then the engine's paths) → authenticate → help → existence check →
 * authorise → validate → handle → render.
 *
 * @module
 */
import {
  bearerToken,
  CairnError,
  FieldValidator,
  badRequest,
  forbidden,
  helpForPath,
  helpForRoot,
  notFound,
  openapiDocument,
  operationOf,
  parseJsonBody,
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
import { addressInCidrs } from '../../kernel/util/cidr.js';
import { FORWARDED_ROUTE, labelRoute } from '../../kernel/metrics/index.js';
import { parseGoBool } from '../../kernel/util/go-bool.js';
import type { Trail } from './audit/trail.js';
import type { SecretsCore } from './core.js';
import { ALL_ENGINES, engineFor } from './engines.js';
import { canonicalNamespace } from './namespace/registry.js';
import { renderBare, renderError, renderResult } from './envelope.js';
import { withLease } from './lease/attach.js';
import { isFencedWrite, missingState, noLongerActive } from './ha/errors.js';
import { ActiveForwarder, FORWARDED_HEADER } from './ha/forward.js';
import { ACTIVE_ONLY_PATHS } from './ha/status.js';
import { FORWARDED_FOR_HEADER, signForwardedFor, verifiedForwardedFor, type ForwardedClient } from './ha/forwarded-for.js';
import { FORWARD_ACTIVE_NODE, INCONSISTENT_HEADER, INDEX_HEADER, formatState, parseState } from './ha/state-header.js';
import { ReadOnlyStorageError, trackWrites } from './ha/storage-guard.js';
import type { SecretsNode } from './node.js';
import { SECRETS_OPENAPI_INFO } from './openapi.js';
import { rootOnly } from './sys/root-only.js';
import { sealTable, type SysRequest } from './sys/seal.routes.js';
import type { SecretsRequest, SecretsResult } from './types.js';
import { WRAP_TTL_HEADER, requestWrapTtl } from './wrapping/header.js';
import { wrapReply } from './wrapping/wrap.js';

type Path = CompiledPath<SecretsRequest, SecretsResult>;

/** Go's `strconv.ParseBool`, used by the reference for `?list=` (reference/secrets.md §1.2). */
function parseBool(name: string, v: string | null): boolean {
  // The reference also reads an empty `?list=` as false.
  if (v === null || v === '') return false;
  const b = parseGoBool(v);
  if (b !== undefined) return b;
  throw badRequest(`query parameter "${name}": invalid boolean "${v}"`);
}

/** A header's value (the first, when repeated). */
function firstHeader(req: HttpRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The token of a request: `X-Secrets-Token`, else `Authorization: Bearer` (spec 000 "Authentication" 2). */
function requestToken(req: HttpRequest): string {
  const header = req.headers['x-secrets-token'];
  if (typeof header === 'string' && header !== '') return header;
  return bearerToken(req.headers, 'exact-rest') ?? '';
}

/** Parses the JSON body; empty → `{}`. Errors: 400 naming the parse problem. */
function parseBody(req: HttpRequest): Record<string, unknown> {
  if (req.body.length === 0) return {};
  let v: unknown;
  try {
    v = parseJsonBody(req.body);
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

export { CANNOT_FORWARD } from './ha/forward.js';

/** A logical request (not a seal path) once framed. */
interface Logical {
  readonly req: HttpRequest;
  readonly method: Operation | 'write';
  /** The parsed JSON body of a write or patch, else `{}`. */
  readonly body: Record<string, unknown>;
  /** The path after `/v1/`. */
  readonly full: string;
  /** `X-Secrets-Namespace`, canonical. */
  readonly headerNs: string;
}

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

/** The secrets service as an {@link HttpService}. */
export class SecretsHttp implements HttpService {
  // Keyed by any operation; only its declared fields are read.
  private readonly validators = new WeakMap<OperationSpec<never, unknown>, FieldValidator>();
  private readonly forwarder: ActiveForwarder;

  /**
   * Each operation's field validator is compiled on its first request: compiling all of
   * them took ~0.5 s of CPU at every start (ajv), most for operations a server never
   * serves. {@link compileEveryValidator} checks them all (test/secrets/field-schemas.test.ts).
   */
  constructor(
    private readonly node: SecretsNode,
    o: SecretsHttpOptions = {},
  ) {
    this.forwarder = new ActiveForwarder({
      leaderAddress: () => node.leaderAddress,
      refreshLeader: () => node.refreshLeader(),
      activating: () => node.activating,
      requestForwarding: o.requestForwarding,
      selfAddresses: o.selfAddresses,
      forwardedFor: (req) => {
        const key = node.forwardingKey;
        return key && signForwardedFor(key, this.client(req), req.method);
      },
      log: o.log,
    });
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
    if (!cors || Object.keys(cors.headers).length === 0) return this.fenced(req);
    try {
      const res = await this.fenced(req);
      return { ...res, headers: { ...res.headers, ...cors.headers } };
    } catch (err) {
      if (!(err instanceof CairnError)) throw err;
      const res = renderError(err);
      return { ...res, headers: { ...res.headers, ...cors.headers } };
    }
  }

  /**
   * {@link route}, with a write the HA fence refused (this server lost activeness while
   * serving it; nothing was stored) answered 503 instead of 500, and the server stepping down.
   */
  private async fenced(req: HttpRequest): Promise<HttpResponse> {
    try {
      return await this.route(req);
    } catch (err) {
      if (!isFencedWrite(err)) throw err;
      this.node.stepDown((err as Error).message);
      throw noLongerActive();
    }
  }

  private async route(req: HttpRequest): Promise<HttpResponse> {
    // Frame.
    if (!req.path.startsWith('/v1/')) throw notFound();
    const full = req.path.slice(4);
    // The reference redirects these (301); Cairn answers 404 with a body (reference/README.md).
    if (full.includes('//') || /(^|\/)\.\.?(\/|$)/.test(full)) throw unsupportedPath(full);
    const method = operationOf(req.method, parseBool('list', req.query.get('list')));
    if (!method) throw new CairnError('method_not_allowed', []);
    if (method === 'patch' && !String(req.headers['content-type'] ?? '').startsWith('application/merge-patch+json'))
      throw new CairnError(
        'unsupported_media_type',
        `PATCH requires Content-Type of application/merge-patch+json, provided ${req.headers['content-type'] ?? ''}`,
      );
    const body = method === 'write' || method === 'patch' ? parseBody(req) : {};

    // The seal's own paths answer before the seal check (reference/secrets.md §1.7), and
    // only in the root namespace (§1.1).
    const headerNs = canonicalNamespace(firstHeader(req, 'x-secrets-namespace'));
    const sys = full.startsWith('sys/') ? sealTable.match(full.slice(4)) : undefined;
    if (sys && headerNs !== '') throw badRequest('operation unavailable in namespaces');
    if (sys) {
      labelRoute(req, `sys/${sys.path.spec.pattern}`);
      const op: Operation = method === 'write' ? 'update' : method;
      const spec = sys.path.spec.operations[op];
      if (!spec) throw new CairnError('method_not_allowed', []);
      const { data } = this.validator(sys.path, op, spec).validate(op === 'update' ? body : queryData(req.query));
      return spec.handle({ node: this.node, data, token: requestToken(req) } satisfies SysRequest) as Promise<HttpResponse>;
    }
    const logical: Logical = { req, method, body, full, headerNs };
    if (this.node.standby) return this.standbyRoute(logical);
    const core = this.node.requireCore();
    // The active server has applied every state (it made them), but a bad value is still a 400.
    this.wantedState(req);
    if (this.node.commitIndex === undefined) return this.serve(core, logical);
    // A reply to a request that wrote carries the state after it.
    const { result: res, wrote } = await trackWrites(() => this.serve(core, logical));
    if (!wrote || res.status < 200 || res.status >= 300 || !this.node.clusterInfo) return res;
    return { ...res, headers: { ...res.headers, [INDEX_HEADER]: formatState(this.node.clusterInfo.id, this.node.commitIndex) } };
  }

  /**
   * An HA standby: a performance standby serves reads (GET, LIST, HEAD) itself when it has
   * applied the state the client asks for (`X-Secrets-Index`; else 412, or forwarded with
   * `X-Secrets-Inconsistent: forward-active-node`); anything that writes, a read that
   * turns out to write (its read-only storage refuses), and every request on a plain
   * standby go to the active server (forwarded, or 307 with `disable_clustering`).
   * Seal paths never get here.
   */
  private async standbyRoute(l: Logical): Promise<HttpResponse> {
    // Metrics: a forwarded request counts under `forwarded`; one served here gets its route below.
    labelRoute(l.req, FORWARDED_ROUTE);
    const core = this.node.core;
    // A wrapped read writes (the wrapping token), so only the active server may serve it.
    const reads = (l.method === 'read' || l.method === 'list') && l.req.headers[WRAP_TTL_HEADER] === undefined;
    if (!core || !this.node.performanceStandby || !reads || l.req.headers[FORWARDED_HEADER] !== undefined || ACTIVE_ONLY_PATHS.has(l.full))
      return this.forwarder.send(l.req);
    const wanted = this.wantedState(l.req);
    if (wanted !== undefined && wanted > this.node.appliedIndex) {
      if (firstHeader(l.req, INCONSISTENT_HEADER)?.trim().toLowerCase() === FORWARD_ACTIVE_NODE) return this.forwarder.send(l.req);
      throw missingState();
    }
    try {
      return await this.serve(core, l);
    } catch (err) {
      if (err instanceof ReadOnlyStorageError) return this.forwarder.send(l.req);
      throw err;
    }
  }

  /**
   * The client's address and TLS certificate chain: the ones a standby of this cluster
   * signed when it forwarded the request (ha/forwarded-for.ts), else the connection's.
   */
  private client(req: HttpRequest): ForwardedClient {
    const own = { address: req.remoteAddress, clientCertificates: req.clientCertificates };
    if (req.headers[FORWARDED_HEADER] === undefined) return own;
    return verifiedForwardedFor(this.node.forwardingKey, firstHeader(req, FORWARDED_FOR_HEADER), req.method) ?? own;
  }

  /**
   * The commit index the request's `X-Secrets-Index` asks for; undefined without one.
   * @throws CairnError 400 for a value that is not a state of this cluster (state-header.ts).
   */
  private wantedState(req: HttpRequest): number | undefined {
    const value = firstHeader(req, INDEX_HEADER);
    if (value === undefined || value === '') return undefined;
    const cluster = this.node.clusterInfo;
    return cluster ? parseState(value, cluster.id) : undefined;
  }

  /** {@link pipeline} with its audit trail: every request and response is logged to the audit devices (audit/), fail closed. */
  private serve(core: SecretsCore, l: Logical): Promise<HttpResponse> {
    return core.audit.around(l.req, requestToken(l.req), (trail) => this.pipeline(core, l, trail));
  }

  /** Namespace, route, authenticate, authorise, validate, handle and render one logical request on `core`. */
  private async pipeline(core: SecretsCore, { req, method, body, headerNs, full: path }: Logical, trail: Trail): Promise<HttpResponse> {
    let full = path;
    const help = (req.query.get('help') ?? '') !== '';
    const wrapTtl = requestWrapTtl(req.headers);

    // Namespace: header and path together, the deepest existing namespace wins, so every
    // split of the namespace between the two is the same request (spec 000
    // "Authentication" 5; reference/secrets.md §6).
    const combined = headerNs + full;
    const nsEntry = core.namespaces.longestPrefix(combined);
    if (!nsEntry.path.startsWith(headerNs)) throw notFound(`namespace "${headerNs}" not found`);
    full = combined.slice(nsEntry.path.length);
    if (nsEntry.path !== '' && rootOnly(full)) throw badRequest('operation unavailable in namespaces');
    const ns = await core.scope(nsEntry);

    // Route.
    const mount = ns.mounts.route(full);
    const relative = mount ? full.slice(Math.min(mount.path.length, full.length)) : '';
    const engine = mount && engineFor(mount);
    const routed = method === 'list' ? relative.replace(/\/+$/, '') : relative;
    const match = engine?.table.match(routed);

    // Authenticate.
    const now = core.now();
    const found = await core.tokens.lookup(requestToken(req), now);
    // A token bound to CIDR blocks does not exist for a client elsewhere (the reference's
    // token_bound_cidrs check: permission denied).
    const { address: remoteAddress, clientCertificates } = this.client(req);
    const token = found?.bound_cidrs && !addressInCidrs(remoteAddress, found.bound_cidrs) ? undefined : found;
    trail.note({ token, remoteAddress, namespace: nsEntry, path: full, mountType: mount?.type, data: body });
    if (!token && !(match?.path.spec.unauthenticated && !help)) throw forbidden();
    if (!mount || !engine) throw notFound(`no handler for route "${full}". route entry not found.`);
    if (help) return this.help(full, routed, { description: engine.description, paths: engine.table.paths }, match?.path);
    if (!match) throw unsupportedPath(full);
    // The mount's path and the route's pattern: never the captured values (names users chose, secrets' paths).
    labelRoute(req, mount.path + match.path.spec.pattern);

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
      remoteAddress,
      clientCertificates,
      headers: req.headers,
    };

    // Existence check, then authorise.
    const spec = match.path.spec;
    let op: Operation = method === 'write' ? 'update' : method;
    if (method === 'write' && spec.exists) op = (await spec.exists(ctx)) ? 'update' : 'create';
    const opSpec = spec.operations[op] ?? (op === 'create' ? spec.operations.update : op === 'update' ? spec.operations.create : undefined);
    if (!opSpec) throw unsupportedOperation();
    const aclPath = method === 'list' ? full.replace(/\/*$/, '/') : full;
    // The request's data, which the governing rule's parameter constraints check.
    const input = op === 'create' || op === 'update' || op === 'patch' ? body : queryData(req.query);
    // The ACL also tries a list path without its trailing `/` (reference/secrets.md §5.2).
    if (token && !spec.unauthenticated && !(await core.allowed(token, aclPath, op, { ns: nsEntry, data: input, wrapTtlS: wrapTtl ?? null }))) throw forbidden();

    // Validate and handle.
    const { data, ignored } = opSpec.rawBody ? { data: {}, ignored: [] } : this.validator(match.path, op, opSpec).validate(input);
    await trail.request(op, input);
    const handled: SecretsRequest = { ...ctx, operation: op, data };
    // A secret that asks for a lease leaves with one (lease/attach.ts), wrapped or not.
    const result = await withLease(handled, await opSpec.handle(handled));
    const rendered = renderResult({ requestId: req.id, operation: op, mountType: mount.type, result, ignored });
    return wrapTtl === undefined ? rendered : wrapReply(handled, wrapTtl, rendered, result);
  }

  /** `?help=1`: help text and an OpenAPI fragment for the path and the paths beneath it in the engine's table (spec 000 "Help response"). */
  private help(full: string, routed: string, { description, paths }: { description: string; paths: readonly Path[] }, matched?: Path): HttpResponse {
    const info = SECRETS_OPENAPI_INFO;
    const under = pathsUnder(paths, routed);
    if (routed === '') return renderBare(200, { help: helpForRoot(description, paths), see_also: null, openapi: openapiDocument(under, info) });
    if (under.size === 0) throw unsupportedPath(full);
    const self = matched ?? under.get('/');
    const text = self ? helpForPath(full, self) : [...new Set(under.values())].map((p) => helpForPath(full, p)).join('\n\n');
    return renderBare(200, { help: text, see_also: null, openapi: openapiDocument(under, info) });
  }

  private validator(path: CompiledPath<never, unknown>, op: Operation, spec: OperationSpec<never, unknown>): FieldValidator {
    let v = this.validators.get(spec);
    if (!v) {
      v = fieldValidator(path, op, spec);
      this.validators.set(spec, v);
    }
    return v;
  }
}

/** The validator of `op` on `path`: its own fields, else the path's. @throws Error naming the operation for an invalid schema. */
function fieldValidator(path: CompiledPath<never, unknown>, op: Operation, spec: OperationSpec<never, unknown>): FieldValidator {
  return new FieldValidator(spec.fields ?? path.spec.fields ?? {}, spec.required ?? [], `${op} ${path.spec.pattern}`);
}

/**
 * Compiles the validator of every operation of every engine and of the seal's paths, as
 * their first requests would. Returns how many. @throws Error naming the first operation
 * whose field schema is invalid.
 */
export function compileEveryValidator(): number {
  let n = 0;
  for (const table of [...ALL_ENGINES.map((e) => e.table), sealTable])
    for (const path of table.paths)
      for (const [op, spec] of Object.entries(path.spec.operations)) {
        if (!spec || spec.rawBody) continue;
        fieldValidator(path, op as Operation, spec);
        n++;
      }
  return n;
}
