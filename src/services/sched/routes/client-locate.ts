/**
 * Where a client endpoint (`/v1/client/...`) about an allocation is answered: the client
 * agent running the allocation. This agent answers when its own client runs it; otherwise it
 * forwards the request to the `HTTPAddr` of the allocation's node (the reference routes
 * client requests through the servers to the node the same way).
 *
 * The server checks the caller's ACL, then forwards with the node's own `SecretID` as the
 * token: the node's agent accepts a request for one of its allocations that carries its node
 * secret without an ACL check of its own. A client-only agent (no state to resolve tokens
 * in) accepts nothing else, so users reach its endpoints through a server.
 *
 * @module
 */
import { timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import { forwardRequest } from '../../../kernel/http/index.js';
import type { StoredAlloc } from '../alloc.js';
import { allocDir, type AllocDir } from '../client/alloc-dir.js';
import type { AllocRunner } from '../client/alloc-runner.js';
import type { SchedClient } from '../client/client.js';
import type { NamespaceCapability } from '../acl/capabilities.js';
import { identityOf, requireAllowed, type Ctx } from '../deps.js';
import { permissionDeniedError, SCHED_FORWARD_STYLE, schedInternal, schedNotFound, type SchedReply } from '../http.js';
import type { Job, PlacedAllocFields } from '../jobs/types.js';
import { T, type NodeDoc } from '../state.js';

/** Marks a request one agent forwarded to a node's agent (which then never forwards it again). */
const FORWARDED_HEADER = 'x-sched-client-forwarded';

/** An allocation this agent's client holds. */
export interface LocalAlloc {
  /** What the endpoints read of it (a client-only agent knows only its client's copy). */
  readonly alloc: Pick<StoredAlloc, 'ID' | 'Namespace' | 'TaskGroup'> & { readonly Job?: Job | null };
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
  const client = ctx.deps.client;
  if (ctx.deps.config.server === false) return { local: clientOnlyAlloc(ctx, client!, id) };
  const alloc = ctx.deps.state.get<StoredAlloc & Partial<PlacedAllocFields>>(T.allocs, id);
  if (!alloc) throw schedNotFound('alloc not found');
  const local = client !== undefined && client.nodeId === alloc.NodeID;
  if (!(local && isOwnNodeSecret(ctx, client))) requireAllowed(identityOf(ctx).authorizer.allowNamespaceOperation(alloc.Namespace, capability));
  if (local) {
    const dir = allocDir(client.allocRoot, alloc.ID);
    if (!existsSync(dir.root)) throw schedNotFound('alloc not found');
    return { local: { alloc, client, dir, runner: client.runner(alloc.ID) } };
  }
  if (ctx.req.headers[FORWARDED_HEADER] !== undefined) throw schedNotFound('alloc not found');
  const node = ctx.deps.state.get<NodeDoc>(T.nodes, alloc.NodeID);
  if (!node?.HTTPAddr) throw schedInternal(`node "${alloc.NodeID}" has no HTTP address`);
  try {
    // The ACL was checked here; the node's agent trusts its own secret (module doc).
    const res = await forwardRequest(SCHED_FORWARD_STYLE, ctx.req, node.HTTPAddr, node.SecretID, undefined, { [FORWARDED_HEADER]: '1' });
    return { forwarded: { forwarded: res } };
  } catch {
    throw schedInternal(`node "${alloc.NodeID}" is not reachable at ${node.HTTPAddr}`);
  }
}

/** Does the request carry the `SecretID` of this agent's own node (a server forwarding, module doc)? Constant-time. */
function isOwnNodeSecret(ctx: Ctx, client: SchedClient): boolean {
  const given = ctx.secret;
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(client.identity.SecretID);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * On a client-only agent: allocation `id` as its client last saw it from the servers.
 * @throws 403 `Permission denied` unless the request carries this node's secret; 404 `alloc
 *   not found` when the client holds no such allocation (or no longer its directory).
 */
function clientOnlyAlloc(ctx: Ctx, client: SchedClient, id: string): LocalAlloc {
  if (!isOwnNodeSecret(ctx, client)) throw permissionDeniedError();
  const runner = client.runner(id);
  const dir = allocDir(client.allocRoot, id);
  if (!runner || !existsSync(dir.root)) throw schedNotFound('alloc not found');
  return { alloc: runner.current, client, dir, runner };
}
