/**
 * The client's host networks and port settings as its node reports them (reference/integration.md
 * §1; the reference's network fingerprint and `NodeResources`): the address of the `default`
 * host network (the `network_interface` setting's, else the interface of the default route,
 * else the first non-loopback IPv4 address, else 127.0.0.1), each `host_network` by `cidr` or
 * `interface`, the dynamic port range and the reserved ports. The scheduler reads them
 * (scheduler/ports.ts).
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import { addressInCidrs, parseCidrList } from '../../../kernel/util/cidr.js';
import type { ClientNetworkConfig } from './config.js';

/** One address of a host network (reference `NodeNetworkAddress`). */
interface NodeNetworkAddress {
  readonly Family: string;
  readonly Alias: string;
  readonly Address: string;
  readonly ReservedPorts: string;
  readonly Gateway: string;
}

/** What the fingerprint adds to the node's `NodeResources` and `ReservedResources`. */
export interface NetworkFingerprint {
  readonly resources: {
    /** The default network (reference `NodeResources.Networks`). */
    readonly Networks: readonly { readonly Mode: string; readonly Device: string; readonly CIDR: string; readonly IP: string; readonly MBits: number }[];
    readonly NodeNetworks: readonly {
      readonly Mode: string;
      readonly Device: string;
      readonly Speed: number;
      readonly Addresses: readonly NodeNetworkAddress[];
    }[];
    readonly MinDynamicPort: number;
    readonly MaxDynamicPort: number;
  };
  readonly reserved: { readonly Networks: { readonly ReservedHostPorts: string } };
}

type Interfaces = Readonly<Record<string, readonly NetworkInterfaceInfo[] | undefined>>;

/** The interface of the IPv4 default route (`/proc/net/route`, Linux); undefined elsewhere or without one. */
function defaultRouteInterface(): string | undefined {
  try {
    const lines = readFileSync('/proc/net/route', 'utf8').split('\n').slice(1);
    return lines.map((l) => l.trim().split(/\s+/)).find((f) => f[1] === '00000000')?.[0];
  } catch {
    return undefined;
  }
}

/** The first IPv4 (else any) address of interface `name`. */
function addressOf(ifaces: Interfaces, name: string): string | undefined {
  const list = ifaces[name] ?? [];
  return (list.find((a) => a.family === 'IPv4') ?? list[0])?.address;
}

/** The `default` network's interface and address (module doc). */
function defaultAddress(ifaces: Interfaces, configured: string | undefined): { device: string; ip: string } {
  for (const name of [configured, configured === undefined ? defaultRouteInterface() : undefined]) {
    const ip = name === undefined ? undefined : addressOf(ifaces, name);
    if (name !== undefined && ip !== undefined) return { device: name, ip };
  }
  for (const [name, list] of Object.entries(ifaces)) {
    const a = list?.find((x) => x.family === 'IPv4' && !x.internal);
    if (a) return { device: name, ip: a.address };
  }
  return { device: 'lo', ip: '127.0.0.1' };
}

const address = (alias: string, ip: string): NodeNetworkAddress => ({
  Family: ip.includes(':') ? 'ipv6' : 'ipv4',
  Alias: alias,
  Address: ip,
  ReservedPorts: '',
  Gateway: '',
});

/**
 * The node's networks from `config` (defaults when absent) and this host's interfaces
 * (`ifaces`: tests pass their own). A `host_network` no address matches is left out: ports
 * that ask for it are not placed on this node.
 */
export function networkFingerprint(config: ClientNetworkConfig | undefined, ifaces: Interfaces = networkInterfaces()): NetworkFingerprint {
  const home = defaultAddress(ifaces, config?.networkInterface);
  const byDevice = new Map<string, NodeNetworkAddress[]>([[home.device, [address('default', home.ip)]]]);
  for (const hn of config?.hostNetworks ?? []) {
    let found: { device: string; ip: string } | undefined;
    if (hn.interface !== undefined) {
      const ip = addressOf(ifaces, hn.interface);
      if (ip !== undefined) found = { device: hn.interface, ip };
    } else if (hn.cidr !== undefined) {
      const cidrs = parseCidrList([hn.cidr], 'cidr');
      for (const [device, list] of Object.entries(ifaces)) {
        const a = list?.find((x) => addressInCidrs(x.address, cidrs));
        if (a && !found) found = { device, ip: a.address };
      }
    }
    if (found) byDevice.set(found.device, [...(byDevice.get(found.device) ?? []), address(hn.name, found.ip)]);
  }
  return {
    resources: {
      Networks: [{ Mode: 'host', Device: home.device, CIDR: `${home.ip}/${home.ip.includes(':') ? 128 : 32}`, IP: home.ip, MBits: 1000 }],
      NodeNetworks: [...byDevice].map(([device, addresses]) => ({ Mode: 'host', Device: device, Speed: 1000, Addresses: addresses })),
      MinDynamicPort: config?.minDynamicPort ?? 20000,
      MaxDynamicPort: config?.maxDynamicPort ?? 32000,
    },
    reserved: { Networks: { ReservedHostPorts: config?.reservedPorts ?? '' } },
  };
}
