/**
 * Client for the scheduler service's HTTP API (spec 002; reference: Nomad's `/v1/acl/*`,
 * `/v1/node*`, `/v1/event/stream`, `/v1/volume*`, `/v1/plugin*`, `/v1/job*`, `/v1/evaluation*`,
 * reference/sched.md). The client holds the ACL, login, node, namespace and event stream
 * methods; its resource groups hold the rest: `csi` (volumes, snapshots, plugins;
 * sched-volumes.ts), `jobs` (jobs and evaluations; sched-jobs.ts), `deployments`
 * (sched-deployments.ts) and `allocations`
 * (allocations and the client endpoints; sched-allocs.ts). Depends only on `undici` and
 * Node built-ins.
 *
 * ```ts
 * const sched = SchedClient.fromEnv(process.env);        // SCHED_ADDR, SCHED_TOKEN, …
 * const { data: methods } = await sched.listAuthMethods();
 * const token = await sched.login({ AuthMethodName: 'ci', LoginToken: jwt });
 * for await (const frame of sched.eventStream({ topics: { Node: ['*'] }, signal })) {
 *   console.log(frame.Index, frame.Events.map((e) => e.Type));
 * }
 * const { data: jobs } = await sched.jobs.listJobs();
 * ```
 *
 * Reads the server answers as blocking queries return `{ data, index }` with the reply's
 * `X-Sched-Index`, and take `{ index, wait }` to wait for a change. Every method rejects
 * with {@link SchedApiError} on a status ≥ 400 (the service's plain-text error as `message`)
 * and with {@link SchedConnectionError} when the service cannot be reached.
 *
 * @module
 */
import { Agent } from 'undici';
import { HttpJsonApiError, type HttpJsonTarget, normalizeServiceAddress, requestJson, searchParams, withOverrides } from './http-json.js';
import { SchedAllocApi } from './sched-allocs.js';
import { BLOCKING_EXTRA_MS, type SchedCall, type SchedCallOptions, type SchedCallReply, type SchedMethod } from './sched-call.js';
import { readSchedFrames } from './sched-events.js';
import { streamBody, type SchedStreamTarget } from './sched-stream.js';
import { SchedJobsApi } from './sched-jobs.js';
import { SchedDeploymentsApi } from './sched-deployments.js';
import { SchedCsiApi } from './sched-volumes.js';
import type {
  SchedAclPolicy,
  SchedAclPolicyInput,
  SchedAclToken,
  SchedAclTokenInput,
  SchedAuthMethod,
  SchedAuthMethodInput,
  SchedAuthMethodStub,
  SchedBindingRule,
  SchedBindingRuleInput,
  SchedDrainOptions,
  SchedEventFrame,
  SchedEventStreamOptions,
  SchedLoginInput,
  SchedNamespace,
  SchedNode,
  SchedNodeStub,
  SchedOidcAuthUrlInput,
  SchedOidcCompleteAuthInput,
  SchedQueryOptions,
  SchedRead,
} from './sched-types.js';

export * from './sched-types.js';
export * from './sched-csi-types.js';
export * from './sched-job-types.js';
export { SchedJobsApi, type SchedNamespaceOption } from './sched-jobs.js';
export {
  SchedDeploymentsApi,
  type SchedDeployment,
  type SchedDeploymentGroup,
  type SchedDeploymentReadOptions,
  type SchedDeploymentUpdateReply,
} from './sched-deployments.js';
export { encodeCsiSecrets, SCHED_CSI_SECRETS_HEADER, SchedCsiApi } from './sched-volumes.js';
export { SchedAllocApi } from './sched-allocs.js';
export type {
  SchedAllocation,
  SchedAllocationStub,
  SchedAllocFile,
  SchedLogFrame,
  SchedLogOptions,
  SchedPortMapping,
  SchedTaskEvent,
  SchedTaskState,
  SchedTemplateState,
  SchedIdentityState,
} from './sched-allocs.js';
export type { SchedCallOptions, SchedCallReply, SchedMethod } from './sched-call.js';
export { parseSchedFrameLine, readSchedFrames, SchedStreamError, SCHED_STREAM_CLOSED } from './sched-events.js';

/** Address used when neither the options nor `SCHED_ADDR` name one. */
export const DEFAULT_SCHED_ADDRESS = 'http://127.0.0.1:4646';

/**
 * The service answered with an error status: `status` (≥ 400), `message` its plain-text body
 * (trimmed; `HTTP <status>` when empty), `request` the method and the path under `/v1`.
 */
