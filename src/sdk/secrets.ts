/**
 * Client for the Cairn secrets service HTTP API (spec 000; wire behaviour in
 * `reference/secrets.md` §1, §2, §4.1). This is what user programs import: it depends on
 * nothing else in the project, only on `undici` and Node built-ins.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { KvV2Client } from './secrets-kv.js';
import { PkiClient } from './secrets-pki.js';
import { DatabaseClient } from './secrets-database.js';
import { SysClient } from './secrets-sys.js';
import { SecretsApiError, SecretsConnectionError } from './secrets-errors.js';
import { ConsistencyState, STATE_HEADER, stateRetryDelayMs } from './secrets-state.js';
import { TokenClient } from './secrets-token.js';
import { AuthClient } from './secrets-auth.js';
import { NamespacesClient } from './secrets-namespaces.js';
import { CubbyholeClient, WrappingClient } from './secrets-wrapping.js';
import { PoliciesClient } from './secrets-policies.js';
import { AuditClient } from './secrets-audit.js';
import { LeasesClient } from './secrets-leases.js';
import { TransitClient } from './secrets-transit.js';
import type { QueryParams, RawRequestOptions, RawResponse, SecretResponse } from './secrets-types.js';

export { SecretsApiError, SecretsConnectionError } from './secrets-errors.js';
export type { QueryParams, RawRequestOptions, RawResponse, SecretAuth, SecretResponse, WrapInfo } from './secrets-types.js';
export { KvV2Client } from './secrets-kv.js';
export { DatabaseClient } from './secrets-database.js';
export type { DatabaseConnectionFields, DatabaseRoleFields, DatabaseStaticCreds, DatabaseStaticRoleFields } from './secrets-database.js';
export type { KvMetadata, KvMetadataFields, KvPutOptions, KvSecretData, KvVersionMetadata } from './secrets-kv.js';
export { PkiClient } from './secrets-pki.js';
export type { GeneratedRoot, IssuedCertificate, PkiFields, Revocation, StoredCertificate } from './secrets-pki.js';
export { SysClient } from './secrets-sys.js';
export type {
  EnableAuthOptions,
  EnableMountOptions,
  HaNode,
  HaStatus,
  HealthStatus,
  InitOptions,
  InitResponse,
  MountInfo,
  RemountStatus,
  SealStatus,
  TuneMountOptions,
} from './secrets-sys.js';
export { AuthClient } from './secrets-auth.js';
export { NamespacesClient } from './secrets-namespaces.js';
export type { NamespaceInfo, NamespaceList } from './secrets-namespaces.js';
export { CubbyholeClient, WrappingClient } from './secrets-wrapping.js';
export type { WrappingLookup } from './secrets-wrapping.js';
export { PoliciesClient } from './secrets-policies.js';
export type { PolicyInfo } from './secrets-policies.js';
export { AuditClient } from './secrets-audit.js';
export type { AuditDeviceInfo, EnableAuditOptions } from './secrets-audit.js';
export { LeasesClient } from './secrets-leases.js';
export type { LeaseInfo, RevokeOptions } from './secrets-leases.js';
export { TransitClient } from './secrets-transit.js';
export type { TransitBatchResult, TransitCryptOptions, TransitKeyConfig, TransitKeyInfo, TransitKeyOptions, TransitSignOptions } from './secrets-transit.js';
export { TokenClient } from './secrets-token.js';
export type { TokenCreateOptions, TokenLookupData } from './secrets-token.js';

/** Default service address when none is configured (`SECRETS_ADDR` unset). */
export const DEFAULT_SECRETS_ADDRESS = 'https://127.0.0.1:8200';

/** Default time a whole request (connect, headers and body) may take, in milliseconds. */
export const DEFAULT_FETCH_TIMEOUT_MS = 60_000;

