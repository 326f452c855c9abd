/**
 * The secrets server's configuration file (`cairn secrets server -config=FILE`), in the
 * shape users of the reference product already write (DESIGN.md "Configuration";
 * reference/secrets.md §1.8, §1.9):
 *
 * ```hcl
 * storage "sqlite" { path = "/var/lib/cairn/secrets.db" }
 * listener "tcp" {
 *   address       = "0.0.0.0:8200"
 *   tls_cert_file = "/etc/cairn/tls.crt"
 *   tls_key_file  = "/etc/cairn/tls.key"
 * }
 * listener "tcp" {
 *   address                = "127.0.0.1:8201"
 *   tls_disable            = true
 *   require_request_header = true
 * }
 * api_addr  = "https://secrets.example.com:8200"
 * log_level = "info"
 * ```
 *
 * Or, to share the data with other servers (DESIGN.md "Growing past one machine"):
 *
 * ```hcl
 * storage "postgresql" {
 *   connection_url = "env://CAIRN_PG_URL"   # or file://PATH, or the postgres:// URL itself
 *   table          = "cairn_kv"             # created when missing
 *   max_parallel   = 10                     # connections to PostgreSQL at most
 *   ha_enabled     = true                   # active/standby: one active server holds an advisory lock
 * }
 * disable_performance_standby = false      # standbys serve reads themselves (health 473)
 * ```
 *
 * @module
 */
import type { ClientCertPolicy, ConnectionLimits, UiServices } from '../../kernel/http/index.js';
import {
  blockError,
  cfg,
  httpTimeoutKeys,
  httpTimeoutsFrom,
  loadConfigFile,
  maxConnectionsKey,
  parseConfig,
  resolveSecretRef,
  uiServicesFrom,
  uiServicesKey,
  type ConfigEnv,
  type ConfigOf,
} from '../../kernel/config/index.js';
import type { LogLevel } from '../../kernel/log/logger.js';
import { quoteTableName } from '../../kernel/store/index.js';
import type { SecretsListenerOptions } from './service.js';

/** The request header `require_request_header` asks for (reference/secrets.md §1.9, with Cairn's header name). */
const REQUEST_HEADER = 'X-Secrets-Request';

const listenerKeys = {
  address: cfg.string({ default: '127.0.0.1:8200', doc: 'host:port to listen on; port 0 picks a free port' }),
  tls_cert_file: cfg.string({ doc: 'PEM certificate (chain) file' }),
  tls_key_file: cfg.string({ doc: 'PEM private key file' }),
  tls_disable: cfg.bool({ default: false, doc: 'serve plain HTTP' }),
  tls_disable_client_certs: cfg.bool({
    default: false,
    doc: 'never ask TLS clients for a certificate (the cert auth method then cannot log in through this listener)',
  }),
  tls_require_and_verify_client_cert: cfg.bool({
    default: false,
    doc: 'refuse the TLS handshake of a client without a certificate chaining to tls_client_ca_file (or the system roots)',
  }),
  tls_client_ca_file: cfg.string({ doc: 'PEM CA bundle client certificates must chain to; used with tls_require_and_verify_client_cert' }),
  max_request_size: cfg.int({ default: 0, doc: 'request body limit in bytes; 0 = 32 MiB, negative = unlimited' }),
  require_request_header: cfg.bool({ default: false, doc: `refuse requests without "${REQUEST_HEADER}: true" (412)` }),
  ...httpTimeoutKeys,
  max_connections: maxConnectionsKey,
  telemetry: cfg.block({
    unauthenticated_metrics_access: cfg.bool({ default: false, doc: 'answer GET /v1/sys/metrics on this listener without a token, sealed or not' }),
  }),
};

