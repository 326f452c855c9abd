/**
 * Keeps plugin host sets current (issue 26 scope 5; the reference's host set sync job, which
 * polls every `sync_interval_seconds`, done here as the discovery service's own watch): on
 * the leader, one watch per plugin host set runs the blocking query
 * `GET /v1/health/service/<service_name>?passing&tag=&filter=&index=&wait=<sync_interval_seconds>s`
 * with its catalog's address and token (the SDK's `runMeshWatch`), and each new answer
 * replaces the set's hosts: one `hplg_…` host per passing instance (id stable per catalog,
 * node and service id; `attributes.address` the service's address, else its node's;
 * `attributes.port` the instance's), hosts no set holds any more deleted, `last_sync_time`
 * set and `sync_error` cleared.
 *
 * A read that fails (the service down, a refused token) keeps the hosts of the last good
 * answer, records the error on the set (`sync_error`, never holding the token) and is
 * retried after `retryMs` × the square of the failures in a row, at most 3 min (the SDK's
 * backoff): an outage never empties a set, and no failure loops tightly. A change to a set
 * or its catalog restarts its watch; a deleted set or catalog, a follower and a stopped
 * controller stop theirs. The sync is the controller's bookkeeping: it does not raise the
 * set's `version`.
 *
 * @module
 */
import { isIP } from 'node:net';
import { runMeshWatch, type MeshServiceEntry } from '../../../sdk/index.js';
import { T, type HostCatalogDoc, type HostDoc, type HostSetDoc, type PluginHostCatalogDoc, type PluginHostDoc, type PluginHostSetDoc } from './docs.js';
import type { GatewayDomain } from './domain.js';
import { deleteUnheldPluginHosts } from './hosts.js';
import { PREFIX, stableId } from './ids.js';
import { catalogClient, DEFAULT_SYNC_INTERVAL_SECONDS } from './plugin-catalog.js';

/** First pause after a failed read, ms (then × the square of the failures in a row). */
const RETRY_MS = 1000;
/** Most hosts one set keeps: a bound on what one answer can make the controller write. */
const MAX_HOSTS_PER_SET = 1000;

/** One instance as a plugin host holds it. */
type Instance = Omit<PluginHostDoc, 'id' | 'created_time' | 'updated_time' | 'version' | 'type' | 'host_catalog_id' | 'scope_id'>;

/** A running watch: the settings it was started with, and how to end it. */
interface Watch {
  readonly key: string;
  readonly abort: AbortController;
  readonly done: Promise<void>;
}

/** The instance `e` as a host (see the module doc). */
function instanceOf(e: MeshServiceEntry): Instance {
  const addresses = [...new Set([e.Service.Address, e.Node.Address].filter((a) => a))];
  return {
    external_id: `${e.Node.Node}/${e.Service.ID}`,
    external_name: e.Service.Service,
    ip_addresses: addresses.filter((a) => isIP(a) !== 0),
    dns_names: addresses.filter((a) => isIP(a) === 0),
    attributes: { address: e.Service.Address || e.Node.Address, port: e.Service.Port ?? 0, node: e.Node.Node, service_id: e.Service.ID },
  };
}

/** Whether stored host `h` already is `i`. */
const sameHost = (h: HostDoc | undefined, i: Instance) =>
  h?.type === 'plugin' &&
  JSON.stringify([h.external_id, h.external_name, h.ip_addresses, h.dns_names, h.attributes]) ===
    JSON.stringify([i.external_id, i.external_name, i.ip_addresses, i.dns_names, i.attributes]);

/** See the module doc. */
export class PluginHostSync {
  private readonly watches = new Map<string, Watch>();
  private unsubscribe: (() => void) | undefined;

  /** @param retryMs first pause after a failed read, ms (tests shorten it). */
  constructor(
    private readonly d: GatewayDomain,
    private readonly retryMs = RETRY_MS,
  ) {}

  /** Starts a watch per plugin host set, and follows changes to sets and catalogs (the leader). */
  start(): void {
    if (this.unsubscribe) return;
    this.unsubscribe = this.d.state.subscribe((batch) => {
      if (batch.changes.some((c) => c.table === T.hostSets || c.table === T.hostCatalogs)) this.reconcile();
    });
    this.reconcile();
  }

