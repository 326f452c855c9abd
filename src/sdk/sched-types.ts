/**
 * Wire shapes of the scheduler service's HTTP API (spec 002; reference/sched.md §2, §3, §5;
 * the reference's `/v1/acl/token*`, `/v1/acl/policy*` and `/v1/node*` routes), in the
 * reference's field names, as `SchedClient` sends and receives them. Times are RFC 3339
 * strings unless a field says otherwise; durations are Go duration strings (`"1h0m0s"`).
 *
 * @module
 */

/** A read's result and the reply's `X-Sched-Index` (0 when absent). */
export interface SchedRead<T> {
  readonly data: T;
  readonly index: number;
}

/**
 * Blocking-query options of a read (reference/sched.md §1.5): with `index`, the server waits
 * until its data passes that index or `wait` elapses (a Go duration, default and cap `5m`).
 */
export interface SchedQueryOptions {
  /** Wait until the index passes this value. */
  readonly index?: number;
  /** Longest wait, a Go duration such as `30s`; the server caps it at `5m`. */
  readonly wait?: string;
  /** Serve from this agent without asking the leader (`?stale`). */
  readonly stale?: boolean;
}

/** A role link of a token (`{ID, Name}`). */
export interface SchedRoleLink {
  readonly ID?: string;
  readonly Name?: string;
}

/**
 * An ACL token (reference `ACLToken`). `SecretID` is `""` unless the caller may see it (its
 * creator, a management token, the token itself).
 */
