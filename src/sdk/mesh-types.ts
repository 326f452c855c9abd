/**
 * Wire shapes of the discovery service's ACL API (reference/mesh.md §1–§6), in the
 * reference's field names, as `MeshClient` sends and receives them.
 *
 * @module
 */

/** A link to a policy or role: by `ID` or by `Name` when sent, both when read. */
export interface MeshLink {
  readonly ID?: string;
  readonly Name?: string;
}

/** A service identity; no `Datacenters` means all of them. */
export interface MeshServiceIdentity {
  readonly ServiceName: string;
  readonly Datacenters?: readonly string[];
}

/** A node identity. */
export interface MeshNodeIdentity {
  readonly NodeName: string;
  readonly Datacenter: string;
}

/** An ACL token as the service shows it; `SecretID` is `<hidden>` without `acl:write`. */
export interface MeshToken {
  readonly AccessorID: string;
  readonly SecretID: string;
  readonly Description: string;
  readonly Policies?: readonly MeshLink[];
  readonly Roles?: readonly MeshLink[];
  readonly ServiceIdentities?: readonly MeshServiceIdentity[];
  readonly NodeIdentities?: readonly MeshNodeIdentity[];
  readonly Local: boolean;
  /** Set on tokens made by login. */
  readonly AuthMethod?: string;
  /** RFC 3339; absent: the token never expires. */
  readonly ExpirationTime?: string;
  readonly CreateTime: string;
  readonly Hash: string;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/** What `tokens.create` / `tokens.update` send (every field optional). */
export interface MeshTokenInput {
  readonly AccessorID?: string;
  readonly SecretID?: string;
  readonly Description?: string;
  readonly Policies?: readonly MeshLink[];
  readonly Roles?: readonly MeshLink[];
  readonly ServiceIdentities?: readonly MeshServiceIdentity[];
  readonly NodeIdentities?: readonly MeshNodeIdentity[];
  readonly Local?: boolean;
  /** RFC 3339. */
  readonly ExpirationTime?: string;
  /** A Go duration (`1h`), at least `1m`. */
  readonly ExpirationTTL?: string;
}

/** An ACL policy; lists carry stubs without `Rules`. */
export interface MeshPolicy {
  readonly ID: string;
  readonly Name: string;
  readonly Description: string;
  readonly Rules?: string;
  readonly Datacenters?: readonly string[];
  readonly Hash: string;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/** What `policies.create` / `policies.update` send. */
export interface MeshPolicyInput {
  readonly Name: string;
  readonly Description?: string;
  /** Rules in the ACL language (HCL). */
  readonly Rules?: string;
  readonly Datacenters?: readonly string[];
}

/** An ACL role. */
export interface MeshRole {
  readonly ID: string;
  readonly Name: string;
  readonly Description: string;
  readonly Policies?: readonly MeshLink[];
  readonly ServiceIdentities?: readonly MeshServiceIdentity[];
  readonly NodeIdentities?: readonly MeshNodeIdentity[];
  readonly Hash: string;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/** What `roles.create` / `roles.update` send. */
export interface MeshRoleInput {
  readonly Name: string;
  readonly Description?: string;
  readonly Policies?: readonly MeshLink[];
  readonly ServiceIdentities?: readonly MeshServiceIdentity[];
  readonly NodeIdentities?: readonly MeshNodeIdentity[];
}

/** An auth method; lists carry stubs without `Config`. */
export interface MeshAuthMethod {
  readonly Name: string;
  /** `jwt`, `kubernetes`, or `oidc` (enterprise switch). */
  readonly Type: string;
  readonly DisplayName?: string;
  readonly Description?: string;
  /** A Go duration, e.g. `10m0s`. */
  readonly MaxTokenTTL?: string;
  /** `local` or `global`. */
  readonly TokenLocality?: string;
  readonly Config?: Record<string, unknown>;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/** What `authMethods.create` / `authMethods.update` send. */
export interface MeshAuthMethodInput {
  readonly Name: string;
  readonly Type?: string;
  readonly DisplayName?: string;
  readonly Description?: string;
  readonly MaxTokenTTL?: string;
  readonly TokenLocality?: string;
  readonly Config?: Record<string, unknown>;
}

/** A binding rule. */
export interface MeshBindingRule {
  readonly ID: string;
  readonly Description: string;
  readonly AuthMethod: string;
  readonly Selector: string;
  /** `service`, `node`, `role` or `policy`. */
  readonly BindType: string;
  readonly BindName: string;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
}

/** What `bindingRules.create` / `bindingRules.update` send. */
export interface MeshBindingRuleInput {
  readonly AuthMethod?: string;
  readonly Description?: string;
  readonly Selector?: string;
  readonly BindType: string;
  readonly BindName: string;
}

/** `GET /v1/acl/replication` (times RFC 3339; `0001-01-01T00:00:00Z` for never). */
export interface MeshReplicationStatus {
  readonly Enabled: boolean;
  readonly Running: boolean;
  readonly SourceDatacenter: string;
  readonly ReplicationType: string;
  readonly ReplicatedIndex: number;
  readonly ReplicatedRoleIndex?: number;
  readonly ReplicatedTokenIndex: number;
  readonly LastSuccess: string;
  readonly LastError: string;
  readonly LastErrorMessage: string;
}

/** `PUT /v1/acl/bootstrap`: the management token, with the legacy `ID` (= `SecretID`). */
export interface MeshBootstrapToken extends MeshToken {
  readonly ID: string;
}

/** What `login` sends. */
export interface MeshLoginInput {
  /** The auth method's name. */
  readonly AuthMethod: string;
  /** The JWT (or service-account token) the method validates. */
  readonly BearerToken: string;
  /** Kept on the new token's description. */
  readonly Meta?: Readonly<Record<string, string>>;
}

/** A list read and the `X-Mesh-Index` it was taken at (pass it as `index` to block for a change). */
export interface MeshList<T> {
  readonly items: T[];
  readonly index: number;
}

/** Blocking-query options of list reads (reference/mesh.md §0.7). */
export interface MeshQueryOptions {
  /** Wait until the data's index passes this one. */
  readonly index?: number;
  /** Longest wait, a Go duration (`30s`); default 5 min on the server. */
  readonly wait?: string;
  /** Aborting it gives the read up; it then rejects with `MeshConnectionError`. */
  readonly signal?: AbortSignal;
}
