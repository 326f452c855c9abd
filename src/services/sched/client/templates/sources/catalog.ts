/**
 * The `services` dependency (`catalog.services`): `GET /v1/catalog/services` blocking
 * queries, handed over as the catalog's `{ name: [tags…] }` (dependency.ts).
 *
 * @module
 */
import type { Dependency } from '../../../template/dependency.js';
import { runBlockingQuery } from './blocking.js';
import type { DiscoveryReader } from './discovery.js';
import type { TemplateSourceSettings } from './settings.js';
import type { WatchLoop } from './shared.js';

/** The watch of a `catalog.services` dependency. */
export function catalogServicesLoop(d: Dependency & { kind: 'catalog.services' }, reader: DiscoveryReader, settings: TemplateSourceSettings): WatchLoop {
  const { catalog } = reader.groups({ dc: d.dc });
  return (ctx) =>
    runBlockingQuery(
      ctx,
      async (o) => {
        const r = await catalog.services(o);
        return { value: r.value ?? {}, index: r.index };
      },
      settings,
    );
}