/** How to reach and authenticate to one secrets service. */
export interface SecretsClientOptions {
  /** Base URL `http(s)://host:port`; a trailing `/` is ignored. Requests go to `<address>/v1/<path>`. */
  address: string;
  /** Client token, sent as `X-Secrets-Token` when set. */
  token?: string;
  /** Namespace, sent as `X-Secrets-Namespace` when set and non-empty (spec 000 "Authentication" 5). */
  namespace?: string;
  /** PEM text of the CA certificate(s) that signed the server certificate; replaces the system roots. */
  caCert?: string;
  /** Accept any server certificate. Off by default: TLS is verified (spec 000 "Transport"). */
  skipVerify?: boolean;
  /** The name sent as SNI and checked against the server certificate, instead of the address's host. */
  tlsServerName?: string;
  /**
   * PEM text of the client certificate (chain, its own first) presented in the TLS
   * handshake, with {@link clientKey}: the credential of the `cert` auth method.
   */
  clientCert?: string;
  /** PEM text of the private key of {@link clientCert}. */
  clientKey?: string;
  /** Limit for one whole request in milliseconds (default {@link DEFAULT_FETCH_TIMEOUT_MS}). */
  fetchTimeoutMs?: number;
  /**
   * Read-your-writes (default on): send the newest `X-Secrets-Index` state a reply carried
   * with every later request (secrets-state.ts), so a performance standby answers only
   * once it has applied it. `false`: never send it.
   */
  readYourWrites?: boolean;
  /** Retries of a 412 (a standby behind the state sent) before failing with the server's message; default 4. */
  maxStateRetries?: number;
  /** First pause before retrying a 412, in ms, doubling each time up to 1 s; default 100. */
  stateRetryBaseMs?: number;
  /**
   * Response wrapping: sent as `X-Secrets-Wrap-TTL` on every request (seconds, or a
   * duration such as `"5m"`), so each reply with content carries only `wrap_info`; see
   * {@link SecretsClient.withWrapTtl} and {@link SecretsClient.wrapping}. Unset: no wrapping.
   */
  wrapTtl?: string | number;
}

type Kind = 'read' | 'write';

/** Go `strconv.ParseBool` truthy strings plus `yes`/`on`, case-insensitive. */
function truthy(value: string | undefined): boolean {
  return value !== undefined && ['1', 't', 'true', 'y', 'yes', 'on'].includes(value.trim().toLowerCase());
}

/** `a/b c/` → `a/b%20c/`: each segment percent-encoded, leading `/` and `v1/` dropped. */
function encodePath(path: string): string {
  const clean = path.replace(/^\/+/, '').replace(/^v1\//, '');
  return clean.split('/').map(encodeURIComponent).join('/');
}

function reasonOf(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length > 0) {
    return [...new Set(err.errors.map(reasonOf))].join('; ');
  }
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return err.message || (typeof code === 'string' ? code : err.name);
  }
  return String(err);
}

/**
 * A connection to one secrets service. Sends `X-Secrets-Request: true` on every request,
 * the token as `X-Secrets-Token` and the namespace as `X-Secrets-Namespace` when set.
 * Keeps connections alive; call {@link close} when done so the process can exit promptly.
 *
 * Low-level methods take paths relative to `/v1/` (`secret/data/foo`). Typed helpers:
 * {@link kv}, {@link token}, {@link sys}, {@link policies}, {@link auth}, {@link namespaces},
 * {@link wrapping}, {@link cubbyhole}.
 */
