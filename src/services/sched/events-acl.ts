/** PLACEHOLDER: filled in by its owner. @module */
import type { StateStore } from '../../kernel/store/index.js';
import type { Authorize } from './events/index.js';
import type { SchedAclResolver } from './resolve.js';

/** The broker's authorisation callback (spec 002 "Event stream topic privileges"). */
export function subscriptionAuthorizer(_acl: SchedAclResolver, _state: StateStore, _aclEnabled: boolean): Authorize {
  return () => ({ allowed: false, reason: 'Permission denied' });
}