/** The declared schema of the secrets server's file (kernel/config/schema.ts). */
const secretsServerSchema = {
  storage: cfg.variants(
    {
      sqlite: { path: cfg.string({ required: true, doc: 'SQLite database file; created when missing' }) },
      postgresql: {
        connection_url: cfg.string({ required: true, doc: 'postgres:// URL; env://VAR or file://PATH keep the password out of this file' }),
        table: cfg.string({ default: 'cairn_kv', doc: 'table holding the data (name or schema.name); created when missing' }),
        max_parallel: cfg.int({ default: 10, min: 1, doc: 'most connections (statements in flight) to PostgreSQL' }),
        ha_enabled: cfg.bool({
          default: false,
          doc: 'active/standby between the servers sharing the table: the active one holds an advisory lock; the others serve reads themselves (performance standbys, health 473) and forward the rest to it',
        }),
      },
    },
    { required: true, doc: 'where the encrypted data lives; exactly one block' },
  ),
  listener: cfg.labelled(listenerKeys, { labels: ['tcp'], repeated: true, required: true, doc: 'one block per listening address' }),
  api_addr: cfg.string({ doc: 'URL clients are told to use for this server' }),
  cluster_addr: cfg.string({ doc: 'URL other servers use for this server' }),
  cluster_name: cfg.string({ doc: 'name of the cluster, shown in status' }),
  disable_clustering: cfg.bool({ default: false, doc: 'HA standbys answer 307 to the active server instead of forwarding client requests to it' }),
  disable_performance_standby: cfg.bool({
    default: false,
    doc: 'HA standbys forward every request (health 429) instead of serving reads themselves as performance standbys (health 473)',
  }),
  telemetry: cfg.block(
    {
      prometheus_retention_time: cfg.string({ doc: 'accepted for compatibility: Prometheus text is always served (sys/metrics?format=prometheus)' }),
      disable_hostname: cfg.bool({ default: false, doc: 'accepted for compatibility: metric names never carry the host name' }),
    },
    { doc: "the reference's telemetry block, accepted so its files load; metrics need no configuration here" },
  ),
  ui: cfg.bool({ default: false, doc: 'serve the web UI at /ui/ on every listener' }),
  ui_services: uiServicesKey,
  log_level: cfg.string({ enum: ['trace', 'debug', 'info', 'warn', 'error'], ignoreCase: true, default: 'info' }),
  disable_mlock: cfg.bool({ default: false, doc: 'accepted for compatibility; Node cannot lock memory' }),
  managed_namespaces: cfg.bool({ default: false, doc: 'managed mode: the top-level namespace is admin/ and requests without a namespace fail' }),
};

type Raw = ConfigOf<typeof secretsServerSchema>;

/** One `listener "tcp"` block, validated. */
export interface SecretsListenerConfig {
  /** `host:port`; default `127.0.0.1:8200`. */
  readonly address: string;
  /**
   * PEM files and how clients are asked for certificates (`request` by default, as the
   * reference; `require` with `tls_require_and_verify_client_cert`; absent with
   * `tls_disable_client_certs`); absent when `tls_disable = true`.
   */
  readonly tls?: { readonly certFile: string; readonly keyFile: string; readonly clientCerts?: ClientCertPolicy };
  /** `max_request_size` in bytes: 0 = 32 MiB default, negative = unlimited. */
  readonly maxRequestBytes: number;
  /** `require_request_header`. */
  readonly requireRequestHeader: boolean;
  /** `http_read_header_timeout`, `http_read_timeout`, `http_idle_timeout` and `max_connections` (kernel/http connection-limits.ts). */
  readonly limits: ConnectionLimits;
  /** `telemetry { unauthenticated_metrics_access }`. */
  readonly unauthenticatedMetricsAccess: boolean;
}

/** `storage "sqlite"`: one database file. */
interface SqliteStorageConfig {
  readonly type: 'sqlite';
  readonly path: string;
}

/** `storage "postgresql"`: a table in a PostgreSQL database, shareable by several servers. */
interface PostgresStorageConfig {
  readonly type: 'postgresql';
  /** The resolved `connection_url` (after `env://` / `file://`); holds the password: never log it. */
  readonly connectionUrl: string;
  /** `table`; default `cairn_kv`. */
  readonly table: string;
  /** `max_parallel`: most connections to PostgreSQL; default 10. */
  readonly maxParallel: number;
  /**
   * `ha_enabled`: active/standby (kernel/store/pg-lock.ts): once unsealed, a server is
   * active only while it holds a session advisory lock; the others are standbys (health
   * 429, other client requests forwarded to the active server, or 307 to its `api_addr`
   * with `disable_clustering`).
   */
  readonly haEnabled: boolean;
}

/** The `storage` block, validated. */
export type SecretsStorageConfig = SqliteStorageConfig | PostgresStorageConfig;

/** The secrets server's configuration, validated and typed. */
export interface SecretsServerConfig {
  /** The file it was read from, as given. */
  readonly file: string;
  /** Where the encrypted data lives: one SQLite file, or a table in PostgreSQL. */
  readonly storage: SecretsStorageConfig;
  /** At least one. */
  readonly listeners: readonly SecretsListenerConfig[];
  readonly apiAddr?: string;
  readonly clusterAddr?: string;
  readonly clusterName?: string;
  /** `disable_clustering`: HA standbys answer 307 instead of forwarding requests to the active server. */
  readonly disableClustering: boolean;
  /**
   * `disable_performance_standby` (the reference's key): HA standbys forward every request
   * and report 429, instead of serving reads from a read-only core kept current by the
   * change feed and reporting 473 (performance standbys, the default with `ha_enabled`).
   */
  readonly disablePerformanceStandby: boolean;
  readonly ui: boolean;
  /** `ui_services { <service> = "address" }`: the other services whose UI sections this server shows (kernel/config/ui-services.ts); absent without the block. */
  readonly uiServices?: UiServices;
  /** Default `info`. */
  readonly logLevel: Exclude<LogLevel, 'silent'>;
  /** Accepted, no effect. */
  readonly disableMlock: boolean;
  /** Managed mode (spec 000 "Authentication" 6): `admin/` is the top-level namespace. */
  readonly managedNamespaces: boolean;
}

