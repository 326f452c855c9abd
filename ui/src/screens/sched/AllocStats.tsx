/**
 * An allocation's CPU and memory over time (issue 31 item 3): `GET
 * /v1/client/allocation/:id/stats` every 3 s while shown (the client reads its tasks'
 * processes), the last 15 minutes kept, drawn with uPlot (its own chunk, loaded on first
 * use), and the numbers as a table behind a toggle.
 */
import { useEffect, useState } from 'react';
import { api } from '../../api/client';
import { ErrorNotice } from '../../components/Notice';
import { ChartNumbers } from '../../components/ChartNumbers';
import { TimeChart } from '../../components/TimeChart';

interface Usage {
  MemoryStats: { RSS: number };
  CpuStats: { Percent: number; TotalTicks: number };
}

/** One reading: epoch seconds, CPU percent of one core, RSS MiB. */
interface Point {
  readonly at: number;
  readonly cpu: number;
  readonly memory: number;
}

const EVERY_MS = 3000;
const KEEP = (15 * 60_000) / EVERY_MS;

export default function AllocStats({ id, ns }: { id: string; ns: string }) {
  const [points, setPoints] = useState<Point[]>([]);
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    let stopped = false;
    const read = async () => {
      try {
        const s = await api<{ ResourceUsage: Usage; Timestamp: number }>(
          'sched',
          `/v1/client/allocation/${encodeURIComponent(id)}/stats?namespace=${encodeURIComponent(ns)}`,
        );
        if (stopped) return;
        setError(undefined);
        const p = { at: Math.round(s.Timestamp / 1e9), cpu: s.ResourceUsage.CpuStats.Percent, memory: s.ResourceUsage.MemoryStats.RSS / 1048576 };
        setPoints((list) => [...list, p].slice(-KEEP));
      } catch (err) {
        if (!stopped) setError(err);
      }
    };
    void read();
    const timer = setInterval(() => void read(), EVERY_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [id, ns]);
  const times = points.map((p) => p.at);
  return (
    <>
      <ErrorNotice error={error} />
      <div className="charts">
        <TimeChart
          title="CPU (percent of one core)"
          times={times}
          series={[{ label: 'CPU', values: points.map((p) => p.cpu) }]}
          unit="%"
          testId="alloc-chart-cpu"
        />
        <TimeChart
          title="Memory (RSS)"
          times={times}
          series={[{ label: 'Memory', values: points.map((p) => p.memory) }]}
          unit="MiB"
          testId="alloc-chart-memory"
        />
      </div>
      <ChartNumbers
        id="alloc-stats-table"
        caption="CPU (percent of one core) and memory (RSS, MiB) every 3 s, newest first"
        columns={['CPU %', 'Memory MiB']}
        rows={points.map((p) => [p.at, p.cpu.toFixed(1), p.memory.toFixed(1)] as const)}
      />
    </>
  );
}
