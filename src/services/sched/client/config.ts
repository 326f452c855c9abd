/**
 * The client agent's configuration: the reference's `client { … }` block and its driver
 * `plugin "raw_exec" { config { enabled = true } }` / `plugin "exec" { … }` blocks
 * (reference/sched-workloads.md "Client agent"), parsed by the agent's schema (config.ts)
 * and turned into {@link ClientConfig} here.
 *
 * ```hcl
 * client {
 *   enabled    = true
 *   servers    = ["10.0.0.10:4646"]   # default: this agent's own HTTP API
 *   state_dir  = "/var/lib/cairn/sched/client"   # default: <data_dir>/client
 *   alloc_dir  = "/var/lib/cairn/sched/alloc"    # default: <data_dir>/alloc
 *   node_class = "web"
 *   node_pool  = "default"
 *   meta { rack = "r1" }
 *   cpu_total_compute = 8000           # MHz; default: cores × MHz fingerprinted
 *   memory_total_mb   = 16384          # default: the host's memory
 *   token = "env://CAIRN_SCHED_CLIENT_TOKEN"   # Cairn: a token with node:write to register with when ACLs are on
 *   # Ports of group networks (reference/integration.md §1; docs/deploy.md "Client ports"):
 *   min_dynamic_port  = 20000          # the range dynamic ports are chosen from (default 20000–32000)
 *   max_dynamic_port  = 32000
 *   reserved { reserved_ports = "22,80,8500-8600" }   # never given to an allocation
 *   network_interface = "eth0"         # the "default" host network's address; default: the default route's interface
 *   host_network "private" { cidr = "10.0.0.0/8" }   # or interface = "eth1": a port's host_network = "private"
 *   template { wait { min = "5s" max = "4m" } }   # template-config.ts
 * }
 * plugin "raw_exec" { config { enabled = true } }
 * consul {                             # the discovery agent beside the client (reference: the `consul` block)
 *   address = "127.0.0.1:8500"         # default; http(s)://host:port or host:port
 *   token   = "env://CAIRN_MESH_TOKEN" # service:write, agent:read and node:read; env:// and file:// accepted
 *   deregister_critical_service_after = "1m"  # Cairn: how long a dead client's instances stay (critical)
 *   service_auth_method = "cairn-workloads"   # services' identities log in here (client/services/)
 *   task_auth_method    = "cairn-workloads"   # tasks' consul_default logs in here (discovery-token.ts)
 *   service_identity { enabled = true }       # servers: implicit identities at submit (jobs/consul-identities.ts)
 *   task_identity    { enabled = true }
 * }
 * vault {                              # the secrets service tasks' vault blocks log in at (vault-config.ts)
 *   address = "http://127.0.0.1:8200"  jwt_auth_backend_path = "jwt-workloads"
 * }
 * ```
 *
 * @module
 */
import { blockError, cfg, resolveSecretRef, type BlockAt, type ConfigEnv } from '../../../kernel/config/index.js';
import { parseCidrList } from '../../../kernel/util/cidr.js';
import { parsePortSpec } from '../port-spec.js';
import { parseGoDuration } from '../../../kernel/util/go-duration.js';
import type { DiscoverySettings } from './services/discovery.js';
import { templateBlockKeys, templateConfigFrom, type ClientTemplateConfig, type TemplateRaw } from './template-config.js';
import { vaultSettingsFrom, type VaultBlockRaw, type VaultClientSettings } from './vault-config.js';

/** The discovery agent the client registers services with when the configuration names none (the reference's default). */
const DEFAULT_DISCOVERY_ADDRESS = '127.0.0.1:8500';

/** The `consul` block's schema: the discovery agent beside the client (reference/integration.md §2). */
export const consulBlockKeys = {
  address: cfg.string({ doc: 'http(s)://host:port or host:port of the discovery agent beside this client; default 127.0.0.1:8500' }),
  token: cfg.string({ doc: 'ACL token the client registers services with (service:write, agent:read, node:read); env:// and file:// accepted' }),
  deregister_critical_service_after: cfg.string({
    doc: "Cairn: how long the instances of a client that stopped heartbeating stay (critical) before the agent removes them; a Go duration, default 1m (the agent's minimum)",
  }),
  service_auth_method: cfg.string({ doc: 'the JWT auth method services log in at with their service identity (client); default "cairn-workloads"' }),
  task_auth_method: cfg.string({ doc: 'the JWT auth method tasks with a consul block log in at with consul_default (client); default "cairn-workloads"' }),
  service_identity: cfg.block(
    { enabled: cfg.bool({ doc: 'add a service identity to every consul service at submit; default true' }) },
    { doc: "servers: the services' implicit identities (reference `consul.service_identity`; jobs/consul-identities.ts)" },
  ),
  task_identity: cfg.block(
    { enabled: cfg.bool({ doc: 'add consul_default to every task with a consul block at submit; default true' }) },
    { doc: "servers: the tasks' implicit consul_default identity (reference `consul.task_identity`; jobs/consul-identities.ts)" },
  ),
};

