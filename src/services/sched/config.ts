/**
 * The scheduler service's agent configuration (`cairn sched agent -config=FILE`), with the
 * reference agent's keys (issue 6 scope 6; DESIGN.md "Configuration"):
 *
 * ```hcl
 * data_dir   = "/var/lib/cairn/sched"
 * region     = "europe"
 * datacenter = "eu-west-1"
 * addresses { http = "0.0.0.0" }
 * ports     { http = 4646 }
 * limits {                           # HTTP connection limits (docs/deploy.md "Connection limits")
 *   http_max_conns_per_client = 100   # Nomad's key and default
 *   http_read_header_timeout  = "5s"
 * }
 * acl { enabled = true }
 * server {
 *   enabled              = true
 *   authoritative_region = "global"
 *   event_buffer_size    = 100
 *   event_heartbeat_interval = "30s"   # Cairn key: period of the stream's {} frames
 *   acl_token_gc_threshold   = "1h"    # expired tokens are deleted this long after expiry
 *   encrypt = "env://SCHED_STATE_KEY" # the state key (base64, 32 bytes); default: data_dir/sched-state.key
 *   min_heartbeat_ttl = "10s"          # the TTL client nodes are given
 *   heartbeat_grace   = "10s"          # how long past it a silent node stays up
 *   root_key_rotation_threshold = "720h" # signing keys (keyring/): replaced at this age, the next published at half
 *   root_key_gc_threshold = "1h"       # a retired key stays published at least this long
 *   root_key_gc_interval  = "10m"      # period of the leader's keyring check
 *   oidc_issuer = "https://sched.example.com" # iss of workload identities; serves /.well-known/openid-configuration
 * }
 * region_addresses {                 # HTTP API of a server in each other region
 *   global = "10.0.0.10:4646"
 * }
 * storage "postgresql" {              # several servers of this region share one state
 *   connection_url = "env://CAIRN_PG_URL"
 *   table          = "cairn_sched_europe"
 * }
 * advertise { http = "10.0.1.5" }     # what the other servers reach this one's HTTP API at
 * plugin "hostpath" {                 # a CSI plugin endpoint (repeatable; one ID may have several)
 *   socket  = "/run/csi/hostpath.sock"
 *   type    = "monolith"              # controller | node | monolith
 *   node_id = "9f0c…"                 # the scheduler node a node plugin serves
 * }
 * ```
 *
 * Without a `server` block, an agent whose `client { enabled = true, servers = [...] }` lists
 * servers is client-only (`server.enabled` false; agent.ts).
 *
 * Every error names the file, line and key.
 *
 * @module
 */
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
  type BlockAt,
  type ConfigEnv,
  type ConfigOf,
} from '../../kernel/config/index.js';
import type { ConnectionLimits, UiServices } from '../../kernel/http/index.js';
import { DEFAULT_CLIENT_TEMPLATE_CONFIG } from './client/template-config.js';
import type { ConsulIdentitySettings } from './jobs/consul-identities.js';
import { clientBlockKeys, clientConfigFrom, consulBlockKeys, DRIVER_PLUGINS, type ClientConfig } from './client/config.js';
import { vaultBlockKeys } from './client/vault-config.js';

/** `limits.http_max_conns_per_client` when the file does not set it: Nomad's default. */
const HTTP_MAX_CONNS_PER_CLIENT = 100;

