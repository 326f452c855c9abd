/**
 * What the discovery service's route handlers share, and the two guards every ACL route
 * starts with.
 *
 * @module
 */
import { CairnError, type HttpRequest, type HttpResponse } from '../../kernel/http/index.js';
import type { ServiceMetrics } from '../../kernel/metrics/index.js';
import type { Leadership, StateStore } from '../../kernel/store/index.js';
import { Authorizer, type Access, type Resource } from './acl/index.js';
import type { MeshAgentConfig } from './config.js';
import { aclDisabled, type MeshContext, type MeshReply } from './http.js';
import type { LocalAgent } from './local/local-agent.js';
import type { Replicator } from './replication.js';
import type { AclResolver, Identity } from './resolve.js';

/** The handlers' dependencies. */
export interface MeshDeps {
  readonly state: StateStore;
  readonly config: MeshAgentConfig;
  readonly acl: AclResolver;
  /** Clock in epoch ms. */
  readonly now: () => number;
  /** Running in a secondary datacenter with ACLs on. */
  readonly replicator?: Replicator;
  /** This agent's advertised `host:port` (known once it listens). */
  readonly self: () => string;
  /** Agents sharing one state on PostgreSQL: who leads. */
  readonly leadership?: Leadership;
  /** This agent's metrics (`GET /v1/agent/metrics`). */
  readonly metrics: ServiceMetrics;
  /** This agent's own node: its services and checks (`/agent/...`). */
  readonly local: LocalAgent;
  /** Sends a request to a server of datacenter `dc`; undefined when none is known. */
  readonly forwardTo: (dc: string, req: HttpRequest, secret: string | undefined) => Promise<HttpResponse> | undefined;
}

/** A mesh handler's context. */
export type Ctx = MeshContext<MeshDeps>;

/**
 * The caller's identity for an `/acl/*` route, after checking `access` on `resource` when
 * given. @throws 401 `ACL support disabled`; 403 `ACL not found` (unknown secret);
 * 403 `Permission denied: …` (missing permission).
 */
export function callerOf(ctx: Ctx, resource?: Resource, access?: Access): Identity {
  if (!ctx.deps.config.acl.enabled) throw aclDisabled();
  const who = ctx.deps.acl.resolve(ctx.secret);
  if (resource && access) ctx.deps.acl.require(who, resource, access);
  return who;
}

/**
 * The caller's identity on a data endpoint (KV, …): with ACLs off, one the management
 * authorizer answers for (every check passes, no token); with ACLs on, the token's.
 * @throws 403 `ACL not found` for an unknown or expired secret.
 */
export function requestIdentity(ctx: Pick<Ctx, 'deps' | 'secret'>): Identity {
  if (!ctx.deps.config.acl.enabled) return { token: undefined, accessorId: '', authorizer: Authorizer.management() };
  return ctx.deps.acl.resolve(ctx.secret);
}

/**
 * The caller's identity after checking `access` on `segment` of `resource` (catalog,
 * health and agent routes). @throws 403 `Permission denied: token with AccessorID '…'
 * lacks permission 'service:write' on "web"` (the reference's text); 403 `ACL not found`.
 */
export function requireAccess(ctx: Ctx, resource: Resource, access: Access, segment?: string): Identity {
  const who = requestIdentity(ctx);
  ctx.deps.acl.require(who, resource, access, segment);
  return who;
}

/** True when the caller may see secrets (`acl:write`, reference/mesh.md §6.3). */
export function canSeeSecrets(who: Identity): boolean {
  return who.authorizer.allowed('acl', 'write');
}

/**
 * In a secondary datacenter, sends the request to the primary and returns its reply
 * (writes of global ACL objects; reference/mesh.md §2.4); undefined in the primary.
 * @throws 500 `No path to datacenter` when no server of the primary is known.
 */
export async function forwardToPrimary(ctx: Ctx): Promise<MeshReply | undefined> {
  const { datacenter, primaryDatacenter } = ctx.deps.config;
  if (datacenter === primaryDatacenter) return undefined;
  const forwarded = ctx.deps.forwardTo(primaryDatacenter, ctx.req, ctx.secret);
  if (!forwarded) throw new CairnError('internal', 'No path to datacenter');
  return { forwarded: await forwarded };
}

/**
 * Whether this datacenter may hold local tokens: the primary always, a secondary only with
 * token replication and a replication token (reference/mesh.md §2.4).
 */
export function localTokensEnabled(config: MeshAgentConfig): boolean {
  return config.datacenter === config.primaryDatacenter || (config.acl.tokenReplication && config.acl.replicationToken !== undefined);
}

/**
 * Login, logout and the OIDC callback need local tokens.
 * @throws 500 `Token replication is required for auth methods to function` (reference/mesh.md §3.2).
 */
export function requireLocalTokens(ctx: Ctx): void {
  if (!localTokensEnabled(ctx.deps.config)) throw new CairnError('internal', 'Token replication is required for auth methods to function');
}
