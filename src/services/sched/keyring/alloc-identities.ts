/**
 * Signing a placed allocation's default identities when its plan is applied
 * (scheduler/apply.ts; the reference's `SignedIdentities`): one JWT per task of its group,
 * stored with the allocation, task name → JWT. Only the allocation's own node is shown them
 * (routes/node-allocations.ts); every other rendering of an allocation leaves them out.
 *
 * @module
 */
import type { NewAlloc } from '../scheduler/model.js';
import { DEFAULT_IDENTITY, identitiesOf, identityClaims } from './identity.js';
import type { Keyring } from './keyring.js';

/** What signing needs of the service. */
export interface IdentitySigning {
  readonly keyring?: Keyring;
  readonly config: { readonly region: string };
  /** Epoch ms. */
  readonly now: () => number;
}

/**
 * `a` with `SignedIdentities` set: the default identity of each task of its group. Unchanged
 * without a keyring or before the leader made its first key (the client then asks for them:
 * routes/alloc-identities.ts).
 */
export function withDefaultIdentities(s: IdentitySigning, a: NewAlloc): NewAlloc {
  const keyring = s.keyring;
  const group = a.Job.TaskGroups.find((g) => g.Name === a.TaskGroup);
  if (!keyring?.active() || !group) return a;
  const nowMs = s.now();
  const signed: Record<string, string> = {};
  for (const task of group.Tasks) {
    const identity = identitiesOf(task).find((i) => i.Name === DEFAULT_IDENTITY)!;
    signed[task.Name] = keyring.sign(identityClaims(a, task.Name, identity, { region: s.config.region, issuer: keyring.issuer, nowMs })).jwt;
  }
  return { ...a, SignedIdentities: signed };
}
