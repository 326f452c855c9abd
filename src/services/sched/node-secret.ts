/**
 * A client node authenticates its own calls with its `SecretID` in `X-Sched-Token` (the
 * reference's clients present the node secret on their RPCs; `ResolveClientOrACL`): calls
 * about that node (its allocations, its status, its allocations' client status) accept the
 * secret of that node instead of an ACL token; the client agent beside a server accepts its
 * own secret for the allocations it runs.
 *
 * @module
 */
import { timingSafeEqual } from 'node:crypto';
import type { Ctx } from './deps.js';
import { T, type NodeDoc } from './state.js';

/** Does the request carry the `SecretID` of node `nodeId`? Compared in constant time; false for an unknown node or an empty secret. */
export function isNodeSecret(ctx: Ctx, nodeId: string): boolean {
  const node = ctx.deps.state.get<NodeDoc>(T.nodes, nodeId);
  return node !== undefined && node.SecretID !== '' && sameSecret(ctx.secret, node.SecretID);
}

/** Does the request carry the `SecretID` of the client agent beside this server? False without one. */
export function isOwnClientSecret(ctx: Ctx): boolean {
  const client = ctx.deps.client;
  return client !== undefined && sameSecret(ctx.secret, client.identity.SecretID);
}

/** `given` equals `expected`, compared in constant time; false without `given`. */
function sameSecret(given: string | undefined, expected: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
