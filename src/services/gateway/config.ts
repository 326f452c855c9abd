/**
 * The access gateway's configuration file (`cairn gateway server -config=FILE`), in the
 * shape of the reference product (reference/gateway.md §1, §6; DESIGN.md "Configuration"):
 *
 * ```hcl
 * controller {
 *   name                            = "c1"
 *   graceful_shutdown_wait_duration = "10s"
 *   auth_token                      = "env://CAIRN_GATEWAY_TOKEN"   # recovery credential; or "file:///etc/…", or the token
 *   data_dir                        = "/var/lib/cairn-gateway"      # SQLite state (and its key) when there is no database
 *   database {                                                      # several controllers share one PostgreSQL table
 *     url = "env://CAIRN_GATEWAY_PG_URL"
 *   }
 * }
 * worker {
 *   name              = "w1"
 *   initial_upstreams = ["127.0.0.1:9201"]
 * }
 * listener "tcp" { purpose = "api"     tls_disable = true }   # 127.0.0.1:9200
 * listener "tcp" { purpose = "cluster" }                      # 127.0.0.1:9201
 * listener "tcp" { purpose = "ops"     tls_disable = true }   # 127.0.0.1:9203/health
 * listener "tcp" { purpose = "proxy" }                        # 127.0.0.1:9202, plain TCP
 * ui { enabled = true }                                      # the web UI's gateway section at /ui/ on the api listeners
 * ```
 *
 * One file runs a controller, a worker, or both. Every error names file, line and key.
 *
 * @module
 */
import type { ConnectionLimits, ListenerOptions, UiServices } from '../../kernel/http/index.js';
import {
  agentStateKey,
  blockError,
  cfg,
  stateKeyField,
  ConfigError,
  httpTimeoutKeys,
  httpTimeoutsFrom,
  maxConnectionsKey,
  loadConfigFile,
  parseConfig,
  resolveSecretRef,
  type AgentPostgresStorage,
  uiServicesFrom,
  uiServicesKey,
  type BlockAt,
  type ConfigEnv,
  type ConfigOf,
} from '../../kernel/config/index.js';

/** What a listener serves (reference/gateway.md §1). */
export type ListenerPurpose = 'api' | 'cluster' | 'proxy' | 'ops';

/** Default port per purpose, used when `address` is omitted or has no port (reference/gateway.md §1). */
export const DEFAULT_PORTS: Readonly<Record<ListenerPurpose, number>> = { api: 9200, cluster: 9201, proxy: 9202, ops: 9203 };

/** Port an upstream without a port is dialled on (reference/gateway.md §7). */
const DEFAULT_UPSTREAM_PORT = 9201;

const listenerKeys = {
  purpose: cfg.string({ enum: ['api', 'cluster', 'proxy', 'ops'], required: true, doc: 'what the listener serves' }),
  address: cfg.string({ doc: "host or host:port; default 127.0.0.1 and the purpose's port; port 0 picks a free port" }),
  tls_disable: cfg.bool({ default: false, doc: 'serve plain HTTP (api and ops listeners)' }),
  tls_cert_file: cfg.string({ doc: 'PEM certificate (chain) file (api and ops: required unless tls_disable; proxy: optional)' }),
  tls_key_file: cfg.string({ doc: 'PEM private key file' }),
  ...httpTimeoutKeys,
  max_connections: maxConnectionsKey,
};

/** Listeners that serve HTTP, where the `http_*` timeouts apply. */
const HTTP_PURPOSES: readonly ListenerPurpose[] = ['api', 'ops'];

