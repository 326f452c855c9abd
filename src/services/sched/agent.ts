/**
 * Runs the scheduler service: its state (SQLite under `data_dir`, or a PostgreSQL table the
 * servers of the region share, `storage "postgresql"`; encrypted at rest with
 * `server.encrypt` or `data_dir/sched-state.key`, kernel/store/agent-state.ts), the `default`
 * namespace, the event broker fed from the state's change feed, replication from the
 * authoritative region, the CSI plugin registry (`plugin` blocks, csi/plugins.ts) and the
 * HTTP API (issues 6, 7 and 8).
 *
 * On shared storage one server leads (kernel/store/leadership.ts) and does the writes that
 * no request makes: the `default` namespace and dev token, ACL replication, the CSI plugin
 * registry, the scheduler (evaluations, placement, heartbeats: scheduler/leader.ts). It
 * starts them when it leads and stops them when it steps down; followers forward writes to
 * it and stream the events of the batches they apply. Alone, the agent does all of it from
 * the start.
 *
 * A client-only agent (`server.enabled` false: a `client` block listing `servers` and no
 * `server` block) leads nothing and writes nothing to its (empty) local state: it runs its
 * client against the listed servers and serves only the client endpoints
 * (routes/index.ts `CLIENT_ONLY_ROUTES`), which the servers forward to it.
 *
 * @module
 */
import { join } from 'node:path';
import { csiClient, type CsiClient } from '../../kernel/csi/index.js';
import { startAgent, type AgentBase, type AgentService } from '../../kernel/agent/index.js';
import { advertisedAddress, forwardRequest } from '../../kernel/http/index.js';
import type { Logger } from '../../kernel/log/logger.js';
import { ExpiryReaper, type StateLeadership, type StateStore } from '../../kernel/store/index.js';
import { ensureDefaultNamespace, ensureInitialManagement } from './bootstrap.js';
import type { SchedAgentConfig } from './config.js';
import { KeyedLock } from './csi/locks.js';
import { CsiPlugins } from './csi/plugins.js';
import type { SchedDeps } from './deps.js';
import { authorizeSched, toAuthoritativeRegion } from './access.js';
import { subscriptionAuthorizer } from './events-acl.js';
import { EventBroker } from './events/index.js';
import { eventBatchOf } from './events/source.js';
import { SCHED_FORWARD_STYLE, schedHttpService } from './http.js';
import { schedMetrics } from './metrics.js';
import { SchedReplicator } from './replication.js';
import { HEARTBEAT_GRACE_MS, Heartbeats, MIN_HEARTBEAT_TTL_MS } from './scheduler/heartbeat.js';
import { Scheduler } from './scheduler/leader.js';
import { SchedAclResolver } from './resolve.js';
import { CLIENT_ONLY_ROUTES, SCHED_ROUTES } from './routes/index.js';
import { SCHED_TABLES, T, type TokenDoc } from './state.js';
import { SchedClient } from './client/client.js';
import { JwksMirror } from './client/jwks-mirror.js';
import { ServerApi } from './client/server-api.js';
import { Keyring } from './keyring/keyring.js';
import { RestartPermits } from './restart-permits.js';
import { csiMounter, localSources, remoteSources } from './client/csi-mounter.js';
import { loadNodeIdentity } from './client/client-state.js';

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
  /** Pause between rounds deleting expired tokens, in ms (tests shorten it); default {@link TOKEN_GC_INTERVAL_MS}. */
  readonly tokenReapIntervalMs?: number;
}

/** Pause between expired-token collections: 5 minutes in ms (the reference's core GC interval). */
const TOKEN_GC_INTERVAL_MS = 5 * 60_000;
/** Age after expiry at which a token is collected, unless `server.acl_token_gc_threshold` says otherwise: 1 hour in ms (the reference's default). */
const TOKEN_GC_THRESHOLD_MS = 60 * 60_000;

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
  /** Present on shared storage (`storage "postgresql"`): who leads the region. */
  readonly leadership?: StateLeadership;
  /** Present with `client { enabled = true }`: the client agent running beside the server. */
  readonly client?: SchedClient;
  /** Present on servers: the signing keyring (keyring/keyring.ts). */
  readonly keyring?: Keyring;
  close(): Promise<void>;
}

/**
 * Starts an agent. @throws when the data directory, its key or the state cannot be
 * opened (PostgreSQL unreachable, a key file other than the one the shared state was
 * written with), or the HTTP address cannot be bound (whatever opened is closed first).
 */
