/**
 * A task group's `network` block (reference/integration.md §1, the reference's
 * `job > group > network`): its HCL keys, its JSON (`TaskGroup.Networks[]`, each a
 * `NetworkResource` with `ReservedPorts` for static ports and `DynamicPorts` for the ones the
 * scheduler chooses, each a `Port {Label, Value, To, HostNetwork}`), and its checks.
 *
 * ```hcl
 * group "web" {
 *   network {
 *     mode = "host"                      # the only mode Cairn runs (docs/compatibility.md)
 *     port "http" {}                     # dynamic: chosen at placement from the client's range
 *     port "admin" { static = 8080 }     # this host port, or the group cannot be placed
 *     port "db" { to = 5432  host_network = "private" }
 *   }
 * }
 * ```
 *
 * `Value` is 0 for a dynamic port until placement; `To` 0 when not mapped (`-1` is the
 * reference's "same as the host port"); `HostNetwork` `"default"` when not named, as the
 * reference's canonical job shows it.
 *
 * @module
 */
import type { Body } from './hcl-values.js';
import { ConfigError, type BlockAt } from '../../../kernel/config/index.js';
import { jsonKind } from '../../../kernel/util/go-struct.js';
import { isObject } from '../../../kernel/util/is-object.js';
import { decodeGoStruct, fieldOf } from '../go-struct.js';
import { schedBadRequest } from '../http.js';

/** One port of a group network (reference `structs.Port`): `Value` the host port (0: dynamic, not chosen yet), `To` the task's side (0: not mapped). */
export interface Port {
  readonly Label: string;
  readonly Value: number;
  readonly To: number;
  readonly HostNetwork: string;
}

/** A group network, or an allocation's (reference `structs.NetworkResource`); `DNS` and the bridge fields stay empty in host mode. */
export interface NetworkResource {
  readonly Mode: string;
  readonly Device: string;
  readonly CIDR: string;
  readonly IP: string;
  readonly Hostname: string;
  readonly MBits: number;
  readonly DNS: null;
  readonly ReservedPorts: readonly Port[] | null;
  readonly DynamicPorts: readonly Port[] | null;
}

/** A port given to an allocation (reference `AllocatedPortMapping`, in `AllocatedResources.Shared.Ports`): `Value` the host port, `To` the mapped one (0: none), `HostIP` the address it is bound on. */
export interface PortMapping {
  readonly Label: string;
  readonly Value: number;
  readonly To: number;
  readonly HostIP: string;
}

/** The host network a port binds on when it names none (the reference's). */
export const DEFAULT_HOST_NETWORK = 'default';
/** The only network mode Cairn runs: the task shares the host's network namespace. */
const HOST_MODE = 'host';
/** A label: it becomes part of environment variable names (`CAIRN_PORT_<label>`). */
const LABEL = /^[A-Za-z0-9_]+$/;
/** Ports of one group network: more is a mistake, not a workload (Cairn's own bound). */
const MAX_PORTS = 64;

/** The `network` block's HCL keys (jobs/hcl.ts adds them to a group's). */
export const NETWORK_HCL_KEYS = {
  network: {
    kind: 'block',
    repeated: true,
    keys: {
      mode: { kind: 'string' },
      port: {
        kind: 'block',
        labelled: true,
        repeated: true,
        keys: { static: { kind: 'int' }, to: { kind: 'raw' }, host_network: { kind: 'string' } },
      },
    },
  },
} as const;

function hclIssue(at: BlockAt, key: string, message: string): ConfigError {
  return new ConfigError([{ file: at.file, line: at.keyLines[key] ?? at.line, key, message }]);
}

/** A port's `to`: an integer, or a string holding one (the reference documents it as a string). @throws ConfigError at its line. */
function hclTo(p: Body): number | undefined {
  const v = p.to;
  if (v === undefined || v === null) return undefined;
  const n = typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v.trim()) : v;
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw hclIssue(p.$at, 'to', `"to" must be a port number, got ${JSON.stringify(v)}`);
  return n;
}

/**
 * A group body's `network` blocks as the group's `Networks` JSON (undefined when it has none).
 * @throws ConfigError at the line: a mode other than `host`, a `to` that is not a number.
 */
export function hclNetworks(group: Body): Record<string, unknown>[] | undefined {
  const blocks = group.network as Body[] | undefined;
  if (!blocks || blocks.length === 0) return undefined;
  return blocks.map((n) => {
    if (n.mode !== undefined && n.mode !== HOST_MODE) throw hclIssue(n.$at, 'mode', `"mode": only "host" is supported, got ${JSON.stringify(n.mode)}`);
    const ports = (n.port as { label: string; body: Body }[]).map(({ label, body }) => ({
      Label: label,
      Value: body.static ?? 0,
      To: hclTo(body) ?? 0,
      HostNetwork: body.host_network ?? DEFAULT_HOST_NETWORK,
      static: body.static !== undefined,
    }));
    const strip = (list: typeof ports) => list.map(({ static: _s, ...p }) => p);
    const reserved = strip(ports.filter((p) => p.static));
    const dynamic = strip(ports.filter((p) => !p.static));
    return {
      Mode: n.mode ?? HOST_MODE,
      ...(reserved.length > 0 && { ReservedPorts: reserved }),
      ...(dynamic.length > 0 && { DynamicPorts: dynamic }),
    };
  });
}

