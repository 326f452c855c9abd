/**
 * The scheduler service's state tables (kernel StateStore) and the documents they hold, in
 * the reference's field names (reference/sched.md §2, §5), and the labels its writes carry
 * on the change feed: the event stream types its events by them (reference/sched.md §3.4:
 * the type follows the kind of write, not the table).
 *
 * @module
 */
import type { TableSpec } from '../../kernel/store/index.js';
import { sha256Hex } from '../../kernel/util/sha256.js';
import type { AuthMethod } from './auth/auth-method.js';
import type { BindingRule } from './auth/binding-rule.js';

/** Table names. */
export const T = {
  tokens: 'acl-tokens',
  policies: 'acl-policies',
  roles: 'acl-roles',
  authMethods: 'acl-auth-methods',
  bindingRules: 'acl-binding-rules',
  /** One document, `bootstrap`: `{ ResetIndex }` and whether bootstrap has run. */
  meta: 'acl-meta',
  namespaces: 'namespaces',
  nodes: 'nodes',
  allocs: 'allocs',
  /** CSI volumes (csi/volume.ts `CsiVolumeDoc`), keyed `<namespace>.<id>` so that id order is the list order of reference/sched.md §1.7. */
  csiVolumes: 'csi-volumes',
  /** CSI plugins (csi/plugin-doc.ts `CsiPluginDoc`), keyed by plugin ID; written by the plugin registry only. */
  csiPlugins: 'csi-plugins',
  jobs: 'jobs',
  jobVersions: 'job-versions',
  evals: 'evals',
  /** Deployments (deployments/doc.ts `Deployment`), keyed by deployment ID. */
  deployments: 'deployments',
  /** The last launch of each periodic job (jobs/periodic-launch.ts `PeriodicLaunchDoc`), keyed `<namespace>/<job ID>`; no events. */
  periodicLaunches: 'periodic-launches',
  /** The signing keyring (keyring/root-key.ts `RootKeyDoc`), keyed by key ID: private keys, never rendered, no events. */
  rootKeys: 'root-keys',
} as const;

/**
 * Labels of writes whose event type is not implied by table and operation (the reference's
 * raft message types → event types, reference/sched.md §3.4). A write without a label gets
 * the default type of its table: `<Topic>Upserted` / `<Topic>Deleted` for ACL objects.
 */
export const LABEL = {
  nodeRegister: 'NodeRegistration',
  nodeDeregister: 'NodeDeregistration',
  nodeEligibility: 'NodeEligibility',
  nodeDrain: 'NodeDrain',
  /** Status updates and node events (the reference's docs name it `NodeEvent`; its code `NodeStreamEvent`). */
  nodeEvent: 'NodeEvent',
  allocCreate: 'AllocationCreated',
  allocUpdate: 'AllocationUpdated',
  allocDesired: 'AllocationUpdateDesiredStatus',
  /** Register and create of CSI volumes (reference/sched.md §3.4 `CSIVolumeRegister`). */
  csiVolumeRegister: 'CSIVolumeRegistered',
  /** Deregister and delete of CSI volumes. */
  csiVolumeDeregister: 'CSIVolumeDeregistered',
  /** Claim bookkeeping outside allocation writes (detach, a finished unpublish). */
  csiVolumeClaim: 'CSIVolumeClaim',
  jobRegister: 'JobRegistered',
  jobDeregister: 'JobDeregistered',
  evalUpdate: 'EvaluationUpdated',
  planResult: 'PlanResult',
  /** A deployment's status changed (paused, resumed, failed, successful, cancelled) or it was created outside a plan. */
  deploymentStatus: 'DeploymentStatusUpdate',
  /** A deployment's canaries were promoted. */
  deploymentPromotion: 'DeploymentPromotion',
  /** The health of a deployment's allocations changed (by the client or `allocation-health`). */
  deploymentAllocHealth: 'DeploymentAllocHealth',
  /** Writes replication copies in from the authoritative region. */
  replication: 'Replication',
} as const;

/** The key of a token's unique secret index: a SHA-256 digest, never the secret itself. */
export const secretKey = (secret: string): string => sha256Hex(secret);

/** A role link of a token (`{ID, Name}`; reference/sched.md §2.5). */
export interface RoleLink {
  readonly ID: string;
  readonly Name: string;
}

/** An ACL token (reference/sched.md §2.5 "ACLToken"); `SecretID` never leaves the service except to its owner. */
export interface TokenDoc {
  readonly AccessorID: string;
  readonly SecretID: string;
  readonly Name: string;
  /** `client` or `management`. */
  readonly Type: string;
  readonly Policies: readonly string[];
  readonly Roles: readonly RoleLink[];
  /** Replicated to every region (created in the authoritative one). */
  readonly Global: boolean;
  readonly Hash: string;
  /** RFC3339. */
  readonly CreateTime: string;
  /** RFC3339; absent = never expires. */
  readonly ExpirationTime?: string;
  /** Go duration string (`"1h0m0s"`); absent = none. */
  readonly ExpirationTTL?: string;
}

/** An ACL policy: `Rules` is the policy text (acl/rules.ts). */
export interface PolicyDoc {
  readonly Name: string;
  readonly Description: string;
  readonly Rules: string;
  readonly JobACL?: unknown;
  readonly Hash: string;
}

