/**
 * Ports as a resource dimension of placement (reference/integration.md §1; the reference's
 * `NetworkIndex` and `HostNetworkChecker`): what a node offers (its dynamic port range
 * `NodeResources.MinDynamicPort`–`MaxDynamicPort`, default 20000–32000, less
 * `ReservedResources.Networks.ReservedHostPorts`, on the addresses of its host networks
 * `NodeResources.NodeNetworks[].Addresses[]` by `Alias`), which ports its live allocations
 * hold (`AllocatedResources.Shared.Ports`), and the ports an allocation of a group gets on it.
 *
 * A port is held per address (`<HostIP>:<port>`), so two host networks of one node may give
 * the same number. Texts are the reference's: a static port held already is `reserved port
 * collision <label>=<port>` and no free port in the range `dynamic port selection failed`
 * (the scheduler prefixes `network: ` in `DimensionExhausted`); a port on a host network the
 * node lacks filters the node with `missing host network "<name>" for port "<label>"`.
 *
 * @module
 */
import { allocTerminal } from '../alloc.js';
import { DEFAULT_HOST_NETWORK, type NetworkResource, type Port, type PortMapping } from '../jobs/network.js';
import type { TaskGroup } from '../jobs/types.js';
import { parsePortSpec } from '../port-spec.js';
import type { NodeDoc } from '../state.js';
import type { SchedAlloc } from './resources.js';

/** The reference's default dynamic port range (`DefaultMinDynamicPort`, `DefaultMaxDynamicPort`). */
const DEFAULT_MIN_DYNAMIC_PORT = 20000;
const DEFAULT_MAX_DYNAMIC_PORT = 32000;
/** Random draws before the range is scanned (the reference's `maxRandPortAttempts`). */
const RANDOM_TRIES = 20;

/** What a node offers: its dynamic range, its reserved ports, and the address and device of each host network. */
interface NodePorts {
  readonly min: number;
  readonly max: number;
  readonly reserved: ReadonlySet<number>;
  readonly networks: ReadonlyMap<string, { readonly ip: string; readonly device: string }>;
}

const rec = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const port = (v: unknown, def: number): number => (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 65535 ? v : def);

/** Reserved ports from a port list the node sent; a list the servers cannot read reserves nothing (the client checked it). */
function reservedOf(spec: string): Set<number> {
  try {
    return parsePortSpec(spec);
  } catch {
    return new Set();
  }
}

/** The port settings of node `n` (see the module doc); the node's `NodeResources.Networks[0].IP` is the `default` network when `NodeNetworks` names none. */
function nodePorts(n: Pick<NodeDoc, 'NodeResources' | 'ReservedResources'>): NodePorts {
  const res = rec(n.NodeResources);
  const networks = new Map<string, { ip: string; device: string }>();
  for (const nn of list(res.NodeNetworks)) {
    for (const a of list(rec(nn).Addresses)) {
      const ip = str(rec(a).Address);
      const alias = str(rec(a).Alias) || DEFAULT_HOST_NETWORK;
      if (ip !== '' && !networks.has(alias)) networks.set(alias, { ip, device: str(rec(nn).Device) });
    }
  }
  const first = rec(list(res.Networks)[0]);
  if (!networks.has(DEFAULT_HOST_NETWORK) && str(first.IP) !== '') networks.set(DEFAULT_HOST_NETWORK, { ip: str(first.IP), device: str(first.Device) });
  const min = port(res.MinDynamicPort, DEFAULT_MIN_DYNAMIC_PORT);
  const max = port(res.MaxDynamicPort, DEFAULT_MAX_DYNAMIC_PORT);
  return {
    min: Math.min(min, max),
    max: Math.max(min, max),
    reserved: reservedOf(str(rec(rec(n.ReservedResources).Networks).ReservedHostPorts)),
    networks,
  };
}

const allPorts = (tg: TaskGroup): Port[] => (tg.Networks ?? []).flatMap((n) => [...(n.ReservedPorts ?? []), ...(n.DynamicPorts ?? [])]);

