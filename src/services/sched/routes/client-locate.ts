/**
 * Where a client endpoint (`/v1/client/...`) about an allocation is answered: the client
 * agent running the allocation. This agent answers when its own client runs it; otherwise it
 * forwards the request to the `HTTPAddr` of the allocation's node (the reference routes
 * client requests through the servers to the node the same way).
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { forwardRequest } from '../../../kernel/http/index.js';
import type { StoredAlloc } from '../alloc.js';
import { allocDir, type AllocDir } from '../client/alloc-dir.js';
import type { AllocRunner } from '../client/alloc-runner.js';
import type { SchedClient } from '../client/client.js';
import type { NamespaceCapability } from '../acl/capabilities.js';
import { identityOf, requireAllowed, type Ctx } from '../deps.js';
import { SCHED_FORWARD_STYLE, schedInternal, schedNotFound, type SchedReply } from '../http.js';
import type { PlacedAllocFields } from '../jobs/types.js';
import { T, type NodeDoc } from '../state.js';

/** Marks a request one agent forwarded to a node's agent (which then never forwards it again). */
const FORWARDED_HEADER = 'x-sched-client-forwarded';

/** An allocation this agent's client holds. */
export interface LocalAlloc {
  readonly alloc: StoredAlloc & Partial<PlacedAllocFields>;
  readonly client: SchedClient;
  readonly dir: AllocDir;
  /** Its runner while the client still runs (or keeps) it. */
  readonly runner: AllocRunner | undefined;
}

/**
 * Allocation `:alloc` (or `:id`) after the ACL check `capability` in its namespace: local
 * (this agent's client runs it) or the reply forwarded from its node's agent.
 * @throws 404 `alloc not found` (also when this agent's client has no directory for it);
 *   403 without `capability`; 500 `node "<id>" has no HTTP address` / `… is not reachable`.
 */
export async function locateAlloc(ctx: Ctx, capability: NamespaceCapability): Promise<{ local: LocalAlloc } | { forwarded: SchedReply }> {
  const id = ctx.params.alloc ?? ctx.params.id!;
  const alloc = ctx.deps.state.get<StoredAlloc & Partial<PlacedAllocFields>>(T.allocs, id);
  if (!alloc) throw schedNotFound('alloc not found');
  requireAllowed(identityOf(ctx).authorizer.allowNamespaceOperation(alloc.Namespace, capability));
  const client = ctx.deps.client;
  if (client && client.nodeId === alloc.NodeID) {
    const dir = allocDir(client.allocRoot, alloc.ID);
    if (!existsSync(dir.root)) throw schedNotFound('alloc not found');
    return { local: { alloc, client, dir, runner: client.runner(alloc.ID) } };
  }
  if (ctx.req.headers[FORWARDED_HEADER] !== undefined) throw schedNotFound('alloc not found');
  const node = ctx.deps.state.get<NodeDoc>(T.nodes, alloc.NodeID);
  if (!node?.HTTPAddr) throw schedInternal(`node "${alloc.NodeID}" has no HTTP address`);
  try {
    const res = await forwardRequest(SCHED_FORWARD_STYLE, ctx.req, node.HTTPAddr, ctx.secret, undefined, { [FORWARDED_HEADER]: '1' });
    return { forwarded: { forwarded: res } };
  } catch {
    throw schedInternal(`node "${alloc.NodeID}" is not reachable at ${node.HTTPAddr}`);
  }
}