/** The declared schema (kernel/config/schema.ts). */
const schedAgentSchema = {
  data_dir: cfg.string({ required: true, doc: 'directory for the state database and its key' }),
  region: cfg.string({ default: 'global', doc: "this agent's region" }),
  datacenter: cfg.string({ default: 'dc1', doc: "this agent's datacenter within its region" }),
  name: cfg.string({ doc: "this agent's node name; default: the host name" }),
  telemetry: cfg.block(
    {
      prometheus_metrics: cfg.bool({ default: true, doc: 'accepted for compatibility: Prometheus text is always served (/v1/metrics?format=prometheus)' }),
      disable_hostname: cfg.bool({ default: false, doc: 'accepted for compatibility: metric names never carry the host name' }),
      collection_interval: cfg.string({ doc: 'accepted for compatibility: values are read at scrape time' }),
      publish_allocation_metrics: cfg.bool({ default: false, doc: 'accepted for compatibility (no client agent here)' }),
      publish_node_metrics: cfg.bool({ default: false, doc: 'accepted for compatibility (no client agent here)' }),
    },
    { doc: "the reference's telemetry block, accepted so its files load; metrics need no configuration here" },
  ),
  log_level: cfg.string({ default: 'info', enum: ['trace', 'debug', 'info', 'warn', 'error'], ignoreCase: true }),
  ui: cfg.block({ enabled: cfg.bool({ default: false, doc: "serve the web UI's scheduler section at /ui/ on the HTTP listener" }) }),
  ui_services: uiServicesKey,
  addresses: cfg.block({ http: cfg.string({ default: '127.0.0.1', doc: 'HTTP listen host' }) }),
  ports: cfg.block({ http: cfg.int({ default: 4646, min: 0, max: 65535, doc: 'HTTP listen port; 0 picks a free one' }) }),
  limits: cfg.block(limitsBlockKeys(HTTP_MAX_CONNS_PER_CLIENT), { doc: 'connection limits of the HTTP listener: timeouts, total and per-client caps' }),
  storage: cfg.variants(
    { postgresql: agentPostgresKeys('cairn_sched') },
    { doc: 'several servers of one region on one PostgreSQL table (one leader, the others follow); default: SQLite in data_dir' },
  ),
  advertise: cfg.block({
    http: cfg.string({
      doc: "host or host:port the other servers sharing the storage reach this one's HTTP API at; a host alone takes the bound HTTP port; default: the bound HTTP address",
    }),
  }),
  region_addresses: cfg.raw({ doc: "region name → host:port of the HTTP API of one of its servers (stands for the reference's server gossip across regions)" }),
  acl: cfg.block({
    enabled: cfg.bool({ default: false }),
    replication_token: cfg.string({
      doc: 'non-authoritative regions: a management token of the authoritative region, used to replicate ACL objects (env:// and file:// accepted)',
    }),
  }),
  server: cfg.block({
    enabled: cfg.bool({
      default: true,
      doc: 'run the server (state, scheduler, the whole API); without a server block an agent whose client lists servers is client-only',
    }),
    min_heartbeat_ttl: cfg.duration({ min: 1, doc: "heartbeat TTL given to client nodes; default 10s (the reference's key; Cairn gives every node this TTL)" }),
    heartbeat_grace: cfg.duration({ min: 0, doc: 'how long past its TTL a node may stay silent before it is marked down; default 10s' }),
    authoritative_region: cfg.string({ doc: 'the region that owns ACL policies, global tokens and auth methods; default: this one' }),
    event_buffer_size: cfg.int({ default: 100, min: 0, doc: 'committed batches the event stream holds for replay and slow readers; 0 means 100' }),
    event_heartbeat_interval: cfg.duration({ min: 0.001, doc: "period of the event stream's `{}` heartbeat frames (Cairn key; the reference fixes 30s)" }),
    enable_event_broker: cfg.bool({ default: true, doc: 'serve GET /v1/event/stream' }),
    acl_token_gc_threshold: cfg.duration({ min: 1, doc: 'how long after expiring an ACL token is deleted by the leader; default 1h' }),
    encrypt: stateKeyField(),
    root_key_rotation_threshold: cfg.duration({
      min: 0.1,
      doc: 'age at which the active signing key is replaced; the next key is published at half of it; default 720h',
    }),
    root_key_gc_threshold: cfg.duration({
      min: 0.1,
      doc: 'how long a retired signing key stays published at least, once no live workload holds a token of it; default 1h',
    }),
    root_key_gc_interval: cfg.duration({ min: 0.05, doc: "period of the leader's keyring check (rotation, publication, collection); default 10m" }),
    oidc_issuer: cfg.string({
      doc: 'the `iss` of workload identities and the issuer of /.well-known/openid-configuration (an http(s) URL); default: none, no discovery document',
    }),
  }),
  plugin: cfg.labelled(
    {
      socket: cfg.string({ doc: "unix socket of the plugin's CSI gRPC endpoint (required for a CSI plugin)" }),
      type: cfg.string({ enum: ['controller', 'node', 'monolith'], doc: 'the CSI services the endpoint serves (required for a CSI plugin)' }),
      node_id: cfg.string({ doc: "ID of the scheduler node a node (or monolith) plugin serves; default: this agent's name" }),
      config: cfg.block({ enabled: cfg.bool({ doc: 'driver plugins (`raw_exec`, `exec`): whether the client offers the driver' }) }),
    },
    {
      repeated: true,
      doc: 'one CSI plugin endpoint (the label is the plugin ID; reference/sched.md §4.11, §4.12), or the task driver `raw_exec` / `exec` with `config { enabled }`',
    },
  ),
  client: cfg.block(clientBlockKeys, {
    doc: 'the client agent: runs the tasks of allocations placed on this node (reference/sched-workloads.md "Client agent")',
  }),
  vault: cfg.block(vaultBlockKeys, {
    doc: "the secrets service the client gets tasks' tokens from with their workload identities (the reference's `vault` block; client/vault-config.ts)",
  }),
  consul: cfg.block(consulBlockKeys, {
    doc: "the discovery agent the client registers its allocations' services with (the reference's `consul` block; docs/deploy.md)",
  }),
};

