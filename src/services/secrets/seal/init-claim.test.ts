/**
 * `sys/init` through two servers that share storage and both find a stale init claim
 * (seal.ts `claimInit`): exactly one takes it over. Before the takeover marker, the slower
 * server's delete removed the claim the faster one had just written, and both stored keys
 * (or, on PostgreSQL, the faster one's read-back found its claim gone: a 500).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Backend, BackendOp } from '../../../kernel/store/index.js';
import { CairnError } from '../../../kernel/http/index.js';
import { json } from '../../../kernel/store/index.js';
import { SealManager } from './seal.js';

/** Shared storage with an atomic put-if-absent, and a gate before the second server's delete of the claim. */
class SharedStorage {
  readonly rows = new Map<string, Uint8Array>();
  /** Resolved once the first takeover has written its new claim. */
  firstClaimWritten!: () => void;
  private readonly claimWritten = new Promise<void>((r) => (this.firstClaimWritten = r));
  private deletes = 0;

  /** A server's view: every call is asynchronous, as a database's. */
  view(): Backend {
    const tick = () => new Promise((r) => setImmediate(r));
    return {
      get: async (k) => (await tick(), this.rows.get(k)),
      put: async (k, v) => void (await tick(), this.rows.set(k, v)),
      delete: async (k) => {
        await tick();
        // The second server to delete the claim does so only after the first has re-claimed:
        // the interleaving that let both hold a claim.
        if (k === 'core/init-claim' && this.deletes++ === 1) await this.claimWritten;
        this.rows.delete(k);
      },
      list: async () => [],
      batch: async (ops: readonly BackendOp[]) => {
        await tick();
        for (const op of ops) op.value === undefined ? this.rows.delete(op.key) : this.rows.set(op.key, op.value);
      },
      putIfAbsent: async (k, v) => {
        await tick();
        if (!this.rows.has(k)) {
          this.rows.set(k, v);
          if (k === 'core/init-claim' && this.deletes > 0) this.firstClaimWritten();
        }
        return this.rows.get(k)!;
      },
      close: async () => undefined,
    };
  }
}

it('two servers finding the same stale init claim: exactly one initialises, the other gets 400', async () => {
  const shared = new SharedStorage();
  shared.rows.set('core/init-claim', json.encode({ id: 'dead-server', at: Date.now() - 600_000 }));
  const o = { storageType: 'postgresql', version: 'test', buildDate: 'test' };
  const [a, b] = await Promise.all([SealManager.load(shared.view(), o), SealManager.load(shared.view(), o)]);
  const results = await Promise.allSettled([a.initialize(1, 1), b.initialize(1, 1)]);
  shared.firstClaimWritten(); // never leave the gate closed
  const won = results.filter((r) => r.status === 'fulfilled');
  assert.equal(won.length, 1, 'exactly one server stores its keys');
  const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
  assert.ok(lost.reason instanceof CairnError, String(lost.reason));
  assert.equal(lost.reason.status, 400);
  assert.match(lost.reason.message, /being initialized through another server|already initialized/);
});
