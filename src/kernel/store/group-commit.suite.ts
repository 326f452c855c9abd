/**
 * Tests of group commit that both engines run (test-only, like `backend.suite.ts`): the
 * commit counts of concurrent writers, and the writes around a refused key in one group.
 * Each engine's test file calls {@link groupCommitTests} inside its own `describe` and
 * supplies how a key is refused (a trigger in SQLite or in PostgreSQL).
 *
 * @module
 */

import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Backend } from './backend.js';

/** A backend with group-commit counters (`SqliteBackend`, `PostgresBackend`). */
export interface GroupCommitSubject extends Backend {
  readonly stats: { readonly commits: number; readonly writes: number };
}

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

/**
 * Registers the group-commit count tests in the current `describe`.
 *
 * @param withBackend runs its argument with a fresh, empty backend and cleans up after.
 */
export function groupCommitTests<B extends GroupCommitSubject>(withBackend: (fn: (backend: B) => Promise<void>) => Promise<void>): void {
  it('group commit: 32 concurrent puts share one transaction', () =>
    withBackend(async (backend) => {
      const before = backend.stats.commits;
      await Promise.all(Array.from({ length: 32 }, (_, i) => backend.put(`g/${i}`, bytes(`v${i}`))));
      const used = backend.stats.commits - before;
      assert.ok(used >= 1 && used <= 2, `32 concurrent puts used ${used} commits`);
      assert.equal(backend.stats.writes, 32);
    }));

  it('group commit: 32 writers looping 20 times use about 20 transactions, not 640', () =>
    withBackend(async (backend) => {
      const before = backend.stats.commits;
      await Promise.all(
        Array.from({ length: 32 }, async (_, w) => {
          for (let i = 0; i < 20; i++) await backend.put(`w/${w}/${i}`, bytes(`${w}.${i}`));
        }),
      );
      const used = backend.stats.commits - before;
      assert.ok(used <= 40, `640 puts from 32 writers used ${used} commits`);
      assert.equal((await backend.list('w/')).length, 32);
      assert.equal((await backend.list('w/31/')).length, 20);
    }));
}

/**
 * Issues four writes in one turn (so one group) on a backend that refuses every key
 * ending in `boom`: `ok1`, a batch of `in-batch` + `b/boom`, `boom`, `ok2`. Asserts that
 * exactly the batch and `boom` were rejected, the failed batch left nothing behind, and
 * `list("")` is `ok1`, `ok2`. Resolves with the rejection reason of `boom`.
 */
export async function writeAroundRefusedKeys(backend: Backend): Promise<unknown> {
  const results = await Promise.allSettled([
    backend.put('ok1', bytes('1')),
    backend.batch([
      { key: 'in-batch', value: bytes('b') },
      { key: 'b/boom', value: bytes('x') },
    ]),
    backend.put('boom', bytes('x')),
    backend.put('ok2', bytes('2')),
  ]);
  assert.deepEqual(
    results.map((r) => r.status),
    ['fulfilled', 'rejected', 'rejected', 'fulfilled'],
  );
  assert.equal(await backend.get('in-batch'), undefined, 'the failed batch was rolled back entirely');
  assert.equal(await backend.get('boom'), undefined);
  assert.deepEqual(await backend.list(''), ['ok1', 'ok2']);
  return (results[2] as PromiseRejectedResult).reason;
}