/** The declared schema of the gateway's file (kernel/config/schema.ts). */
const gatewayServerSchema = {
  controller: cfg.block({
    name: cfg.string({ doc: 'controller name; generated (c_…) when empty' }),
    description: cfg.string(),
    graceful_shutdown_wait_duration: cfg.duration({
      default: 0,
      min: 0,
      doc: 'after a shutdown signal, /health answers 503 this long before the controller stops',
    }),
    auth_token: cfg.string({
      doc: 'bearer token of the api listener; env://VAR or file://PATH to keep it out of the file; none: the api refuses every request',
    }),
    worker_auth_token: cfg.string({ doc: 'token workers must present on the cluster listener (env://, file:// accepted); none: any worker is accepted' }),
    data_dir: cfg.string({
      doc: 'directory of the SQLite state and its key file; without it and without a database the state is kept in a temporary directory and lost at stop',
    }),
    state_key: stateKeyField(),
    auth_token_time_to_live: cfg.duration({ default: 7 * 24 * 3600, min: 1, doc: 'lifetime of an auth token (reference default 7 days)' }),
    auth_token_time_to_stale: cfg.duration({
      default: 24 * 3600,
      min: 1,
      doc: 'an auth token unused this long expires (idle timeout; reference default 1 day)',
    }),
    database: cfg.block({
      url: cfg.string({
        required: true,
        doc: 'postgres:// URL of the database several controllers share; env://VAR or file://PATH keep the password out of this file',
      }),
      table: cfg.string({ default: 'cairn_gateway', doc: 'table holding the state (name or schema.name); created when missing' }),
      max_parallel: cfg.int({ default: 10, min: 1, doc: 'most connections (statements in flight) to PostgreSQL' }),
    }),
  }),
  worker: cfg.block({
    name: cfg.string({ doc: 'worker name; generated (w_…) when empty' }),
    description: cfg.string(),
    initial_upstreams: cfg.list('string', { doc: 'controller cluster addresses; default 127.0.0.1:9201, or the own cluster listener in a combined process' }),
    worker_auth_token: cfg.string({
      doc: "token presented to the controller (its worker_auth_token); in a combined process the controller's is used when unset",
    }),
    tags: cfg.raw({
      doc: 'worker tags: key → a string or a list of strings (the reference\'s `tags { type = ["prod"] }`), matched by targets\' egress_worker_filter',
    }),
  }),
  listener: cfg.labelled(listenerKeys, { labels: ['tcp'], repeated: true, doc: 'one block per listening address' }),
  ui: cfg.block({ enabled: cfg.bool({ default: false, doc: "serve the web UI's gateway section at /ui/ on the controller's api listeners" }) }),
  ui_services: uiServicesKey,
};

type Raw = ConfigOf<typeof gatewayServerSchema>;

/** One `listener "tcp"` block, validated, with its address completed by purpose. */
export interface GatewayListenerConfig {
  readonly purpose: ListenerPurpose;
  /** `host:port`; the default port of the purpose is filled in. */
  readonly address: string;
  /**
   * PEM files: api/ops listeners have them unless `tls_disable = true`; a proxy listener
   * when both files are given; a cluster listener never.
   */
  readonly tls?: { readonly certFile: string; readonly keyFile: string };
  /** Where the block is, for later errors; absent for a config built in code (dev-config.ts). */
  readonly at?: BlockAt;
  /**
   * `max_connections` (every purpose) and, on api and ops listeners, `http_read_header_timeout`,
   * `http_read_timeout`, `http_idle_timeout` (kernel/http connection-limits.ts); absent: the
   * kernel's defaults.
   */
  readonly limits?: ConnectionLimits;
}

/** The controller block. */
export interface GatewayControllerConfig {
  /** May be empty: the server generates one. */
  readonly name: string;
  readonly description?: string;
  /** `graceful_shutdown_wait_duration` in milliseconds; 0 = stop at once (reference/gateway.md §5). */
  readonly gracefulShutdownWaitMs: number;
  /** The api's bearer token, resolved (`env://`, `file://`); absent: the api refuses every request. */
  readonly authToken?: string;
  /** The token workers must present on the cluster listener; absent: workers are not authenticated. */
  readonly workerAuthToken?: string;
  /** `data_dir`: where the SQLite state and the state key file live; absent: a temporary directory (or, with `database`, `state_key` is required). */
  readonly dataDir?: string;
  /** `state_key`, decoded (32 bytes); absent: the key file in the data directory. */
  readonly stateKey?: Uint8Array;
  /** `database { url }`: the state is in PostgreSQL (several controllers); absent: SQLite under {@link dataDir}. */
  readonly database?: AgentPostgresStorage;
  /** `auth_token_time_to_live` in seconds. */
  readonly authTokenTtlSeconds: number;
  /** `auth_token_time_to_stale` in seconds (idle timeout). */
  readonly authTokenStaleSeconds: number;
}

