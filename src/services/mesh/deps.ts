/**
 * What the discovery service's route handlers share: their dependencies and context, and
 * the forwarding of `primary` operations.
 *
 * @module
 */
import { CairnError, type HttpRequest, type HttpResponse } from '../../kernel/http/index.js';
import type { ServiceMetrics } from '../../kernel/metrics/index.js';
import type { Leadership, StateStore } from '../../kernel/store/index.js';
import type { MeshAgentConfig } from './config.js';
import type { MeshContext } from './http.js';
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

/** A mesh handler's context: its caller is the identity its access rule was checked against (access.ts). */
export type Ctx = MeshContext<MeshDeps, Identity>;

/** True when the caller may see secrets (`acl:write`, reference/mesh.md §6.3). */
export function canSeeSecrets(who: Identity): boolean {
  return who.authorizer.allowed('acl', 'write');
}

/**
 * A `primary` operation (writes of global ACL objects and namespaces; reference/mesh.md
 * §2.4) in a secondary datacenter: the request sent to the primary, whose reply is passed
 * back; undefined in the primary (the kernel's `ApiConventions.primary`).
 * @throws 500 `No path to datacenter` when no server of the primary is known.
 */
export function forwardToPrimary(ctx: Ctx): Promise<HttpResponse> | undefined {
  const { datacenter, primaryDatacenter } = ctx.deps.config;
  if (datacenter === primaryDatacenter) return undefined;
  const forwarded = ctx.deps.forwardTo(primaryDatacenter, ctx.req, ctx.secret);
  if (!forwarded) throw new CairnError('internal', 'No path to datacenter');
  return forwarded;
}

/**
 * Whether this datacenter may hold local tokens: the primary always, a secondary only with
 * token replication and a replication token (reference/mesh.md §2.4).
 */
function localTokensEnabled(config: MeshAgentConfig): boolean {
  return config.datacenter === config.primaryDatacenter || (config.acl.tokenReplication && config.acl.replicationToken !== undefined);
}

/**
 * Login, logout and the OIDC callback need local tokens.
 * @throws 500 `Token replication is required for auth methods to function` (reference/mesh.md §3.2).
 */
export function requireLocalTokens(ctx: Ctx): void {
  if (!localTokensEnabled(ctx.deps.config)) throw new CairnError('internal', 'Token replication is required for auth methods to function');
}
