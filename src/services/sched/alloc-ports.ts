/**
 * A port of an allocation by its label (reference/integration.md §1): what a service or
 * check block's `port = "<label>"` resolves to, and what a task's `CAIRN_*_<label>`
 * variables carry. Read from `AllocatedResources.Shared.Ports`, which the scheduler fills at
 * placement (scheduler/ports.ts).
 *
 * @module
 */
import type { PortMapping } from './jobs/network.js';

/** The fields of an allocation this reads (a stored allocation, or the client's copy of one). */
interface WithPorts {
  readonly AllocatedResources?: { readonly Shared?: { readonly Ports?: readonly PortMapping[] | null } | null } | null;
}

/** A resolved port: `hostIP` the address it is bound on, `value` the host port, `to` the task's side (0: not mapped). */
export interface AllocPort {
  readonly hostIP: string;
  readonly value: number;
  readonly to: number;
}

/** Port `label` of allocation `alloc`, or undefined when it has no such port (a label not in the group's `network`, or an allocation placed without ports). */
export function allocPort(alloc: WithPorts, label: string): AllocPort | undefined {
  const p = alloc.AllocatedResources?.Shared?.Ports?.find((x) => x.Label === label);
  return p && { hostIP: p.HostIP, value: p.Value, to: p.To };
}
