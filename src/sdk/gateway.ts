/**
 * Client for the Cairn access gateway: the controller's API (api listener, default 9200:
 * password login, the domain collections — scopes, auth methods, accounts, users, groups,
 * roles, auth tokens, host catalogs, hosts, host sets, targets and their `:authorize-session`,
 * credential stores, sessions) and the worker proxy handshake (proxy listener,
 * default 9202). Depends
 * only on `undici` and Node built-ins.
 *
 * ```ts
 * const gw = new GatewayClient({ address: 'http://127.0.0.1:9200', token });
 * const s = await gw.authorizeSession('ttcp_1234567890');
 * const { socket } = await connectSession({ worker: s.worker_info[0].address, token: s.authorization_token });
 * ```
 *
 * @module
 */
import net from 'node:net';
import tls from 'node:tls';
import { Agent, request } from 'undici';

/** One brokered credential of a session authorisation (the reference's `SessionCredential`). */
export interface GatewaySessionCredential {
  readonly credential_source: {
    readonly id: string;
    readonly name?: string;
    readonly credential_store_id: string;
    readonly type: string;
    readonly credential_type?: string;
  };
  readonly secret: { readonly raw: string; readonly decoded: unknown };
  readonly credential?: Readonly<Record<string, unknown>>;
}

/** What `:authorize-session` returns (the reference's `SessionAuthorization`); `authorization_token` is shown only here. */
export interface AuthorizedSession {
  readonly session_id: string;
  readonly target_id: string;
  readonly scope?: { readonly id: string; readonly type: string; readonly name?: string; readonly parent_scope_id?: string };
  readonly created_time: string;
  readonly user_id: string;
  /** `''` for a target reached by its `address`. */
  readonly host_set_id: string;
  readonly host_id: string;
  readonly type: 'tcp';
  /** `tcp://host:port` of the target. */
  readonly endpoint: string;
  /** RFC 3339. */
  readonly expiration: string;
  /** -1 = unlimited. */
  readonly connection_limit: number;
  readonly authorization_token: string;
  /** Proxy listeners of the workers that can carry the session. */
  readonly worker_info: readonly { readonly address: string }[];
  readonly credentials: readonly GatewaySessionCredential[];
}

/** One connection of a session. */
export interface GatewayConnection {
  readonly connection_id: string;
  readonly worker_name: string;
  readonly client_tcp_address: string;
  readonly status: 'connected' | 'closed';
  readonly created_time: string;
  readonly closed_time?: string;
  readonly bytes_up: number;
  readonly bytes_down: number;
  readonly closed_reason?: string;
}

/** A session as the controller shows it (the reference's session resource). */
export interface GatewaySession {
  readonly id: string;
  readonly scope_id: string;
  readonly target_id: string;
  readonly user_id: string;
  readonly auth_token_id?: string;
  readonly host_id?: string;
  readonly host_set_id?: string;
  readonly type: 'tcp';
  readonly endpoint: string;
  readonly status: 'pending' | 'active' | 'canceling' | 'terminated';
  readonly states: readonly { readonly status: string; readonly start_time: string; readonly end_time?: string }[];
  readonly created_time: string;
  readonly updated_time: string;
  readonly expiration_time: string;
  readonly connection_limit: number;
  readonly termination_reason?: string;
  readonly version: number;
  readonly connections: readonly GatewayConnection[];
  readonly authorized_actions?: readonly string[];
}

/** A worker as the controller knows it from its status reports. */
export interface GatewayWorker {
  readonly name: string;
  readonly address: string;
  readonly state: string;
  readonly active_session_count: number;
  readonly last_status_time: string;
  /** The worker's release, `Cairn v<version>` (`''` from a worker that does not report it). */
  readonly release_version: string;
}

/** The controller answered with an error status; `kind` is its error kind (`NotFound`, …). */
export class GatewayApiError extends Error {
  override readonly name = 'GatewayApiError';
  constructor(
    readonly status: number,
    readonly kind: string,
    message: string,
  ) {
    super(message);
  }
}

/** The collections of the controller's domain API (issue 20). */
export type GatewayCollection =
  'scopes' | 'auth-methods' | 'accounts' | 'users' | 'groups' | 'roles' | 'auth-tokens' | GatewayTargetCollection | GatewayCredentialCollection | 'sessions';

