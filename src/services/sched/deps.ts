/**
 * What the scheduler service's route handlers share: their dependencies and their context.
 * Who may call a route is its declaration's (access.ts).
 *
 * @module
 */
import type { HttpRequest, HttpResponse } from '../../kernel/http/index.js';
import type { ServiceMetrics } from '../../kernel/metrics/index.js';
import type { Leadership, StateStore } from '../../kernel/store/index.js';
import type { SchedAgentConfig } from './config.js';
import type { SchedClient } from './client/client.js';
import type { KeyedLock } from './csi/locks.js';
import type { CsiPlugins } from './csi/plugins.js';
import type { EventBroker } from './events/index.js';
import type { SchedContext } from './http.js';
import type { SchedReplicator } from './replication.js';
import type { Heartbeats } from './scheduler/heartbeat.js';
import type { Identity, SchedAclResolver } from './resolve.js';

/** The handlers' dependencies. */
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
}

/** A scheduler handler's context; `ctx.caller` is the caller its route's access rule admitted (access.ts). */
export type Ctx = SchedContext<SchedDeps, Identity>;