/**
 * Parses and checks a secrets server config `text`; `file` names it in errors, `env`
 * resolves `env://` values of `connection_url`.
 *
 * @throws {ConfigError} naming file, line and key: schema violations (kernel/config), a
 *   `connection_url` that is not a postgres:// URL or whose `env://` variable is unset or
 *   `file://` file unreadable, a bad `table` name, a TLS listener without both files or
 *   with both `tls_disable_client_certs` and `tls_require_and_verify_client_cert`.
 */
export function parseSecretsServerConfig(text: string, file: string, env: ConfigEnv = {}): SecretsServerConfig {
  return fromRaw(parseConfig(text, file, secretsServerSchema), file, env);
}

/** Reads and checks the file at `path` (see {@link parseSecretsServerConfig}). @throws {ConfigError} */
export function loadSecretsServerConfig(path: string, env: ConfigEnv = {}): SecretsServerConfig {
  return fromRaw(loadConfigFile(path, secretsServerSchema), path, env);
}

function fromRaw(raw: Raw, file: string, env: ConfigEnv): SecretsServerConfig {
  return {
    file,
    storage: storageFrom(raw.storage, env),
    listeners: raw.listener.map(({ body }) => listenerFrom(body)),
    apiAddr: raw.api_addr,
    clusterAddr: raw.cluster_addr,
    clusterName: raw.cluster_name,
    disableClustering: raw.disable_clustering,
    disablePerformanceStandby: raw.disable_performance_standby,
    ui: raw.ui,
    ...(raw.ui_services && { uiServices: uiServicesFrom(raw.ui_services, 'secrets', raw.ui, 'ui = true') }),
    logLevel: raw.log_level,
    disableMlock: raw.disable_mlock,
    managedNamespaces: raw.managed_namespaces,
  };
}

function storageFrom(storage: Raw['storage'], env: ConfigEnv): SecretsStorageConfig {
  if (storage.label === 'sqlite') return { type: 'sqlite', path: storage.body.path };
  const b = storage.body;
  let connectionUrl: string;
  try {
    connectionUrl = resolveSecretRef(b.connection_url, env).trim();
  } catch (err) {
    throw blockError(b.$at, 'connection_url', `"connection_url": ${(err as Error).message}`);
  }
  // Checked here so the mistake is reported at its line; the message never repeats the URL.
  if (!/^postgres(ql)?:\/\/./i.test(connectionUrl)) {
    throw blockError(b.$at, 'connection_url', '"connection_url" must be a postgres:// or postgresql:// URL');
  }
  try {
    quoteTableName(b.table);
  } catch (err) {
    throw blockError(b.$at, 'table', `"table": ${(err as Error).message}`);
  }
  return { type: 'postgresql', connectionUrl, table: b.table, maxParallel: b.max_parallel, haEnabled: b.ha_enabled };
}

function listenerFrom(l: Raw['listener'][number]['body']): SecretsListenerConfig {
  let tls: SecretsListenerConfig['tls'];
  if (!l.tls_disable) {
    for (const key of ['tls_cert_file', 'tls_key_file'] as const) {
      if (!l[key]) throw blockError(l.$at, undefined, `"${key}" is required in listener "tcp" unless tls_disable = true`);
    }
    if (l.tls_disable_client_certs && l.tls_require_and_verify_client_cert) {
      throw blockError(l.$at, 'tls_disable_client_certs', "'tls_disable_client_certs' and 'tls_require_and_verify_client_cert' are mutually exclusive");
    }
    // As the reference: the CA file only matters when client certificates are required and verified.
    const clientCerts: ClientCertPolicy | undefined = l.tls_disable_client_certs
      ? undefined
      : l.tls_require_and_verify_client_cert
        ? { mode: 'require', caFile: l.tls_client_ca_file }
        : { mode: 'request' };
    tls = { certFile: l.tls_cert_file as string, keyFile: l.tls_key_file as string, clientCerts };
  }
  return {
    address: l.address,
    tls,
    maxRequestBytes: l.max_request_size,
    requireRequestHeader: l.require_request_header,
    limits: { ...httpTimeoutsFrom(l), maxConnections: l.max_connections },
    unauthenticatedMetricsAccess: l.telemetry?.unauthenticated_metrics_access ?? false,
  };
}

/** The listener options for one configured listener (`require_request_header` → `X-Secrets-Request: true`). */
export function toListenerOptions(l: SecretsListenerConfig): SecretsListenerOptions {
  return {
    ...l.limits,
    address: l.address,
    tls: l.tls,
    maxRequestBytes: l.maxRequestBytes,
    requiredHeader: l.requireRequestHeader ? { name: REQUEST_HEADER, value: 'true' } : undefined,
    unauthenticatedMetricsAccess: l.unauthenticatedMetricsAccess,
  };
}