/**
 * The credential collections: `credential-stores` (`scope_id` of a project; `vault` or
 * `static`), `credential-libraries` (`credential_store_id` of a vault store), `credentials`
 * (`credential_store_id` of a static store).
 */
export type GatewayCredentialCollection = 'credential-stores' | 'credential-libraries' | 'credentials';

/**
 * The host and target collections: `host-catalogs` and `targets` (`scope_id`, a project),
 * `hosts` and `host-sets` (`host_catalog_id`).
 */
export type GatewayTargetCollection = 'host-catalogs' | 'hosts' | 'host-sets' | 'targets';

/** A `tcp` target as the controller shows it (the reference's fields). */
export interface GatewayTarget extends GatewayResource {
  readonly type: 'tcp';
  readonly attributes: { readonly default_port: number; readonly default_client_port?: number };
  /** Seconds (default 28800). */
  readonly session_max_seconds: number;
  /** -1 = unlimited (default). */
  readonly session_connection_limit: number;
  readonly egress_worker_filter?: string;
  /** A direct address instead of host sources. */
  readonly address?: string;
  readonly host_source_ids: readonly string[];
  readonly host_sources: readonly { readonly id: string; readonly host_catalog_id: string }[];
  readonly brokered_credential_source_ids: readonly string[];
  readonly brokered_credential_sources: readonly { readonly id: string; readonly credential_store_id: string }[];
}

/**
 * A domain resource as the controller shows it: `id`, `scope_id`, `version` (send it back
 * on updates), `authorized_actions`, and the fields of its kind (the reference's names).
 */
export interface GatewayResource {
  readonly id: string;
  readonly scope_id?: string;
  readonly name?: string;
  readonly description?: string;
  readonly version?: number;
  readonly created_time?: string;
  readonly updated_time?: string;
  readonly authorized_actions?: readonly string[];
  readonly [field: string]: unknown;
}

/** What `:authenticate` returns: the new auth token (`token` only with `type: "token"`). */
export interface GatewayAuthToken {
  readonly id: string;
  readonly token?: string;
  readonly user_id: string;
  readonly account_id: string;
  readonly auth_method_id: string;
  readonly scope_id: string;
  readonly expiration_time: string;
  readonly approximate_last_used_time: string;
}

/** `start` of an OIDC login: the provider URL to open in a browser, and the id to poll the token with. */
export interface GatewayOidcStart {
  readonly auth_url: string;
  readonly token_id: string;
}

/** One page of a list (the reference's paginated list reply). */
export interface GatewayPage {
  readonly items: readonly GatewayResource[];
  /** `delta`: more pages follow (send `list_token`); `complete`: the last one. */
  readonly response_type: 'complete' | 'delta';
  readonly list_token: string;
  readonly est_item_count: number;
  readonly sort_by: string;
  readonly sort_dir: string;
}

/** The worker refused the connection (`ERR …`) or could not be reached. */
export class GatewayProxyError extends Error {
  override readonly name = 'GatewayProxyError';
}

/** How to reach the controller's api listener. */
export interface GatewayClientOptions {
  /** `http(s)://host:port`. */
  readonly address: string;
  /** An auth token (from {@link GatewayClient.authenticatePassword}) or the controller's recovery `auth_token`, sent as `Authorization: Bearer`. */
  readonly token?: string;
  /** PEM text of the CA that signed the api listener's certificate. */
  readonly caCert?: string;
  /** Accept any certificate (off by default). */
  readonly skipVerify?: boolean;
  /** Limit for one request, in ms (default 30 000). */
  readonly timeoutMs?: number;
}

/** Typed client of the controller's session API. Every method rejects with {@link GatewayApiError} on a status ≥ 400. */
export class GatewayClient {
  private readonly base: string;
  private readonly dispatcher: Agent;

  constructor(private readonly options: GatewayClientOptions) {
    this.base = options.address.replace(/\/+$/, '');
    this.dispatcher = new Agent({ connect: { ca: options.caCert, rejectUnauthorized: !options.skipVerify } });
  }

  /** `POST /v1/targets/{id}:authorize-session`, optionally naming the host (`host_id`) among the target's host sources. */
  authorizeSession(targetId: string, input: { host_id?: string } = {}): Promise<AuthorizedSession> {
    return this.call('POST', `/v1/targets/${encodeURIComponent(targetId)}:authorize-session`, input);
  }