export interface SchedAclToken {
  readonly AccessorID: string;
  readonly SecretID: string;
  readonly Name: string;
  /** `client` or `management`. */
  readonly Type: string;
  readonly Policies: readonly string[] | null;
  readonly Roles: readonly SchedRoleLink[] | null;
  /** Replicated to every region. */
  readonly Global: boolean;
  readonly Hash: string;
  readonly CreateTime: string;
  /** Absent or null: never expires. */
  readonly ExpirationTime?: string | null;
  /** Go duration; `""` when none. */
  readonly ExpirationTTL?: string;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/** What `createAclToken` / `updateAclToken` send. */
export interface SchedAclTokenInput {
  readonly Name?: string;
  /** `client` (default) or `management`. */
  readonly Type?: string;
  /** Policy names; a client token needs at least one policy or role. */
  readonly Policies?: readonly string[];
  readonly Roles?: readonly SchedRoleLink[];
  readonly Global?: boolean;
  /** Go duration, e.g. `"1h"`. */
  readonly ExpirationTTL?: string;
  /** RFC 3339. */
  readonly ExpirationTime?: string;
}

/** An ACL policy; list stubs carry no `Rules`. */
export interface SchedAclPolicy {
  readonly Name: string;
  readonly Description: string;
  /** Policy text (HCL: `namespace "default" { policy = "read" }`). */
  readonly Rules?: string;
  readonly Hash?: string;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/** What `upsertAclPolicy` sends. */
export interface SchedAclPolicyInput {
  readonly Name: string;
  readonly Description?: string;
  readonly Rules: string;
}

/**
 * An auth method's `Config` (spec 002 "Config fields"; reference/sched.md §2.2). On writes
 * every field is optional; durations are Go duration strings.
 */
export interface SchedAuthMethodConfig {
  readonly OIDCDiscoveryURL?: string;
  readonly OIDCClientID?: string;
  /** Reads show `redacted`; sending `redacted` back keeps the stored secret. */
  readonly OIDCClientSecret?: string;
  readonly OIDCDisableUserInfo?: boolean;
  readonly OIDCEnablePKCE?: boolean;
  readonly OIDCScopes?: readonly string[] | null;
  readonly JWTValidationPubKeys?: readonly string[] | null;
  readonly JWKSURL?: string;
  readonly JWKSCACert?: string;
  readonly BoundAudiences?: readonly string[] | null;
  readonly BoundIssuer?: readonly string[] | null;
  readonly AllowedRedirectURIs?: readonly string[] | null;
  readonly DiscoveryCaPem?: readonly string[] | null;
  readonly SigningAlgs?: readonly string[] | null;
  readonly ExpirationLeeway?: string;
  readonly NotBeforeLeeway?: string;
  readonly ClockSkewLeeway?: string;
  readonly ClaimMappings?: Readonly<Record<string, string>> | null;
  readonly ListClaimMappings?: Readonly<Record<string, string>> | null;
  readonly VerboseLogging?: boolean;
  readonly [other: string]: unknown;
}

/** An ACL auth method as read (spec 002 "ACL auth method"). */
export interface SchedAuthMethod {
  readonly Name: string;
  /** `OIDC` or `JWT`. */
  readonly Type: string;
  /** `local` or `global`. */
  readonly TokenLocality: string;
  readonly TokenNameFormat: string;
  /** Go duration (`"1h0m0s"`). */
  readonly MaxTokenTTL: string;
  /** The method `cairn sched login` uses when none is named. */
  readonly Default: boolean;
  readonly Config: SchedAuthMethodConfig | null;
  readonly Hash?: string;
  readonly CreateTime: string;
  readonly ModifyTime: string;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/** The list item of `GET /v1/acl/auth-methods`. */
export interface SchedAuthMethodStub {
  readonly Name: string;
  readonly Type: string;
  readonly Default: boolean;
  readonly Hash?: string;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/** What `createAuthMethod` / `updateAuthMethod` send (spec 002: which fields each requires). */
export interface SchedAuthMethodInput {
  readonly Name?: string;
  readonly Type?: string;
  readonly TokenLocality?: string;
  readonly TokenNameFormat?: string;
  /** Go duration between `1m` and `24h`. */
  readonly MaxTokenTTL?: string;
  readonly Default?: boolean;
  readonly Config?: SchedAuthMethodConfig;
}

/** An ACL binding rule (reference/sched.md §2.4). */
export interface SchedBindingRule {
  readonly ID: string;
  readonly Description: string;
  readonly AuthMethod: string;
  readonly Selector?: string;
  /** `role`, `policy` or `management`. */
  readonly BindType?: string;
  readonly BindName?: string;
  readonly Hash?: string;
  readonly CreateTime?: string;
  readonly ModifyTime?: string;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/** What `createBindingRule` / `updateBindingRule` send. */
export interface SchedBindingRuleInput {
  readonly AuthMethod?: string;
  readonly Description?: string;
  readonly Selector?: string;
  readonly BindType?: string;
  readonly BindName?: string;
}

/** `POST /v1/acl/login` body: a JWT auth method's name and a JWT it accepts. */
export interface SchedLoginInput {
  readonly AuthMethodName: string;
  readonly LoginToken: string;
}

/** `POST /v1/acl/oidc/auth-url` body. */
export interface SchedOidcAuthUrlInput {
  readonly AuthMethodName: string;
  /** Where the provider sends the browser back; must be one of the method's `AllowedRedirectURIs`. */
  readonly RedirectURI: string;
  /** A random value the same client sends again to complete the login. */
  readonly ClientNonce: string;
}

/** `POST /v1/acl/oidc/complete-auth` body: the callback's `state` and `code`, and what auth-url was given. */
export interface SchedOidcCompleteAuthInput {
  readonly AuthMethodName: string;
  readonly ClientNonce: string;
  readonly State: string;
  readonly Code: string;
  readonly RedirectURI: string;
}

/** A namespace. */
export interface SchedNamespace {
  readonly Name: string;
  readonly Description: string;
  readonly Meta?: Readonly<Record<string, string>> | null;
  readonly CreateIndex?: number;
  readonly ModifyIndex?: number;
}

/** A node event (`Node.Events`). */
export interface SchedNodeEvent {
  readonly Message: string;
  readonly Subsystem: string;
  readonly Details: Readonly<Record<string, string>> | null;
  readonly Timestamp: string;
  readonly CreateIndex: number;
}

/** The list item of `GET /v1/nodes` (the reference's `NodeListStub`; fields a server omits are absent). */
export interface SchedNodeStub {
  readonly ID: string;
  readonly Name: string;
  readonly Datacenter: string;
  readonly NodeClass?: string;
  readonly NodePool?: string;
  readonly Address?: string;
  readonly Drain?: boolean;
  /** `eligible` or `ineligible`. */
  readonly SchedulingEligibility: string;
  /** `initializing`, `ready`, `down` or `disconnected`. */
  readonly Status: string;
  readonly StatusDescription?: string;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
  readonly [other: string]: unknown;
}

/** A node as `GET /v1/node/:id` returns it (spec 002 "`Node` payload fields"). */
export interface SchedNode extends SchedNodeStub {
  readonly HTTPAddr?: string;
  readonly TLSEnabled?: boolean;
  readonly Attributes?: Readonly<Record<string, string>> | null;
  readonly Meta?: Readonly<Record<string, string>> | null;
  readonly ComputedClass?: string;
  readonly DrainStrategy?: unknown;
  /** Unix seconds. */
  readonly StatusUpdatedAt?: number;
  readonly Events?: readonly SchedNodeEvent[] | null;
  readonly Drivers?: Readonly<Record<string, unknown>> | null;
  readonly CSIControllerPlugins?: Readonly<Record<string, unknown>> | null;
  readonly CSINodePlugins?: Readonly<Record<string, unknown>> | null;
  readonly HostVolumes?: Readonly<Record<string, unknown>> | null;
}

/** A node drain request (`POST /v1/node/:id/drain`); `deadlineNs` -1 forces, 0 none. */
export interface SchedDrainOptions {
  readonly enable: boolean;
  readonly deadlineNs?: number;
  readonly ignoreSystemJobs?: boolean;
  readonly markEligible?: boolean;
  readonly meta?: Readonly<Record<string, string>>;
}

/** One event of a stream frame (spec 002 "Event stream frame"). */
export interface SchedEvent {
  readonly Topic: string;
  readonly Type: string;
  readonly Key: string;
  /** `""` for events outside namespaces (Node, ACL objects). */
  readonly Namespace: string;
  readonly FilterKeys: readonly string[] | null;
  readonly Index: number;
  /** One wrapper key naming the object: `{"Node": …}`, `{"ACLToken": …}`, … */
  readonly Payload: Readonly<Record<string, unknown>>;
}

/** One frame of `GET /v1/event/stream`: the events of one committed write. */
export interface SchedEventFrame {
  readonly Index: number;
  readonly Events: readonly SchedEvent[];
}

/** Options of `SchedClient.eventStream`. */
export interface SchedEventStreamOptions {
  /** Start index (inclusive; default 0 replays what the server still holds). */
  readonly index?: number;
  /**
   * Topic → filter keys. `{Node: []}` sends `topic=Node`; `{Node: ['*']}` sends `topic=Node:*`;
   * `{Job: ['web', 'api']}` sends one `topic=Job:<key>` per key. Absent: every topic (which
   * needs a management token).
   */
  readonly topics?: Readonly<Record<string, readonly string[]>>;
  /** Namespace filter; `*` is every namespace. Default: the client's namespace, else `default`. */
  readonly namespace?: string;
  /** Aborting it ends the iteration quietly and closes the connection. */
  readonly signal?: AbortSignal;
}
