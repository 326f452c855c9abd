/**
 * What the session store (sessions.ts) and the credential broker (broker.ts) use of the
 * gateway domain (domain.ts `GatewayDomain`): its state, log and clock. Apart from
 * domain.ts, which makes the session store.
 *
 * @module
 */
import type { Logger } from '../../../kernel/log/logger.js';
import type { StateStore } from '../../../kernel/store/index.js';

/** See the module doc. */
export interface DomainState {
  readonly state: StateStore;
  readonly log: Logger;
  /** Clock in epoch ms. */
  readonly now: () => number;
  /** The current time as RFC 3339. */
  nowIso(): string;
}