type Raw = ConfigOf<typeof schedAgentSchema>;

/** The agent's configuration, validated and typed. */
export interface SchedAgentConfig {
  readonly dataDir: string;
  readonly region: string;
  readonly datacenter: string;
  readonly nodeName: string;
  readonly logLevel: string;
  /** `host:port` of the HTTP listener. */
  readonly httpAddress: string;
  /** `ui { enabled = true }`: the HTTP listener serves the web UI's scheduler section at `/ui/`. */
  readonly ui?: boolean;
  /** `ui_services { <service> = "address" }`: the other services whose UI sections this server shows (kernel/config/ui-services.ts); absent without the block. */
  readonly uiServices?: UiServices;
  /**
   * The HTTP listener's timeouts and caps (`limits { http_read_header_timeout, http_read_timeout,
   * http_idle_timeout, http_max_conns, http_max_conns_per_client }`); absent: the kernel's
   * defaults, without a per-client cap (configs built in code, `cairn dev`).
   */
  readonly httpLimits?: ConnectionLimits;
  /** `storage "postgresql"`: the servers of this region share the state there; absent: SQLite in `dataDir`. */
  readonly storage?: AgentPostgresStorage;
  /** `server.encrypt`: the state key (32 bytes); absent: the key file `data_dir/sched-state.key`, made on first start. */
  readonly stateKey?: Uint8Array;
  /**
   * `advertise { http }`: what the other servers sharing the storage forward writes to: a
   * host (with the bound HTTP port) or, with `port`, a whole address. Absent: the bound address.
   */
  readonly advertiseHttp?: { readonly host: string; readonly port?: number };
  /** The region that owns ACL data (`server.authoritative_region`, default: this region). */
  readonly authoritativeRegion: string;
  /** Region → `host:port` of a server's HTTP API there (`region_addresses`). */
  readonly regionAddresses: Readonly<Record<string, string>>;
  readonly acl: {
    readonly enabled: boolean;
    /** Non-authoritative regions: the token replication presents to the authoritative one. */
    readonly replicationToken?: string;
  };
  /** Batches the event buffer holds (`server.event_buffer_size`; 0 means 100). */
  readonly eventBufferSize: number;
  readonly eventBroker: boolean;
  /**
   * Period of the event stream's `{}` heartbeat frames after the first, in ms; absent means
   * the reference's 30 s (reference/sched.md §3.2). `server.event_heartbeat_interval`.
   */
  readonly eventHeartbeatMs?: number;
  /** `server.acl_token_gc_threshold` in ms: how long after expiring a token is deleted; absent: the reference's 1 h. */
  readonly aclTokenGcThresholdMs?: number;
  /** CSI plugin endpoints (`plugin "<id>" { … }` blocks); absent: none. */
  readonly plugins?: readonly CsiPluginConfig[];
  /** The signing keyring's settings (keyring/keyring.ts); absent: the reference's defaults. */
  readonly keyring?: KeyringSettings;
  /** Which discovery identities jobs get at submit (`consul { task_identity / service_identity { enabled } }`); absent: both. */
  readonly consulIdentities?: ConsulIdentitySettings;
  /** Heartbeat TTL given to client nodes, in ms (`server.min_heartbeat_ttl`); absent means the reference's 10 s minimum. */
  readonly heartbeatTtlMs?: number;
  /** How long past the TTL the leader waits before marking a node down, in ms (`server.heartbeat_grace`); absent means the reference's 10 s. */
  readonly heartbeatGraceMs?: number;
  /**
   * Does this agent run a server (`server.enabled`)? False: a client-only agent (agent.ts):
   * no state of its own, its client talks to `client.servers` and its HTTP API serves only
   * the client endpoints. Absent means true (configs built in code).
   */
  readonly server?: boolean;
  /** Scheduler workers on the leader (evaluations run at once); absent means 2, `0` turns the scheduler off (tests of the jobs API's own writes). Not an HCL key. */
  readonly schedulerWorkers?: number;
  /** Period of the CSI plugins' probe and fingerprint, in ms; absent means 10 s. Not an HCL key: tests shorten it. */
  readonly pluginProbeIntervalMs?: number;
  /** `client { enabled = true … }` with the driver `plugin` blocks: this agent also runs a client (client/); absent: server only. */
  readonly client?: ClientConfig;
}

