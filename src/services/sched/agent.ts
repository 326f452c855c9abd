/**
 * Runs the scheduler service: its state (SQLite under `data_dir`, encrypted at rest with
 * `data_dir/sched-state.key`), the `default` namespace, the event broker fed from the
 * state's change feed, replication from the authoritative region, the CSI plugin registry
 * (`plugin` blocks, csi/plugins.ts) and the HTTP API (issues 6 and 7).
 *
 * @module
 */
import { setMaxListeners } from 'node:events';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { csiClient, type CsiClient } from '../../kernel/csi/index.js';
import { forwardRequest, listen } from '../../kernel/http/index.js';
import type { Logger } from '../../kernel/log/logger.js';
import { aesGcmCodec, loadOrCreateKeyFile, SqliteBackend, StateStore } from '../../kernel/store/index.js';
import { ensureDefaultNamespace, ensureInitialManagement } from './bootstrap.js';
import type { SchedAgentConfig } from './config.js';
import { KeyedLock } from './csi/locks.js';
import { CsiPlugins } from './csi/plugins.js';
import type { SchedDeps } from './deps.js';
import { subscriptionAuthorizer } from './events-acl.js';
import { EventBroker } from './events/index.js';
import { eventBatchOf } from './events/source.js';
import { SCHED_FORWARD_STYLE, schedHttpService } from './http.js';
import { SchedReplicator } from './replication.js';
import { SchedAclResolver } from './resolve.js';
import { aclPolicyRoutes } from './routes/acl-policies.js';
import { aclRoleRoutes } from './routes/acl-roles.js';
import { aclTokenRoutes } from './routes/acl-tokens.js';
import { allocationRoutes } from './routes/allocations.js';
import { authMethodRoutes } from './routes/auth-methods.js';
import { bindingRuleRoutes } from './routes/binding-rules.js';
import { eventRoutes } from './routes/events.js';
import { loginRoutes } from './routes/login.js';
import { namespaceRoutes } from './routes/namespaces.js';
import { nodeRoutes } from './routes/nodes.js';
import { pluginRoutes } from './routes/plugins.js';
import { replicationRoutes } from './routes/replication.js';
import { statusRoutes } from './routes/status.js';
import { volumeSnapshotRoutes } from './routes/volume-snapshots.js';
import { volumeRoutes } from './routes/volumes.js';
import { SCHED_TABLES } from './state.js';

/** Every route of the scheduler service. */
export const SCHED_ROUTES = [
  ...statusRoutes,
  ...aclTokenRoutes,
  ...aclPolicyRoutes,
  ...aclRoleRoutes,
  ...authMethodRoutes,
  ...bindingRuleRoutes,
  ...loginRoutes,
  ...namespaceRoutes,
  ...nodeRoutes,
  ...allocationRoutes,
  ...pluginRoutes,
  ...volumeRoutes,
  ...volumeSnapshotRoutes,
  ...eventRoutes,
  ...replicationRoutes,
];

/** Options of {@link startSchedAgent}. */
export interface SchedAgentOptions {
  readonly config: SchedAgentConfig;
  readonly log: Logger;
  /** Clock in epoch ms; default `Date.now`. */
  readonly now?: () => number;
  /**
   * `cairn dev`: a management token with this secret is made at start (the dev root token)
   * and bootstrap is marked done; tokens an earlier dev start made this way are deleted.
   */
  readonly initialManagementToken?: string;
  /** Blocking wait of replication queries on the authoritative region, in ms (tests shorten it); default 5 min. */
  readonly replicationWaitMs?: number;
  /** First retry delay of a failed replication round, in ms (tests shorten it); default 2 s. */
  readonly replicationBackoffMs?: number;
  /** Opens a client on a CSI plugin socket; default the kernel's `csiClient` (tests wrap it to see what plugins are sent). */
  readonly csiConnect?: (socket: string) => CsiClient;
}

/** A running agent. */
export interface SchedAgent {
  /** `http://host:port` of the HTTP API. */
  readonly url: string;
  readonly state: StateStore;
  readonly broker?: EventBroker;
  /** The CSI plugin registry (its `probeNow()` lets tests skip a probe period). */
  readonly plugins: CsiPlugins;
  /** Present in a non-authoritative region with ACLs on. */
  readonly replicator?: SchedReplicator;
  close(): Promise<void>;
}

