/**
 * A chart's numbers as a table behind a toggle (issue 31 item 4: every chart has a text
 * alternative): the button says what it shows and controls the table; rows newest first.
 */
import { useState, type ReactNode } from 'react';

export function ChartNumbers(p: {
  readonly id: string;
  readonly caption: string;
  /** Column headings after `Time`. */
  readonly columns: readonly string[];
  /** Rows oldest first: epoch seconds and a cell per column. */
  readonly rows: readonly (readonly [number, ...ReactNode[]])[];
}) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" aria-expanded={open} aria-controls={p.id} onClick={() => setOpen(!open)}>
        {open ? 'Hide' : 'Show'} the numbers as a table
      </button>
      {open && (
        <table id={p.id} data-testid={p.id}>
          <caption>{p.caption}</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              {p.columns.map((c) => (
                <th key={c} scope="col">
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {[...p.rows].reverse().map(([at, ...cells]) => (
              <tr key={at}>
                <td>{new Date(at * 1000).toLocaleTimeString()}</td>
                {cells.map((c, i) => (
                  <td key={p.columns[i]}>{c}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