/** The JWT auth method name both logins use unless configured (the reference's `nomad-workloads` under Cairn's name). */
export const DEFAULT_WORKLOADS_AUTH_METHOD = 'cairn-workloads';

/** Driver plugin labels: `plugin "<label>"` with these labels configure a task driver, not a CSI plugin. */
export const DRIVER_PLUGINS = ['raw_exec', 'exec'] as const;

/** The `client` block's schema (kernel/config/schema.ts). */
export const clientBlockKeys = {
  enabled: cfg.bool({ default: false, doc: 'run a client on this agent: fingerprint, register, run allocated tasks' }),
  servers: cfg.list('string', { doc: "host:port of the servers' HTTP API; default: this agent itself" }),
  state_dir: cfg.string({ doc: "the client's state (node identity, task processes); default <data_dir>/client" }),
  alloc_dir: cfg.string({ doc: 'allocation directories; default <data_dir>/alloc' }),
  node_class: cfg.string({ doc: "the node's class (constraints may use ${node.class})" }),
  node_pool: cfg.string({ doc: 'the node\'s pool; default "default"' }),
  meta: cfg.raw({ doc: 'node metadata: string keys and values' }),
  cpu_total_compute: cfg.int({ min: 1, doc: 'CPU in MHz the node offers; default cores × MHz' }),
  memory_total_mb: cfg.int({ min: 1, doc: "memory in MiB the node offers; default the host's" }),
  token: cfg.string({ doc: 'Cairn: token (node:write) the client registers with when ACLs are on; env:// and file:// accepted' }),
  min_dynamic_port: cfg.int({ min: 1, max: 65535, doc: 'lowest port given to dynamic ports of group networks; default 20000' }),
  max_dynamic_port: cfg.int({ min: 1, max: 65535, doc: 'highest port given to dynamic ports of group networks; default 32000' }),
  reserved: cfg.block(
    { reserved_ports: cfg.string({ doc: 'host ports never given to an allocation: "22,80,8000-8100"' }) },
    { doc: 'what the node keeps for itself' },
  ),
  network_interface: cfg.string({ doc: 'the interface whose address is the "default" host network; default: the interface of the default route' }),
  host_network: cfg.labelled(
    { cidr: cfg.string({ doc: 'the address of this node within this CIDR' }), interface: cfg.string({ doc: 'the address of this interface' }) },
    { repeated: true, doc: 'a named host network a port may ask for with host_network = "<name>"' },
  ),
  template: cfg.block(templateBlockKeys, { doc: "how tasks' templates wait, query and retry (template-config.ts; the reference's client `template` block)" }),
};

/** A named host network: its address is the node's address within `cidr`, or on `interface`. */
interface HostNetworkConfig {
  readonly name: string;
  readonly cidr?: string;
  readonly interface?: string;
}

/** The client's port settings (fingerprint.ts reports them on the node; the scheduler chooses ports by them). */
export interface ClientNetworkConfig {
  readonly minDynamicPort: number;
  readonly maxDynamicPort: number;
  /** The reference's port list text, checked (port-spec.ts); `""` none. */
  readonly reservedPorts: string;
  /** Absent: the default route's interface. */
  readonly networkInterface?: string;
  readonly hostNetworks: readonly HostNetworkConfig[];
}

