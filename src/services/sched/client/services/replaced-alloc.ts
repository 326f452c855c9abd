/**
 * The registrations of a lost allocation, removed when its replacement starts (issue 26
 * scope 3; reference/integration.md §8.1, "registrations leak after a client crash"): a
 * killed client's instances turn critical within its liveness TTL (registration.ts) but stay
 * until the discovery agent's `deregister_critical_service_after`. The client that starts
 * the allocation replacing it (`PreviousAllocation`) removes them at once:
 *
 * - only when the previous allocation ran on another node and is terminal there as the
 *   servers have it (`lost`, `failed` or `complete`): a live allocation's registrations are
 *   its own client's, so two clients sharing one agent never remove each other's;
 * - from the discovery agent beside this client (`/v1/agent/services`, those whose `Meta`
 *   names the allocation → `PUT /v1/agent/service/deregister/:id`), where a shared agent
 *   holds them;
 * - and from the catalog (`/v1/catalog/services` and `/v1/catalog/service/:name` filtered
 *   on `ServiceMeta["cairn-alloc-id"]` → `PUT /v1/catalog/deregister {Node, ServiceID}`),
 *   where another node's agent synced them. While that agent still runs, its anti-entropy
 *   writes them back (critical) at its next full sync, until it removes them itself after
 *   `deregister_critical_service_after` (docs/compatibility.md).
 *
 * @module
 */
import { MeshApiError, type MeshClient } from '../../../../sdk/index.js';
import { clientTerminal } from '../../alloc.js';
import { META_ALLOC, SERVICE_ID_PREFIX } from './registration.js';

/** The fields of the previous allocation (`GET /v1/allocation/:id`) the decision reads. */
export interface PreviousAlloc {
  readonly ID: string;
  readonly NodeID: string;
  readonly ClientStatus: string;
}

/** Whether the registrations of `prev` are for the client of node `nodeId` to remove: it ran elsewhere and ended there. */
export function replacedElsewhere(prev: PreviousAlloc, nodeId: string): boolean {
  return prev.NodeID !== nodeId && clientTerminal(prev);
}

/** Is `id` a registration of Cairn's? (A user's own service is never touched, whatever its `Meta`.) */
const ours = (id: string) => id.startsWith(SERVICE_ID_PREFIX);

/**
 * Removes every registration of allocation `allocId` from the agent `mesh` talks to and from
 * the catalog; the service IDs removed (each once). Already gone (404): skipped.
 * @throws Error for an allocation ID that is not a UUID (it goes into a filter expression);
 * the `MeshApiError` or connection error of a failed read or removal.
 */
export async function removeAllocInstances(mesh: MeshClient, allocId: string): Promise<string[]> {
  if (!/^[0-9a-f-]{36}$/i.test(allocId)) throw new Error(`allocation ID ${JSON.stringify(allocId)} is not a UUID`);
  const removed = new Set<string>();
  const local = await mesh.agent.services();
  for (const s of Object.values(local)) {
    if (!ours(s.ID) || s.Meta?.[META_ALLOC] !== allocId) continue;
    await mesh.agent.deregisterService(s.ID).catch((err: unknown) => {
      if (!(err instanceof MeshApiError && err.status === 404)) throw err;
    });
    removed.add(s.ID);
  }
  const filter = `ServiceMeta[${JSON.stringify(META_ALLOC)}] == ${JSON.stringify(allocId)}`;
  const names = Object.keys((await mesh.catalog.services({ filter })).value ?? {});
  for (const name of names) {
    for (const i of (await mesh.catalog.service(name, { filter })).items) {
      // Removed from the agent above: its anti-entropy takes it out of the catalog.
      if (!ours(i.ServiceID) || removed.has(i.ServiceID)) continue;
      await mesh.catalog.deregister({ Node: i.Node, ServiceID: i.ServiceID }).catch((err: unknown) => {
        // Gone meanwhile (`Unknown service ID …`, as the reference answers a token without node:write).
        if (!(err instanceof MeshApiError && err.status === 400 && /Unknown service ID/.test(err.message))) throw err;
      });
      removed.add(i.ServiceID);
    }
  }
  return [...removed];
}