function decodePorts(v: unknown, path: string): Port[] | null {
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v)) throw schedBadRequest(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${path} of type []api.Port`);
  const out = v.flatMap((p) => {
    if (p === null) return [];
    const d = decodeGoStruct(p, path, { Label: 'string', Value: 'int', To: 'int', HostNetwork: 'string' });
    return [{ Label: d.Label as string, Value: d.Value as number, To: d.To as number, HostNetwork: (d.HostNetwork as string) || DEFAULT_HOST_NETWORK }];
  });
  return out.length > 0 ? out : null;
}

/**
 * `TaskGroup.Networks` from a job's JSON (Go's decoder rules: names in any case, unknown
 * fields ignored), with `Mode` `host` and `HostNetwork` `default` when empty; undefined when
 * absent or empty. @throws 400 Go's decoder text naming the field for a value of the wrong kind.
 */
export function decodeNetworks(raw: Record<string, unknown>, path: string): NetworkResource[] | undefined {
  const v = fieldOf(raw, 'Networks');
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw schedBadRequest(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${path}.Networks of type []*api.NetworkResource`);
  const out = v.flatMap((n) => {
    if (n === null) return [];
    if (!isObject(n)) throw schedBadRequest(`json: cannot unmarshal ${jsonKind(n)} into Go struct field ${path}.Networks of type api.NetworkResource`);
    const d = decodeGoStruct(n, `${path}.Networks`, { Mode: 'string', Device: 'string', CIDR: 'string', IP: 'string', Hostname: 'string', MBits: 'int' });
    return [
      {
        Mode: (d.Mode as string) || HOST_MODE,
        Device: d.Device as string,
        CIDR: d.CIDR as string,
        IP: d.IP as string,
        Hostname: d.Hostname as string,
        MBits: d.MBits as number,
        DNS: null,
        ReservedPorts: decodePorts(fieldOf(n, 'ReservedPorts'), `${path}.Networks.ReservedPorts`),
        DynamicPorts: decodePorts(fieldOf(n, 'DynamicPorts'), `${path}.Networks.DynamicPorts`),
      },
    ];
  });
  return out.length > 0 ? out : undefined;
}

/**
 * The problems of a group's `Networks` (the reference's `TaskGroup.validateNetworks`, with
 * Cairn's bounds), each naming the field: more than one network, a mode other than `host`,
 * a label empty, not `[A-Za-z0-9_]` or used twice, a static port outside 1–65535 or given
 * twice, a `To` outside -1–65535, a dynamic port with a `Value`, more than 64 ports.
 */
export function networkErrors(networks: readonly NetworkResource[] | null | undefined): string[] {
  const out: string[] = [];
  if (!networks) return out;
  if (networks.length > 1) out.push(`Networks: only one network block is allowed, got ${networks.length}`);
  const labels = new Set<string>();
  const statics = new Map<number, string>();
  for (const [i, n] of networks.entries()) {
    const at = `Networks[${i}]`;
    if (n.Mode !== HOST_MODE) out.push(`${at}.Mode: only "host" is supported, got ${JSON.stringify(n.Mode)}`);
    const count = (n.ReservedPorts?.length ?? 0) + (n.DynamicPorts?.length ?? 0);
    if (count > MAX_PORTS) out.push(`${at}: at most ${MAX_PORTS} ports are allowed, got ${count}`);
    const check = (p: Port, field: string) => {
      if (p.Label === '') out.push(`${field}.Label: a port needs a label`);
      else if (!LABEL.test(p.Label)) out.push(`${field}.Label: port label ${JSON.stringify(p.Label)} may hold only letters, digits and "_"`);
      else if (labels.has(p.Label)) out.push(`${field}.Label: port label ${JSON.stringify(p.Label)} is used more than once`);
      labels.add(p.Label);
      if (p.To < -1 || p.To > 65535) out.push(`${field}.To: port ${JSON.stringify(p.Label)} mapped to ${p.To}: must be between -1 and 65535`);
    };
    for (const [j, p] of (n.ReservedPorts ?? []).entries()) {
      const field = `${at}.ReservedPorts[${j}]`;
      check(p, field);
      if (p.Value < 1 || p.Value > 65535) out.push(`${field}.Value: static port ${JSON.stringify(p.Label)} is ${p.Value}: must be between 1 and 65535`);
      else if (statics.has(p.Value))
        out.push(`${field}.Value: static port ${p.Value} is given to both ${JSON.stringify(statics.get(p.Value))} and ${JSON.stringify(p.Label)}`);
      statics.set(p.Value, p.Label);
    }
    for (const [j, p] of (n.DynamicPorts ?? []).entries()) {
      const field = `${at}.DynamicPorts[${j}]`;
      check(p, field);
      if (p.Value !== 0) out.push(`${field}.Value: dynamic port ${JSON.stringify(p.Label)} cannot have a value (${p.Value}): use a static port`);
    }
  }
  return out;
}