/** The worker block. */
interface GatewayWorkerConfig {
  /** May be empty: the server generates one. */
  readonly name: string;
  readonly description?: string;
  /**
   * `host:port` values (default port 9201 filled in). Empty when the file gave none: the
   * server then uses 127.0.0.1:9201, or its own cluster listener in a combined process.
   */
  readonly initialUpstreams: readonly string[];
  /** Presented to the controller on every call; in a combined process defaults to the controller's. */
  readonly workerAuthToken?: string;
  /** `tags`: key → values. */
  readonly tags: Readonly<Record<string, readonly string[]>>;
}

/** The gateway's configuration, validated and typed. */
export interface GatewayServerConfig {
  /** The file it was read from, as given. */
  readonly file: string;
  readonly controller?: GatewayControllerConfig;
  readonly worker?: GatewayWorkerConfig;
  readonly listeners: readonly GatewayListenerConfig[];
  /**
   * Whether the ops listeners serve `/health`: a controller with an `api` and an `ops`
   * listener (spec 000 "Gateway health endpoint"), or a worker with an `ops` listener
   * (reference/gateway.md §2, §4.3).
   */
  readonly healthEnabled: boolean;
  /** `ui { enabled = true }`: the controller's api listeners serve the web UI's gateway section at `/ui/`. */
  readonly ui?: boolean;
  /** `ui_services { <service> = "address" }`: the other services whose UI sections it shows (kernel/config/ui-services.ts); absent without the block. */
  readonly uiServices?: UiServices;
}

/**
 * Parses and checks a gateway config `text`; `file` names it in errors, `env` resolves
 * `env://VAR` values.
 *
 * @throws {ConfigError} naming file, line and key: schema violations (unknown keys, bad
 *   durations, bad purposes), neither controller nor worker, a controller without a
 *   `cluster` listener or with two, an api/ops listener without TLS files and without
 *   `tls_disable = true`, a proxy listener with only one TLS file, a malformed address,
 *   `graceful_shutdown_wait_duration` without an api and an ops listener,
 *   an `auth_token` whose variable is unset or whose file cannot be read or is empty.
 */
export function parseGatewayServerConfig(text: string, file: string, env: ConfigEnv = {}): GatewayServerConfig {
  return fromRaw(parseConfig(text, file, gatewayServerSchema), file, env);
}

/** Reads and checks the file at `path` (see {@link parseGatewayServerConfig}). @throws {ConfigError} */
export function loadGatewayServerConfig(path: string, env: ConfigEnv = {}): GatewayServerConfig {
  return fromRaw(loadConfigFile(path, gatewayServerSchema), path, env);
}

