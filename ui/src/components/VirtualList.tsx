/**
 * A long list rendered a screenful at a time (@tanstack/react-virtual): a folder of 10,000
 * keys keeps a few dozen rows in the page, so it opens and scrolls smoothly.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useRef, type ReactNode } from 'react';

const ROW_PX = 36;

export function VirtualList<T>({ items, label, render }: { items: readonly T[]; label: string; render: (item: T) => ReactNode }) {
  const scroller = useRef<HTMLDivElement>(null);
  const rows = useVirtualizer({ count: items.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_PX, overscan: 8 });
  return (
    <div ref={scroller} className="vlist" role="region" aria-label={label} tabIndex={0}>
      <ul style={{ height: rows.getTotalSize() }} aria-label={label}>
        {rows.getVirtualItems().map((row) => (
          <li key={row.key} style={{ transform: `translateY(${row.start}px)`, height: ROW_PX }}>
            {render(items[row.index])}
          </li>
        ))}
      </ul>
    </div>
  );
}