/** `server.root_key_*` and `server.oidc_issuer` (keyring/keyring.ts); every field absent means the reference's default. */
export interface KeyringSettings {
  /** `root_key_rotation_threshold` in ms; default 720 h. */
  readonly rotationThresholdMs?: number;
  /** `root_key_gc_threshold` in ms; default 1 h. */
  readonly gcThresholdMs?: number;
  /** `root_key_gc_interval` in ms; default 10 min. */
  readonly gcIntervalMs?: number;
  /** `oidc_issuer`: the identities' `iss` and the discovery document's issuer; absent: neither. */
  readonly oidcIssuer?: string;
}

/** One `plugin "<id>"` block: a CSI plugin endpoint the agent talks to (reference/sched.md §4.12). */
export interface CsiPluginConfig {
  /** The plugin ID (the block's label); several blocks may share one (a controller and its node plugins). */
  readonly id: string;
  /** Path of the plugin's unix socket. */
  readonly socket: string;
  /** The CSI services it serves: `controller`, `node` or both (`monolith`). */
  readonly type: 'controller' | 'node' | 'monolith';
  /** The scheduler node it serves (keys `Controllers` / `Nodes` of the plugin); absent: the agent's name. */
  readonly nodeId?: string;
}

/**
 * Parses and checks an agent config `text` (`file` names it in errors).
 * @throws {ConfigError} naming file, line and key.
 */
export function parseSchedAgentConfig(text: string, file: string, env: ConfigEnv = {}, hostName = 'cairn'): SchedAgentConfig {
  return fromRaw(parseConfig(text, file, schedAgentSchema), env, hostName);
}

