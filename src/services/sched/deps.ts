/**
 * What the scheduler service's route handlers share, and the guards its routes start with.
 * The dependencies themselves ({@link SchedDeps}) are service-deps.ts, which domain code imports.
 *
 * @module
 */
import { forwardToLeader } from '../../kernel/http/index.js';
import { aclDisabled, permissionDeniedError, SCHED_FORWARD_STYLE, schedInternal, type SchedContext, type SchedReply } from './http.js';
import type { Identity } from './resolve.js';
import type { SchedDeps } from './service-deps.js';

// The route handlers name their dependencies through here, with their context.
export type { SchedDeps } from './service-deps.js';

/** A scheduler handler's context. */
export type Ctx = SchedContext<SchedDeps>;

/** The caller's identity; with ACLs disabled, a management identity (every check passes). @throws 403 for an unknown or expired secret. */
export function identityOf(ctx: Ctx): Identity {
  return ctx.deps.config.acl.enabled ? ctx.deps.acl.resolve(ctx.secret) : ctx.deps.acl.resolveDisabled();
}

/**
 * Throws 400 `ACL support disabled` when ACLs are off: the first check of every `/acl/*`
 * route, made before a write is forwarded (reference/sched.md §1.2; the reference's RPCs
 * check it before forwarding).
 */
export function requireAclEnabled(ctx: Ctx): void {
  if (!ctx.deps.config.acl.enabled) throw aclDisabled();
}

/**
 * The caller's identity for an `/acl/*` route. @throws 400 `ACL support disabled`;
 * 403 `Permission denied` (unknown secret).
 */
export function aclCaller(ctx: Ctx): Identity {
  requireAclEnabled(ctx);
  return ctx.deps.acl.resolve(ctx.secret);
}

/** {@link aclCaller}, and the token must be a management token. @throws as it; 403 `Permission denied`. */
export function requireManagement(ctx: Ctx): Identity {
  const who = aclCaller(ctx);
  if (!who.management) throw permissionDeniedError();
  return who;
}

/** Throws 403 `Permission denied` unless `allowed`. */
export function requireAllowed(allowed: boolean): void {
  if (!allowed) throw permissionDeniedError();
}

/**
 * In a non-authoritative region, sends the request to the authoritative one and returns its
 * reply (writes of auth methods, binding rules, policies and global tokens; reference/sched.md
 * §2.3, spec 002 "What the service does"); undefined in the authoritative region.
 * @throws 500 `No path to region` when no server of it is known.
 */
export async function forwardToAuthoritative(ctx: Ctx): Promise<SchedReply | undefined> {
  const { region, authoritativeRegion } = ctx.deps.config;
  if (region === authoritativeRegion) return undefined;
  const forwarded = ctx.deps.forwardTo(authoritativeRegion, ctx.req, ctx.secret);
  if (!forwarded) throw schedInternal('No path to region');
  return { forwarded: await forwarded };
}

/**
 * On a follower of a shared state, sends the request to the leader and returns its reply,
 * for the reads only the leader can answer (replication status; lists that call a CSI
 * plugin, which only the leader drives); undefined on the leader or a server alone.
 * @throws 500 `No cluster leader` when no leader is known or reachable.
 */
export async function forwardReadToLeader(ctx: Ctx): Promise<SchedReply | undefined> {
  const leadership = ctx.deps.leadership;
  if (!leadership || leadership.isLeader) return undefined;
  return { forwarded: await forwardToLeader(ctx.req, leadership, ctx.secret, SCHED_FORWARD_STYLE) };
}
