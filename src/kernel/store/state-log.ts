/**
 * How a {@link StateStore} (state.ts) lays its state out on the {@link Backend} — keys of
 * documents, of the indexes and of the shared-mode log — and how it queues the catch-ups
 * and reloads of a shared store so that at most one runs and one waits.
 *
 * @module
 */
import type { Backend } from './backend.js';
import type { Doc } from './state-tables.js';
import { listRecursive } from './view.js';

/** Key of the global modify index. */
export const META_INDEX = '_meta/index';
/** Key of table `t`'s index (kept, so a delete never moves it back). */
export const metaTableKey = (t: string) => `_meta/table/${t}`;
/** Key of document `id` of table `t`. */
export const docKey = (t: string, id: string) => `${t}/${encodeURIComponent(id)}`;
const LOG_PREFIX = '_log/';
/** Key of the shared-mode log entry at `index`: fixed-width decimal, so log keys sort by index. */
export const logKey = (index: number) => `${LOG_PREFIX}${String(index).padStart(16, '0')}`;

/** How many log entries a shared store keeps (a follower further behind reloads everything). */
export const LOG_KEEP = 10_000;

/** A log entry as stored (through the codec). */
export interface LogEntry {
  readonly index: number;
  readonly label?: string;
  readonly changes: ReadonlyArray<{ table: string; id: string; op: 'put' | 'delete'; doc?: Doc }>;
}

/** Every key under `prefix` with its value: one range read when the Backend has {@link Backend.entries} (SQLite and PostgreSQL do; a view does not). */
export async function readPrefix(backend: Backend, prefix: string): Promise<Array<[string, Uint8Array]>> {
  if (backend.entries) return backend.entries(prefix);
  const out: Array<[string, Uint8Array]> = [];
  for (const key of await listRecursive(backend, prefix)) {
    const raw = await backend.get(key);
    if (raw) out.push([key, raw]);
  }
  return out;
}

/** What a sync does: follow the log; also check for a gap; reload everything. */
export type SyncKind = 'tail' | 'full' | 'reload';
const SYNC_STRENGTH: Readonly<Record<SyncKind, number>> = { tail: 0, full: 1, reload: 2 };

/** The sync running now and the one queued behind it. */
export class SyncQueue {
  private running: Promise<void> | undefined;
  private queued: { kind: SyncKind; promise: Promise<void> } | undefined;

  /** @param run does one sync of the given kind. */
  constructor(private readonly run: (kind: SyncKind) => Promise<void>) {}

  /**
   * Runs a sync of `kind` now, or, when one is running, once after it: callers arriving
   * during a run share that one follow-up, which does the strongest kind any of them asked.
   */
  schedule(kind: SyncKind): Promise<void> {
    if (!this.running) return this.start(kind);
    if (this.queued) {
      this.queued.kind = SYNC_STRENGTH[kind] > SYNC_STRENGTH[this.queued.kind] ? kind : this.queued.kind;
      return this.queued.promise;
    }
    const queued: { kind: SyncKind; promise: Promise<void> } = { kind, promise: Promise.resolve() };
    queued.promise = this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.start(queued.kind);
      });
    this.queued = queued;
    return queued.promise;
  }

  private start(kind: SyncKind): Promise<void> {
    const run = this.run(kind).finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
    return run;
  }
}