export async function startSchedAgent(options: SchedAgentOptions): Promise<SchedAgent> {
  const { config, log } = options;
  const agent = await startAgent({
    log,
    dataDir: config.dataDir,
    state: {
      storage: config.storage,
      sqlitePath: join(config.dataDir, 'sched.db'),
      keyFile: join(config.dataDir, 'sched-state.key'),
      key: config.stateKey,
      keySetting: 'server.encrypt',
      tables: SCHED_TABLES,
      applicationName: 'cairn-sched',
    },
    listen: { ...config.httpLimits, address: config.httpAddress },
    advertise: { initial: config.httpAddress, of: (url) => advertiseAddress(url, config) },
    build: (base) => buildSchedAgent(base, options),
  });
  const { state, leadership, shared } = agent.base;
  const { broker, plugins, replicator, client, serverRole, keyring } = agent.service.parts;
  log.info(
    {
      url: agent.url,
      region: config.region,
      acl: config.acl.enabled,
      storage: shared ? `postgresql ${shared.backend.target}` : 'sqlite',
      advertise: agent.base.advertised(),
    },
    serverRole ? 'scheduler service listening' : 'scheduler client-only agent listening',
  );
  return { url: agent.url, state, broker, plugins, replicator, leadership, client, keyring, close: agent.close };
}

/** What {@link startSchedAgent} returns beside the kernel's parts. */
interface SchedParts {
  readonly broker?: EventBroker;
  readonly plugins: CsiPlugins;
  readonly replicator?: SchedReplicator;
  readonly client?: SchedClient;
  readonly keyring?: Keyring;
  /** False for a client-only agent. */
  readonly serverRole: boolean;
}

