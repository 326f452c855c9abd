/**
 * Requests per second and p99 latency per service over the last 15 minutes (issue 31 item
 * 3), drawn with uPlot (components/TimeChart.tsx) — loaded with this chunk on first use, not
 * with the page — and the same numbers as a table behind a toggle (the charts' text
 * alternative).
 */
import { ChartNumbers } from '../../components/ChartNumbers';
import { TimeChart } from '../../components/TimeChart';
import { useTraffic } from './useTraffic';

const fmt = (v: number | null | undefined) => (v == null ? '–' : v.toFixed(1));

/** The charts and, behind a toggle, their numbers as a table (the newest first). */
export default function TrafficCharts() {
  const traffic = useTraffic();
  const times = traffic.find((t) => t.times.length > 0)?.times ?? [];
  return (
    <>
      {traffic
        .filter((t) => t.error)
        .map((t) => (
          <p key={t.label} className="muted">
            {t.label}: its metrics are not shown ({t.error}).
          </p>
        ))}
      {times.length === 0 && <p aria-live="polite">Collecting samples (one every 5 s)…</p>}
      <div className="charts">
        <TimeChart
          title="Requests per second"
          times={times}
          series={traffic.map((t) => ({ label: t.label, values: t.rps }))}
          unit="req/s"
          testId="chart-req/s"
        />
        <TimeChart title="p99 latency" times={times} series={traffic.map((t) => ({ label: t.label, values: t.p99 }))} unit="ms" testId="chart-ms" />
      </div>
      <ChartNumbers
        id="traffic-table"
        caption="Requests per second and p99 latency (ms) per service, every 5 s, newest first"
        columns={traffic.map((t) => `${t.label} req/s, p99 ms`)}
        rows={times.map((at, i) => [at, ...traffic.map((t) => `${fmt(t.rps[i])}, ${fmt(t.p99[i])}`)] as const)}
      />
    </>
  );
}
