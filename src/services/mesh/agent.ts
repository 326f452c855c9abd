/**
 * Runs the discovery service: its state (SQLite under `data_dir`, or a PostgreSQL table;
 * encrypted at rest with `encrypt` or `data_dir/mesh-state.key`, kernel/store/agent-state.ts),
 * the built-in ACL objects, the `initial_management` token and the HTTP API (issue 5 scopes
 * 1–3, 6, 8); with the enterprise switch, the `default` namespace.
 *
 * @module
 */
import { join } from 'node:path';
import { startAgent, type AgentBase, type AgentService } from '../../kernel/agent/index.js';
import { advertisedAddress, forwardRequest } from '../../kernel/http/index.js';
import type { Logger } from '../../kernel/log/logger.js';
import { aesGcmCodec, ExpiryReaper, type StateLeadership, type StateStore } from '../../kernel/store/index.js';
import { authorize, requireAclSupport } from './access.js';
import { ensureBuiltins, ensureInitialManagement, INITIAL_MANAGEMENT_DESCRIPTION } from './bootstrap.js';
import type { MeshAgentConfig } from './config.js';
import { forwardToPrimary, type MeshDeps } from './deps.js';
import { MESH_FORWARD_STYLE, meshHttpService } from './http.js';
import { meshMetrics } from './metrics.js';
import { startDnsServer, type DnsServer } from './dns/server.js';
import { KV, recordReaped, tombstoneExpiry, tombstoneId, type KvTombstone } from './kv-store.js';
import { MemberLiveness } from './local/liveness.js';
import { LocalAgent } from './local/local-agent.js';
import { invalidateSession, lockDelayExpiry, lockDelayId, ST, timerExpiry, type LockDelayDoc, type SessionTimer } from './sessions/store.js';
import { nodeIdOf } from './local/node-id.js';
import { LocalStore } from './local/persist.js';
import { Replicator } from './replication.js';
import { withNamespaceGuard } from './namespace.js';
import { AclResolver } from './resolve.js';
import { MESH_ENTERPRISE_ROUTES, MESH_ROUTES } from './routes/index.js';
import { ensureDefaultNamespace } from './routes/namespaces.js';
import { MESH_TABLES, T, type TokenDoc } from './state.js';

/** Options of {@link startMeshAgent}. */
export interface MeshAgentOptions {
  readonly config: MeshAgentConfig;
  readonly log: Logger;
  /** Clock in epoch ms; default `Date.now`. */
  readonly now?: () => number;
  /**
   * `cairn dev`: the initial-management token replaces the one an earlier start made
   * (dev root tokens change at each start), and need not be a UUID.
   */
  readonly replaceInitialManagement?: boolean;
  /** Blocking wait of replication queries on the primary, in ms (tests shorten it); default 5 min. */
  readonly replicationWaitMs?: number;
  /** First retry delay of a failed replication round, in ms (tests shorten it); default 2 s. */
  readonly replicationBackoffMs?: number;
  /** On PostgreSQL: pause between the leader's rounds checking which agents run (local/liveness.ts), ms; default 1000. */
  readonly livenessIntervalMs?: number;
  /** On PostgreSQL: pause before re-taking this agent's member lock after its connection was lost, ms; default 1000. */
  readonly memberRetryMs?: number;
  /** Pause between rounds deleting expired tokens, in ms (tests shorten it); default 60 s. */
  readonly tokenReapIntervalMs?: number;
  /** Pause between rounds deleting old KV tombstones and past lock delays, in ms (tests shorten it); default 60 s. */
  readonly tombstoneReapIntervalMs?: number;
  /** Pause between rounds invalidating the TTL sessions not renewed in time, in ms (tests shorten it); default 1 s. */
  readonly sessionReapIntervalMs?: number;
  /** The local agent's full anti-entropy sync period, in ms (tests shorten it); default 60 s. */
  readonly syncIntervalMs?: number;
  /** The local agent's critical-service reaper period, in ms (tests shorten it); default 30 s. */
  readonly checkReapIntervalMs?: number;
  /** Smallest `DeregisterCriticalServiceAfter` honoured, in ms (tests shorten it); default 60 s. */
  readonly checkDeregisterMinMs?: number;
  /** Longest wait of a check output change that keeps the status, in ms (tests shorten it); default 5 min. */
  readonly checkUpdateIntervalMs?: number;
  /** Time a DNS TCP connection may stay without a complete message, in ms (tests shorten it); default 8 s. */
  readonly dnsTcpIdleTimeoutMs?: number;
}