function fromRaw(raw: Raw, file: string, env: ConfigEnv): GatewayServerConfig {
  if (!raw.controller && !raw.worker) {
    throw new ConfigError([{ file, line: 1, key: undefined, message: 'the file needs a "controller" block, a "worker" block, or both' }]);
  }
  const listeners = raw.listener.map(({ body }) => listenerFrom(body));
  const count = (p: ListenerPurpose) => listeners.filter((l) => l.purpose === p).length;
  let controller: GatewayControllerConfig | undefined;
  if (raw.controller) {
    const c = raw.controller;
    if (count('cluster') === 0) throw blockError(c.$at, undefined, 'a controller needs a listener "tcp" with purpose = "cluster"');
    if (count('cluster') > 1) {
      const second = listeners.filter((l) => l.purpose === 'cluster')[1];
      throw blockError(second.at!, 'purpose', 'only one listener with purpose = "cluster" is supported');
    }
    controller = {
      name: c.name ?? '',
      description: c.description,
      gracefulShutdownWaitMs: c.graceful_shutdown_wait_duration * 1000,
      authToken: secretKey(c, 'auth_token', env),
      workerAuthToken: secretKey(c, 'worker_auth_token', env),
      dataDir: c.data_dir,
      stateKey: agentStateKey(c.state_key, c.$at, 'state_key', env),
      database: c.database && databaseFrom(c.database, env),
      authTokenTtlSeconds: c.auth_token_time_to_live,
      authTokenStaleSeconds: c.auth_token_time_to_stale,
    };
    if (controller.database && !controller.dataDir && !controller.stateKey) {
      // Controllers sharing a database need one key; a temporary key file would be lost at stop.
      throw blockError(
        c.database!.$at,
        'url',
        'a controller with a "database" needs "data_dir" (for its state key file) or "state_key" (the key every controller sharing the database uses)',
      );
    }
  }
  let worker: GatewayWorkerConfig | undefined;
  if (raw.worker) {
    const w = raw.worker;
    const upstreams = (w.initial_upstreams ?? []).map((u) => {
      try {
        return withPort(u, DEFAULT_UPSTREAM_PORT);
      } catch (err) {
        throw blockError(w.$at, 'initial_upstreams', `"initial_upstreams": ${(err as Error).message}`);
      }
    });
    worker = {
      name: w.name ?? '',
      description: w.description,
      initialUpstreams: upstreams,
      workerAuthToken: secretKey(w, 'worker_auth_token', env) ?? controller?.workerAuthToken,
      tags: workerTags(w.tags, w.$at),
    };
  }
  const healthEnabled = count('ops') > 0 && ((controller !== undefined && count('api') > 0) || worker !== undefined);
  if (raw.controller && controller!.gracefulShutdownWaitMs > 0 && !(count('ops') > 0 && count('api') > 0)) {
    // The wait exists so load balancers see /health turn 503; without the endpoint it would
    // only delay the shutdown (the reference skips it silently; docs/compatibility.md).
    const missing = count('ops') === 0 ? 'ops' : 'api';
    throw blockError(
      raw.controller.$at,
      'graceful_shutdown_wait_duration',
      `"graceful_shutdown_wait_duration" needs a listener with purpose = "${missing}": the controller's /health (api and ops listeners) is what the wait is for`,
    );
  }
  const ui = raw.ui?.enabled ?? false;
  // The UI's section is served by the controller's api listener, and calls its API there.
  if (ui && (!controller || count('api') === 0))
    throw blockError(raw.ui!.$at, 'enabled', 'the web UI needs a "controller" block and a listener with purpose = "api"');
  return {
    file,
    controller,
    worker,
    listeners,
    healthEnabled,
    ...(ui && { ui }),
    ...(raw.ui_services && { uiServices: uiServicesFrom(raw.ui_services, 'gateway', ui, 'ui { enabled = true }') }),
  };
}

/**
 * The `database` block: `url` resolved (`env://`, `file://`) and checked to be a postgres:// URL.
 * @throws {ConfigError} at the `url` line.
 */
function databaseFrom(d: NonNullable<NonNullable<Raw['controller']>['database']>, env: ConfigEnv): AgentPostgresStorage {
  const url = secretKey(d, 'url', env)!.trim();
  if (!/^postgres(ql)?:\/\/./i.test(url)) throw blockError(d.$at, 'url', '"url" must be a postgres:// or postgresql:// URL');
  return { connectionUrl: url, table: d.table, maxParallel: d.max_parallel };
}

/** The resolved secret at `block[key]` (see {@link resolveSecretRef}); undefined when absent. @throws {ConfigError} at the key's line. */
function secretKey<K extends string>(block: { readonly [P in K]?: string } & { readonly $at: BlockAt }, key: K, env: ConfigEnv): string | undefined {
  const value = block[key];
  if (value === undefined) return undefined;
  try {
    return resolveSecretRef(value, env);
  } catch (err) {
    throw blockError(block.$at, key, `"${key}": ${(err as Error).message}`);
  }
}

