/**
 * Client for the discovery service's ACL API (reference: Consul's `/v1/acl/*` HTTP API,
 * reference/mesh.md), its key/value store (`/v1/kv/*`, mesh-kv.ts), transactions (`/v1/txn`,
 * mesh-txn.ts), its catalog, health and agent endpoints (`/v1/catalog|health|agent/*`,
 * mesh-catalog.ts) and its sessions (`/v1/session/*`, mesh-session.ts; the lock recipe on
 * top of them: mesh-lock.ts). Depends only on `undici` and Node built-ins.
 *
 * ```ts
 * const mesh = MeshClient.fromEnv(process.env);          // MESH_HTTP_ADDR, MESH_HTTP_TOKEN, …
 * const p = await mesh.policies.create({ Name: 'web', Rules: 'service "web" { policy = "write" }' });
 * const t = await mesh.tokens.create({ Policies: [{ Name: 'web' }] });
 * const { items, index } = await mesh.tokens.list({ policy: p.ID });
 * ```
 *
 * Single reads return the object; list reads return `{ items, index }` with the reply's
 * `X-Mesh-Index`, and take `{ index, wait }` to block until the list changes. Every method
 * rejects with {@link MeshApiError} on a status ≥ 400 (the service's plain-text error as
 * `message`) and with {@link MeshConnectionError} when the service cannot be reached.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { Agent } from 'undici';
import { type HttpJsonTarget, normalizeServiceAddress, requestJson, searchParams, withOverrides } from './http-json.js';
import { MeshAuthMethods, MeshBindingRules, MeshPolicies, MeshRoles, MeshTokens } from './mesh-acl.js';
import { MeshApiError, MeshConnectionError, type MeshCall, type MeshCallOptions, type MeshReplyOf } from './mesh-call.js';
import { MeshAgent, MeshCatalog, MeshHealth } from './mesh-catalog.js';
import { MeshKv } from './mesh-kv.js';
import { MeshSession } from './mesh-session.js';
import { txn, type MeshTxnOp, type MeshTxnReply } from './mesh-txn.js';
import type { MeshBootstrapToken, MeshLoginInput, MeshReplicationStatus, MeshToken } from './mesh-types.js';

export * from './mesh-types.js';
export * from './mesh-call.js';
export { MeshAuthMethods, MeshBindingRules, MeshPolicies, MeshRoles, MeshTokens } from './mesh-acl.js';
export * from './mesh-kv.js';
export * from './mesh-catalog.js';
export * from './mesh-workloads.js';
export type * from './mesh-txn.js';
export * from './mesh-session.js';
export * from './mesh-lock.js';
export * from './mesh-semaphore.js';
export * from './mesh-watch.js';

/** Address used when neither the options nor `MESH_HTTP_ADDR` name one. */
export const DEFAULT_MESH_ADDRESS = 'http://127.0.0.1:8500';

/** How to reach the discovery service. */
export interface MeshClientOptions {
  /** `http(s)://host:port`; a bare `host:port` means `http://`. */
  readonly address: string;
  /** ACL token secret, sent as `X-Mesh-Token`. */
  readonly token?: string;
  /** PEM text of the CA that signed the service's certificate. */
  readonly caCert?: string;
  /** Accept any certificate (off by default). */
  readonly skipVerify?: boolean;
  /** Namespace (`?ns=`; enterprise switch only). */
  readonly namespace?: string;
  /** Datacenter the request is forwarded to (`?dc=`). */
  readonly datacenter?: string;
  /** Limit for one request, in ms (default 30 000; blocking queries add their wait). */
  readonly timeoutMs?: number;
}

/**
 * `address` as `http(s)://host:port` without a trailing slash; a bare `host:port` gets `http://`.
 * @throws Error for anything else.
 */
export function normalizeMeshAddress(address: string): string {
  return normalizeServiceAddress(address, 'discovery service');
}

/** Typed client of the discovery service's ACL API. */
export class MeshClient {
  /** `PUT/GET/DELETE /v1/acl/token…`. */
  readonly tokens: MeshTokens;
  /** `/v1/acl/policy…`. */
  readonly policies: MeshPolicies;
  /** `/v1/acl/role…`. */
  readonly roles: MeshRoles;
  /** `/v1/acl/auth-method…`. */
  readonly authMethods: MeshAuthMethods;
  /** `/v1/acl/binding-rule…`. */
  readonly bindingRules: MeshBindingRules;
  /** `/v1/kv/…`: the key/value store. */
  readonly kv: MeshKv;
  /** `/v1/catalog/…`: nodes and services of the datacenter (mesh-catalog.ts). */
  readonly catalog: MeshCatalog;
  /** `/v1/health/…`: checks and instances with their health. */
  readonly health: MeshHealth;
  /** `/v1/agent/…`: the services and checks of the agent the client talks to. */
  readonly agent: MeshAgent;
  /** `/v1/session/…`: sessions, for locks and leader election (mesh-session.ts). */
  readonly session: MeshSession;
  /** The normalised `http(s)://host:port`. */
  readonly address: string;
  private readonly dispatcher: Agent;
  private readonly target: HttpJsonTarget;