/** Reads and checks the file at `path` (see {@link parseSchedAgentConfig}). @throws {ConfigError} */
export function loadSchedAgentConfig(path: string, env: ConfigEnv = {}, hostName = 'cairn'): SchedAgentConfig {
  return fromRaw(loadConfigFile(path, schedAgentSchema), env, hostName);
}

function fromRaw(raw: Raw, env: ConfigEnv, hostName: string): SchedAgentConfig {
  const client = clientConfigFrom(
    {
      block: raw.client,
      drivers: raw.plugin.filter((p) => isDriver(p.label)).map((p) => ({ label: p.label, enabled: p.body.config?.enabled })),
      consul: raw.consul,
      vault: raw.vault,
    },
    raw.data_dir,
    env,
  );
  const server = serverEnabled(raw, client);
  const host = raw.addresses?.http ?? '127.0.0.1';
  const authoritativeRegion = raw.server?.authoritative_region ?? raw.region;
  const regionAddresses = addressBlock(raw.region_addresses, raw.$at, { key: 'region_addresses', own: raw.region, what: 'region' });
  let replicationToken: string | undefined;
  if (raw.acl?.replication_token !== undefined) {
    try {
      replicationToken = resolveSecretRef(raw.acl.replication_token, env).trim();
    } catch (err) {
      throw blockError(raw.acl.$at, 'replication_token', `"replication_token": ${(err as Error).message}`);
    }
  }
  return {
    dataDir: raw.data_dir,
    region: raw.region,
    datacenter: raw.datacenter,
    nodeName: raw.name ?? hostName,
    logLevel: raw.log_level.toLowerCase(),
    httpAddress: `${host.includes(':') ? `[${host}]` : host}:${raw.ports?.http ?? 4646}`,
    ui: raw.ui?.enabled ?? false,
    ...(raw.ui_services && { uiServices: uiServicesFrom(raw.ui_services, 'sched', raw.ui?.enabled ?? false, 'ui { enabled = true }') }),
    httpLimits: limitsBlockFrom(raw.limits, HTTP_MAX_CONNS_PER_CLIENT),
    storage: raw.storage && agentPostgresStorage(raw.storage.body, env),
    stateKey: raw.server && agentStateKey(raw.server.encrypt, raw.server.$at, 'encrypt', env),
    ...(raw.advertise?.http !== undefined && { advertiseHttp: advertiseHttp(raw.advertise.http, raw.advertise.$at) }),
    authoritativeRegion,
    regionAddresses,
    acl: { enabled: raw.acl?.enabled ?? false, replicationToken },
    eventBufferSize: raw.server?.event_buffer_size ?? 100,
    ...(raw.server?.event_heartbeat_interval !== undefined && { eventHeartbeatMs: raw.server.event_heartbeat_interval * 1000 }),
    ...(raw.server?.acl_token_gc_threshold !== undefined && { aclTokenGcThresholdMs: raw.server.acl_token_gc_threshold * 1000 }),
    eventBroker: raw.server?.enable_event_broker ?? true,
    ...(raw.server?.min_heartbeat_ttl !== undefined && { heartbeatTtlMs: raw.server.min_heartbeat_ttl * 1000 }),
    ...(raw.server?.heartbeat_grace !== undefined && { heartbeatGraceMs: raw.server.heartbeat_grace * 1000 }),
    plugins: pluginsFrom(
      raw.plugin.filter((p) => !isDriver(p.label)),
      server,
    ),
    ...(raw.server && { keyring: keyringFrom(raw.server) }),
    consulIdentities: { task: raw.consul?.task_identity?.enabled ?? true, service: raw.consul?.service_identity?.enabled ?? true },
    client,
    server,
  };
}

/**
 * The keyring settings of the `server` block (seconds → ms). @throws {ConfigError} at the key's
 * line: `oidc_issuer` not an http(s) URL (or with a query or fragment);
 * `root_key_rotation_threshold` not longer than `root_key_gc_interval` (the key would be
 * replaced before the leader looks at it).
 */