export class SchedApiError extends HttpJsonApiError {
  override readonly name = 'SchedApiError';
}

/** The service could not be reached (refused, reset, timeout) or answered something that is not JSON. */
export class SchedConnectionError extends Error {
  override readonly name = 'SchedConnectionError';
}

/** How to reach the scheduler service. */
export interface SchedClientOptions {
  /** `http(s)://host:port`; a bare `host:port` means `http://`. */
  readonly address: string;
  /** ACL token secret, sent as `X-Sched-Token`. */
  readonly token?: string;
  /** Namespace of namespaced requests (`?namespace=`; the server's default is `default`). */
  readonly namespace?: string;
  /** Region requests are forwarded to (`?region=`; default the agent's). */
  readonly region?: string;
  /** Limit for one request, in ms (default 30 000; blocking queries add up to 5.5 min). */
  readonly timeoutMs?: number;
}

/** The environment variables {@link SchedClient.fromEnv} reads. */
export type SchedEnv = Readonly<Record<string, string | undefined>>;

const seg = encodeURIComponent;

/**
 * `address` as `http(s)://host:port` without a trailing slash; a bare `host:port` gets `http://`.
 * @throws Error for anything else.
 */
export function normalizeSchedAddress(address: string): string {
  return normalizeServiceAddress(address, 'scheduler');
}

/** Typed client of the scheduler service; see the module doc for its resource groups. */
export class SchedClient {
  /** Volumes, external volumes, snapshots and plugins (`/v1/volume*`, `/v1/plugin*`; sched-volumes.ts). */
  readonly csi: SchedCsiApi;
  /** Jobs and evaluations (`/v1/job*`, `/v1/evaluation*`; sched-jobs.ts). */
  readonly jobs: SchedJobsApi;
  /** Deployments: list, read, promote, fail, pause, allocation health, a job's deployments (`/v1/deployment*`; sched-deployments.ts). */
  readonly deployments: SchedDeploymentsApi;
  /** Allocations and the client endpoints: logs, files, restart, signal (`/v1/allocation*`, `/v1/client/*`; sched-allocs.ts). */
  readonly allocations: SchedAllocApi;
  /** The normalised `http(s)://host:port`. */
  readonly address: string;
  private readonly dispatcher: Agent;
  private readonly target: HttpJsonTarget;

  /** @throws Error when `options.address` is not `http(s)://host:port` or `host:port`. */
  constructor(private readonly options: SchedClientOptions) {
    this.address = normalizeSchedAddress(options.address);
    this.dispatcher = new Agent();
    this.target = {
      address: this.address,
      dispatcher: this.dispatcher,
      timeoutMs: options.timeoutMs,
      tokenHeader: 'x-sched-token',
      indexHeader: 'x-sched-index',
      service: 'scheduler',
      apiError: (status, message, request) => new SchedApiError(status, message, request),
      connectionError: (message) => new SchedConnectionError(message),
    };
    const call: SchedCall = (method, path, o) => this.call(method, path, o);
    this.csi = new SchedCsiApi(call);
    this.jobs = new SchedJobsApi(call);
    this.deployments = new SchedDeploymentsApi(call);
    this.allocations = new SchedAllocApi(call, (path, query, signal) => streamBody(this.streamTarget(), path, this.query(query), signal));
  }

  /**
   * A client from the environment, the reference CLI's variables renamed: `SCHED_ADDR`
   * (default `http://127.0.0.1:4646`), `SCHED_TOKEN`, `SCHED_NAMESPACE`, `SCHED_REGION`.
   * Defined fields of `overrides` win. @throws Error for a bad address.
   */
  static fromEnv(env: SchedEnv, overrides: Partial<SchedClientOptions> = {}): SchedClient {
    const fromEnv: SchedClientOptions = {
      address: env.SCHED_ADDR || DEFAULT_SCHED_ADDRESS,
      token: env.SCHED_TOKEN || undefined,
      namespace: env.SCHED_NAMESPACE || undefined,
      region: env.SCHED_REGION || undefined,
    };
    return new SchedClient(withOverrides(fromEnv, overrides));
  }

  /** Whether the client has a token to send. */
  get hasToken(): boolean {
    return !!this.options.token;
  }

  /** The namespace requests go to, if one was set. */
  get namespace(): string | undefined {
    return this.options.namespace;
  }

  // ---- status -------------------------------------------------------------------------

  /** `GET /v1/regions`: every region the agent knows, sorted. */
  async regions(): Promise<string[]> {
    return (await this.call<string[]>('GET', '/regions')).data;
  }