  /** Stops every watch and waits for them (a follower, or shutdown). */
  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    const all = [...this.watches.values()];
    this.watches.clear();
    for (const w of all) w.abort.abort();
    await Promise.all(all.map((w) => w.done));
  }

  /** Starts, restarts and stops watches so that each plugin set has one with its current settings. */
  private reconcile(): void {
    if (!this.unsubscribe) return;
    const wanted = new Map<string, { set: PluginHostSetDoc; catalog: PluginHostCatalogDoc; key: string }>();
    for (const set of this.d.state.list<HostSetDoc>(T.hostSets)) {
      const catalog = this.d.state.get<HostCatalogDoc>(T.hostCatalogs, set.host_catalog_id);
      if (set.type !== 'plugin' || catalog?.type !== 'plugin') continue;
      const key = JSON.stringify([catalog.attributes, catalog.secrets?.token ?? '', set.attributes, set.sync_interval_seconds ?? 0]);
      wanted.set(set.id, { set, catalog, key });
    }
    for (const [id, w] of this.watches) {
      if (wanted.get(id)?.key === w.key) continue;
      w.abort.abort();
      this.watches.delete(id);
    }
    for (const [id, want] of wanted) if (!this.watches.has(id)) this.watches.set(id, this.watch(want.set, want.catalog, want.key));
  }

  /** The watch of `set` (see the module doc). */
  private watch(set: PluginHostSetDoc, catalog: PluginHostCatalogDoc, key: string): Watch {
    const abort = new AbortController();
    const client = catalogClient(catalog);
    const { service_name: service, tag, filter } = set.attributes;
    const wait = `${set.sync_interval_seconds ?? DEFAULT_SYNC_INTERVAL_SECONDS}s`;
    let failing = set.sync_error !== undefined;
    const log = this.d.log;
    const done = runMeshWatch<Instance[]>({
      signal: abort.signal,
      retryMs: this.retryMs,
      read: async ({ index, signal }) => {
        const r = await client.health.service(service, { passing: true, tag, filter, index, wait, signal });
        if (failing && !signal.aborted) {
          failing = false;
          await this.recordError(set.id, undefined);
        }
        const instances = r.items.map(instanceOf).sort((a, b) => (a.external_id < b.external_id ? -1 : a.external_id > b.external_id ? 1 : 0));
        if (instances.length > MAX_HOSTS_PER_SET)
          log.warn({ host_set: set.id, instances: instances.length }, `only the first ${MAX_HOSTS_PER_SET} instances are kept`);
        return { value: instances.slice(0, MAX_HOSTS_PER_SET), index: r.index };
      },
      onChange: async (instances) => {
        if (abort.signal.aborted) return;
        try {
          await this.apply(set.id, instances);
        } catch (err) {
          log.error({ host_set: set.id, err: (err as Error).message }, "plugin host set's hosts could not be stored");
        }
      },
      onError: (err, retryMs) => {
        if (abort.signal.aborted) return;
        failing = true;
        const message = (err as Error).message;
        log.warn(
          { host_set: set.id, address: catalog.attributes.address, err: message, retry_ms: retryMs },
          'plugin host set not synced; its last hosts are kept',
        );
        void this.recordError(set.id, message).catch(() => undefined);
      },
    })
      .catch((err: Error) => log.error({ host_set: set.id, err: err.message }, 'plugin host set watch ended'))
      .finally(() => client.close());
    return { key, abort, done };
  }

  /** Makes set `setId`'s hosts `instances` (see the module doc). */
  private async apply(setId: string, instances: readonly Instance[]): Promise<void> {
    const now = this.d.nowIso();
    await this.d.state.txn((tx) => {
      const set = tx.get<HostSetDoc>(T.hostSets, setId);
      if (set?.type !== 'plugin') return;
      const ids: string[] = [];
      for (const i of instances) {
        const id = stableId(PREFIX.pluginHost, `${set.host_catalog_id}\n${i.external_id}`);
        ids.push(id);
        const cur = tx.get<HostDoc>(T.hosts, id);
        if (sameHost(cur, i)) continue;
        const host: PluginHostDoc = {
          ...i,
          id,
          type: 'plugin',
          scope_id: set.scope_id,
          host_catalog_id: set.host_catalog_id,
          created_time: cur?.created_time ?? now,
          updated_time: now,
          version: (cur?.version ?? 0) + 1,
        };
        tx.put(T.hosts, id, host);
      }
      const { CreateIndex: _c, ModifyIndex: _m, sync_error: _e, ...rest } = set as PluginHostSetDoc & { CreateIndex: number; ModifyIndex: number };
      tx.put(T.hostSets, setId, { ...rest, host_ids: ids, last_sync_time: now });
      deleteUnheldPluginHosts(
        tx,
        set,
        set.host_ids.filter((h) => !ids.includes(h)),
      );
    });
  }

  /** Records (or, `message` undefined, clears) set `setId`'s `sync_error`; its hosts are left as they are. */
  private async recordError(setId: string, message: string | undefined): Promise<void> {
    await this.d.state.txn((tx) => {
      const set = tx.get<HostSetDoc>(T.hostSets, setId);
      if (set?.type !== 'plugin' || set.sync_error === message) return;
      const { CreateIndex: _c, ModifyIndex: _m, sync_error: _e, ...rest } = set as PluginHostSetDoc & { CreateIndex: number; ModifyIndex: number };
      tx.put(T.hostSets, setId, message === undefined ? rest : { ...rest, sync_error: message });
    });
  }
}
