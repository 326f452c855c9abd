/**
 * A client node authenticates its own calls with its `SecretID` in `X-Sched-Token` (the
 * reference's clients present the node secret on their RPCs; `ResolveClientOrACL`): calls
 * about that node (its allocations, its status, its allocations' client status) accept the
 * secret of that node instead of an ACL token.
 *
 * @module
 */
import { timingSafeEqual } from 'node:crypto';
import type { Ctx } from './deps.js';
import { T, type NodeDoc } from './state.js';

/** Does the request carry the `SecretID` of node `nodeId`? Compared in constant time; false for an unknown node or an empty secret. */
export function isNodeSecret(ctx: Ctx, nodeId: string): boolean {
  const node = ctx.deps.state.get<NodeDoc>(T.nodes, nodeId);
  const given = ctx.secret;
  if (!node || !given || node.SecretID === '') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(node.SecretID);
  return a.length === b.length && timingSafeEqual(a, b);
}