  /** `GET /v1/status/leader`: `host:port` of the region's leader. */
  async leader(): Promise<string> {
    return (await this.call<string>('GET', '/status/leader')).data;
  }

  // ---- ACL tokens ---------------------------------------------------------------------

  /**
   * `POST /v1/acl/bootstrap`: the first management token, with its SecretID; `secret` (a
   * UUID) becomes that SecretID. @throws SchedApiError 400 once bootstrap has been done
   * (the server's text says so) or when ACLs are disabled.
   */
  async aclBootstrap(secret?: string): Promise<SchedAclToken> {
    const body = secret === undefined ? {} : { BootstrapSecret: secret };
    return (await this.call<SchedAclToken>('POST', '/acl/bootstrap', { body })).data;
  }

  /** `GET /v1/acl/token/self`: the client's own token, SecretID included. @throws SchedApiError 403 for an unknown secret. */
  async aclTokenSelf(): Promise<SchedAclToken> {
    return (await this.call<SchedAclToken>('GET', '/acl/token/self')).data;
  }

  /** `GET /v1/acl/tokens` (management): stubs without SecretIDs. */
  listAclTokens(o: SchedQueryOptions = {}): Promise<SchedRead<SchedAclToken[]>> {
    return this.read<SchedAclToken[]>('/acl/tokens', o, []);
  }

  /** `GET /v1/acl/token/:accessor`. @throws SchedApiError 404 when there is none. */
  readAclToken(accessorId: string, o: SchedQueryOptions = {}): Promise<SchedRead<SchedAclToken>> {
    return this.read<SchedAclToken>(`/acl/token/${seg(accessorId)}`, o);
  }

  /** `POST /v1/acl/token`: a new token, with its SecretID. @throws SchedApiError 400 naming a bad field. */
  async createAclToken(input: SchedAclTokenInput): Promise<SchedAclToken> {
    return (await this.call<SchedAclToken>('POST', '/acl/token', { body: input })).data;
  }

  /** `POST /v1/acl/token/:accessor`: changes name, policies and roles. @throws SchedApiError 404 / 400. */
  async updateAclToken(accessorId: string, input: SchedAclTokenInput): Promise<SchedAclToken> {
    return (await this.call<SchedAclToken>('POST', `/acl/token/${seg(accessorId)}`, { body: { ...input, AccessorID: accessorId } })).data;
  }

  /** `DELETE /v1/acl/token/:accessor`. */
  async deleteAclToken(accessorId: string): Promise<void> {
    await this.call('DELETE', `/acl/token/${seg(accessorId)}`);
  }

  // ---- ACL policies -------------------------------------------------------------------

  /** `GET /v1/acl/policies`: stubs without `Rules`. */
  listAclPolicies(o: SchedQueryOptions = {}): Promise<SchedRead<SchedAclPolicy[]>> {
    return this.read<SchedAclPolicy[]>('/acl/policies', o, []);
  }

  /** `GET /v1/acl/policy/:name`. @throws SchedApiError 404. */
  readAclPolicy(name: string, o: SchedQueryOptions = {}): Promise<SchedRead<SchedAclPolicy>> {
    return this.read<SchedAclPolicy>(`/acl/policy/${seg(name)}`, o);
  }

  /** `POST /v1/acl/policy/:name`: creates or replaces a policy. @throws SchedApiError 400 for a bad name or bad rules. */
  async upsertAclPolicy(input: SchedAclPolicyInput): Promise<void> {
    await this.call('POST', `/acl/policy/${seg(input.Name)}`, { body: input });
  }

  /** `DELETE /v1/acl/policy/:name`. */
  async deleteAclPolicy(name: string): Promise<void> {
    await this.call('DELETE', `/acl/policy/${seg(name)}`);
  }

  // ---- auth methods and binding rules (spec 002 "ACL auth methods") --------------------

  /** `GET /v1/acl/auth-methods` (no token needed): stubs `{Name, Type, Default, …}`. */
  listAuthMethods(o: SchedQueryOptions = {}): Promise<SchedRead<SchedAuthMethodStub[]>> {
    return this.read<SchedAuthMethodStub[]>('/acl/auth-methods', o, []);
  }

  /** `GET /v1/acl/auth-method/:name` (management; the client secret reads `redacted`). @throws SchedApiError 404 `ACL auth-method not found`. */
  readAuthMethod(name: string, o: SchedQueryOptions = {}): Promise<SchedRead<SchedAuthMethod>> {
    return this.read<SchedAuthMethod>(`/acl/auth-method/${seg(name)}`, o);
  }

