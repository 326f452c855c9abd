/**
 * Where a volume render finds its plugin row and its allocations: the state, or a write's
 * transaction (csi/volume.ts `VolumeLookup`).
 *
 * @module
 */
import type { Indexed } from '../../../kernel/store/index.js';
import type { StoredAlloc } from '../alloc.js';
import { T } from '../state.js';
import type { CsiPluginDoc } from './plugin-doc.js';
import type { VolumeLookup } from './volume.js';

/** Anything with the state's `get` (the state, a transaction). */
export interface DocReader {
  get<D>(table: string, id: string): (D & Indexed) | undefined;
}

/** A {@link VolumeLookup} reading `read`. */
export function volumeLookup(read: DocReader): VolumeLookup {
  return {
    plugin: (id) => read.get<CsiPluginDoc>(T.csiPlugins, id),
    alloc: (id) => read.get<StoredAlloc>(T.allocs, id),
  };
}
