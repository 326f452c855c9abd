/**
 * Requests per second and p99 latency per service over the last 15 minutes (issue 31 item
 * 3), drawn with uPlot — loaded with this chunk on first use, not with the page — and the
 * same numbers as a table behind a toggle (the charts' text alternative).
 */
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { useTraffic, type Traffic } from './useTraffic';

/** Series colours, one per service in their order (distinct in both themes). */
const COLOURS = ['#1a73e8', '#d93025', '#188038'];

/** One uPlot chart of `pick` per service, aligned on the first service's times. */
function Chart({ title, traffic, pick, unit }: { title: string; traffic: Traffic[]; pick: (t: Traffic) => (number | null)[]; unit: string }) {
  const host = useRef<HTMLDivElement>(null);
  const chart = useRef<uPlot | undefined>(undefined);
  const times = traffic.find((t) => t.times.length > 0)?.times ?? [];
  const data: uPlot.AlignedData = [times, ...traffic.map((t) => pick(t).slice(-times.length))];
  useEffect(() => {
    if (!host.current) return;
    chart.current = new uPlot(
      {
        width: Math.max(320, host.current.clientWidth),
        height: 200,
        series: [
          {},
          ...traffic.map((t, i) => ({
            label: t.label,
            stroke: COLOURS[i % COLOURS.length],
            width: 2,
            value: (_u: uPlot, v: number | null) => (v == null ? '–' : `${v.toFixed(1)} ${unit}`),
          })),
        ],
        axes: [{ stroke: 'currentColor' }, { stroke: 'currentColor', label: unit }],
      },
      data,
      host.current,
    );
    return () => chart.current?.destroy();
    // The chart is made once per set of services; new points go through setData below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [traffic.length]);
  useEffect(() => chart.current?.setData(data));
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <div ref={host} aria-hidden="true" data-testid={`chart-${unit}`} />
    </figure>
  );
}

const fmt = (v: number | null | undefined) => (v == null ? '–' : v.toFixed(1));

/** The charts and, behind a toggle, their numbers as a table (the newest first). */
export default function TrafficCharts() {
  const traffic = useTraffic();
  const [table, setTable] = useState(false);
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
        <Chart title="Requests per second" traffic={traffic} pick={(t) => t.rps} unit="req/s" />
        <Chart title="p99 latency" traffic={traffic} pick={(t) => t.p99} unit="ms" />
      </div>
      <button type="button" aria-expanded={table} aria-controls="traffic-table" onClick={() => setTable(!table)}>
        {table ? 'Hide' : 'Show'} the numbers as a table
      </button>
      {table && (
        <table id="traffic-table" data-testid="traffic-table">
          <caption>Requests per second and p99 latency (ms) per service, every 5 s, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              {traffic.map((t) => (
                <th key={t.label} scope="col">
                  {t.label} req/s, p99 ms
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {times
              .map((at, i) => (
                <tr key={at}>
                  <td>{new Date(at * 1000).toLocaleTimeString()}</td>
                  {traffic.map((t) => (
                    <td key={t.label}>
                      {fmt(t.rps[i])}, {fmt(t.p99[i])}
                    </td>
                  ))}
                </tr>
              ))
              .reverse()}
          </tbody>
        </table>
      )}
    </>
  );
}
