/**
 * Keeps the tokens of `vault` credential stores alive (issue 20 scope 3; the reference's
 * `TokenRenewalJob`): on the leader, every round renews (`auth/token/renew-self`) each
 * current token that would otherwise pass half its TTL (since its last renewal) before the
 * next round, and records the new expiry; then it retries the revocation of leases whose
 * session ended while the secrets service could not be reached (broker.ts). A token the secrets service refuses (403: expired or revoked) becomes
 * `expired`, which the store's `token_status` shows and which stops brokering from it; an
 * unreachable service is retried next round. The store's `version` is not raised: the
 * renewal is the controller's bookkeeping, not a change by a user.
 *
 * @module
 */
import { Periodic } from '../../../kernel/util/periodic.js';
import { retryReleasedLeases } from './broker.js';
import { T, type CredentialStoreDoc, type VaultTokenState } from './docs.js';
import type { GatewayDomain } from './domain.js';
import { renewSelf, storeClient, vaultError, VaultError } from './vault.js';

/** Default pause between rounds, ms. */
const RENEW_INTERVAL_MS = 10_000;

/**
 * Whether `t` is due for renewal at `nowMs`: half its TTL (from its last renewal) passes
 * within `aheadMs` (the pause before the next round), so it is renewed before that.
 */
function renewalDue(t: VaultTokenState, nowMs: number, aheadMs: number): boolean {
  const last = Date.parse(t.last_renewal_time);
  const end = Date.parse(t.expiration_time);
  return t.status === 'current' && nowMs + aheadMs >= last + (end - last) / 2;
}

/** See the module doc. */
export class VaultTokenRenewer {
  private readonly periodic: Periodic;

  /** @param intervalMs pause between rounds, ms (tests shorten it). */
  constructor(
    private readonly d: GatewayDomain,
    private readonly intervalMs = RENEW_INTERVAL_MS,
  ) {
    this.periodic = new Periodic(
      () => this.round(),
      intervalMs,
      (err) => d.log.warn({ err: err.message }, 'credential store tokens could not be renewed; next round retries'),
    );
  }

  /** Runs rounds from now on (the leader). */
  start(): void {
    this.periodic.start();
  }

  /** Stops and waits for a round in progress (a follower, or shutdown). */
  async stop(): Promise<void> {
    await this.periodic.stop();
  }

  /** One round: renews every due token, then retries the leases left to revoke; resolves with how many tokens were renewed. */
  async round(): Promise<number> {
    let renewed = 0;
    for (const store of this.d.state.list<CredentialStoreDoc>(T.credentialStores)) {
      const t = store.vault_token;
      if (!t || !renewalDue(t, this.d.now(), this.intervalMs)) continue;
      const next = await this.renew(store, t);
      if (!next) continue;
      await this.d.state.txn((tx) => {
        const cur = tx.get<CredentialStoreDoc>(T.credentialStores, store.id);
        // A token replaced by an update meanwhile is left as the update made it.
        if (!cur || cur.vault_token?.token !== t.token) return;
        const { CreateIndex: _c, ModifyIndex: _m, ...clean } = cur;
        tx.put(T.credentialStores, store.id, { ...clean, vault_token: next });
      });
      if (next.status === 'current') renewed++;
    }
    await retryReleasedLeases(this.d);
    return renewed;
  }

  /** The token's state after trying to renew it; undefined when the service did not answer (retried next round). */
  private async renew(store: CredentialStoreDoc, t: VaultTokenState): Promise<VaultTokenState | undefined> {
    const client = storeClient(store, t.token);
    try {
      const now = this.d.now();
      const r = await renewSelf(client, now);
      return { ...t, accessor: r.accessor, last_renewal_time: new Date(now).toISOString(), expiration_time: new Date(r.expiresAtMs).toISOString() };
    } catch (err) {
      this.d.log.warn({ store: store.id, err: vaultError('unable to renew vault token', err).message }, 'credential store token not renewed');
      if (err instanceof VaultError && err.status === 403) return { ...t, status: 'expired' };
      return undefined;
    } finally {
      await client.close();
    }
  }
}
