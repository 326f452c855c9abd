/**
 * The catalog's documents (issue 16 scope 1; reference/mesh-catalog.md "Catalog",
 * "Health"): nodes, service instances and health checks, stored in three StateStore
 * tables, and the reply shapes built from them, in the reference's field names.
 *
 * - `catalog-nodes`, keyed by node name;
 * - `catalog-services`, keyed by `<node>/<service ID>`;
 * - `catalog-checks`, keyed by `<node>/<check ID>`.
 *
 * Ids sort by node first, so a node's services and checks are one range of its table.
 *
 * @module
 */
import type { Indexed } from '../../../kernel/store/index.js';

/** Table names of the catalog. */
export const CT = {
  nodes: 'catalog-nodes',
  services: 'catalog-services',
  checks: 'catalog-checks',
} as const;

/** Check statuses (reference/mesh-catalog.md "Health"). */
export const STATUSES = ['passing', 'warning', 'critical'] as const;
/** One check status. */
export type CheckStatus = (typeof STATUSES)[number];
/** What a service instance's aggregate can also be: `maintenance` (agent health endpoint). */
export type Aggregate = CheckStatus | 'maintenance';

/** The node check every agent keeps for itself (the reference's name, so clients filtering on it keep working). */
export const SERF_CHECK_ID = 'serfHealth';
/** The reference's `serfHealth` outputs: the agent runs / the leader found it gone (local/liveness.ts). */
export const SERF_ALIVE_OUTPUT = 'Agent alive and reachable';
export const SERF_DEAD_OUTPUT = 'Agent not live or unreachable';
/** Check ID of node maintenance mode. */
export const NODE_MAINT_CHECK_ID = '_node_maintenance';
/** Check ID prefix of service maintenance mode (`_service_maintenance:<service ID>`). */
export const SERVICE_MAINT_PREFIX = '_service_maintenance:';

/** A string → string map (`Meta`, `TaggedAddresses`). */
export type StringMap = Readonly<Record<string, string>>;

/** Relative weights of an instance in DNS SRV answers. */
interface Weights {
  readonly Passing: number;
  readonly Warning: number;
}

/** A stored node. `TaggedAddresses` and `Meta` are null when never given (the reference's nil maps). */
export interface NodeDoc {
  readonly ID: string;
  readonly Node: string;
  readonly Address: string;
  readonly Datacenter: string;
  readonly TaggedAddresses: StringMap | null;
  readonly Meta: StringMap | null;
}

/** A stored service instance of a node. */
export interface ServiceDoc {
  readonly Node: string;
  readonly ID: string;
  readonly Service: string;
  readonly Tags: readonly string[];
  readonly Address: string;
  readonly TaggedAddresses: StringMap | null;
  readonly Meta: StringMap;
  readonly Port: number;
  readonly Weights: Weights;
  readonly EnableTagOverride: boolean;
}

/** How an agent runs a check (the reference's `HealthCheckDefinition`; empty for catalog-only checks). */
export interface CheckDefinition {
  readonly HTTP?: string;
  readonly Method?: string;
  readonly Header?: Readonly<Record<string, readonly string[]>>;
  readonly Body?: string;
  readonly TLSSkipVerify?: boolean;
  readonly TCP?: string;
  /** Go duration strings (`"10s"`). */
  readonly Interval?: string;
  readonly Timeout?: string;
  readonly TTL?: string;
  readonly DeregisterCriticalServiceAfter?: string;
  /** Consecutive results before an HTTP/TCP check turns passing / critical (absent: at once). */
  readonly SuccessBeforePassing?: number;
  readonly FailuresBeforeCritical?: number;
}

/** A stored health check; node checks have an empty `ServiceID`. */
export interface CheckDoc {
  readonly Node: string;
  readonly CheckID: string;
  readonly Name: string;
  readonly Status: CheckStatus;
  readonly Notes: string;
  readonly Output: string;
  readonly ServiceID: string;
  readonly ServiceName: string;
  readonly ServiceTags: readonly string[];
  /** `http`, `tcp`, `ttl` or `""`. */
  readonly Type: string;
  /** Go duration strings, `""` when none. */
  readonly Interval: string;
  readonly Timeout: string;
  readonly Definition: CheckDefinition;
}