  /** `GET /v1/sessions?scope_id=…[&recursive=true]` (default: every scope, recursively). */
  async listSessions(query: { scope_id?: string; recursive?: boolean } = {}): Promise<GatewaySession[]> {
    const q = new URLSearchParams({ scope_id: query.scope_id ?? 'global', recursive: String(query.recursive ?? true) });
    return (await this.call<{ items?: GatewaySession[] }>('GET', `/v1/sessions?${q}`)).items ?? [];
  }

  /** `GET /v1/sessions/{id}`. */
  readSession(id: string): Promise<GatewaySession> {
    return this.call('GET', `/v1/sessions/${encodeURIComponent(id)}`);
  }

  /** `POST /v1/sessions/{id}:cancel` (`version`, when given, must be the session's). */
  cancelSession(id: string, version?: number): Promise<GatewaySession> {
    return this.call('POST', `/v1/sessions/${encodeURIComponent(id)}:cancel`, version === undefined ? {} : { version });
  }

  /** `GET /v1/workers`. */
  async listWorkers(): Promise<GatewayWorker[]> {
    return (await this.call<{ items: GatewayWorker[] }>('GET', '/v1/workers')).items;
  }

  /**
   * `POST /v1/auth-methods/{id}:authenticate` with a login name and password; the
   * returned `token` is what later clients send as their `token`.
   */
  async authenticatePassword(authMethodId: string, loginName: string, password: string): Promise<GatewayAuthToken> {
    const r = await this.call<{ attributes: GatewayAuthToken }>('POST', `/v1/auth-methods/${encodeURIComponent(authMethodId)}:authenticate`, {
      command: 'login',
      attributes: { login_name: loginName, password },
    });
    return r.attributes;
  }

  /**
   * `POST /v1/auth-methods/{id}:authenticate` `{"command":"start"}` of an OIDC auth method:
   * the provider URL for the user's browser and the `token_id` for {@link authenticateOidcToken}.
   */
  async authenticateOidcStart(authMethodId: string): Promise<GatewayOidcStart> {
    const r = await this.call<{ attributes: GatewayOidcStart }>('POST', `/v1/auth-methods/${encodeURIComponent(authMethodId)}:authenticate`, {
      command: 'start',
    });
    return r.attributes;
  }

  /**
   * `{"command":"token"}` of an OIDC login: the auth token once the user finished at the
   * provider, undefined while the controller answers 202 (not yet). Rejects with 403 when
   * the login expired or its token was already fetched, 401 when it failed.
   */
  async authenticateOidcToken(authMethodId: string, tokenId: string): Promise<GatewayAuthToken | undefined> {
    const r = await this.callWithStatus<{ attributes: GatewayAuthToken }>('POST', `/v1/auth-methods/${encodeURIComponent(authMethodId)}:authenticate`, {
      command: 'token',
      attributes: { token_id: tokenId },
    });
    return r.status === 202 ? undefined : r.body.attributes;
  }