function keyringFrom(s: NonNullable<Raw['server']>): KeyringSettings {
  const ms = (v: number | undefined) => (v === undefined ? undefined : v * 1000);
  const settings: KeyringSettings = {
    rotationThresholdMs: ms(s.root_key_rotation_threshold),
    gcThresholdMs: ms(s.root_key_gc_threshold),
    gcIntervalMs: ms(s.root_key_gc_interval),
    oidcIssuer: s.oidc_issuer,
  };
  if (s.oidc_issuer !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(s.oidc_issuer);
    } catch {
      url = undefined;
    }
    if (!url || !/^https?:$/.test(url.protocol) || url.search !== '' || url.hash !== '')
      throw blockError(s.$at, 'oidc_issuer', `"oidc_issuer": "${s.oidc_issuer}" is not an http or https URL without query or fragment`);
  }
  const rotation = settings.rotationThresholdMs;
  if (rotation !== undefined && settings.gcIntervalMs !== undefined && rotation <= settings.gcIntervalMs)
    throw blockError(s.$at, 'root_key_rotation_threshold', '"root_key_rotation_threshold" must be longer than root_key_gc_interval');
  return Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined)) as KeyringSettings;
}

/**
 * `server.enabled`; without a server block: false when the client lists servers (the
 * reference's client-only agent), else true. @throws {ConfigError} for a server turned off
 * without a client that lists the servers to talk to, or with a `storage` block.
 */
function serverEnabled(raw: Raw, client: ClientConfig | undefined): boolean {
  const enabled = raw.server ? raw.server.enabled : !(client && client.servers.length > 0);
  if (enabled) return true;
  if (!client)
    throw blockError(raw.server?.$at ?? raw.$at, 'enabled', 'a client-only agent (server disabled) needs client { enabled = true, servers = [...] }');
  if (client.servers.length === 0) throw blockError(raw.client!.$at, 'servers', '"servers": a client-only agent (no server) needs the servers\' host:port');
  if (raw.storage) throw blockError(raw.$at, 'storage', '"storage": a client-only agent (no server) keeps no state of the region');
  return false;
}

/** Is `plugin "<label>"` a task driver's block rather than a CSI plugin's? */
const isDriver = (label: string) => (DRIVER_PLUGINS as readonly string[]).includes(label);

/**
 * `advertise.http` as the reference reads it: `host`, `host:port`, `[v6]:port` or a bare IPv6
 * address (several colons, no brackets: a host). @throws {ConfigError} at the block for an
 * empty value or a port outside 1–65535.
 */
function advertiseHttp(value: string, at: BlockAt): { host: string; port?: number } {
  const fail = () => blockError(at, 'http', `"http": "${value}" is not a host or host:port`);
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(value) ?? /^([^:]+)(?::(\d+))?$/.exec(value);
  const [host, port] = m ? [m[1]!, m[2]] : value.includes(':') ? [value, undefined] : ['', undefined];
  if (host.trim() === '') throw fail();
  if (port === undefined) return { host };
  const n = Number(port);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw fail();
  return { host, port: n };
}

/**
 * The `plugin` blocks. @throws {ConfigError} at the block for an empty label or socket, for
 * two blocks that give one plugin ID the same role on the same node, and on a client-only
 * agent (`server` false) for a `controller` endpoint (controllers are driven by the servers)
 * or a `node_id` (its node plugins serve its own client's node).
 */
