/**
 * A list shown as a table: one column per `[label, cell]` pair, one row per item, headers
 * scoped for screen readers. For the many list screens whose table is only that shape.
 */
import type { ReactNode } from 'react';

/** A column: its header text and the cell of a row. */
export type Column<T> = readonly [label: string, cell: (row: T) => ReactNode];

export function DataTable<T>({
  rows,
  columns,
  rowKey,
  testId,
  caption,
}: {
  rows: readonly T[];
  columns: ReadonlyArray<Column<T>>;
  rowKey: (row: T) => string;
  testId?: string;
  caption?: string;
}) {
  return (
    <table data-testid={testId}>
      {caption && <caption className="sr-only">{caption}</caption>}
      <thead>
        <tr>
          {columns.map(([label]) => (
            <th scope="col" key={label}>
              {label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={rowKey(row)}>
            {columns.map(([label, cell]) => (
              <td key={label}>{cell(row)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