  /**
   * A whole OIDC login: {@link authenticateOidcStart}, `onAuthUrl` with the provider URL
   * (to show or open it), then {@link authenticateOidcToken} every `intervalMs` (default
   * 1500, the reference CLI's) until the token arrives.
   */
  async authenticateOidc(authMethodId: string, o: { onAuthUrl: (url: string) => void; intervalMs?: number; signal?: AbortSignal }): Promise<GatewayAuthToken> {
    const { auth_url, token_id } = await this.authenticateOidcStart(authMethodId);
    o.onAuthUrl(auth_url);
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, o.intervalMs ?? 1500));
      o.signal?.throwIfAborted();
      const t = await this.authenticateOidcToken(authMethodId, token_id);
      if (t) return t;
    }
  }

  /**
   * `GET /v1/{collection}?…` (e.g. `{ scope_id: 'global', recursive: 'true' }`, or
   * `{ auth_method_id }` for accounts): every item, following `list_token` page after page.
   */
  async list(collection: GatewayCollection, query: Readonly<Record<string, string>> = {}): Promise<GatewayResource[]> {
    const items: GatewayResource[] = [];
    let listToken: string | undefined;
    for (;;) {
      const page = await this.listPage(collection, { ...query, ...(listToken ? { list_token: listToken } : {}) });
      items.push(...page.items);
      if (page.response_type !== 'delta') return items;
      listToken = page.list_token;
    }
  }

  /** One page of `GET /v1/{collection}` (`page_size`, `list_token` in `query`). */
  async listPage(collection: GatewayCollection, query: Readonly<Record<string, string>> = {}): Promise<GatewayPage> {
    const q = new URLSearchParams(query).toString();
    const page = await this.call<Partial<GatewayPage>>('GET', `/v1/${collection}${q ? `?${q}` : ''}`);
    return { items: [], response_type: 'complete', list_token: '', est_item_count: 0, sort_by: 'created_time', sort_dir: 'desc', ...page };
  }

  /** `POST /v1/{collection}`: creates a resource (`scope_id` or `auth_method_id` names where). */
  create(collection: GatewayCollection, body: Readonly<Record<string, unknown>>): Promise<GatewayResource> {
    return this.call('POST', `/v1/${collection}`, body);
  }

  /** `GET /v1/{collection}/{id}`. */
  read(collection: GatewayCollection, id: string): Promise<GatewayResource> {
    return this.call('GET', `/v1/${collection}/${encodeURIComponent(id)}`);
  }

  /** `PATCH /v1/{collection}/{id}`; `body.version` must be the resource's current version. */
  update(collection: GatewayCollection, id: string, body: Readonly<Record<string, unknown>> & { version: number }): Promise<GatewayResource> {
    return this.call('PATCH', `/v1/${collection}/${encodeURIComponent(id)}`, body);
  }

  /** `DELETE /v1/{collection}/{id}` (an auth token: logging out). */
  async delete(collection: GatewayCollection, id: string): Promise<void> {
    await this.call('DELETE', `/v1/${collection}/${encodeURIComponent(id)}`);
  }

  /** `POST /v1/{collection}/{id}:{action}`, e.g. `('roles', id, 'add-principals', { version, principal_ids })`. */
  action(collection: GatewayCollection, id: string, action: string, body: Readonly<Record<string, unknown>> & { version: number }): Promise<GatewayResource> {
    return this.call('POST', `/v1/${collection}/${encodeURIComponent(id)}:${action}`, body);
  }

  /** `GET /v1/targets?scope_id=…` (a project; with `recursive`, any scope and those below it). */
  async listTargets(scopeId: string, o: { recursive?: boolean; filter?: string } = {}): Promise<GatewayTarget[]> {
    const query: Record<string, string> = { scope_id: scopeId };
    if (o.recursive) query.recursive = 'true';
    if (o.filter) query.filter = o.filter;
    return (await this.list('targets', query)) as GatewayTarget[];
  }

  /** `GET /v1/targets/{id}`. */
  async readTarget(id: string): Promise<GatewayTarget> {
    return (await this.read('targets', id)) as GatewayTarget;
  }

  /**
   * `POST /v1/targets/{id}:{add|set|remove}-host-sources` with `host_source_ids` (host set
   * ids of the target's project); `version` is the target's current one.
   */
  async changeHostSources(id: string, how: 'add' | 'set' | 'remove', version: number, hostSetIds: readonly string[]): Promise<GatewayTarget> {
    return (await this.action('targets', id, `${how}-host-sources`, { version, host_source_ids: hostSetIds })) as GatewayTarget;
  }

  /** `POST /v1/targets/{id}:{add|set|remove}-credential-sources` with `brokered_credential_source_ids`. */
  async changeCredentialSources(id: string, how: 'add' | 'set' | 'remove', version: number, sourceIds: readonly string[]): Promise<GatewayTarget> {
    return (await this.action('targets', id, `${how}-credential-sources`, { version, brokered_credential_source_ids: sourceIds })) as GatewayTarget;
  }

  /** `POST /v1/host-sets/{id}:{add|set|remove}-hosts` with `host_ids` (hosts of the set's catalog). */
  changeHosts(hostSetId: string, how: 'add' | 'set' | 'remove', version: number, hostIds: readonly string[]): Promise<GatewayResource> {
    return this.action('host-sets', hostSetId, `${how}-hosts`, { version, host_ids: hostIds });
  }

  /** Closes the client's connections. */
  close(): Promise<void> {
    return this.dispatcher.close();
  }

  private async call<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
    return (await this.callWithStatus<T>(method, path, body)).body;
  }

  private async callWithStatus<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.options.token) headers.authorization = `Bearer ${this.options.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await request(this.base + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      dispatcher: this.dispatcher,
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
    });
    const text = await res.body.text();
    let json: unknown;
    try {
      json = text === '' ? {} : JSON.parse(text);
    } catch {
      throw new GatewayApiError(res.statusCode, 'Unknown', `HTTP ${res.statusCode}: the body is not JSON`);
    }
    if (res.statusCode >= 400) {
      const e = json as { kind?: string; message?: string; details?: { request_fields?: Array<{ name: string; description: string }> } };
      // Field problems (400 InvalidArgument) are named in the message so callers see which field.
      const fields = (e.details?.request_fields ?? []).map((f) => `${f.name}: ${f.description}`).join('; ');
      const message = e.message ?? `HTTP ${res.statusCode}`;
      throw new GatewayApiError(res.statusCode, e.kind ?? 'Unknown', fields ? `${message} ${fields}` : message);
    }
    return { status: res.statusCode, body: json as T };
  }
}

/** Options of {@link connectSession}. */
export interface ConnectSessionOptions {
  /** `host:port` of a worker's proxy listener (`worker_info[].address`). */
  readonly worker: string;
  /** The session's `authorization_token`. */
  readonly token: string;
  /** Connect with TLS (a proxy listener with a certificate). */
  readonly tls?: { readonly caCert?: string; readonly skipVerify?: boolean; readonly servername?: string };
  /** Limit for the handshake, in ms (default 15 000). */
  readonly timeoutMs?: number;
}

/**
 * Opens a proxied connection: sends the token line, waits for `OK <session> <connection>`
 * and returns the socket, now carrying the target's bytes both ways.
 * @throws {GatewayProxyError} the worker answered `ERR <message>` (the message), closed
 *   early, did not answer in time, or could not be reached.
 */
export function connectSession(options: ConnectSessionOptions): Promise<{ socket: net.Socket; sessionId: string; connectionId: string }> {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(options.worker);
  if (!m) return Promise.reject(new GatewayProxyError(`invalid worker address "${options.worker}": expected host:port`));
  const host = m[1] ?? m[2];
  const port = Number(m[3]);
  return new Promise((resolve, reject) => {
    const socket = options.tls
      ? tls.connect({ host, port, ca: options.tls.caCert, rejectUnauthorized: !options.tls.skipVerify, servername: options.tls.servername })
      : net.connect({ host, port });
    const fail = (message: string) => {
      socket.destroy();
      reject(new GatewayProxyError(message));
    };
    const timer = setTimeout(() => fail(`worker ${options.worker} did not answer within ${options.timeoutMs ?? 15_000} ms`), options.timeoutMs ?? 15_000);
    // Read the answer line with 'readable' and read(): once that listener is removed the
    // socket is neither flowing nor paused, so the caller's first 'data' listener or
    // pipe() gets every byte that followed the line.
    let buffered = Buffer.alloc(0);
    const onReadable = () => {
      let chunk: Buffer | null;
      while ((chunk = socket.read() as Buffer | null) !== null) {
        buffered = Buffer.concat([buffered, chunk]);
        const nl = buffered.indexOf(0x0a);
        if (nl < 0) continue;
        cleanup();
        const line = buffered.subarray(0, nl).toString('utf8');
        const ok = /^OK (\S+) (\S+)$/.exec(line);
        if (!ok) return fail(line.startsWith('ERR ') ? line.slice(4) : `unexpected answer from worker: ${JSON.stringify(line.slice(0, 100))}`);
        const rest = buffered.subarray(nl + 1);
        if (rest.length > 0) socket.unshift(rest);
        return resolve({ socket, sessionId: ok[1], connectionId: ok[2] });
      }
    };
    const onError = (err: Error) => {
      cleanup();
      fail(`cannot reach worker ${options.worker}: ${err.message}`);
    };
    const onEnd = () => {
      cleanup();
      fail(`worker ${options.worker} closed the connection during the handshake`);
    };
    const cleanup = () => {
      clearTimeout(timer);
      socket.off('readable', onReadable);
      socket.off('error', onError);
      socket.off('end', onEnd);
    };
    socket.on('readable', onReadable);
    socket.once('error', onError);
    socket.once('end', onEnd);
    socket.write(`${options.token}\n`);
  });
}
