/**
 * The event stream's vocabulary: the event and batch shapes of spec 002 "Event stream
 * frame", and the topics and event types of spec 002 "Events".
 *
 * @module
 */

/**
 * Topics of spec 002 "Events". The spec's table writes `ACLRoles`; its ACL table and the
 * reference (`reference/sched.md` §3.4) use `ACLRole`, which is what events carry here.
 * Topic names in a subscription are not validated: an unknown one matches nothing.
 */
export const TOPICS = [
  'ACLToken',
  'ACLPolicy',
  'ACLRole',
  'Allocation',
  'Job',
  'Evaluation',
  'Deployment',
  'Node',
  'NodeDrain',
  'NodePool',
  'Service',
] as const;

/** One of {@link TOPICS}. */
export type Topic = (typeof TOPICS)[number];

/** Event types of spec 002 "Events", in the spec's order. */
export const EVENT_TYPES = [
  'ACLTokenUpserted',
  'ACLTokenDeleted',
  'ACLPolicyUpserted',
  'ACLPolicyDeleted',
  'ACLRoleUpserted',
  'ACLRoleDeleted',
  'AllocationCreated',
  'AllocationUpdated',
  'AllocationUpdateDesiredStatus',
  'DeploymentStatusUpdate',
  'DeploymentPromotion',
  'DeploymentAllocHealth',
  'EvaluationUpdated',
  'JobRegistered',
  'JobDeregistered',
  'JobBatchDeregistered',
  'NodeRegistration',
  'NodeDeregistration',
  'NodeEligibility',
  'NodeDrain',
  'NodeEvent',
  'NodePoolUpserted',
  'NodePoolDeleted',
  'PlanResult',
  'ServiceRegistration',
  'ServiceDeregistration',
] as const;

/** One of {@link EVENT_TYPES}. */
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * One event as it goes on the wire (spec 002 "Event stream frame"). Immutable once
 * published: the buffer shares one object with every subscriber.
 */
export interface StreamEvent {
  readonly Topic: string;
  readonly Type: string;
  /** The object's identifier on its topic (node ID, token accessor, policy name, ...). */
  readonly Key: string;
  /** `""` for objects outside namespaces (Node, ACL objects, NodePool); such events pass every namespace filter. */
  readonly Namespace: string;
  /** Further keys a `Topic:Key` filter matches (job ID of an allocation, ...); null when none. */
  readonly FilterKeys: readonly string[] | null;
  /** The index of the commit that produced the event. */
  readonly Index: number;
  /** The object under its wrapper key, e.g. `{ "Node": {...} }`; secrets already redacted. */
  readonly Payload: Readonly<Record<string, unknown>>;
}

/** The events of one committed write, in commit order; `index` is the commit's index. */
export interface EventBatch {
  readonly index: number;
  readonly events: readonly StreamEvent[];
}
