/** PLACEHOLDER: filled in by its owner. @module */
import type { ChangeBatch } from '../../../kernel/store/index.js';
import type { EventBatch } from './event.js';

/** The events of a committed state batch (reference/sched.md §3.4); undefined when it makes none. */
export function eventBatchOf(_batch: ChangeBatch): EventBatch | undefined {
  return undefined;
}