/** Validated client settings. */
export interface ClientConfig {
  /** `host:port` of each server; empty: this agent's own HTTP API. */
  readonly servers: readonly string[];
  readonly stateDir: string;
  readonly allocDir: string;
  readonly nodeClass: string;
  readonly nodePool: string;
  readonly meta: Readonly<Record<string, string>>;
  /** MHz; absent: fingerprinted. */
  readonly cpuTotalCompute?: number;
  /** MiB; absent: fingerprinted. */
  readonly memoryTotalMb?: number;
  /** Token used to register (ACLs on); absent: none sent. */
  readonly token?: string;
  /** Ports of group networks; absent: the defaults (range 20000–32000, nothing reserved, the default route's interface). */
  readonly network?: ClientNetworkConfig;
  /** Which drivers are enabled: `raw_exec` only with `plugin "raw_exec" { config { enabled = true } }`; `exec` unless disabled. */
  readonly drivers: { readonly raw_exec: boolean; readonly exec: boolean };
  /**
   * The discovery agent services are registered with (`consul { … }`); absent: the
   * reference's default `127.0.0.1:8500` without a token, reached only once an allocation has
   * a service (client/services/discovery.ts).
   */
  readonly consul?: DiscoverySettings;
  /** The `template { … }` block (template-config.ts); absent: the reference's defaults. */
  readonly template?: ClientTemplateConfig;
  /** The secrets service tasks with a `vault` block get their token from (`vault { … }`, vault-config.ts); absent: such tasks are not placed here. */
  readonly vault?: VaultClientSettings;
}

/** The discovery settings of a client without a `consul` block. */
export function defaultDiscovery(): DiscoverySettings {
  return { address: DEFAULT_DISCOVERY_ADDRESS, deregisterCriticalServiceAfter: '1m' };
}

/** What config.ts hands over: the parsed `client` block and the driver plugin blocks. */
export interface ClientRaw {
  readonly block:
    | {
        readonly enabled: boolean;
        readonly servers?: readonly string[];
        readonly state_dir?: string;
        readonly alloc_dir?: string;
        readonly node_class?: string;
        readonly node_pool?: string;
        readonly meta?: unknown;
        readonly cpu_total_compute?: number;
        readonly memory_total_mb?: number;
        readonly token?: string;
        readonly min_dynamic_port?: number;
        readonly max_dynamic_port?: number;
        readonly reserved?: { readonly reserved_ports?: string; readonly $at: BlockAt };
        readonly network_interface?: string;
        readonly host_network: readonly {
          readonly label: string;
          readonly body: { readonly cidr?: string; readonly interface?: string; readonly $at: BlockAt };
        }[];
        readonly template?: TemplateRaw;
        readonly $at: BlockAt;
      }
    | undefined;
  /** `plugin "raw_exec"` / `plugin "exec"` blocks: their `config.enabled`. */
  readonly drivers: readonly { readonly label: string; readonly enabled: boolean | undefined }[];
  /** The `consul` block. */
  readonly consul?: {
    readonly address?: string;
    readonly token?: string;
    readonly deregister_critical_service_after?: string;
    readonly service_auth_method?: string;
    readonly task_auth_method?: string;
    readonly $at: BlockAt;
  };
  /** The `vault` block. */
  readonly vault?: VaultBlockRaw;
}

/** The `consul` block's settings. @throws {ConfigError} at the key: an address that is not host:port, a bad token reference or duration. */
function discoveryFrom(b: NonNullable<ClientRaw['consul']>, env: ConfigEnv): DiscoverySettings {
  const address = b.address ?? DEFAULT_DISCOVERY_ADDRESS;
  if (!/^(https?:\/\/)?(\[[^\]]+\]|[^:\s/]+):\d{1,5}$/.test(address))
    throw blockError(b.$at, 'address', `"address": "${address}" is not host:port or http(s)://host:port`);
  let token: string | undefined;
  if (b.token !== undefined) {
    try {
      token = resolveSecretRef(b.token, env).trim();
    } catch (err) {
      throw blockError(b.$at, 'token', `"token": ${(err as Error).message}`);
    }
  }
  const after = b.deregister_critical_service_after ?? '1m';
  if (typeof parseGoDuration(after) === 'string')
    throw blockError(b.$at, 'deregister_critical_service_after', `"deregister_critical_service_after": "${after}" is not a duration such as "1m"`);
  return {
    address,
    ...(token !== undefined && { token }),
    deregisterCriticalServiceAfter: after,
    serviceAuthMethod: b.service_auth_method || DEFAULT_WORKLOADS_AUTH_METHOD,
    taskAuthMethod: b.task_auth_method || DEFAULT_WORKLOADS_AUTH_METHOD,
  };
}

