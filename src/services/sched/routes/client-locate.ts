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
import { existsSync } from 'node:fs';
import { forwardRequest } from '../../../kernel/http/index.js';
import type { StoredAlloc } from '../alloc.js';
import { allocDir, type AllocDir } from '../client/alloc-dir.js';
import type { AllocRunner } from '../client/alloc-runner.js';
import type { SchedClient } from '../client/client.js';
import type { NamespaceCapability } from '../acl/capabilities.js';
import type { SchedAccess } from '../access.js';
import type { Ctx } from '../deps.js';
import { SCHED_FORWARD_STYLE, schedInternal, schedNotFound, type SchedReply } from '../http.js';
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

const allocIdOf = (ctx: Ctx) => ctx.params.alloc ?? ctx.params.id!;

/** The stored allocation of the request. @throws 404 `alloc not found`. */
function storedAlloc(ctx: Ctx): StoredAlloc & Partial<PlacedAllocFields> {
  const alloc = ctx.deps.state.get<StoredAlloc & Partial<PlacedAllocFields>>(T.allocs, allocIdOf(ctx));
  if (!alloc) throw schedNotFound('alloc not found');
  return alloc;
}

/**
 * Who may call a client endpoint about allocation `:alloc` (or `:id`): `capability` in its
 * namespace, or the secret of the client agent beside this server when that client runs it;
 * on a client-only agent, only its own node's secret (module doc). @throws 404 `alloc not
 * found` (on a server, before the token is looked at, as the reference).
 */
export function allocAccess(capability: NamespaceCapability): (ctx: Ctx) => SchedAccess {
  return (ctx) => {
    if (ctx.deps.config.server === false) return { secretOf: { client: true } };
    const alloc = storedAlloc(ctx);
    const local = ctx.deps.client !== undefined && ctx.deps.client.nodeId === alloc.NodeID;
    return { namespace: alloc.Namespace, anyOf: [capability], ...(local && { or: { client: true } as const }) };
  };
}

/**
 * Allocation `:alloc` (or `:id`), once its route's {@link allocAccess} passed: local (this
 * agent's client runs it) or the reply forwarded from its node's agent.
 * @throws 404 `alloc not found` (also when this agent's client has no directory for it);
 *   500 `node "<id>" has no HTTP address` / `… is not reachable`.
 */
export async function locateAlloc(ctx: Ctx): Promise<{ local: LocalAlloc } | { forwarded: SchedReply }> {
  const client = ctx.deps.client;
  if (ctx.deps.config.server === false) return { local: clientOnlyAlloc(client!, allocIdOf(ctx)) };
  const alloc = storedAlloc(ctx);
  const local = client !== undefined && client.nodeId === alloc.NodeID;
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
    const res = await forwardRequest(SCHED_FORWARD_STYLE, ctx.req, {
      address: node.HTTPAddr,
      secret: node.SecretID,
      extra: { [FORWARDED_HEADER]: '1' },
    });
    return { forwarded: { forwarded: res } };
  } catch {
    throw schedInternal(`node "${alloc.NodeID}" is not reachable at ${node.HTTPAddr}`);
  }
}

/**
 * On a client-only agent: allocation `id` as its client last saw it from the servers.
 * @throws 404 `alloc not found` when the client holds no such allocation (or no longer its directory).
 */
function clientOnlyAlloc(client: SchedClient, id: string): LocalAlloc {
  const runner = client.runner(id);
  const dir = allocDir(client.allocRoot, id);
  if (!runner || !existsSync(dir.root)) throw schedNotFound('alloc not found');
  return { alloc: runner.current, client, dir, runner };
}