/** A running agent. */
export interface MeshAgent {
  /** `http://host:port` of the HTTP API. */
  readonly url: string;
  readonly state: StateStore;
  /** Present in a secondary datacenter with ACLs on. */
  readonly replicator?: Replicator;
  /** Present on `storage "postgresql"`: whether this agent leads the agents sharing the table. */
  readonly leadership?: StateLeadership;
  /** This agent's own node: its services and checks. */
  readonly local: LocalAgent;
  /** The DNS server's bound `host:port` (UDP and TCP); absent when it runs none. */
  readonly dnsAddress?: string;
  close(): Promise<void>;
}

/**
 * Starts an agent. @throws when the data directory, its key or the state cannot be
 * opened, or the HTTP address cannot be bound (whatever opened is closed first).
 */
export async function startMeshAgent(options: MeshAgentOptions): Promise<MeshAgent> {
  const { config, log } = options;
  const now = options.now ?? (() => Date.now());
  const agent = await startAgent({
    log,
    dataDir: config.dataDir,
    state: {
      storage: config.storage,
      sqlitePath: join(config.dataDir, 'mesh.db'),
      keyFile: join(config.dataDir, 'mesh-state.key'),
      key: config.stateKey,
      keySetting: 'encrypt',
      tables: MESH_TABLES,
      applicationName: 'cairn-mesh',
    },
    listen: { ...config.httpLimits, address: config.httpAddress },
    advertise: { initial: '', of: (url) => advertisedAddress(url, config.advertiseHost) },
    build: (base) => buildMeshAgent(base, options, now),
  });
  const { state, leadership, shared } = agent.base;
  const { replicator, local, dns } = agent.service.parts;
  log.info(
    { url: agent.url, datacenter: config.datacenter, acl: config.acl.enabled, storage: shared ? `postgresql ${shared.backend.target}` : 'sqlite' },
    'discovery service listening',
  );
  return { url: agent.url, state, replicator, leadership, local, dnsAddress: dns?.address, close: agent.close };
}

/** What {@link startMeshAgent} returns beside the kernel's parts (`dns` set once it listens). */
interface MeshParts {
  readonly replicator?: Replicator;
  readonly local: LocalAgent;
  dns?: DnsServer;
}