  /**
   * `POST /v1/acl/auth-method` (management; forwarded to the authoritative region): the stored
   * method. @throws SchedApiError 400 with the validation text (`auth method 0 invalid: …`,
   * `default method already exists: <name>`).
   */
  async createAuthMethod(input: SchedAuthMethodInput): Promise<SchedAuthMethod> {
    return (await this.call<SchedAuthMethod>('POST', '/acl/auth-method', { body: input })).data;
  }

  /**
   * `POST /v1/acl/auth-method/:name`: fields left out keep their stored value, except
   * `Default` (omitted = false, as the reference). @throws SchedApiError 404 / 400.
   */
  async updateAuthMethod(name: string, input: SchedAuthMethodInput): Promise<SchedAuthMethod> {
    return (await this.call<SchedAuthMethod>('POST', `/acl/auth-method/${seg(name)}`, { body: { ...input, Name: name } })).data;
  }

  /** `DELETE /v1/acl/auth-method/:name` (management). */
  async deleteAuthMethod(name: string): Promise<void> {
    await this.call('DELETE', `/acl/auth-method/${seg(name)}`);
  }

  /** `GET /v1/acl/binding-rules`. */
  listBindingRules(o: SchedQueryOptions = {}): Promise<SchedRead<SchedBindingRule[]>> {
    return this.read<SchedBindingRule[]>('/acl/binding-rules', o, []);
  }

  /** `GET /v1/acl/binding-rule/:id`. @throws SchedApiError 404. */
  readBindingRule(id: string, o: SchedQueryOptions = {}): Promise<SchedRead<SchedBindingRule>> {
    return this.read<SchedBindingRule>(`/acl/binding-rule/${seg(id)}`, o);
  }

  /** `POST /v1/acl/binding-rule` (management). @throws SchedApiError 400 (`binding rule 0 invalid: …`). */
  async createBindingRule(input: SchedBindingRuleInput & { readonly AuthMethod: string }): Promise<SchedBindingRule> {
    return (await this.call<SchedBindingRule>('POST', '/acl/binding-rule', { body: input })).data;
  }

  /** `POST /v1/acl/binding-rule/:id`. @throws SchedApiError 400. */
  async updateBindingRule(id: string, input: SchedBindingRuleInput): Promise<SchedBindingRule> {
    return (await this.call<SchedBindingRule>('POST', `/acl/binding-rule/${seg(id)}`, { body: { ...input, ID: id } })).data;
  }

  /** `DELETE /v1/acl/binding-rule/:id`. */
  async deleteBindingRule(id: string): Promise<void> {
    await this.call('DELETE', `/acl/binding-rule/${seg(id)}`);
  }

  // ---- login (reference/sched.md §2.5) --------------------------------------------------

  /**
   * `POST /v1/acl/login`: a new token, SecretID included, for a JWT the (JWT) auth method
   * accepts. @throws SchedApiError 400 (unknown method, no binding matched), 401 (the JWT
   * does not validate).
   */
  async login(input: SchedLoginInput): Promise<SchedAclToken> {
    return (await this.call<SchedAclToken>('POST', '/acl/login', { body: input })).data;
  }

  /** `POST /v1/acl/oidc/auth-url`: the provider URL to send the browser to. @throws SchedApiError 400. */
  async oidcAuthUrl(input: SchedOidcAuthUrlInput): Promise<{ AuthURL: string }> {
    return (await this.call<{ AuthURL: string }>('POST', '/acl/oidc/auth-url', { body: input })).data;
  }

  /**
   * `POST /v1/acl/oidc/complete-auth`: exchanges the callback's `state` and `code` for a
   * token, SecretID included. @throws SchedApiError 400 (bad state, nonce, no binding), 500
   * (the provider refused the code).
   */
  async oidcCompleteAuth(input: SchedOidcCompleteAuthInput): Promise<SchedAclToken> {
    return (await this.call<SchedAclToken>('POST', '/acl/oidc/complete-auth', { body: input })).data;
  }

  // ---- namespaces and nodes -----------------------------------------------------------

  /** `GET /v1/namespaces`. */
  listNamespaces(o: SchedQueryOptions = {}): Promise<SchedRead<SchedNamespace[]>> {
    return this.read<SchedNamespace[]>('/namespaces', o, []);
  }

  /** `GET /v1/nodes` (`node:read`): node stubs. */
  listNodes(o: SchedQueryOptions = {}): Promise<SchedRead<SchedNodeStub[]>> {
    return this.read<SchedNodeStub[]>('/nodes', o, []);
  }