/** The id of a service or check of `node`. */
export const memberKey = (node: string, id: string): string => `${node}/${id}`;
/** The first id of `node`'s range in the services and checks tables. */
export const nodePrefix = (node: string): string => `${node}/`;

/** A node as the catalog shows it (`/catalog/nodes`, `Node` of health entries). */
export function renderNode(n: NodeDoc & Indexed): Record<string, unknown> {
  return {
    ID: n.ID,
    Node: n.Node,
    Address: n.Address,
    Datacenter: n.Datacenter,
    TaggedAddresses: n.TaggedAddresses,
    Meta: n.Meta,
    CreateIndex: n.CreateIndex,
    ModifyIndex: n.ModifyIndex,
  };
}

/** A service as a node shows it (the reference's `NodeService`: `/catalog/node/:node`, `Service` of health entries). */
export function renderNodeService(s: ServiceDoc & Indexed): Record<string, unknown> {
  return {
    ID: s.ID,
    Service: s.Service,
    Tags: s.Tags,
    Address: s.Address,
    ...(s.TaggedAddresses && { TaggedAddresses: s.TaggedAddresses }),
    Meta: s.Meta,
    Port: s.Port,
    Weights: s.Weights,
    EnableTagOverride: s.EnableTagOverride,
    CreateIndex: s.CreateIndex,
    ModifyIndex: s.ModifyIndex,
  };
}

/** One instance with its node flattened in (the reference's `ServiceNode`: `/catalog/service/:service`). */
export function renderServiceNode(n: NodeDoc, s: ServiceDoc & Indexed): Record<string, unknown> {
  return {
    ID: n.ID,
    Node: n.Node,
    Address: n.Address,
    Datacenter: n.Datacenter,
    TaggedAddresses: n.TaggedAddresses,
    NodeMeta: n.Meta,
    ServiceKind: '',
    ServiceID: s.ID,
    ServiceName: s.Service,
    ServiceTags: s.Tags,
    ServiceAddress: s.Address,
    ServiceTaggedAddresses: s.TaggedAddresses,
    ServiceWeights: s.Weights,
    ServiceMeta: s.Meta,
    ServicePort: s.Port,
    ServiceEnableTagOverride: s.EnableTagOverride,
    CreateIndex: s.CreateIndex,
    ModifyIndex: s.ModifyIndex,
  };
}

/** A check as the health endpoints show it (the reference's `HealthCheck`). */
export function renderCheck(c: CheckDoc & Indexed): Record<string, unknown> {
  return {
    Node: c.Node,
    CheckID: c.CheckID,
    Name: c.Name,
    Status: c.Status,
    Notes: c.Notes,
    Output: c.Output,
    ServiceID: c.ServiceID,
    ServiceName: c.ServiceName,
    ServiceTags: c.ServiceTags,
    Type: c.Type,
    Interval: c.Interval,
    Timeout: c.Timeout,
    ExposedPort: 0,
    Definition: c.Definition,
    CreateIndex: c.CreateIndex,
    ModifyIndex: c.ModifyIndex,
  };
}

/**
 * The aggregate status of a set of checks (the reference's `HealthChecks.AggregatedStatus`):
 * `maintenance` when a maintenance check is among them, else the worst of
 * `critical` > `warning` > `passing`; no checks at all is `passing`.
 */
export function aggregateStatus(checks: readonly Pick<CheckDoc, 'CheckID' | 'Status'>[]): Aggregate {
  let worst: CheckStatus = 'passing';
  let maintenance = false;
  for (const c of checks) {
    if (c.CheckID === NODE_MAINT_CHECK_ID || c.CheckID.startsWith(SERVICE_MAINT_PREFIX)) maintenance = true;
    else if (c.Status === 'critical' || (c.Status === 'warning' && worst === 'passing')) worst = c.Status;
  }
  return maintenance ? 'maintenance' : worst;
}
