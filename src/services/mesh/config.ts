/**
 * The discovery service's agent configuration (`cairn mesh agent -config=FILE`), with the
 * reference agent's keys (issue 5 scope 8; DESIGN.md "Configuration"):
 *
 * ```hcl
 * data_dir           = "/var/lib/cairn/mesh"
 * datacenter         = "dc2"
 * primary_datacenter = "dc1"
 * enterprise         = true               # OIDC login, oidc auth methods, namespaces
 * addresses { http = "0.0.0.0", dns = "127.0.0.1" }
 * ports     { http = 8500, dns = 8600 }    # dns = -1: no DNS server; 0: a free port
 * domain    = "cairn"                      # the DNS zone the agent answers for
 * recursors = ["10.0.0.2", "1.1.1.1:53"]   # where other names go (none: REFUSED)
 * dns_config {
 *   node_ttl         = "10s"
 *   service_ttl      = { "*" = "5s", "web" = "30s" }
 *   only_passing     = false              # true: warning instances are left out too
 *   recursor_timeout = "2s"
 * }
 * limits {                             # HTTP connection limits (docs/deploy.md "Connection limits")
 *   http_max_conns_per_client = 200     # Consul's key and default
 *   http_read_header_timeout  = "5s"
 *   kv_max_value_size         = 524288  # largest KV value, bytes
 * }
 * wan_addresses {                        # HTTP API of a server in each other datacenter
 *   dc1 = "10.0.0.10:8500"
 * }
 * storage "postgresql" {                 # several agents of this datacenter share one state
 *   connection_url = "env://CAIRN_PG_URL"
 *   table          = "cairn_mesh_dc2"
 * }
 * advertise_addr = "10.0.1.5"            # what the other agents reach this one's HTTP API at
 * encrypt        = "env://MESH_STATE_KEY" # the state key (base64, 32 bytes); default: data_dir/mesh-state.key
 * acl {
 *   enabled                  = true
 *   default_policy           = "deny"
 *   enable_token_replication = true
 *   tokens {
 *     initial_management = "env://MESH_INITIAL_MANAGEMENT"   # or file:///path, or the UUID
 *     replication        = "env://MESH_REPLICATION_TOKEN"
 *   }
 * }
 * ```
 *
 * Every error names the file, line and key.
 *
 * @module
 */
import { isIP } from 'node:net';
import {
  uiServicesFrom,
  uiServicesKey,
  addressBlock,
  agentPostgresKeys,
  agentPostgresStorage,
  agentStateKey,
  blockError,
  cfg,
  limitsBlockFrom,
  limitsBlockKeys,
  loadConfigFile,
  parseConfig,
  resolveSecretRef,
  stateKeyField,
  type AgentPostgresStorage,
  type ConfigEnv,
  type ConfigOf,
} from '../../kernel/config/index.js';
import type { ConnectionLimits, UiServices } from '../../kernel/http/index.js';
import { parseDuration } from '../../kernel/util/duration.js';

/** The DNS port when the file does not set one (the reference's). */
const DEFAULT_DNS_PORT = 8600;

/** The DNS zone when the file does not set `domain`: Cairn's own (the reference's is `consul`). */
const DEFAULT_DNS_DOMAIN = 'cairn';

/** The DNS server's settings (`addresses.dns`, `ports.dns`, `domain`, `recursors`, `dns_config`). */
export interface MeshDnsConfig {
  /** `host:port` of the UDP and TCP listeners (port 0: a free one). */
  readonly address: string;
  /** The zone, lower case, without dots at either end (`cairn`, `consul`, `sd.example.com`). */
  readonly domain: string;
  /** `host:port` of each recursor, in the order they are asked. */
  readonly recursors: readonly string[];
  /** TTL of node records, in seconds. */
  readonly nodeTtl: number;
  /** Service name → TTL in seconds; a key ending in `*` is a prefix (the longest wins), `*` alone the default. */
  readonly serviceTtl: Readonly<Record<string, number>>;
  /** Leave instances whose aggregate is `warning` out too. */
  readonly onlyPassing: boolean;
  /** Time each recursor has to answer, in ms. */
  readonly recursorTimeoutMs: number;
}

/** `limits.http_max_conns_per_client` when the file does not set it: Consul's default. */
const HTTP_MAX_CONNS_PER_CLIENT = 200;