/**
 * Starts an agent. @throws when the data directory, its key or the state cannot be
 * opened, or the HTTP address cannot be bound (whatever opened is closed first).
 */
export async function startSchedAgent(options: SchedAgentOptions): Promise<SchedAgent> {
  const { config, log } = options;
  const now = options.now ?? (() => Date.now());
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const backend = SqliteBackend.open({ path: join(config.dataDir, 'sched.db') });
  let unsubscribe: (() => void) | undefined;
  let broker: EventBroker | undefined;
  let plugins: CsiPlugins | undefined;
  try {
    const state = await StateStore.open(backend, SCHED_TABLES, aesGcmCodec(loadOrCreateKeyFile(join(config.dataDir, 'sched-state.key'))));
    const acl = new SchedAclResolver(state, now);
    if (config.eventBroker) {
      broker = new EventBroker({ eventBufferSize: config.eventBufferSize, authorize: subscriptionAuthorizer(acl, state, config.acl.enabled) });
      const b = broker;
      unsubscribe = state.subscribe((batch) => {
        const events = eventBatchOf(batch, state);
        if (events) b.publish(events);
      });
    }
    await ensureDefaultNamespace(state);
    if (options.initialManagementToken !== undefined && config.region === config.authoritativeRegion) {
      if (await ensureInitialManagement(state, options.initialManagementToken, now())) log.info('created the management token of the dev root token');
    }
    const forwardTo: SchedDeps['forwardTo'] = (region, req, secret) => {
      // Own keys only: `?region=__proto__` or `constructor` names no region.
      const address = Object.hasOwn(config.regionAddresses, region) ? config.regionAddresses[region] : undefined;
      if (!address) return undefined;
      const query = new URLSearchParams(req.query);
      query.delete('region');
      return forwardRequest(SCHED_FORWARD_STYLE, req, address, secret, query);
    };
    const authoritative = config.region === config.authoritativeRegion;
    const sourceAddress = config.regionAddresses[config.authoritativeRegion];
    const replicator =
      config.acl.enabled && !authoritative && sourceAddress
        ? new SchedReplicator({
            state,
            source: { region: config.authoritativeRegion, address: sourceAddress },
            token: config.acl.replicationToken,
            log,
            now,
            waitMs: options.replicationWaitMs,
            backoffMs: options.replicationBackoffMs,
          })
        : undefined;
    if (config.acl.enabled && !authoritative && !sourceAddress) log.warn({ authoritative: config.authoritativeRegion }, 'no region_addresses entry for the authoritative region: ACL replication and write forwarding cannot run');
    if (replicator && config.acl.replicationToken === undefined) log.warn('acl.replication_token is not set: ACL objects are not replicated from the authoritative region');
    plugins = new CsiPlugins({
      state,
      plugins: config.plugins ?? [],
      connect: options.csiConnect ?? ((socket) => csiClient(socket)),
      log,
      now,
      defaultNodeId: config.nodeName,
      intervalMs: config.pluginProbeIntervalMs,
    });
    await plugins.start();
    const stopping = new AbortController();
    // Every open event stream listens on it (and removes its listener when it ends).
    setMaxListeners(0, stopping.signal);
    const advertise = { address: config.httpAddress };
    const deps: SchedDeps = { state, config, acl, now, broker, replicator, advertise, shutdown: stopping.signal, forwardTo, plugins, volumeLocks: new KeyedLock() };
    const service = schedHttpService({ routes: SCHED_ROUTES, deps, state, region: config.region, forwardTo, shutdown: stopping.signal });
    const listener = await listen({ address: config.httpAddress }, service, log);
    advertise.address = new URL(listener.url).host;
    replicator?.start();
    log.info({ url: listener.url, region: config.region, acl: config.acl.enabled }, 'scheduler service listening');
    return {
      url: listener.url,
      state,
      broker,
      plugins,
      replicator,
      close: async () => {
        stopping.abort();
        await replicator?.close();
        await plugins!.close();
        unsubscribe?.();
        broker?.close();
        await listener.close();
        await backend.close();
      },
    };
  } catch (err) {
    await plugins?.close();
    unsubscribe?.();
    broker?.close();
    await backend.close();
    throw err;
  }
}
