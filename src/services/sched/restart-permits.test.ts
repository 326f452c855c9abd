/**
 * The job-wide template restart permits (restart-permits.ts) on an injected clock: the limit per
 * (namespace, job, group), renewal by the holder, expiry after 60 s, `RetryAfterMs` until the
 * earliest expiry capped at 5 s, release, and holders the `live` predicate rejects dropped.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_RETRY_AFTER_MS, PERMIT_TTL_MS, RestartPermits } from './restart-permits.js';

const scope = { namespace: 'default', job: 'web', group: 'g' };
const live = () => true;

describe('restart permits', () => {
  it('grants up to the limit per group, then refuses with the holders, the limit and a retry delay', () => {
    let now = 1_000_000;
    const p = new RestartPermits(() => now);
    assert.deepEqual(p.acquire(scope, 'a1', { limit: 2, live }), { Granted: true, ExpiresAt: new Date(now + PERMIT_TTL_MS).toISOString() });
    now += 1000;
    assert.equal(p.acquire(scope, 'a2', { limit: 2, live }).Granted, true);
    assert.deepEqual(p.acquire(scope, 'a3', { limit: 2, live }), { Granted: false, RetryAfterMs: MAX_RETRY_AFTER_MS, Holders: 2, Limit: 2 });
    // Another group, job or namespace counts apart.
    assert.equal(p.acquire({ ...scope, group: 'other' }, 'b1', { limit: 2, live }).Granted, true);
    assert.equal(p.acquire({ ...scope, job: 'api' }, 'c1', { limit: 1, live }).Granted, true);
    assert.equal(p.acquire({ ...scope, namespace: 'prod' }, 'd1', { limit: 1, live }).Granted, true);
    // A limit below 1 is 1.
    assert.equal(p.acquire({ ...scope, job: 'zero' }, 'z1', { limit: 0, live }).Granted, true);
    assert.equal(p.acquire({ ...scope, job: 'zero' }, 'z2', { limit: 0, live }).Granted, false);
  });

  it('renews a permit its holder asks again for, and grants another once one is released (release is idempotent)', () => {
    let now = 0;
    const p = new RestartPermits(() => now);
    p.acquire(scope, 'a1', { limit: 1, live });
    now += 30_000;
    assert.deepEqual(p.acquire(scope, 'a1', { limit: 1, live }), { Granted: true, ExpiresAt: new Date(now + PERMIT_TTL_MS).toISOString() });
    assert.equal(p.acquire(scope, 'a2', { limit: 1, live }).Granted, false);
    p.release('a1');
    p.release('a1');
    p.release('never-held');
    assert.equal(p.acquire(scope, 'a2', { limit: 1, live }).Granted, true);
    assert.equal(p.acquire(scope, 'a1', { limit: 1, live }).Granted, false);
  });

  it('expires a permit not released within 60 s, and asks to retry when the earliest one ends (at most 5 s)', () => {
    let now = 0;
    const p = new RestartPermits(() => now);
    p.acquire(scope, 'a1', { limit: 1, live });
    now = PERMIT_TTL_MS - 1200;
    assert.deepEqual(p.acquire(scope, 'a2', { limit: 1, live }), { Granted: false, RetryAfterMs: 1200, Holders: 1, Limit: 1 });
    now = PERMIT_TTL_MS - 1;
    assert.equal(p.acquire(scope, 'a2', { limit: 1, live }).Granted, false);
    now = PERMIT_TTL_MS;
    assert.equal(p.acquire(scope, 'a2', { limit: 1, live }).Granted, true);
  });

  it('drops the permit of a holder that is no longer live (a stopped allocation)', () => {
    const p = new RestartPermits(() => 0);
    const stopped = new Set<string>();
    const isLive = (id: string) => !stopped.has(id);
    p.acquire(scope, 'a1', { limit: 1, live: isLive });
    assert.equal(p.acquire(scope, 'a2', { limit: 1, live: isLive }).Granted, false);
    stopped.add('a1');
    assert.equal(p.acquire(scope, 'a2', { limit: 1, live: isLive }).Granted, true);
  });
});