/** Largest KV value by default, in bytes: 512 KiB (the reference's `kv_max_value_size`). */
export const DEFAULT_KV_MAX_VALUE_SIZE = 524_288;

/** Largest `PUT /v1/txn` body by default, in bytes: 512 KiB (the reference's `txn_max_req_len`). */
export const DEFAULT_TXN_MAX_REQ_LEN = 524_288;

/** The declared schema (kernel/config/schema.ts). */
const meshAgentSchema = {
  data_dir: cfg.string({ required: true, doc: 'directory for the state database, its key and the bootstrap reset file' }),
  datacenter: cfg.string({ default: 'dc1', doc: "this agent's datacenter" }),
  primary_datacenter: cfg.string({ doc: 'the datacenter that owns ACL data; default: this one' }),
  node_name: cfg.string({ doc: "this agent's node name; default: the host name" }),
  server: cfg.bool({ default: true, doc: 'accepted for compatibility: every Cairn agent is a server' }),
  ui_config: cfg.block({ enabled: cfg.bool({ default: false, doc: "serve the web UI's discovery section at /ui/ on the HTTP listener" }) }),
  ui_services: uiServicesKey,
  enterprise: cfg.bool({
    default: false,
    doc: 'enterprise features: the OIDC login endpoints, `oidc` auth methods and namespaces (`?ns=`, `X-Mesh-Namespace`, body `Namespace`)',
  }),
  telemetry: cfg.block(
    {
      prometheus_retention_time: cfg.string({ doc: 'accepted for compatibility: Prometheus text is always served (agent/metrics?format=prometheus)' }),
      disable_hostname: cfg.bool({ default: false, doc: 'accepted for compatibility: metric names never carry the host name' }),
    },
    { doc: "the reference's telemetry block, accepted so its files load; metrics need no configuration here" },
  ),
  log_level: cfg.string({ default: 'info', enum: ['trace', 'debug', 'info', 'warn', 'error'], ignoreCase: true }),
  addresses: cfg.block({
    http: cfg.string({ default: '127.0.0.1', doc: 'HTTP listen host' }),
    dns: cfg.string({ default: '127.0.0.1', doc: 'DNS listen host (UDP and TCP)' }),
  }),
  ports: cfg.block({
    http: cfg.int({ default: 8500, min: 0, max: 65535, doc: 'HTTP listen port; 0 picks a free one' }),
    dns: cfg.int({ default: DEFAULT_DNS_PORT, min: -1, max: 65535, doc: 'DNS listen port (UDP and TCP); 0 picks a free one, -1 runs no DNS server' }),
  }),
  domain: cfg.string({ default: DEFAULT_DNS_DOMAIN, doc: 'the DNS zone the agent answers for (`<service>.service.<domain>`, `<node>.node.<domain>`)' }),
  recursors: cfg.list('string', { doc: 'DNS servers (`host` or `host:port`, port 53 by default) that names outside the domain are forwarded to, in order' }),
  dns_config: cfg.block(
    {
      node_ttl: cfg.duration({ default: 0, min: 0, doc: 'TTL of node records' }),
      service_ttl: cfg.raw({ doc: 'service name (or prefix ending in `*`) → TTL of its records; `"*"` sets the default' }),
      only_passing: cfg.bool({ default: false, doc: 'leave instances with a warning check out of service answers too (critical ones always are)' }),
      allow_stale: cfg.bool({ default: true, doc: 'accepted for compatibility: every agent answers from its own copy of the state' }),
      recursor_timeout: cfg.duration({ default: 2, min: 1, doc: 'how long a recursor has to answer before the next is asked' }),
    },
    { doc: "the DNS server's TTLs, health filter and recursor timeout" },
  ),
  limits: cfg.block(
    {
      ...limitsBlockKeys(HTTP_MAX_CONNS_PER_CLIENT),
      kv_max_value_size: cfg.int({ default: DEFAULT_KV_MAX_VALUE_SIZE, min: 1, doc: 'largest value a KV write may store, in bytes (larger: 413)' }),
      txn_max_req_len: cfg.int({ default: DEFAULT_TXN_MAX_REQ_LEN, min: 1, doc: 'largest body a PUT /v1/txn may send, in bytes (larger: 413)' }),
    },
    { doc: 'connection limits of the HTTP listener (timeouts, total and per-client caps) and the largest KV value' },
  ),
  storage: cfg.variants(
    { postgresql: agentPostgresKeys('cairn_mesh') },
    { doc: 'several agents of one datacenter on one PostgreSQL table (one leader, the others follow); default: SQLite in data_dir' },
  ),
  advertise_addr: cfg.string({
    doc: "host the other agents sharing the storage reach this one's HTTP API at (with ports.http); default: the HTTP listen address",
  }),
  encrypt: stateKeyField(),
  wan_addresses: cfg.raw({ doc: "datacenter name → host:port of the HTTP API of one of its servers (stands for the reference's retry_join_wan gossip)" }),
  acl: cfg.block({
    enabled: cfg.bool({ default: false }),
    default_policy: cfg.string({ default: 'allow', enum: ['allow', 'deny'], doc: 'what a request no rule covers gets' }),
    enable_token_replication: cfg.bool({ default: false, doc: 'secondary datacenters: replicate global tokens too' }),
    enable_key_list_policy: cfg.bool({
      default: false,
      doc: 'KV reads with ?recurse or ?keys need key:list on the prefix (else only key:read per key, which filters)',
    }),
    tokens: cfg.block({
      initial_management: cfg.string({ doc: 'SecretID (UUID) of a management token made at start; uses up bootstrap' }),
      replication: cfg.string({ doc: 'secondary datacenters: the token replication reads the primary with' }),
      default: cfg.string({ doc: 'the token of requests that carry none (else the anonymous token)' }),
      dns: cfg.string({ doc: 'the token DNS answers are filtered with (service:read, node:read); default: tokens.default' }),
      agent: cfg.string({
        doc: 'the token an agent following a shared state syncs its node, services and checks to the leader with (node:write on its node, service:write on its services); default: tokens.default',
      }),
    }),
  }),
};