/** The discovery service on the opened state: its leader work, local agent, DNS server and HTTP API. */
function buildMeshAgent(base: AgentBase, options: MeshAgentOptions, now: () => number): AgentService & { readonly parts: MeshParts } {
  const { config, log } = options;
  const { backend, state, shared, key, leadership } = base;
  const primary = config.datacenter === config.primaryDatacenter;
  const acl = new AclResolver(state, { defaultPolicy: config.acl.defaultPolicy, defaultToken: config.acl.defaultToken, datacenter: config.datacenter, now });
  const forwardTo: MeshDeps['forwardTo'] = (dc, req, secret) => {
    const address = config.wanAddresses[dc];
    if (!address) return undefined;
    const query = new URLSearchParams(req.query);
    query.delete('dc');
    return forwardRequest(MESH_FORWARD_STYLE, req, { address, secret, query });
  };
  const primaryAddress = config.wanAddresses[config.primaryDatacenter];
  const replicator =
    config.acl.enabled && !primary && primaryAddress
      ? new Replicator({
          state,
          primary: { datacenter: config.primaryDatacenter, address: primaryAddress },
          token: config.acl.replicationToken,
          tokens: config.acl.tokenReplication,
          namespaces: !!config.enterprise,
          log,
          now,
          waitMs: options.replicationWaitMs,
          backoffMs: options.replicationBackoffMs,
        })
      : undefined;
  if (config.acl.enabled && !primary && !primaryAddress)
    log.warn({ primary: config.primaryDatacenter }, 'no wan_addresses entry for the primary datacenter: ACL replication cannot run');
  // Expired tokens are already absent to every read; the leader deletes them. A secondary
  // deletes only its local tokens: global ones go when the primary's deletion replicates.
  const reaper = new ExpiryReaper<TokenDoc>({
    state,
    table: T.tokens,
    idOf: (t) => t.AccessorID,
    expiresAt: (t) => (t.ExpirationTime !== undefined && (primary || t.Local) ? Date.parse(t.ExpirationTime) : undefined),
    now,
    log,
    intervalMs: options.tokenReapIntervalMs,
  });
  // KV tombstones (kv-store.ts) go after the reference's tombstone TTL.
  const tombstones = new ExpiryReaper<KvTombstone>({
    state,
    table: KV.tombstones,
    idOf: tombstoneId,
    expiresAt: tombstoneExpiry,
    onDelete: recordReaped,
    now,
    log,
    intervalMs: options.tombstoneReapIntervalMs,
  });
  // A TTL session not renewed within 2 × TTL is invalidated with its timer (sessions/store.ts).
  const sessionTimers = new ExpiryReaper<SessionTimer>({
    state,
    table: ST.timers,
    idOf: (t) => t.ID,
    expiresAt: timerExpiry,
    onDelete: (tx, t) => void invalidateSession(tx, t.ID, now()),
    now,
    log,
    intervalMs: options.sessionReapIntervalMs ?? 1000,
  });
  // Past lock delays no longer matter (acquire compares them with the clock): they only take room.
  const lockDelays = new ExpiryReaper<LockDelayDoc>({
    state,
    table: ST.lockDelays,
    idOf: lockDelayId,
    expiresAt: lockDelayExpiry,
    now,
    log,
    intervalMs: options.tombstoneReapIntervalMs,
  });
  // On a shared state: this agent's member lock, and the leader's check of everyone's (local/liveness.ts).
  const memberLock = shared?.backend.memberLock(config.nodeName, options.memberRetryMs);
  const liveness =
    shared && new MemberLiveness({ state, absent: (nodes) => shared.backend.absentMembers(nodes), now, log, intervalMs: options.livenessIntervalMs });
  const local = new LocalAgent({
    state,
    log,
    nodeName: config.nodeName,
    nodeId: nodeIdOf(config.dataDir),
    datacenter: config.datacenter,
    address: () =>
      base
        .advertised()
        .replace(/:\d+$/, '')
        .replace(/^\[(.*)\]$/, '$1'),
    port: () => Number(/:(\d+)$/.exec(base.advertised())?.[1] ?? 0),
    now,
    syncIntervalMs: options.syncIntervalMs,
    reapIntervalMs: options.checkReapIntervalMs,
    deregisterMinMs: options.checkDeregisterMinMs,
    checkUpdateIntervalMs: options.checkUpdateIntervalMs,
    sendToLeader: (path, body) => sendCatalogWrite(leadership, config.acl.agentToken ?? config.acl.defaultToken, path, body),
    store: new LocalStore(join(config.dataDir, 'agent-local.bin'), aesGcmCodec(key)),
  });
  local.restore();
  const metrics = meshMetrics({ backend, state, leadership: () => leadership, replicator });
  const deps: MeshDeps = { state, config, acl, now, replicator, forwardTo, self: base.advertised, leadership, metrics, local };
  const api = meshHttpService({
    routes: withNamespaceGuard(config.enterprise ? [...MESH_ROUTES, ...MESH_ENTERPRISE_ROUTES] : MESH_ROUTES, !!config.enterprise),
    deps,
    state,
    defaultPolicy: () => config.acl.defaultPolicy,
    datacenter: config.datacenter,
    forwardTo,
    shutdown: base.shutdown,
    leadership,
    authorize,
    beforeBody: (rule, ctx) => requireAclSupport(rule, ctx.deps as MeshDeps),
    primary: forwardToPrimary,
  });
  const parts: MeshParts = { replicator, local };
  return {
    parts,
    leader: {
      /** What only the leader does (every agent, when the state is not shared): the built-in objects, replication, token, tombstone, session-TTL and lock-delay reaping, the agents' liveness; a new leader syncs its own node now. */
      lead: async () => {
        await bootstrapState(state, config, { now, log, primary, options });
        replicator?.start();
        reaper.start();
        tombstones.start();
        sessionTimers.start();
        lockDelays.start();
        liveness?.start();
        local.requestSync();
      },
      follow: async () => {
        await replicator?.close();
        await reaper.stop();
        await tombstones.stop();
        await sessionTimers.stop();
        await lockDelays.stop();
        await liveness?.stop();
      },
    },
    // The DNS server before the HTTP listener: should that fail to bind, the DNS server is closed again.
    beforeListen: async () => {
      if (!config.dns) return;
      const context = { deps, dns: config.dns, token: config.acl.dnsToken ?? config.acl.defaultToken, now, log };
      parts.dns = await startDnsServer({ address: config.dns.address, context, limits: config.httpLimits, idleTimeoutMs: options.dnsTcpIdleTimeoutMs });
      log.info({ address: parts.dns.address, domain: config.dns.domain, recursors: config.dns.recursors }, 'discovery DNS server listening (UDP and TCP)');
    },
    api,
    metrics,
    ui: config.ui ? { self: 'mesh', others: () => config.uiServices ?? {} } : undefined,
    listening: () => memberLock?.start(),
    started: async () => local.start(),
    closeBeside: async () => {
      await parts.dns?.close();
      await local.close();
      await memberLock?.stop();
    },
    abandon: async () => {
      await parts.dns?.close();
    },
  };
}