export class SecretsClient {
  /** Normalised base URL without trailing `/`. */
  readonly address: string;
  /** Token endpoints (`auth/token/…`). */
  readonly token: TokenClient;
  /** System endpoints (`sys/…`): mounts, auth methods, init, seal and unseal, health. */
  readonly sys: SysClient;
  /** ACL policies (`sys/policies/acl/…`). */
  readonly policies: PoliciesClient;
  /** Logins to auth methods (`auth/<mount>/login…`). */
  readonly auth: AuthClient;
  /** Child namespaces of the client's namespace (`sys/namespaces/…`). */
  readonly namespaces: NamespacesClient;
  /** Audit devices (`sys/audit/…`, `sys/audit-hash/…`). */
  readonly audit: AuditClient;
  /** Response wrapping: wrap, unwrap, look up and rewrap (`sys/wrapping/…`). */
  readonly wrapping: WrappingClient;
  /** The client token's private storage (`cubbyhole/…`). */
  readonly cubbyhole: CubbyholeClient;
  /** Leases of secrets (`sys/leases/…`): look up, list, renew, revoke, tidy. */
  readonly leases: LeasesClient;
  private readonly options: SecretsClientOptions;
  private readonly agent: Agent;
  private readonly ownsAgent: boolean;
  private readonly state: ConsistencyState;