type Raw = ConfigOf<typeof meshAgentSchema>;

/** The agent's configuration, validated and typed. */
export interface MeshAgentConfig {
  readonly dataDir: string;
  readonly datacenter: string;
  readonly primaryDatacenter: string;
  readonly nodeName: string;
  readonly logLevel: string;
  /** Enterprise features on: OIDC endpoints and `oidc` auth methods, namespaces (`enterprise = true`). */
  readonly enterprise?: boolean;
  /** `host:port` of the HTTP listener. */
  readonly httpAddress: string;
  /** `ui_config { enabled = true }`: the HTTP listener serves the web UI's discovery section at `/ui/`. */
  readonly ui?: boolean;
  /** `ui_services { <service> = "address" }`: the other services whose UI sections this server shows (kernel/config/ui-services.ts); absent without the block. */
  readonly uiServices?: UiServices;
  /**
   * The HTTP listener's timeouts and caps (`limits { http_read_header_timeout, http_read_timeout,
   * http_idle_timeout, http_max_conns, http_max_conns_per_client }`); absent: the kernel's
   * defaults, without a per-client cap (configs built in code, `cairn dev`).
   */
  readonly httpLimits?: ConnectionLimits;
  /** `storage "postgresql"`: agents of this datacenter share the state there; absent: SQLite in `dataDir`. */
  readonly storage?: AgentPostgresStorage;
  /** `encrypt`: the state key (32 bytes); absent: the key file `data_dir/mesh-state.key`, made on first start. */
  readonly stateKey?: Uint8Array;
  /** `advertise_addr`: the host the other agents sharing the storage forward writes to (with the bound HTTP port); absent: the bound HTTP address. */
  readonly advertiseHost?: string;
  /** Datacenter → `host:port` of a server's HTTP API there (`wan_addresses`). */
  readonly wanAddresses: Readonly<Record<string, string>>;
  /** The DNS server; absent: none (`ports { dns = -1 }`, and configs built in code unless they set it). */
  readonly dns?: MeshDnsConfig;
  /** `limits.kv_max_value_size`: largest KV value in bytes; absent: {@link DEFAULT_KV_MAX_VALUE_SIZE}. */
  readonly kvMaxValueSize?: number;
  /** `limits.txn_max_req_len`: largest `PUT /v1/txn` body in bytes; absent: {@link DEFAULT_TXN_MAX_REQ_LEN}. */
  readonly txnMaxReqLen?: number;
  readonly acl: {
    readonly enabled: boolean;
    readonly defaultPolicy: 'allow' | 'deny';
    readonly tokenReplication: boolean;
    readonly initialManagement?: string;
    readonly replicationToken?: string;
    readonly defaultToken?: string;
    /** `enable_key_list_policy`: `?recurse` / `?keys` need `key:list` on the prefix. */
    readonly enableKeyListPolicy?: boolean;
    /** `acl.tokens.dns`: the token DNS answers are filtered with; absent: `defaultToken`. */
    readonly dnsToken?: string;
    /** `acl.tokens.agent`: what a follower's anti-entropy sync sends to the leader with. */
    readonly agentToken?: string;
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Parses and checks an agent config `text` (`file` names it in errors; `env` resolves
 * `env://` values). @throws {ConfigError} naming file, line and key: schema violations,
 * an `initial_management` that is not a UUID, an unset variable or unreadable file.
 */
export function parseMeshAgentConfig(text: string, file: string, env: ConfigEnv = {}, hostName = 'cairn'): MeshAgentConfig {
  return fromRaw(parseConfig(text, file, meshAgentSchema), env, hostName);
}

/** Reads and checks the file at `path` (see {@link parseMeshAgentConfig}). @throws {ConfigError} */
export function loadMeshAgentConfig(path: string, env: ConfigEnv = {}, hostName = 'cairn'): MeshAgentConfig {
  return fromRaw(loadConfigFile(path, meshAgentSchema), env, hostName);
}

/** `h` as the host part of `host:port` (IPv6 in brackets). */
const bracketHost = (h: string): string => (h.includes(':') ? `[${h}]` : h);

function fromRaw(raw: Raw, env: ConfigEnv, hostName: string): MeshAgentConfig {
  const acl = raw.acl;
  const tokens = acl?.tokens;
  const secret = (key: 'initial_management' | 'replication' | 'default' | 'agent' | 'dns'): string | undefined => {
    const v = tokens?.[key];
    if (v === undefined) return undefined;
    try {
      return resolveSecretRef(v, env).trim();
    } catch (err) {
      throw blockError(tokens!.$at, key, `"${key}": ${(err as Error).message}`);
    }
  };
  const initialManagement = secret('initial_management');
  if (initialManagement !== undefined && !UUID.test(initialManagement)) {
    throw blockError(tokens!.$at, 'initial_management', '"initial_management" must be a UUID');
  }
  const wanAddresses = addressBlock(raw.wan_addresses, raw.$at, { key: 'wan_addresses', own: raw.datacenter, what: 'datacenter' });
  const host = raw.addresses?.http ?? '127.0.0.1';
  const port = raw.ports?.http ?? 8500;
  return {
    dataDir: raw.data_dir,
    datacenter: raw.datacenter,
    primaryDatacenter: raw.primary_datacenter ?? raw.datacenter,
    nodeName: raw.node_name ?? hostName,
    logLevel: raw.log_level.toLowerCase(),
    enterprise: raw.enterprise,
    httpAddress: `${bracketHost(host)}:${port}`,
    ui: raw.ui_config?.enabled ?? false,
    ...(raw.ui_services && { uiServices: uiServicesFrom(raw.ui_services, 'mesh', raw.ui_config?.enabled ?? false, 'ui_config { enabled = true }') }),
    httpLimits: limitsBlockFrom(raw.limits, HTTP_MAX_CONNS_PER_CLIENT),
    storage: raw.storage && agentPostgresStorage(raw.storage.body, env),
    stateKey: agentStateKey(raw.encrypt, raw.$at, 'encrypt', env),
    dns: dnsFromRaw(raw),
    advertiseHost: raw.advertise_addr,
    wanAddresses,
    kvMaxValueSize: raw.limits?.kv_max_value_size ?? DEFAULT_KV_MAX_VALUE_SIZE,
    txnMaxReqLen: raw.limits?.txn_max_req_len ?? DEFAULT_TXN_MAX_REQ_LEN,
    acl: {
      enabled: acl?.enabled ?? false,
      enableKeyListPolicy: acl?.enable_key_list_policy ?? false,
      defaultPolicy: acl?.default_policy ?? 'allow',
      tokenReplication: acl?.enable_token_replication ?? false,
      initialManagement,
      replicationToken: secret('replication'),
      defaultToken: secret('default'),
      agentToken: secret('agent'),
      dnsToken: secret('dns'),
    },
  };
}

/**
 * The DNS settings of a parsed file; undefined when `ports.dns = -1`.
 * @throws {ConfigError} naming the line: a bad `domain`, recursor or `service_ttl` entry.
 */
function dnsFromRaw(raw: Raw): MeshDnsConfig | undefined {
  const port = raw.ports?.dns ?? DEFAULT_DNS_PORT;
  if (port < 0) return undefined;
  const domain = raw.domain.toLowerCase().replace(/^\.+|\.+$/g, '');
  if (!/^[a-z0-9-]{1,63}(\.[a-z0-9-]{1,63})*$/.test(domain)) throw blockError(raw.$at, 'domain', `"domain": "${raw.domain}" is not a DNS name`);
  const recursors = (raw.recursors ?? []).map((r) => {
    const address = recursorAddress(r);
    if (!address) throw blockError(raw.$at, 'recursors', `"recursors": "${r}" is not an IP address with an optional port`);
    return address;
  });
  const dc = raw.dns_config;
  const serviceTtl: Record<string, number> = {};
  // HCL gives a map as a one-element list of the object; JSON gives the object.
  const ttls = Array.isArray(dc?.service_ttl) && dc.service_ttl.length === 1 ? (dc.service_ttl[0] as unknown) : dc?.service_ttl;
  if (ttls !== undefined) {
    if (typeof ttls !== 'object' || ttls === null || Array.isArray(ttls))
      throw blockError(dc!.$at, 'service_ttl', '"service_ttl" must map service names to durations');
    for (const [name, v] of Object.entries(ttls as Record<string, unknown>)) {
      try {
        const seconds = parseDuration(v, `service_ttl.${name}`);
        if (seconds < 0) throw new Error('must not be negative');
        serviceTtl[name] = seconds;
      } catch (err) {
        throw blockError(dc!.$at, 'service_ttl', `"service_ttl": "${name}": ${(err as Error).message}`);
      }
    }
  }
  return {
    address: `${bracketHost(raw.addresses?.dns ?? '127.0.0.1')}:${port}`,
    domain,
    recursors,
    nodeTtl: dc?.node_ttl ?? 0,
    serviceTtl,
    onlyPassing: dc?.only_passing ?? false,
    recursorTimeoutMs: (dc?.recursor_timeout ?? 2) * 1000,
  };
}

/** `host:port` of a recursor given as an IP address with an optional port (53 when absent); undefined when it is neither. */
function recursorAddress(text: string): string | undefined {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  const v4 = /^([\d.]+)(?::(\d+))?$/.exec(text);
  const [host, port] = bracketed ? [bracketed[1]!, bracketed[2]] : v4 ? [v4[1]!, v4[2]] : [text, undefined];
  if (isIP(host) === 0) return undefined;
  const p = Number(port ?? 53);
  if (!Number.isInteger(p) || p < 1 || p > 65535) return undefined;
  return `${bracketHost(host)}:${p}`;
}

/**
 * The DNS server of a config built in code (`cairn dev`, tests) on `address` (`host:port`):
 * the default domain, no recursors, TTL 0, passing and warning instances.
 */
export function defaultDnsConfig(address: string): MeshDnsConfig {
  return { address, domain: DEFAULT_DNS_DOMAIN, recursors: [], nodeTtl: 0, serviceTtl: {}, onlyPassing: false, recursorTimeoutMs: 2000 };
}

/**
 * The discovery service of `cairn dev`: datacenter `dc1` (its own primary), ACLs on with
 * `default_policy = "deny"`, and `rootToken` (the secrets service's dev root token) as
 * `initial_management`, so one token works everywhere in dev (issue 5 scope 8). The DNS
 * server on `dnsAddress` (none when absent) answers with the root token (`acl.tokens.dns`),
 * as the reference's dev agent, whose ACLs are off, answers everything.
 */
export function devMeshConfig(o: { dataDir: string; httpAddress: string; rootToken: string; dnsAddress?: string }): MeshAgentConfig {
  return {
    dataDir: o.dataDir,
    datacenter: 'dc1',
    primaryDatacenter: 'dc1',
    nodeName: 'dev',
    logLevel: 'info',
    enterprise: true,
    httpAddress: o.httpAddress,
    wanAddresses: {},
    dns: o.dnsAddress === undefined ? undefined : defaultDnsConfig(o.dnsAddress),
    acl: { enabled: true, defaultPolicy: 'deny', tokenReplication: false, initialManagement: o.rootToken, dnsToken: o.rootToken },
  };
}
