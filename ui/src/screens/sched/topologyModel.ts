/**
 * The topology view's model (issue 31 item 2): client nodes with their capacity and the
 * live allocations placed on them, each with what it reserves — read from
 * `GET /v1/nodes?resources=true` and `GET /v1/allocations?namespace=*&resources=true`, and
 * computed as the scheduler computes them (capacity = resources − reserved; an allocation
 * reserves its tasks' CPU and memory until it is terminal).
 */

/** A `GET /v1/nodes?resources=true` stub. */
export interface TopologyNodeStub {
  ID: string;
  Name: string;
  Status: string;
  SchedulingEligibility: string;
  Drain: boolean;
  NodeResources?: { Cpu?: { CpuShares?: number }; Memory?: { MemoryMB?: number } } | null;
  ReservedResources?: { Cpu?: { CpuShares?: number }; Memory?: { MemoryMB?: number } } | null;
}

/** A `GET /v1/allocations?resources=true` stub. */
export interface TopologyAllocStub {
  ID: string;
  Name: string;
  Namespace: string;
  NodeID: string;
  JobID: string;
  TaskGroup: string;
  DesiredStatus: string;
  ClientStatus: string;
  AllocatedResources?: { Tasks?: Record<string, { Cpu?: { CpuShares?: number }; Memory?: { MemoryMB?: number } }> } | null;
}

/** An allocation as drawn: its stub and what it reserves (MHz, MiB). */
export interface PlacedAlloc {
  readonly alloc: TopologyAllocStub;
  readonly cpu: number;
  readonly memory: number;
}

/** A node as drawn: capacity (MHz, MiB), what its live allocations reserve, and them. */
export interface TopologyNode {
  readonly node: TopologyNodeStub;
  readonly cpu: number;
  readonly memory: number;
  readonly usedCpu: number;
  readonly usedMemory: number;
  readonly allocs: readonly PlacedAlloc[];
}

const n = (v: number | undefined): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** Is the allocation still holding its resources (the scheduler's `allocTerminal`, negated)? */
const live = (a: TopologyAllocStub): boolean => a.DesiredStatus === 'run' && !['complete', 'failed', 'lost'].includes(a.ClientStatus);

/** The nodes in name order, each with its live allocations (largest first). */
export function topology(nodes: readonly TopologyNodeStub[], allocs: readonly TopologyAllocStub[]): TopologyNode[] {
  const byNode = new Map<string, PlacedAlloc[]>();
  for (const a of allocs) {
    if (!live(a)) continue;
    let cpu = 0;
    let memory = 0;
    for (const t of Object.values(a.AllocatedResources?.Tasks ?? {})) {
      cpu += n(t.Cpu?.CpuShares);
      memory += n(t.Memory?.MemoryMB);
    }
    const list = byNode.get(a.NodeID) ?? [];
    list.push({ alloc: a, cpu, memory });
    byNode.set(a.NodeID, list);
  }
  return [...nodes]
    .sort((x, y) => x.Name.localeCompare(y.Name) || x.ID.localeCompare(y.ID))
    .map((node) => {
      const placed = (byNode.get(node.ID) ?? []).sort((x, y) => y.cpu - x.cpu || x.alloc.Name.localeCompare(y.alloc.Name));
      return {
        node,
        cpu: n(node.NodeResources?.Cpu?.CpuShares) - n(node.ReservedResources?.Cpu?.CpuShares),
        memory: n(node.NodeResources?.Memory?.MemoryMB) - n(node.ReservedResources?.Memory?.MemoryMB),
        usedCpu: placed.reduce((s, p) => s + p.cpu, 0),
        usedMemory: placed.reduce((s, p) => s + p.memory, 0),
        allocs: placed,
      };
    });
}

/** A job's colour: a hue from its name, the same on every node and every visit. */
export function jobColour(job: string): string {
  let h = 0;
  for (let i = 0; i < job.length; i++) h = (h * 31 + job.charCodeAt(i)) >>> 0;
  return `hsl(${h % 360} 55% 45%)`;
}