/** Why node `n` cannot run `tg`'s ports at all: `missing host network "<name>" for port "<label>"` (a `ConstraintFiltered` key), or undefined. */
export function hostNetworkReason(n: NodeDoc, tg: TaskGroup): string | undefined {
  const ports = allPorts(tg);
  if (ports.length === 0) return undefined;
  const { networks } = nodePorts(n);
  const missing = ports.find((p) => !networks.has(p.HostNetwork || DEFAULT_HOST_NETWORK));
  return missing && `missing host network ${JSON.stringify(missing.HostNetwork || DEFAULT_HOST_NETWORK)} for port ${JSON.stringify(missing.Label)}`;
}

/** The key of a held port. */
const key = (ip: string, value: number) => `${ip}:${value}`;

/** The ports allocation `a` holds (`<HostIP>:<port>` keys); none for a terminal one. */
export function allocPortKeys(a: SchedAlloc): string[] {
  if (allocTerminal(a)) return [];
  return (a.AllocatedResources?.Shared.Ports ?? []).map((p) => key(p.HostIP, p.Value));
}

/** What an allocation of a group gets on a node: `AllocatedResources.Shared.Ports` and `.Networks`. */
export interface PortOffer {
  readonly Ports: PortMapping[];
  readonly Networks: NetworkResource[];
}

/**
 * The ports an allocation of `tg` gets on node `n` where `used` are held (module doc): its
 * static ports, and a free port of the node's range for each dynamic one (drawn at random, so
 * plans made at once rarely pick the same; the plan applier refuses the ones that do).
 * Returns `{ offer }` (undefined for a group without a network), or `{ exhausted }` with the
 * reference's text.
 */
export function assignPorts(
  tg: TaskGroup,
  n: NodeDoc,
  used: ReadonlySet<string>,
  random: () => number = Math.random,
): { offer?: PortOffer; exhausted?: string } {
  const nets = tg.Networks ?? [];
  if (nets.length === 0) return {};
  const node = nodePorts(n);
  const taken = new Set(used);
  const ipOf = (p: Port) => node.networks.get(p.HostNetwork || DEFAULT_HOST_NETWORK)?.ip ?? '';
  const free = (ip: string, value: number) => !node.reserved.has(value) && !taken.has(key(ip, value));
  const ports: PortMapping[] = [];
  const networks: NetworkResource[] = [];
  for (const net of nets) {
    const reserved: Port[] = [];
    for (const p of net.ReservedPorts ?? []) {
      const ip = ipOf(p);
      if (!free(ip, p.Value)) return { exhausted: `reserved port collision ${p.Label}=${p.Value}` };
      taken.add(key(ip, p.Value));
      reserved.push(p);
      ports.push({ Label: p.Label, Value: p.Value, To: p.To, HostIP: ip });
    }
    const dynamic: Port[] = [];
    for (const p of net.DynamicPorts ?? []) {
      const ip = ipOf(p);
      const value = pickDynamic(node, (v) => free(ip, v), random);
      if (value === undefined) return { exhausted: 'dynamic port selection failed' };
      taken.add(key(ip, value));
      dynamic.push({ ...p, Value: value });
      // `To: -1` is the reference's "the same as the host port".
      ports.push({ Label: p.Label, Value: value, To: p.To === -1 ? value : p.To, HostIP: ip });
    }
    const home = node.networks.get(DEFAULT_HOST_NETWORK);
    networks.push({
      ...net,
      Device: home?.device ?? '',
      IP: home?.ip ?? '',
      CIDR: home ? `${home.ip}/${home.ip.includes(':') ? 128 : 32}` : '',
      ReservedPorts: reserved.length > 0 ? reserved : null,
      DynamicPorts: dynamic.length > 0 ? dynamic : null,
    });
  }
  return { offer: { Ports: ports, Networks: networks } };
}

/** A free port of the node's dynamic range: random draws first, then a scan from a random start; undefined when none is free. */
function pickDynamic(node: NodePorts, free: (v: number) => boolean, random: () => number): number | undefined {
  const size = node.max - node.min + 1;
  for (let i = 0; i < RANDOM_TRIES; i++) {
    const v = node.min + Math.floor(random() * size);
    if (free(v)) return v;
  }
  const start = Math.floor(random() * size);
  for (let i = 0; i < size; i++) {
    const v = node.min + ((start + i) % size);
    if (free(v)) return v;
  }
  return undefined;
}
