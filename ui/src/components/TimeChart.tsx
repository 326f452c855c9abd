/**
 * A time-series chart drawn with uPlot (issue 31 item 3): one line per series over shared
 * times, made once and fed new points as they come. uPlot comes with the chunk of the
 * screen part that uses it (loaded on first use), never with the page. The chart is for the
 * eye (`aria-hidden`); every screen that shows one offers its numbers as a table.
 */
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/** Series colours in order (distinct in both themes). */
const COLOURS = ['#1a73e8', '#d93025', '#188038', '#e37400'];

/**
 * The axes' text, grid and ticks take the theme's colours (styles.css `--text`, `--border`)
 * at each draw, read from the page: the canvas knows no custom properties.
 */
const themed = (property: string) => (u: uPlot) => getComputedStyle(u.root).getPropertyValue(property).trim() || 'gray';
const AXIS = { stroke: themed('--text'), grid: { stroke: themed('--border'), width: 1 }, ticks: { stroke: themed('--border'), width: 1 } };

/** One line: its name and a value per time (null: none then). */
export interface Series {
  readonly label: string;
  readonly values: readonly (number | null)[];
}

export function TimeChart({
  title,
  times,
  series,
  unit,
  testId,
}: {
  title: string;
  times: readonly number[];
  series: readonly Series[];
  unit: string;
  testId: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  const chart = useRef<uPlot | undefined>(undefined);
  const data: uPlot.AlignedData = [times as number[], ...series.map((s) => s.values.slice(-times.length) as (number | null)[])];
  const labels = series.map((s) => s.label).join('\n');
  useEffect(() => {
    if (!host.current) return;
    chart.current = new uPlot(
      {
        width: Math.max(320, host.current.clientWidth),
        height: 200,
        series: [
          {},
          ...labels.split('\n').map((label, i) => ({
            label,
            stroke: COLOURS[i % COLOURS.length],
            width: 2,
            value: (_u: uPlot, v: number | null) => (v == null ? '–' : `${v.toFixed(1)} ${unit}`),
          })),
        ],
        axes: [AXIS, { ...AXIS, label: unit }],
      },
      data,
      host.current,
    );
    // A theme switch (data-theme on <html>) redraws with the new colours.
    const themeChange = new MutationObserver(() => chart.current?.redraw(false));
    themeChange.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return () => {
      themeChange.disconnect();
      chart.current?.destroy();
    };
    // Made once per set of series; new points go through setData below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [labels, unit]);
  useEffect(() => chart.current?.setData(data));
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <div ref={host} aria-hidden="true" data-testid={testId} />
    </figure>
  );
}
