/**
 * Wire shapes of the discovery service's catalog, health and agent endpoints
 * (reference/mesh-catalog.md), in the reference's field names, as `MeshClient` reads them.
 *
 * @module
 */

/** A node (`GET /v1/catalog/nodes`; the reference's `Node`). */
export interface MeshNode {
  readonly ID: string;
  readonly Node: string;
  readonly Address: string;
  readonly Datacenter: string;
  readonly TaggedAddresses: Readonly<Record<string, string>> | null;
  readonly Meta: Readonly<Record<string, string>> | null;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/** Weights a service instance gets in DNS answers while passing / warning. */
export interface MeshWeights {
  readonly Passing: number;
  readonly Warning: number;
}

/** A service as its node shows it (the reference's `NodeService`). */
export interface MeshNodeService {
  readonly ID: string;
  readonly Service: string;
  readonly Tags: readonly string[];
  readonly Address: string;
  readonly TaggedAddresses?: Readonly<Record<string, { Address: string; Port: number }>>;
  readonly Meta: Readonly<Record<string, string>> | null;
  readonly Port: number;
  readonly Weights: MeshWeights;
  readonly EnableTagOverride: boolean;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/** One instance with its node flattened in (`GET /v1/catalog/service/:name`; the reference's `ServiceNode`). */
export interface MeshServiceNode {
  readonly ID: string;
  readonly Node: string;
  readonly Address: string;
  readonly Datacenter: string;
  readonly TaggedAddresses: Readonly<Record<string, string>> | null;
  readonly NodeMeta: Readonly<Record<string, string>> | null;
  readonly ServiceKind: string;
  readonly ServiceID: string;
  readonly ServiceName: string;
  readonly ServiceTags: readonly string[];
  readonly ServiceAddress: string;
  readonly ServiceTaggedAddresses?: Readonly<Record<string, { Address: string; Port: number }>>;
  readonly ServiceWeights: MeshWeights;
  readonly ServiceMeta: Readonly<Record<string, string>> | null;
  readonly ServicePort: number;
  readonly ServiceEnableTagOverride: boolean;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/** A node with its services: `Services` by ID (`/catalog/node/:node`) or as a list (`/catalog/node-services/:node`). */
export interface MeshCatalogNode<S> {
  readonly Node: MeshNode;
  readonly Services: S;
}

/** A check's status. */
export type MeshCheckStatus = 'passing' | 'warning' | 'critical';

/** A health check (the reference's `HealthCheck`); the agent's own view has indexes 0. */
export interface MeshHealthCheck {
  readonly Node: string;
  readonly CheckID: string;
  readonly Name: string;
  readonly Status: MeshCheckStatus;
  readonly Notes: string;
  readonly Output: string;
  /** `''` for a node check. */
  readonly ServiceID: string;
  readonly ServiceName: string;
  readonly ServiceTags: readonly string[];
  readonly Type: string;
  readonly Interval: string;
  readonly Timeout: string;
  readonly ExposedPort: number;
  readonly Definition: Readonly<Record<string, unknown>>;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/** An instance with its node and the checks that bear on it (`GET /v1/health/service/:name`). */
export interface MeshServiceEntry {
  readonly Node: MeshNode;
  readonly Service: MeshNodeService;
  readonly Checks: readonly MeshHealthCheck[];
}

/** A service registered with the agent (the reference's `AgentService`). */
export interface MeshAgentService {
  readonly ID: string;
  readonly Service: string;
  readonly Tags: readonly string[];
  readonly Meta: Readonly<Record<string, string>> | null;
  readonly Port: number;
  readonly Address: string;
  readonly TaggedAddresses?: Readonly<Record<string, { Address: string; Port: number }>>;
  readonly Weights: MeshWeights;
  readonly EnableTagOverride: boolean;
  readonly Datacenter: string;
}

/** One local instance with its aggregated status (`GET /v1/agent/health/service/name/:name`). */
export interface MeshAgentServiceHealth {
  readonly AggregatedStatus: MeshCheckStatus | 'maintenance';
  readonly Service: MeshAgentService;
  readonly Checks: readonly MeshHealthCheck[];
}

/** A check definition sent with a service or alone (`PUT /v1/agent/check/register`); durations are Go durations (`10s`). */
export interface MeshCheckDefinition {
  readonly CheckID?: string;
  readonly ID?: string;
  readonly Name?: string;
  readonly Notes?: string;
  readonly ServiceID?: string;
  readonly Status?: MeshCheckStatus;
  readonly TTL?: string;
  readonly HTTP?: string;
  readonly Method?: string;
  readonly Header?: Readonly<Record<string, readonly string[]>>;
  readonly TLSSkipVerify?: boolean;
  /** HTTP checks: the request body. */
  readonly Body?: string;
  readonly TCP?: string;
  /** Consecutive passing results before an HTTP/TCP check turns passing (0: at once). */
  readonly SuccessBeforePassing?: number;
  /** Consecutive failing results before an HTTP/TCP check turns critical (0: at once). */
  readonly FailuresBeforeCritical?: number;
  readonly Interval?: string;
  readonly Timeout?: string;
  readonly DeregisterCriticalServiceAfter?: string;
}

/** A service definition for `PUT /v1/agent/service/register` (the reference's `AgentServiceRegistration`); `ID` defaults to `Name`. */
export interface MeshServiceRegistration {
  readonly Name: string;
  readonly ID?: string;
  readonly Tags?: readonly string[];
  readonly Address?: string;
  readonly Port?: number;
  readonly Meta?: Readonly<Record<string, string>>;
  readonly EnableTagOverride?: boolean;
  readonly Weights?: MeshWeights;
  readonly Check?: MeshCheckDefinition;
  readonly Checks?: readonly MeshCheckDefinition[];
}

/** An agent member (`GET /v1/agent/members`): `Status` 1 alive, 4 failed. */
export interface MeshMember {
  readonly Name: string;
  readonly Addr: string;
  readonly Port: number;
  readonly Tags: Readonly<Record<string, string>>;
  readonly Status: number;
}

/** `GET /v1/agent/self`: the agent's configuration and member (other sections as the service sends them). */
export interface MeshAgentSelf {
  readonly Config: {
    readonly Datacenter: string;
    readonly PrimaryDatacenter: string;
    readonly NodeName: string;
    readonly NodeID: string;
    readonly Revision: string;
    readonly Server: boolean;
    readonly Version: string;
  };
  readonly Member: MeshMember | null;
  readonly [section: string]: unknown;
}

/** Options of the catalog and health reads: blocking (`index`, `wait`) and the reference's filters. */
export interface MeshCatalogQuery {
  /** Wait until the data's index passes this one. */
  readonly index?: number;
  /** Longest wait, a Go duration (`30s`). */
  readonly wait?: string;
  /** A filter expression over the listed objects (`Service.Tags contains "v1"`). */
  readonly filter?: string;
  /** Only nodes whose metadata has every one of these pairs (`?node-meta=k:v`). */
  readonly nodeMeta?: Readonly<Record<string, string>>;
  /** Aborting it gives the read up; it then rejects with `MeshConnectionError`. */
  readonly signal?: AbortSignal;
}

/** {@link MeshCatalogQuery} for the reads of one service's instances. */
export interface MeshServiceQuery extends MeshCatalogQuery {
  /** Only instances carrying every one of these tags (`?tag=`, repeated). */
  readonly tag?: string | readonly string[];
}

/** {@link MeshServiceQuery} for `health.service`. */
export interface MeshHealthServiceQuery extends MeshServiceQuery {
  /** Only instances whose every check passes. */
  readonly passing?: boolean;
}
