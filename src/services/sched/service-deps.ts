/**
 * The scheduler service's dependencies (the agent builds them, agent.ts): the state, the
 * configuration, the ACL resolver, the clock and the parts of the running agent. Domain code
 * (scheduler/, jobs/, csi/) takes them from here; the route handlers get them in their
 * context (deps.ts `Ctx`).
 *
 * @module
 */
import type { HttpRequest, HttpResponse } from '../../kernel/http/index.js';
import type { ServiceMetrics } from '../../kernel/metrics/index.js';
import type { Leadership, StateStore } from '../../kernel/store/index.js';
import type { SchedAgentConfig } from './config.js';
import type { SchedClient } from './client/client.js';
import type { JwksMirror } from './client/jwks-mirror.js';
import type { KeyedLock } from './csi/locks.js';
import type { CsiPlugins } from './csi/plugins.js';
import type { EventBroker } from './events/index.js';
import type { Keyring } from './keyring/keyring.js';
import type { SchedReplicator } from './replication.js';
import type { RestartPermits } from './restart-permits.js';
import type { Heartbeats } from './scheduler/heartbeat.js';
import type { SchedAclResolver } from './resolve.js';

/** The service's dependencies: see the module doc. */
export interface SchedDeps {
  readonly state: StateStore;
  readonly config: SchedAgentConfig;
  readonly acl: SchedAclResolver;
  /** Clock in epoch ms. */
  readonly now: () => number;
  /** The event broker; undefined when `enable_event_broker = false`. */
  readonly broker?: EventBroker;
  /** `host:port` the other servers reach this one's HTTP API at (`advertise.http`, else the bound address; known once listening). */
  readonly advertise: { address: string };
  /** Servers of this region sharing one state on PostgreSQL: who leads; absent: this server alone. */
  readonly leadership?: Leadership;
  /** Aborted when the agent stops (event streams end). */
  readonly shutdown: AbortSignal;
  /** Running in a non-authoritative region with ACLs on. */
  readonly replicator?: SchedReplicator;
  /** This agent's metrics (`GET /v1/metrics`). */
  readonly metrics: ServiceMetrics;
  /** Sends a request to a server of `region`; undefined when none is known. */
  readonly forwardTo: (region: string, req: HttpRequest, secret: string | undefined) => Promise<HttpResponse> | undefined;
  /** The CSI plugin registry: clients of the configured plugins and their health (csi/plugins.ts). */
  readonly plugins: CsiPlugins;
  /** Heartbeat timers of client nodes (scheduler/heartbeat.ts): a status report restarts its node's timer on the leader. */
  readonly heartbeats?: Heartbeats;
  /** Held per volume key (`<namespace>.<id>`) by operations that span a plugin call and a write (csi/locks.ts). */
  readonly volumeLocks: KeyedLock;
  /** The client agent running beside this server (`client { enabled = true }`); absent: a server only. */
  readonly client?: SchedClient;
  /** The signing keyring (keyring/keyring.ts); absent on a client-only agent. */
  readonly keyring?: Keyring;
  /** A client-only agent's copy of its servers' JWKS (client/jwks-mirror.ts); absent on servers. */
  readonly jwksMirror?: JwksMirror;
  /** Job-wide template restart permits, kept in memory; only the leader's count (restart-permits.ts). */
  readonly restartPermits: RestartPermits;
}