  /** @throws Error when `options.address` is not `http(s)://host:port` or `host:port`. */
  constructor(private readonly options: MeshClientOptions) {
    this.address = normalizeMeshAddress(options.address);
    this.dispatcher = new Agent({ connect: { ca: options.caCert, rejectUnauthorized: !options.skipVerify } });
    this.target = {
      address: this.address,
      dispatcher: this.dispatcher,
      timeoutMs: options.timeoutMs,
      tokenHeader: 'x-mesh-token',
      indexHeader: 'x-mesh-index',
      service: 'discovery service',
      apiError: (status, message, request) => new MeshApiError(status, message, request),
      connectionError: (message) => new MeshConnectionError(message),
    };
    const call: MeshCall = (method, path, o) => this.call(method, path, o);
    this.tokens = new MeshTokens(call);
    this.policies = new MeshPolicies(call);
    this.roles = new MeshRoles(call);
    this.authMethods = new MeshAuthMethods(call);
    this.bindingRules = new MeshBindingRules(call);
    this.kv = new MeshKv(call);
    this.catalog = new MeshCatalog(call);
    this.health = new MeshHealth(call);
    this.agent = new MeshAgent(call);
    this.session = new MeshSession(call);
  }

  /**
   * A client from the environment, the reference CLI's variables renamed: `MESH_HTTP_ADDR`
   * (default `http://127.0.0.1:8500`), `MESH_HTTP_TOKEN` (else the contents of
   * `MESH_HTTP_TOKEN_FILE`), `MESH_NAMESPACE`, `MESH_CACERT` (a PEM file),
   * `MESH_HTTP_SSL_VERIFY=false`. Defined fields of `overrides` win.
   * @throws Error for a bad address or an unreadable CA or token file.
   */
  static fromEnv(env: Readonly<Record<string, string | undefined>>, overrides: Partial<MeshClientOptions> = {}): MeshClient {
    const readFile = (what: string, path: string) => {
      try {
        return readFileSync(path, 'utf8');
      } catch (err) {
        throw new Error(`cannot read ${what} ${path}: ${(err as Error).message}`);
      }
    };
    const fromEnv: MeshClientOptions = {
      address: env.MESH_HTTP_ADDR || DEFAULT_MESH_ADDRESS,
      token: env.MESH_HTTP_TOKEN || (env.MESH_HTTP_TOKEN_FILE ? readFile('MESH_HTTP_TOKEN_FILE', env.MESH_HTTP_TOKEN_FILE).trim() : undefined) || undefined,
      namespace: env.MESH_NAMESPACE || undefined,
      caCert: env.MESH_CACERT ? readFile('MESH_CACERT', env.MESH_CACERT) : undefined,
      skipVerify: env.MESH_HTTP_SSL_VERIFY !== undefined && /^(false|0|f)$/i.test(env.MESH_HTTP_SSL_VERIFY),
    };
    return new MeshClient(withOverrides(fromEnv, overrides));
  }

  /** Whether the client has a token to send. */
  get hasToken(): boolean {
    return !!this.options.token;
  }

  /**
   * `PUT /v1/acl/bootstrap`: the first management token (with its SecretID). `bootstrapSecret`
   * (a UUID) becomes its SecretID. @throws MeshApiError 403 `Permission denied: ACL bootstrap no
   * longer allowed (reset index: N)` once done; 401 when ACLs are off.
   */
  async bootstrap(bootstrapSecret?: string): Promise<MeshBootstrapToken> {
    const body = bootstrapSecret === undefined ? undefined : { BootstrapSecret: bootstrapSecret };
    return (await this.call<MeshBootstrapToken>('PUT', '/acl/bootstrap', { body })).body;
  }

  /** `GET /v1/acl/replication`: the replication status of the datacenter asked. */
  async replication(): Promise<MeshReplicationStatus> {
    return (await this.call<MeshReplicationStatus>('GET', '/acl/replication')).body;
  }

  /**
   * `POST /v1/acl/login`: a new token (with its SecretID) for a bearer token the auth
   * method accepts. @throws MeshApiError 403 for an unknown method, a refused bearer token
   * or no matching binding rule.
   */
  async login(input: MeshLoginInput): Promise<MeshToken> {
    return (await this.call<MeshToken>('POST', '/acl/login', { body: input })).body;
  }

  /**
   * `POST /v1/acl/logout`: deletes `token` (default: the client's), which login must have made.
   * @throws MeshApiError 401 without a token, 403 for an unknown one or one not made by login.
   */
  async logout(token?: string): Promise<void> {
    await this.call('POST', '/acl/logout', { token });
  }

  /**
   * `PUT /v1/txn`: applies up to 128 KV, node, service and check operations atomically
   * (mesh-txn.ts); a rollback resolves with `errors`. @throws MeshApiError 400 / 413 / 403.
   */
  txn(ops: readonly MeshTxnOp[]): Promise<MeshTxnReply> {
    return txn((method, path, o) => this.call(method, path, o), ops);
  }

  /** Closes the client's connections. */
  close(): Promise<void> {
    return this.dispatcher.close();
  }

  /**
   * One request to `/v1<path>` with the client's token, namespace and datacenter.
   * @throws MeshApiError on a status ≥ 400; MeshConnectionError when unreachable or on a non-JSON reply.
   */
  async call<T>(method: 'GET' | 'PUT' | 'POST' | 'DELETE', path: string, o: MeshCallOptions = {}): Promise<MeshReplyOf<T>> {
    const query = searchParams({ ns: this.options.namespace, dc: this.options.datacenter }, o.query ?? {}, { dropEmpty: true });
    return requestJson<T>(this.target, {
      method,
      path,
      query,
      token: o.token ?? this.options.token,
      body: o.body,
      rawBody: o.rawBody,
      allowNotFound: o.allowNotFound,
      acceptStatuses: o.acceptStatuses,
      extraTimeoutMs: o.extraTimeoutMs,
      signal: o.signal,
    });
  }
}