/**
 * Sends a follower's catalog write to the leader (`PUT /v1/<path>` with `token` in
 * `X-Mesh-Token`). @throws when no leader is known or it does not answer 200.
 */
async function sendCatalogWrite(leadership: StateLeadership | undefined, token: string | undefined, path: string, body: object): Promise<void> {
  const leader = leadership?.leaderAddress;
  if (!leader) throw new Error('no leader known');
  const res = await fetch(`http://${leader}/v1/${path}`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json', ...(token && { 'X-Mesh-Token': token }) },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  if (res.status !== 200) throw new Error(`${path} on the leader ${leader}: ${res.status} ${await res.text()}`);
}

/** How {@link bootstrapState} runs: the clock, the log, and what this server may write. */
interface BootstrapRun {
  readonly now: () => number;
  readonly log: Logger;
  /** The primary datacenter's leader: only it writes the `initial_management` token. */
  readonly primary: boolean;
  readonly options: MeshAgentOptions;
}

/** The built-in ACL objects, the default namespace and the `initial_management` token (the leader's first writes). */
async function bootstrapState(state: StateStore, config: MeshAgentConfig, { now, log, primary, options }: BootstrapRun): Promise<void> {
  if (config.enterprise) await ensureDefaultNamespace(state);
  if (!config.acl.enabled) return;
  await ensureBuiltins(state, now());
  const secret = config.acl.initialManagement;
  if (secret === undefined || !primary) return;
  if (options.replaceInitialManagement) await dropOtherInitialManagement(state, secret);
  const done = await ensureInitialManagement(state, secret, now());
  if (done !== 'exists')
    log.info(done === 'bootstrapped' ? 'bootstrapped ACLs from acl.tokens.initial_management' : 'created the initial management token from configuration');
}

/** Deletes initial-management tokens with another secret (dev restarts only). */
async function dropOtherInitialManagement(state: StateStore, secret: string): Promise<void> {
  await state.txn((tx) => {
    for (const t of tx.list<TokenDoc>(T.tokens))
      if (t.Description === INITIAL_MANAGEMENT_DESCRIPTION && t.SecretID !== secret) tx.delete(T.tokens, t.AccessorID);
  });
}