/** The scheduler on the opened state: its leader work, event broker, CSI plugins, client and HTTP API. */
async function buildSchedAgent(base: AgentBase, options: SchedAgentOptions): Promise<AgentService & { readonly parts: SchedParts }> {
  const { config, log } = options;
  const now = options.now ?? (() => Date.now());
  const { backend, state, leadership } = base;
  let unsubscribe: (() => void) | undefined;
  let broker: EventBroker | undefined;
  let plugins: CsiPlugins | undefined;
  try {
    const clientOnly = config.server === false && config.client !== undefined;
    // Servers keep the signing keyring; a client-only agent copies its servers' JWKS.
    const keyring = clientOnly ? undefined : new Keyring({ state, settings: config.keyring, now, log });
    const acl = new SchedAclResolver(state, now, keyring);
    if (config.eventBroker) broker = feedBroker(state, acl, config, (stop) => (unsubscribe = stop));
    const forwardTo: SchedDeps['forwardTo'] = (region, req, secret) => {
      // Own keys only: `?region=__proto__` or `constructor` names no region.
      const address = Object.hasOwn(config.regionAddresses, region) ? config.regionAddresses[region] : undefined;
      if (!address) return undefined;
      const query = new URLSearchParams(req.query);
      query.delete('region');
      return forwardRequest(SCHED_FORWARD_STYLE, req, { address, secret, query });
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
    if (config.acl.enabled && !authoritative && !sourceAddress)
      log.warn(
        { authoritative: config.authoritativeRegion },
        'no region_addresses entry for the authoritative region: ACL replication and write forwarding cannot run',
      );
    if (replicator && config.acl.replicationToken === undefined)
      log.warn('acl.replication_token is not set: ACL objects are not replicated from the authoritative region');
    // The node a client-only agent's plugins serve: its client's (client-state.ts keeps it across restarts).
    const clientNodeId = clientOnly ? loadNodeIdentity(config.client!.stateDir).ID : undefined;
    const registry = new CsiPlugins({
      state,
      plugins: config.plugins ?? [],
      connect: options.csiConnect ?? ((socket) => csiClient(socket)),
      log,
      now,
      // A client-only agent's node plugins serve its client's node, and are reported in its registration (client/client.ts).
      defaultNodeId: clientNodeId ?? config.nodeName,
      intervalMs: config.pluginProbeIntervalMs,
      writes: !clientOnly,
    });
    plugins = registry;
    // Expired tokens are already absent to every read; the leader deletes them an hour (or
    // server.acl_token_gc_threshold) after expiry. Global tokens only in the authoritative
    // region: elsewhere they go when its deletion replicates.
    const reaper = new ExpiryReaper<TokenDoc>({
      state,
      table: T.tokens,
      idOf: (t) => t.AccessorID,
      expiresAt: (t) => (t.ExpirationTime !== undefined && (authoritative || !t.Global) ? Date.parse(t.ExpirationTime) : undefined),
      now,
      log,
      intervalMs: options.tokenReapIntervalMs ?? TOKEN_GC_INTERVAL_MS,
      graceMs: config.aclTokenGcThresholdMs ?? TOKEN_GC_THRESHOLD_MS,
    });
    const heartbeats = new Heartbeats({
      state,
      log,
      now,
      ttlMs: config.heartbeatTtlMs ?? MIN_HEARTBEAT_TTL_MS,
      graceMs: config.heartbeatGraceMs ?? HEARTBEAT_GRACE_MS,
    });
    let deps: SchedDeps | undefined;
    // Evaluations, placement, heartbeats and the reactions to node and allocation changes (scheduler/leader.ts).
    const scheduler = new Scheduler({ deps: () => deps!, log, workers: config.schedulerWorkers, heartbeats });
    const advertise = {
      get address() {
        return base.advertised();
      },
    };
    const metrics = schedMetrics({ backend, state, leadership: () => leadership, replicator, broker });
    const clientConfig = config.client;
    const client =
      clientConfig &&
      new SchedClient({
        config: clientConfig,
        nodeName: config.nodeName,
        datacenter: config.datacenter,
        selfAddress: () => advertise.address,
        log,
        now,
        // Beside a server the volumes and plugins are in its state; a client-only agent reads volumes from the servers and stages through its own node plugins.
        mounter: (c) =>
          csiMounter({
            sources: clientOnly ? remoteSources(c, registry) : localSources(state, registry, () => c.nodeId),
            root: join(clientConfig.stateDir, 'csi'),
            log,
          }),
        csiNodePlugins: clientNodeId === undefined ? undefined : () => registry.reportedNodes(clientNodeId),
      });
    const jwksMirror = clientOnly ? new JwksMirror(new ServerApi(() => clientConfig!.servers), log) : undefined;
    deps = {
      state,
      config,
      acl,
      now,
      broker,
      replicator,
      advertise,
      leadership,
      shutdown: base.shutdown,
      forwardTo,
      plugins,
      volumeLocks: new KeyedLock(),
      metrics,
      heartbeats,
      client,
      keyring,
      jwksMirror,
      restartPermits: new RestartPermits(now),
    };
    // A client-only agent's state stays empty: it leads nothing and serves only the client endpoints.
    const serverRole = config.server !== false;
    const api = schedHttpService({
      routes: serverRole ? SCHED_ROUTES : CLIENT_ONLY_ROUTES,
      authorize: authorizeSched,
      primary: toAuthoritativeRegion,
      deps,
      state,
      region: config.region,
      forwardTo,
      shutdown: base.shutdown,
      leadership,
    });
    const release = async () => {
      await registry.close();
      unsubscribe?.();
      broker?.close();
    };
    return {
      parts: { broker, plugins, replicator, client, serverRole, keyring },
      leader: {
        /** What only the leader does (every agent, when the state is not shared): the agent's own writes. */
        lead: async () => {
          await bootstrapState(state, options, now, log);
          await keyring?.start();
          await registry.start();
          replicator?.start();
          reaper.start();
          scheduler.start();
        },
        follow: async () => {
          await scheduler.stop();
          await keyring?.stop();
          await replicator?.close();
          await registry.stop();
          await reaper.stop();
        },
      },
      leadsAlone: serverRole,
      api,
      metrics,
      ui: config.ui ? { self: 'sched', others: () => config.uiServices ?? {} } : undefined,
      started: async () => {
        // Fingerprinted before the first registration, so the node registers with its node plugins.
        if (clientOnly) await registry.start();
        jwksMirror?.start();
        client?.start();
      },
      closeFirst: async () => {
        await jwksMirror?.close();
        await client?.close();
      },
      closeLast: release,
      abandon: release,
    };
  } catch (err) {
    await plugins?.close();
    unsubscribe?.();
    broker?.close();
    throw err;
  }
}

/**
 * The event broker, fed from the state's change feed (on a follower: the leader's batches
 * as they are applied). A reload of the state (a follower that fell behind the kept log, a
 * leader that stepped down) skips batches, so it resets the broker: open streams end with
 * a `resubscribe with index=N` line instead of silently missing events. `keep` receives the
 * function that detaches both listeners.
 */
function feedBroker(state: StateStore, acl: SchedAclResolver, config: SchedAgentConfig, keep: (stop: () => void) => void): EventBroker {
  const broker = new EventBroker({ eventBufferSize: config.eventBufferSize, authorize: subscriptionAuthorizer(acl, state, config.acl.enabled) });
  const offBatches = state.subscribe((batch) => {
    const events = eventBatchOf(batch, state);
    if (events) broker.publish(events);
  });
  const offReload = state.onReload((index) => broker.reset(index));
  keep(() => {
    offBatches();
    offReload();
  });
  return broker;
}

/** The `default` namespace, and in `cairn dev` the dev root token's management token (the leader's first writes). */
async function bootstrapState(state: StateStore, options: SchedAgentOptions, now: () => number, log: Logger): Promise<void> {
  const { config } = options;
  await ensureDefaultNamespace(state);
  if (options.initialManagementToken === undefined || config.region !== config.authoritativeRegion) return;
  if (await ensureInitialManagement(state, options.initialManagementToken, now())) log.info('created the management token of the dev root token');
}

/**
 * The `host:port` other servers reach this one's HTTP API at: `advertise.http` (its port,
 * else the bound one), else the bound address of `listenerUrl`.
 */
function advertiseAddress(listenerUrl: string, config: SchedAgentConfig): string {
  const a = config.advertiseHttp;
  if (a?.port === undefined) return advertisedAddress(listenerUrl, a?.host);
  return `${a.host.includes(':') ? `[${a.host}]` : a.host}:${a.port}`;
}
