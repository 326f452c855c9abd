/**
 * Starting and stopping the secrets service: its core on a Backend, served on one or
 * more listeners.
 *
 * @module
 */
import { listen, type Listener, type ListenerOptions } from '../../kernel/http/index.js';
import type { Logger } from '../../kernel/log/logger.js';
import type { Backend } from '../../kernel/store/index.js';
import type { SecretsCore } from './core.js';
import { SecretsHttp } from './handler.js';
import type { ChangeFeed } from './ha/perf-standby.js';
import { SecretsNode, type NodeHa } from './node.js';

/** Options of {@link startSecretsService}. */
export interface SecretsServiceOptions {
  readonly backend: Backend;
  readonly listeners: readonly ListenerOptions[];
  readonly log: Logger;
  /** Injected clock (tests). */
  readonly clock?: () => Date;
  /** Managed mode: see {@link SecretsNodeOptions.managedNamespaces}. */
  readonly managedNamespaces?: boolean;
  /** What seal status reports as `storage_type`: `sqlite` (default) or `postgresql`. */
  readonly storageType?: string;
  /** Active/standby: see {@link SecretsNodeOptions.ha}. */
  readonly ha?: NodeHa;
  /** The storage's change feed (PostgreSQL): see {@link SecretsNodeOptions.changeFeed}. */
  readonly changeFeed?: ChangeFeed;
  /** `false` = `disable_performance_standby`: see {@link SecretsNodeOptions.performanceStandby}. */
  readonly performanceStandby?: boolean;
  /** A standby forwards client requests to the active server (default), or answers 307 when `false` (`disable_clustering`). */
  readonly requestForwarding?: boolean;
  /** `api_addr`: one of this server's own addresses (with its listener URLs), never forwarded to. */
  readonly apiAddr?: string;
}

/** A running secrets service. It starts sealed (and uninitialised on new storage). */
export interface SecretsService {
  readonly node: SecretsNode;
  /** The core; throws the 503 sealed error while sealed. */
  readonly core: SecretsCore;
  readonly listeners: readonly Listener[];
  /** Closes the listeners, then the storage. */
  close(): Promise<void>;
}

/** Opens the core and starts every listener; on a listener error, closes what started and rethrows. */
export async function startSecretsService(o: SecretsServiceOptions): Promise<SecretsService> {
  const node = await SecretsNode.open({ backend: o.backend, log: o.log, clock: o.clock, managedNamespaces: o.managedNamespaces, storageType: o.storageType, ha: o.ha, changeFeed: o.changeFeed, performanceStandby: o.performanceStandby });
  const listeners: Listener[] = [];
  const http = new SecretsHttp(node, {
    requestForwarding: o.requestForwarding,
    selfAddresses: () => [...(o.apiAddr ? [o.apiAddr] : []), ...listeners.map((l) => l.url)],
    log: o.log,
  });
  try {
    for (const l of o.listeners) listeners.push(await listen(l, http, o.log));
  } catch (err) {
    await Promise.all(listeners.map((l) => l.close()));
    throw err;
  }
  return {
    node,
    get core() {
      return node.requireCore();
    },
    listeners,
    close: async () => {
      await Promise.all(listeners.map((l) => l.close()));
      await node.stopHa();
      await o.backend.close();
    },
  };
}