/** An ACL role: a named set of policies. */
export interface RoleDoc {
  readonly ID: string;
  readonly Name: string;
  readonly Description: string;
  readonly Policies: readonly { readonly Name: string }[];
  readonly Hash: string;
}

/** A namespace (jobs, allocations and volumes live in one; `default` always exists). */
export interface NamespaceDoc {
  readonly Name: string;
  readonly Description: string;
  readonly Meta?: Readonly<Record<string, string>> | null;
}

/** The name of the namespace every agent creates. */
export const DEFAULT_NAMESPACE = 'default';

/** A node event (`Node.Events`, at most {@link MAX_NODE_EVENTS} kept). */
export interface NodeEventDoc {
  readonly Message: string;
  readonly Subsystem: string;
  readonly Details: Readonly<Record<string, string>> | null;
  /** RFC3339. */
  readonly Timestamp: string;
  readonly CreateIndex: number;
}

/** Node events kept per node (reference/sched.md §5). */
export const MAX_NODE_EVENTS = 10;

/**
 * A client node (spec 002 "`Node` payload fields", reference/sched.md §5). `SecretID` is
 * the node's own secret: never output, blanked in events.
 */
export interface NodeDoc {
  readonly ID: string;
  readonly SecretID: string;
  readonly Datacenter: string;
  readonly Name: string;
  readonly HTTPAddr: string;
  readonly TLSEnabled: boolean;
  readonly Attributes: Readonly<Record<string, string>>;
  readonly NodeResources: unknown;
  readonly ReservedResources: unknown;
  readonly Resources: unknown;
  readonly Reserved: unknown;
  readonly Links: Readonly<Record<string, string>> | null;
  readonly Meta: Readonly<Record<string, string>> | null;
  readonly NodeClass: string;
  readonly NodePool: string;
  readonly ComputedClass: string;
  readonly DrainStrategy: unknown;
  /** `eligible` or `ineligible`. */
  readonly SchedulingEligibility: string;
  /** `initializing`, `ready`, `down` or `disconnected`. */
  readonly Status: string;
  readonly StatusDescription: string;
  /** Unix seconds. */
  readonly StatusUpdatedAt: number;
  readonly Events: readonly NodeEventDoc[];
  readonly Drivers: Readonly<Record<string, unknown>> | null;
  readonly CSIControllerPlugins: Readonly<Record<string, unknown>> | null;
  readonly CSINodePlugins: Readonly<Record<string, unknown>> | null;
  readonly HostVolumes: Readonly<Record<string, unknown>> | null;
  /** Cairn-only, never rendered: `CSINodePlugins` came from the node's own registration (a client-only agent; csi/node-report.ts), not from a server's plugin registry. */
  readonly CSIReported?: boolean;
}

/**
 * An allocation, the minimal model volume claims use (reference/sched.md §5): where it runs,
 * for which job and task group, what it wants and what the client reports.
 */
export interface AllocDoc {
  readonly ID: string;
  readonly Namespace: string;
  readonly EvalID: string;
  readonly Name: string;
  readonly NodeID: string;
  readonly JobID: string;
  readonly TaskGroup: string;
  /** `run`, `stop` or `evict`. */
  readonly DesiredStatus: string;
  readonly DesiredDescription: string;
  /** `pending`, `running`, `complete`, `failed`, `lost` or `unknown`. */
  readonly ClientStatus: string;
  readonly ClientDescription: string;
  /** CSI volume requests of the task group: name → `{Type:"csi", Source, ReadOnly, AccessMode, AttachmentMode, PerAlloc}`. */
  readonly Volumes: Readonly<Record<string, unknown>> | null;
  readonly DeploymentID: string;
  /** Unix nanoseconds, as the reference's allocation times. */
  readonly CreateTime: number;
  readonly ModifyTime: number;
}

/** Bootstrap bookkeeping (reference: `acl bootstrap` works once, then only after a reset). */
export interface MetaDoc {
  readonly Bootstrapped: boolean;
}

/** Every table with its unique indexes. */
export const SCHED_TABLES: readonly TableSpec[] = [
  { name: T.tokens, indexes: { secret: (d: TokenDoc) => secretKey(d.SecretID) } },
  { name: T.policies },
  { name: T.roles, indexes: { name: (d: RoleDoc) => d.Name } },
  { name: T.authMethods },
  { name: T.bindingRules },
  { name: T.meta },
  { name: T.namespaces },
  { name: T.nodes },
  // Grouped by `<namespace>/<job ID>` (jobs/types.ts jobKey): a job's allocations and evaluations without a scan.
  { name: T.allocs, groups: { job: (d: { Namespace: string; JobID: string }) => `${d.Namespace}/${d.JobID}` } },
  { name: T.csiVolumes },
  { name: T.csiPlugins },
  // The workload tables: shapes in jobs/types.ts.
  { name: T.jobs },
  { name: T.jobVersions },
  { name: T.evals, groups: { job: (d: { Namespace: string; JobID: string }) => `${d.Namespace}/${d.JobID}` } },
  // Grouped like allocations: a job's deployments without a scan.
  { name: T.deployments, groups: { job: (d: { Namespace: string; JobID: string }) => `${d.Namespace}/${d.JobID}` } },
  { name: T.periodicLaunches },
  { name: T.rootKeys },
];

/** Stored auth methods and binding rules are the auth module's shapes (auth/). */
export type AuthMethodDoc = AuthMethod;
/** See {@link AuthMethodDoc}. */
export type BindingRuleDoc = BindingRule;