function listenerFrom(l: Raw['listener'][number]['body']): GatewayListenerConfig {
  const purpose = l.purpose;
  let address: string;
  try {
    address = withPort(l.address ?? '127.0.0.1', DEFAULT_PORTS[purpose]);
  } catch (err) {
    throw blockError(l.$at, 'address', `"address": ${(err as Error).message}`);
  }
  let tls: GatewayListenerConfig['tls'];
  if ((purpose === 'api' || purpose === 'ops') && !l.tls_disable) {
    // reference/gateway.md §1: TLS unless disabled, and then a certificate is required.
    if (!l.tls_cert_file || !l.tls_key_file) {
      const key = !l.tls_cert_file ? 'tls_cert_file' : 'tls_key_file';
      throw blockError(l.$at, undefined, `tls not disabled for listener at address "${address}" with purpose "${purpose}" but no "${key}" supplied`);
    }
    tls = { certFile: l.tls_cert_file, keyFile: l.tls_key_file };
  } else if (purpose === 'proxy' && (l.tls_cert_file || l.tls_key_file)) {
    if (!l.tls_cert_file || !l.tls_key_file) {
      throw blockError(l.$at, l.tls_cert_file ? 'tls_cert_file' : 'tls_key_file', 'a TLS proxy listener needs both "tls_cert_file" and "tls_key_file"');
    }
    tls = { certFile: l.tls_cert_file, keyFile: l.tls_key_file };
  }
  let limits: ConnectionLimits = { maxConnections: l.max_connections };
  if (HTTP_PURPOSES.includes(purpose)) limits = { ...limits, ...httpTimeoutsFrom(l) };
  else {
    // The cluster (gRPC) and proxy (Cairn's handshake, then raw bytes) listeners read no HTTP requests.
    const set = Object.keys(httpTimeoutKeys).find((k) => l.$at.keyLines[k] !== undefined);
    if (set) throw blockError(l.$at, set, `"${set}" applies to api and ops listeners only, not to purpose "${purpose}"`);
  }
  return { purpose, address, tls, at: l.$at, limits };
}

/**
 * `host` → `host:port`, `host:port` kept, `[v6]` → `[v6]:port`, bare IPv6 → `[v6]:port`.
 * @throws {Error} on an empty address or a port that is not 0–65535.
 */
export function withPort(address: string, port: number): string {
  const a = address.trim();
  if (a === '') throw new Error('empty address');
  let host = a;
  let p: string | undefined;
  const v6 = /^\[([^\]]+)\](?::(.*))?$/.exec(a);
  if (v6) [host, p] = [`[${v6[1]}]`, v6[2]];
  else if ((a.match(/:/g) ?? []).length === 1) [host, p] = a.split(':') as [string, string];
  else if (a.includes(':')) host = `[${a}]`;
  if (p === undefined) return `${host}:${port}`;
  if (!/^\d{1,5}$/.test(p) || Number(p) > 65535) throw new Error(`invalid port in "${address}"`);
  return `${host}:${Number(p)}`;
}

/** Kernel listener options for an api or ops listener. */
export function toListenerOptions(l: GatewayListenerConfig): ListenerOptions {
  return { ...l.limits, address: l.address, tls: l.tls };
}

/**
 * The worker's `tags` block: each key a string or a list of strings (HCL gives a block as
 * an object, or a list of objects when repeated).
 * @throws {ConfigError} naming `tags` and the key for any other value.
 */
function workerTags(raw: unknown, at: BlockAt): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  if (raw === undefined) return out;
  for (const block of Array.isArray(raw) ? raw : [raw]) {
    if (typeof block !== 'object' || block === null) throw blockError(at, 'tags', '"tags" must be a block of key = ["value", ...]');
    for (const [key, v] of Object.entries(block as Record<string, unknown>)) {
      const values = typeof v === 'string' ? [v] : v;
      if (!Array.isArray(values) || values.some((x) => typeof x !== 'string'))
        throw blockError(at, 'tags', `"tags": "${key}" must be a string or a list of strings`);
      (out[key] ??= []).push(...(values as string[]));
    }
  }
  return out;
}