  /** `GET /v1/node/:id` (`node:read`; full ID). @throws SchedApiError 404 `node not found`. */
  readNode(id: string, o: SchedQueryOptions = {}): Promise<SchedRead<SchedNode>> {
    return this.read<SchedNode>(`/node/${seg(id)}`, o);
  }

  /** `POST /v1/node/:id/drain` (`node:write`): sets (`enable`) or clears the node's drain strategy. */
  async updateNodeDrain(nodeId: string, o: SchedDrainOptions): Promise<void> {
    const spec = o.enable ? { Deadline: o.deadlineNs ?? 60 * 60 * 1e9, IgnoreSystemJobs: o.ignoreSystemJobs ?? false } : null;
    await this.call('POST', `/node/${seg(nodeId)}/drain`, { body: { DrainSpec: spec, MarkEligible: o.markEligible ?? false, Meta: o.meta ?? null } });
  }

  /** `POST /v1/node/:id/eligibility` (`node:write`). @throws SchedApiError 400 while draining and asked eligible. */
  async updateNodeEligibility(nodeId: string, eligible: boolean): Promise<void> {
    await this.call('POST', `/node/${seg(nodeId)}/eligibility`, { body: { Eligibility: eligible ? 'eligible' : 'ineligible' } });
  }

  // ---- event stream (spec 002 "Event stream") -------------------------------------------

  /**
   * `GET /v1/event/stream`: the frames `{Index, Events}` of the topics asked for, the
   * server's backlog from `index` first, until the caller stops. Heartbeats (`{}`) are
   * skipped. The request is sent on the first `next()`.
   *
   * Ends: leaving the `for await` loop or aborting `signal` ends quietly and closes the
   * connection; otherwise the iteration throws {@link SchedApiError} (e.g. 403 `Permission
   * denied` before any frame), {@link SchedStreamError} (the server's end line, e.g. `event
   * dropped from buffer`, or the connection closing) or {@link SchedConnectionError}.
   */
  async *eventStream(o: SchedEventStreamOptions = {}): AsyncGenerator<SchedEventFrame, void> {
    const q = this.query({ index: o.index ?? 0, namespace: o.namespace });
    for (const [topic, keys] of Object.entries(o.topics ?? {})) {
      if (keys.length === 0) q.append('topic', topic);
      else for (const key of keys) q.append('topic', `${topic}:${key}`);
    }
    if (o.signal?.aborted) return;
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    o.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      yield* readSchedFrames(streamBody(this.streamTarget(), '/event/stream', q, stop.signal));
    } catch (err) {
      if (o.signal?.aborted) return;
      throw err;
    } finally {
      o.signal?.removeEventListener('abort', onAbort);
      stop.abort();
    }
  }

  /** Where the streaming GETs go (sched-stream.ts). */
  private streamTarget(): SchedStreamTarget {
    return { ...this.target, token: this.options.token };
  }

  /** Closes the client's connections. */
  close(): Promise<void> {
    return this.dispatcher.close();
  }

  // ---- plumbing -----------------------------------------------------------------------

  private async read<T>(path: string, o: SchedQueryOptions, empty?: T): Promise<SchedRead<T>> {
    const r = await this.call<T | null>('GET', path, {
      query: { index: o.index, wait: o.wait, stale: o.stale ? '' : undefined },
      extraTimeoutMs: o.index !== undefined ? BLOCKING_EXTRA_MS : 0,
    });
    return { data: (r.data ?? empty) as T, index: r.index };
  }

  /** The client's namespace and region, then `query`'s defined values (`""` kept: `?stale=`). */
  private query(query: Readonly<Record<string, string | number | boolean | undefined>>): URLSearchParams {
    return searchParams({ namespace: this.options.namespace, region: this.options.region }, query);
  }

  /**
   * One request to `/v1<path>` with the client's token, namespace and region; `data` is the
   * parsed JSON body (undefined when empty), `index` the `X-Sched-Index` (0 when absent),
   * `headers` the reply's. `o.query` values override the client's namespace and region.
   * @throws SchedApiError on a status ≥ 400; SchedConnectionError when unreachable or on a non-JSON reply.
   */
  async call<T>(method: SchedMethod, path: string, o: SchedCallOptions = {}): Promise<SchedCallReply<T>> {
    const r = await requestJson<T>(this.target, {
      method,
      path,
      query: this.query(o.query ?? {}),
      token: this.options.token,
      body: o.body,
      headers: o.headers,
      extraTimeoutMs: o.extraTimeoutMs,
    });
    return { data: r.body, index: r.index, headers: r.headers };
  }
}
