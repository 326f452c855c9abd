/**
 * The discovery KV dependencies (`key`, `keyOrDefault`, `keyExists`: `kv.block`, `kv.get`,
 * `kv.exists`; `ls` and `tree`: `kv.list`) watched with blocking `GET /v1/kv/<path>` reads
 * (`?recurse` for a list). Values are handed over decoded from base64 as text; a missing key
 * is `null` (dependency.ts gives each kind's value).
 *
 * @module
 */
import { kvValue } from '../../../../../sdk/mesh.js';
import type { Dependency, KvEntry } from '../../../template/dependency.js';
import { runBlockingQuery } from './blocking.js';
import type { DiscoveryReader } from './discovery.js';
import type { TemplateSourceSettings } from './settings.js';
import type { WatchLoop } from './shared.js';

/** The watch of a `kv.block`, `kv.get` or `kv.exists` dependency: the key's text, `null` while it does not exist. */
export function kvKeyLoop(d: Dependency & { kind: 'kv.block' | 'kv.get' | 'kv.exists' }, reader: DiscoveryReader, settings: TemplateSourceSettings): WatchLoop {
  const { kv } = reader.groups({ dc: d.dc });
  return (ctx) =>
    runBlockingQuery(
      ctx,
      async (o) => {
        const r = await kv.get(d.path, o);
        return { value: r.entry ? kvValue(r.entry).toString('utf8') : null, index: r.index };
      },
      settings,
    );
}

/** The watch of a `kv.list` dependency: every entry under the prefix ({@link KvEntry}, `Key` the full path, `Value` decoded). */
export function kvListLoop(d: Dependency & { kind: 'kv.list' }, reader: DiscoveryReader, settings: TemplateSourceSettings): WatchLoop {
  const { kv } = reader.groups({ dc: d.dc });
  return (ctx) =>
    runBlockingQuery(
      ctx,
      async (o) => {
        const r = await kv.list(d.prefix, o);
        const entries: KvEntry[] = r.items.map((e) => ({
          Key: e.Key,
          Value: kvValue(e).toString('utf8'),
          CreateIndex: e.CreateIndex,
          ModifyIndex: e.ModifyIndex,
          LockIndex: e.LockIndex,
          Flags: e.Flags,
          ...(e.Session ? { Session: e.Session } : {}),
        }));
        return { value: entries, index: r.index };
      },
      settings,
    );
}