/**
 * The client settings, or undefined when `client.enabled` is not true.
 * @throws {ConfigError} at the block: a server address that is not `host:port`, `meta`
 *   values that are not strings, an unresolvable `token` reference, `min_dynamic_port`
 *   above `max_dynamic_port`, a `reserved_ports` that is not a port list, a `host_network`
 *   with neither or both of `cidr` and `interface`, or a bad `cidr`.
 */
export function clientConfigFrom(raw: ClientRaw, dataDir: string, env: ConfigEnv): ClientConfig | undefined {
  const b = raw.block;
  if (!b?.enabled) return undefined;
  for (const s of b.servers ?? []) {
    if (!/^(\[[^\]]+\]|[^:\s]+):\d{1,5}$/.test(s)) throw blockError(b.$at, 'servers', `"servers": "${s}" is not host:port`);
  }
  const meta: Record<string, string> = {};
  if (b.meta !== undefined) {
    const m = Array.isArray(b.meta) ? Object.assign({}, ...(b.meta as object[])) : b.meta;
    if (typeof m !== 'object' || m === null) throw blockError(b.$at, 'meta', '"meta" must be a block of string values');
    for (const [k, v] of Object.entries(m as Record<string, unknown>)) {
      if (typeof v !== 'string') throw blockError(b.$at, 'meta', `"meta": value of "${k}" must be a string`);
      meta[k] = v;
    }
  }
  let token: string | undefined;
  if (b.token !== undefined) {
    try {
      token = resolveSecretRef(b.token, env).trim();
    } catch (err) {
      throw blockError(b.$at, 'token', `"token": ${(err as Error).message}`);
    }
  }
  const network = networkConfigFrom(b);
  const enabled = (label: string, dflt: boolean) => raw.drivers.find((d) => d.label === label)?.enabled ?? dflt;
  return {
    servers: b.servers ?? [],
    stateDir: b.state_dir ?? `${dataDir}/client`,
    allocDir: b.alloc_dir ?? `${dataDir}/alloc`,
    nodeClass: b.node_class ?? '',
    nodePool: b.node_pool ?? 'default',
    meta,
    ...(b.cpu_total_compute !== undefined && { cpuTotalCompute: b.cpu_total_compute }),
    ...(b.memory_total_mb !== undefined && { memoryTotalMb: b.memory_total_mb }),
    ...(token !== undefined && { token }),
    network,
    drivers: { raw_exec: enabled('raw_exec', false), exec: enabled('exec', true) },
    ...(raw.consul && { consul: discoveryFrom(raw.consul, env) }),
    ...(raw.vault && vaultOf(raw.vault)),
    ...(b.template && { template: templateConfigFrom(b.template) }),
  };
}

/** `{ vault }` of an enabled `vault` block, else nothing. */
function vaultOf(b: VaultBlockRaw): { vault?: VaultClientSettings } {
  const vault = vaultSettingsFrom(b);
  return vault ? { vault } : {};
}

/** The port settings of a `client` block (see {@link clientConfigFrom} for what it refuses). */
function networkConfigFrom(b: NonNullable<ClientRaw['block']>): ClientNetworkConfig {
  const min = b.min_dynamic_port ?? 20000;
  const max = b.max_dynamic_port ?? 32000;
  if (min > max) throw blockError(b.$at, 'min_dynamic_port', `"min_dynamic_port" (${min}) is above "max_dynamic_port" (${max})`);
  const reserved = b.reserved?.reserved_ports ?? '';
  try {
    parsePortSpec(reserved);
  } catch (err) {
    throw blockError(b.reserved!.$at, 'reserved_ports', `"reserved_ports": ${(err as Error).message}`);
  }
  const hostNetworks = b.host_network.map(({ label, body }) => {
    if ((body.cidr === undefined) === (body.interface === undefined))
      throw blockError(body.$at, 'cidr', `host_network "${label}": give one of "cidr" and "interface"`);
    if (body.cidr !== undefined) {
      try {
        parseCidrList([body.cidr], 'cidr');
      } catch (err) {
        throw blockError(body.$at, 'cidr', `host_network "${label}": ${(err as Error).message}`);
      }
    }
    return { name: label, ...(body.cidr !== undefined && { cidr: body.cidr }), ...(body.interface !== undefined && { interface: body.interface }) };
  });
  return {
    minDynamicPort: min,
    maxDynamicPort: max,
    reservedPorts: reserved,
    ...(b.network_interface !== undefined && { networkInterface: b.network_interface }),
    hostNetworks,
  };
}