function pluginsFrom(blocks: Raw['plugin'], server: boolean): CsiPluginConfig[] {
  const seen = new Set<string>();
  return blocks.map(({ label, body }) => {
    if (label === '') throw blockError(body.$at, undefined, 'a plugin block needs a plugin ID as its label');
    // Not required by the schema (driver plugin blocks have neither), so checked here with the schema's text.
    if (body.socket === undefined) throw blockError(body.$at, undefined, `missing required key "socket" in plugin "${label}"`);
    if (body.socket === '') throw blockError(body.$at, 'socket', '"socket" must not be empty');
    if (body.type === undefined) throw blockError(body.$at, undefined, `missing required key "type" in plugin "${label}"`);
    const type = body.type;
    if (!server && type === 'controller')
      throw blockError(
        body.$at,
        'type',
        `"type": a client-only agent runs node plugins only ("node" or "monolith"); configure controller "${label}" on the servers`,
      );
    if (!server && body.node_id !== undefined)
      throw blockError(body.$at, 'node_id', `"node_id": a client-only agent's plugin "${label}" serves its own client's node`);
    for (const role of type === 'monolith' ? ['controller', 'node'] : [type]) {
      const key = `${label}\0${role}\0${body.node_id ?? ''}`;
      if (seen.has(key))
        throw blockError(body.$at, undefined, `plugin "${label}" already has a ${role} endpoint${body.node_id ? ` for node "${body.node_id}"` : ''}`);
      seen.add(key);
    }
    return { id: label, socket: body.socket, type, ...(body.node_id ? { nodeId: body.node_id } : {}) };
  });
}

/**
 * The scheduler of `cairn dev`: region `global`, ACLs on; the dev root token becomes its
 * management token (issue 6 scope 6).
 */
export function devSchedConfig(o: { dataDir: string; httpAddress: string }): SchedAgentConfig {
  return {
    dataDir: o.dataDir,
    region: 'global',
    datacenter: 'dc1',
    nodeName: 'dev',
    logLevel: 'info',
    httpAddress: o.httpAddress,
    authoritativeRegion: 'global',
    regionAddresses: {},
    acl: { enabled: true },
    eventBufferSize: 100,
    eventBroker: true,
  };
}

/**
 * The client of `cairn dev`, beside its scheduler: state and allocations under `schedDir`,
 * registering with the dev root token, `raw_exec` enabled (issue 19 scope 3: the tour runs a job),
 * registering its allocations' services with the dev discovery service at `meshAddress` (its
 * HTTP URL) as the root token, and, with `workloads`, its tasks' `vault` blocks logging in at
 * the secrets service (`secretsAddress`, its URL) on mount `jwtAuthBackendPath` and its tasks'
 * and services' identities at the discovery auth method `authMethod` (issue 27 scope 7; what
 * `cairn dev` wires: src/services/dev-workloads.ts).
 */
export function devClientConfig(
  schedDir: string,
  rootToken: string,
  o: { meshAddress?: string; workloads?: { secretsAddress: string; jwtAuthBackendPath: string; authMethod: string } } = {},
): ClientConfig {
  const { meshAddress, workloads } = o;
  return {
    // The dev discovery service: the client registers services with it as the management token.
    ...(meshAddress !== undefined && {
      consul: {
        address: meshAddress,
        token: rootToken,
        deregisterCriticalServiceAfter: '1m',
        ...(workloads && { serviceAuthMethod: workloads.authMethod, taskAuthMethod: workloads.authMethod }),
      },
    }),
    ...(workloads && {
      vault: { address: workloads.secretsAddress, jwtAuthBackendPath: workloads.jwtAuthBackendPath, namespace: '', createFromRole: '', tlsSkipVerify: false },
    }),
    servers: [],
    stateDir: `${schedDir}/client`,
    allocDir: `${schedDir}/alloc`,
    nodeClass: '',
    nodePool: 'default',
    meta: {},
    token: rootToken,
    drivers: { raw_exec: true, exec: true },
    // The tour's KV secret (no lease) is read again every 5 s, so a new version shows at once (default 5 m).
    template: { ...DEFAULT_CLIENT_TEMPLATE_CONFIG, secretPollIntervalMs: 5_000 },
  };
}
