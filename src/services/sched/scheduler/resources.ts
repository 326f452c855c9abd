/**
 * CPU and memory accounting for placement (reference/sched-workloads.md "Evaluations and
 * placement"): what a node offers (`NodeResources` less `ReservedResources`), what its
 * non-terminal allocations hold (`AllocatedResources`), what a task group asks (the sum of
 * its tasks' `Resources`), and the reference's bin-packing score. CPU in MHz, memory in MiB.
 *
 * @module
 */
import { allocTerminal, type StoredAlloc } from '../alloc.js';
import type { AllocatedResources, PlacedAllocFields, TaskGroup } from '../jobs/types.js';
import type { NodeDoc } from '../state.js';

/** An amount of CPU (MHz) and memory (MiB). */
export interface Amount {
  readonly cpu: number;
  readonly memory: number;
}

/** A stored allocation as the scheduler sees it: the placed fields are absent on allocations written through the Cairn-only endpoint. */
export type SchedAlloc = StoredAlloc & Partial<PlacedAllocFields>;

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const field = (v: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((o, k) => (o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), v);

/** What node `n` offers to allocations: `NodeResources.Cpu.CpuShares` and `.Memory.MemoryMB` less the same fields of `ReservedResources` (missing fields count 0). */
export function nodeCapacity(n: Pick<NodeDoc, 'NodeResources' | 'ReservedResources'>): Amount {
  return {
    cpu: num(field(n.NodeResources, 'Cpu', 'CpuShares')) - num(field(n.ReservedResources, 'Cpu', 'CpuShares')),
    memory: num(field(n.NodeResources, 'Memory', 'MemoryMB')) - num(field(n.ReservedResources, 'Memory', 'MemoryMB')),
  };
}

/** What an allocation holds: the sum of its `AllocatedResources.Tasks`; 0 for a terminal one or one without them. */
export function allocUsage(a: SchedAlloc): Amount {
  if (allocTerminal(a) || !a.AllocatedResources) return ZERO;
  let cpu = 0;
  let memory = 0;
  for (const t of Object.values(a.AllocatedResources.Tasks)) {
    cpu += num(t.Cpu?.CpuShares);
    memory += num(t.Memory?.MemoryMB);
  }
  return { cpu, memory };
}

/** Nothing. */
export const ZERO: Amount = { cpu: 0, memory: 0 };

/** `a + b`. */
export const add = (a: Amount, b: Amount): Amount => ({ cpu: a.cpu + b.cpu, memory: a.memory + b.memory });
/** `a - b`. */
export const sub = (a: Amount, b: Amount): Amount => ({ cpu: a.cpu - b.cpu, memory: a.memory - b.memory });

/** What one allocation of `tg` asks: its tasks' `Resources.CPU` and `Resources.MemoryMB` summed. */
export function groupAsk(tg: TaskGroup): Amount {
  return tg.Tasks.reduce<Amount>((s, t) => add(s, { cpu: num(t.Resources?.CPU), memory: num(t.Resources?.MemoryMB) }), ZERO);
}

/** The `AllocatedResources` of an allocation of `tg` (per task, and the group's ephemeral disk). */
export function allocatedResources(tg: TaskGroup): AllocatedResources {
  return {
    Tasks: Object.fromEntries(tg.Tasks.map((t) => [t.Name, { Cpu: { CpuShares: num(t.Resources?.CPU) }, Memory: { MemoryMB: num(t.Resources?.MemoryMB) } }])),
    Shared: { DiskMB: num(tg.EphemeralDisk?.SizeMB) },
  };
}

/** Which dimension `used` exceeds on a node of `capacity` (`cpu`, `memory`), or undefined when it fits. */
export function exhausted(used: Amount, capacity: Amount): 'cpu' | 'memory' | undefined {
  if (used.cpu > capacity.cpu) return 'cpu';
  if (used.memory > capacity.memory) return 'memory';
  return undefined;
}

/** The reference's maximum bin-packing fit score (`binPackingMaxFitScore`). */
const MAX_FIT = 18;

/**
 * The reference's bin-packing score of a node that would hold `used` of `capacity`
 * (`structs.ScoreFitBinPack`, normalised by its `binPackingMaxFitScore`): with the free
 * fractions f of CPU and memory, `(20 - (10^f_cpu + 10^f_mem)) / 18`, clamped to [0, 1]:
 * 1 for a full node, 0 for an empty one, so fuller nodes win.
 */
export function binPackScore(used: Amount, capacity: Amount): number {
  const free = (u: number, c: number) => (c > 0 ? 1 - u / c : 0);
  const total = 10 ** free(used.cpu, capacity.cpu) + 10 ** free(used.memory, capacity.memory);
  return Math.min(MAX_FIT, Math.max(0, 20 - total)) / MAX_FIT;
}