  /**
   * @param options Address, credentials and TLS settings.
   * @param shared Internal: reuse another client's connection pool and consistency state (see {@link withToken}).
   * @throws TypeError when `address` is not an `http:` or `https:` URL.
   */
  constructor(options: SecretsClientOptions, shared?: { agent: Agent; state?: ConsistencyState }) {
    let url: URL;
    try {
      url = new URL(options.address);
    } catch {
      throw new TypeError(`invalid secrets address "${options.address}": expected http(s)://host:port`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new TypeError(`invalid secrets address "${options.address}": expected http(s)://host:port`);
    }
    this.address = options.address.replace(/\/+$/, '');
    this.options = { ...options };
    this.ownsAgent = shared === undefined;
    this.state = shared?.state ?? new ConsistencyState();
    this.agent =
      shared?.agent ??
      new Agent({
        keepAliveTimeout: 30_000,
        connect: {
          ca: options.caCert,
          rejectUnauthorized: !options.skipVerify,
          cert: options.clientCert,
          key: options.clientKey,
          servername: options.tlsServerName || undefined,
        },
      });
    this.token = new TokenClient(this);
    this.sys = new SysClient(this);
    this.policies = new PoliciesClient(this);
    this.auth = new AuthClient(this);
    this.namespaces = new NamespacesClient(this);
    this.audit = new AuditClient(this);
    this.wrapping = new WrappingClient(this);
    this.cubbyhole = new CubbyholeClient(this);
    this.leases = new LeasesClient(this);
  }

  /**
   * Builds a client from environment variables: `SECRETS_ADDR` (default
   * {@link DEFAULT_SECRETS_ADDRESS}), `SECRETS_TOKEN`, `SECRETS_NAMESPACE`, `SECRETS_CACERT`
   * (path of a PEM file, read now), `SECRETS_CLIENT_CERT` and `SECRETS_CLIENT_KEY` (paths
   * of the PEM client certificate and key, read now) and `SECRETS_SKIP_VERIFY` (`1`,
   * `true`, `yes`, `on`… enable). `overrides` win over the environment where defined.
   *
   * @throws Error when one of those files cannot be read; TypeError on a bad address.
   */
  static fromEnv(env: Record<string, string | undefined>, overrides: Partial<SecretsClientOptions> = {}): SecretsClient {
    const caPath = env.SECRETS_CACERT;
    const read = (path: string | undefined) => (path ? readFileSync(path, 'utf8') : undefined);
    const fromEnv: SecretsClientOptions = {
      address: env.SECRETS_ADDR || DEFAULT_SECRETS_ADDRESS,
      token: env.SECRETS_TOKEN || undefined,
      namespace: env.SECRETS_NAMESPACE || undefined,
      caCert: read(caPath),
      clientCert: read(env.SECRETS_CLIENT_CERT),
      clientKey: read(env.SECRETS_CLIENT_KEY),
      skipVerify: truthy(env.SECRETS_SKIP_VERIFY),
    };
    const defined = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
    return new SecretsClient({ ...fromEnv, ...defined });
  }

  /** A client for the same server and connection pool using another token. */
  withToken(token: string | undefined): SecretsClient {
    return new SecretsClient({ ...this.options, token }, { agent: this.agent, state: this.state });
  }

  /**
   * A client for the same server and connection pool whose requests ask for response
   * wrapping with TTL `ttl` (seconds, or a duration such as `"5m"`; `undefined`: none).
   */
  withWrapTtl(ttl: string | number | undefined): SecretsClient {
    return new SecretsClient({ ...this.options, wrapTtl: ttl }, { agent: this.agent, state: this.state });
  }

  /** Whether the client sends a token. */
  get hasToken(): boolean {
    return Boolean(this.options.token);
  }

  /** A client for the same server and connection pool in another namespace (`undefined` = root). */
  withNamespace(namespace: string | undefined): SecretsClient {
    return new SecretsClient({ ...this.options, namespace }, { agent: this.agent, state: this.state });
  }

  /** Closes pooled connections (only when this client created the pool). Idempotent. */
  async close(): Promise<void> {
    if (this.ownsAgent && !this.agent.closed) await this.agent.close();
  }

  /** KV v2 engine mounted at `mount` (e.g. `secret`). */
  kv(mount: string): KvV2Client {
    return new KvV2Client(this, mount);
  }

  /** Transit engine mounted at `mount` (default `transit`). */
  transit(mount = 'transit'): TransitClient {
    return new TransitClient(this, mount);
  }

  /** PKI engine mounted at `mount` (e.g. `pki`): CAs, roles, issue/sign, revoke, CA and CRL. */
  pki(mount: string): PkiClient {
    return new PkiClient(this, mount);
  }

  /** Database engine mounted at `mount` (default `database`): connections, roles, credentials. */
  database(mount = 'database'): DatabaseClient {
    return new DatabaseClient(this, mount);
  }

  /**
   * `GET /v1/<path>`. Returns the envelope; `undefined` on 204 and on 404 without data
   * (`{"errors":[]}`: not found is not an error). A 404 that carries a full envelope
   * (KV v2 deleted or destroyed version, warnings) is returned as is.
   *
   * @throws SecretsApiError on other statuses ≥ 400; SecretsConnectionError without an answer.
   */
  read<T = Record<string, unknown>>(path: string, query?: QueryParams): Promise<SecretResponse<T> | undefined> {
    return this.logical('read', 'GET', path, { query });
  }

  /**
   * `POST /v1/<path>` with `body` as JSON. Returns the envelope on 200, `undefined` on 204.
   *
   * @throws SecretsApiError on statuses ≥ 400; SecretsConnectionError without an answer.
   */
  write<T = Record<string, unknown>>(path: string, body?: unknown): Promise<SecretResponse<T> | undefined> {
    return this.logical('write', 'POST', path, { body: body ?? {} });
  }

  /**
   * Lists keys: `GET /v1/<path>?list=true` like the reference's own client (the server also
   * accepts the `LIST` method). Returns the envelope (`data.keys`: names, folders end in `/`)
   * or `undefined` when nothing is there (404 `{"errors":[]}`).
   *
   * @throws SecretsApiError on other statuses ≥ 400; SecretsConnectionError without an answer.
   */
  list(path: string): Promise<SecretResponse<{ keys: string[] }> | undefined> {
    return this.logical('read', 'GET', path, { query: { list: 'true' } });
  }

  /**
   * `DELETE /v1/<path>`. Returns `undefined` on 204, the envelope on 200.
   *
   * @throws SecretsApiError on statuses ≥ 400; SecretsConnectionError without an answer.
   */
  delete(path: string, query?: QueryParams): Promise<SecretResponse | undefined> {
    return this.logical('write', 'DELETE', path, { query });
  }

  /** The newest `X-Secrets-Index` state a reply carried (sent with later requests unless `readYourWrites` is off). */
  get consistencyState(): string | undefined {
    return this.state.current;
  }

  /**
   * Any method on `/v1/<path>`, answer returned whatever its status. With read-your-writes
   * on, the newest state is sent as `X-Secrets-Index`, a reply's state is remembered, and
   * a 412 to a request that carried a state is retried with backoff (`maxStateRetries`
   * times) before it is returned.
   *
   * @throws SecretsConnectionError when no HTTP answer arrives within `fetchTimeoutMs`.
   */
  async raw(method: string, path: string, options: RawRequestOptions = {}): Promise<RawResponse> {
    const url = this.url(path, options.query);
    const headers: Record<string, string> = { 'x-secrets-request': 'true' };
    if (this.options.token) headers['x-secrets-token'] = this.options.token;
    if (this.options.namespace) headers['x-secrets-namespace'] = this.options.namespace;
    if (this.options.wrapTtl !== undefined && this.options.wrapTtl !== '') headers['x-secrets-wrap-ttl'] = String(this.options.wrapTtl);
    const ryw = this.options.readYourWrites !== false;
    if (ryw && this.state.current) headers[STATE_HEADER] = this.state.current;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    for (const [k, v] of Object.entries(options.headers ?? {})) headers[k.toLowerCase()] = v;
    const retries = headers[STATE_HEADER] ? (this.options.maxStateRetries ?? 4) : 0;
    for (let attempt = 1; ; attempt++) {
      const res = await this.send(method, url, headers, body);
      if (ryw) this.state.record(res.headers[STATE_HEADER]);
      if (res.status !== 412 || attempt > retries) return res;
      await new Promise((r) => setTimeout(r, stateRetryDelayMs(attempt, this.options.stateRetryBaseMs ?? 100)));
    }
  }

  /** One HTTP exchange within `fetchTimeoutMs`. */
  private async send(method: string, url: string, headers: Record<string, string>, body: string | undefined): Promise<RawResponse> {
    const timeoutMs = this.options.fetchTimeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    try {
      const res = await request(url, { dispatcher: this.agent, method, headers, body, signal: abort.signal });
      const text = await res.body.text();
      return { status: res.statusCode, headers: res.headers, body: parseBody(text) };
    } catch (err) {
      const reason = abort.signal.aborted ? `no answer within ${timeoutMs} ms` : reasonOf(err);
      throw new SecretsConnectionError(`${method} ${url}: ${reason}`, { cause: err });
    } finally {
      clearTimeout(timer);
    }
  }

  private url(path: string, query?: QueryParams): string {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v === undefined) continue;
      for (const item of Array.isArray(v) ? v : [v]) params.append(k, String(item));
    }
    const qs = params.toString();
    return `${this.address}/v1/${encodePath(path)}${qs ? `?${qs}` : ''}`;
  }

  private async logical<T>(kind: Kind, method: string, path: string, options: RawRequestOptions): Promise<SecretResponse<T> | undefined> {
    const res = await this.raw(method, path, options);
    const body = res.body as Record<string, unknown> | string | undefined;
    const where = { method, path: `/v1/${encodePath(path)}` };
    const errors = errorsOf(body);
    const warnings = isObject(body) && Array.isArray(body.warnings) ? body.warnings.map(String) : undefined;
    if (res.status >= 200 && res.status < 300) {
      if (body === undefined) return undefined;
      if (!isObject(body)) throw new SecretsApiError(res.status, ['response body is not a JSON object'], where);
      return body as unknown as SecretResponse<T>;
    }
    if (res.status === 404 && kind === 'read') {
      if (body === undefined || (errors !== undefined && errors.length === 0)) return undefined;
      if (isObject(body) && errors === undefined && ('data' in body || warnings !== undefined)) {
        return body as unknown as SecretResponse<T>;
      }
    }
    throw new SecretsApiError(res.status, errors ?? [], { ...where, warnings });
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function errorsOf(body: unknown): string[] | undefined {
  return isObject(body) && Array.isArray(body.errors) ? body.errors.map(String) : undefined;
}

function parseBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
