/**
 * What every hostpath service handler works with.
 * @module
 */
import type { Logger } from '../../log/logger.js';
import type { ControllerCapability } from '../types.js';
import type { HostpathStore } from './store.js';

/** The running plugin's settings and state, shared by the Identity, Controller and Node handlers. */
export interface HostpathContext {
  readonly store: HostpathStore;
  /** This plugin's node ID (NodeGetInfo). */
  readonly nodeId: string;
  /** Controller capabilities on; an RPC whose capability is off answers UNIMPLEMENTED. */
  readonly caps: ReadonlySet<ControllerCapability>;
  /** 0 = no limit. */
  readonly maxVolumesPerNode: number;
  readonly log: Logger;
  /** Clock in epoch milliseconds (snapshot creation times). */
  readonly now: () => number;
}
