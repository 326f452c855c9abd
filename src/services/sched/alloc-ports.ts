/**
 * The ports given to an allocation, by label (reference/integration.md §1: the allocation's
 * `AllocatedResources.Shared.Ports`, `[{Label, Value, To, HostIP}]`). A minimal reader the
 * client's service registration uses to resolve a service's or check's port label; the
 * group network work (issue 26 scope 1) owns this file's full version with the same signature.
 *
 * @module
 */

/** One port of an allocation: the host address and port, and the port mapped inside (`to`, 0 when not mapped). */
export interface AllocPort {
  readonly hostIP: string;
  readonly value: number;
  readonly to: number;
}

/** The part of an allocation this reads. */
interface WithPorts {
  readonly AllocatedResources?: {
    readonly Shared?: { readonly Ports?: readonly { readonly Label: string; readonly Value: number; readonly To?: number; readonly HostIP?: string }[] | null };
  } | null;
}

/** Port `label` of `alloc`, or undefined when the allocation has no port of that label. */
export function allocPort(alloc: WithPorts, label: string): AllocPort | undefined {
  const p = alloc.AllocatedResources?.Shared?.Ports?.find((x) => x.Label === label);
  return p && { hostIP: p.HostIP ?? '', value: p.Value, to: p.To ?? 0 };
}
