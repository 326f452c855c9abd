/**
 * The cluster's topology (issue 31 item 2): every client node as a box with its status,
 * eligibility and drain, and its capacity as two tracks — CPU and memory — whose length
 * follows the node's size against the largest node's; its live allocations are drawn in
 * them as bars of what each reserves, coloured by job. Choosing an allocation (click, or
 * Enter on it: each is a button) shows its job, task states and ports. Live through the
 * scheduler's blocking queries; the rows are virtualised (@tanstack/react-virtual), so 200
 * nodes and 5,000 allocations keep a screenful of boxes in the page.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef, useState } from 'react';
import { useBlocking } from '../../api/useBlocking';
import { ErrorNotice, Loading } from '../../components/Notice';
import { SchedNav } from './SchedNav';
import { TopologyAllocDetail } from './TopologyAllocDetail';
import { jobColour, topology, type PlacedAlloc, type TopologyAllocStub, type TopologyNode, type TopologyNodeStub } from './topologyModel';

/** Boxes per row, and a row's height in pixels (a box's fixed height, its gap included). */
const PER_ROW = 3;
const ROW_PX = 150;

export function Topology() {
  const nodes = useBlocking<TopologyNodeStub[]>('/v1/nodes?resources=true', 'sched');
  const allocs = useBlocking<TopologyAllocStub[]>('/v1/allocations?namespace=*&resources=true', 'sched');
  const [chosen, setChosen] = useState<TopologyAllocStub | undefined>();
  const model = useMemo(() => (nodes.data && allocs.data ? topology(nodes.data, allocs.data) : undefined), [nodes.data, allocs.data]);
  const largest = useMemo(
    () => ({ cpu: Math.max(1, ...(model ?? []).map((m) => m.cpu)), memory: Math.max(1, ...(model ?? []).map((m) => m.memory)) }),
    [model],
  );
  const placed = model?.reduce((s, m) => s + m.allocs.length, 0) ?? 0;
  return (
    <>
      <SchedNav />
      <h1>Topology</h1>
      <ErrorNotice error={nodes.error ?? allocs.error} />
      {!model && <Loading />}
      {model && (
        <p data-testid="topology-summary">
          {model.length} nodes, {placed} running allocations. Each bar is an allocation&apos;s CPU or memory reservation, coloured by job.
        </p>
      )}
      <div className="topology-layout">
        {model && <NodeGrid model={model} largest={largest} chosen={chosen?.ID} onChoose={setChosen} />}
        {chosen && <TopologyAllocDetail stub={chosen} onClose={() => setChosen(undefined)} />}
      </div>
    </>
  );
}

/** The nodes, {@link PER_ROW} to a row, only the rows near the visible ones in the page. */
function NodeGrid(p: { model: TopologyNode[]; largest: { cpu: number; memory: number }; chosen?: string; onChoose: (a: TopologyAllocStub) => void }) {
  const scroller = useRef<HTMLDivElement>(null);
  const rows = Math.ceil(p.model.length / PER_ROW);
  const virtual = useVirtualizer({ count: rows, getScrollElement: () => scroller.current, estimateSize: () => ROW_PX, overscan: 2 });
  return (
    <div ref={scroller} className="topology" role="region" aria-label="Client nodes and their allocations" tabIndex={0} data-testid="topology">
      <ul style={{ height: virtual.getTotalSize() }} aria-label="Client nodes">
        {virtual.getVirtualItems().flatMap((row) =>
          p.model.slice(row.index * PER_ROW, row.index * PER_ROW + PER_ROW).map((m, i) => (
            <li key={m.node.ID} style={{ transform: `translate(${i * 100}%, ${row.start}px)` }} className="topology-cell">
              <NodeBox m={m} largest={p.largest} chosen={p.chosen} onChoose={p.onChoose} />
            </li>
          )),
        )}
      </ul>
    </div>
  );
}

const fmt = (v: number) => Math.round(v).toLocaleString('en-US');

/** One node: its name and state, and its CPU and memory tracks with the allocations' bars. */
function NodeBox({
  m,
  largest,
  chosen,
  onChoose,
}: {
  m: TopologyNode;
  largest: { cpu: number; memory: number };
  chosen?: string;
  onChoose: (a: TopologyAllocStub) => void;
}) {
  const n = m.node;
  const state = [n.Status, n.SchedulingEligibility === 'eligible' ? 'eligible' : 'ineligible', ...(n.Drain ? ['draining'] : [])].join(', ');
  return (
    <section className={`node-box node-${n.Status}`} aria-label={`Node ${n.Name}`} data-testid={`node-${n.Name}`}>
      <h2>
        {n.Name} <span className="muted">({state})</span>
      </h2>
      <p className="node-usage">
        CPU {fmt(m.usedCpu)} / {fmt(m.cpu)} MHz · memory {fmt(m.usedMemory)} / {fmt(m.memory)} MiB
      </p>
      <Track label="CPU" capacity={m.cpu} scale={m.cpu / largest.cpu} allocs={m.allocs} size={(a) => a.cpu} chosen={chosen} onChoose={onChoose} />
      <Track label="Memory" capacity={m.memory} scale={m.memory / largest.memory} allocs={m.allocs} size={(a) => a.memory} />
    </section>
  );
}

/**
 * A resource track: its length the node's share of the largest node's, each allocation a
 * bar of its share of this node. The CPU track's bars are buttons (one stop per allocation
 * for the keyboard); the memory track repeats them for the eye only.
 */
function Track(p: {
  label: string;
  capacity: number;
  scale: number;
  allocs: readonly PlacedAlloc[];
  size: (a: PlacedAlloc) => number;
  chosen?: string;
  onChoose?: (a: TopologyAllocStub) => void;
}) {
  const share = (a: PlacedAlloc) => `${p.capacity > 0 ? Math.min(100, (100 * p.size(a)) / p.capacity) : 0}%`;
  return (
    <div className="track" style={{ width: `${Math.max(10, 100 * p.scale)}%` }} aria-hidden={p.onChoose ? undefined : true}>
      <span className="track-label">{p.label}</span>
      <div className="track-bars">
        {p.allocs.map((a) =>
          p.onChoose ? (
            <button
              key={a.alloc.ID}
              type="button"
              className={`alloc-bar${p.chosen === a.alloc.ID ? ' chosen' : ''}`}
              style={{ width: share(a), background: jobColour(a.alloc.JobID) }}
              aria-label={`${a.alloc.Name} of job ${a.alloc.JobID}: ${fmt(a.cpu)} MHz, ${fmt(a.memory)} MiB`}
              aria-pressed={p.chosen === a.alloc.ID}
              onClick={() => p.onChoose!(a.alloc)}
            />
          ) : (
            <span key={a.alloc.ID} className="alloc-bar" style={{ width: share(a), background: jobColour(a.alloc.JobID) }} />
          ),
        )}
      </div>
    </div>
  );
}
