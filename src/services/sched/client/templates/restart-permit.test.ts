// The client side of the job-wide restart limit: asks again after a refusal's RetryAfterMs,
// goes ahead against servers without the route, retries failed requests, stops on abort.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { silentLogger } from '../../../../kernel/log/logger.js';
import { RestartPermits, type PermitCall, type PermitReply } from './restart-permit.js';

/** A call answering `replies` in turn (an Error is thrown), recording each request with its time. */
function scripted(replies: (PermitReply | Error)[]): { call: PermitCall; calls: { method: string; at: number }[] } {
  const calls: { method: string; at: number }[] = [];
  return {
    calls,
    call: async (method) => {
      calls.push({ method, at: Date.now() });
      if (method === 'DELETE') return undefined;
      const r = replies.shift() ?? { Granted: true };
      if (r instanceof Error) throw r;
      return r;
    },
  };
}

describe('RestartPermits', () => {
  it('asks again after RetryAfterMs until granted, then releases', async () => {
    const s = scripted([
      { Granted: false, RetryAfterMs: 200 },
      { Granted: false, RetryAfterMs: 100 },
      { Granted: true, ExpiresAt: '2026-11-28T16:00:00Z' },
    ]);
    const p = new RestartPermits(s.call, { log: silentLogger(), random: () => 0 });
    await p.acquire(new AbortController().signal);
    assert.deepEqual(
      s.calls.map((c) => c.method),
      ['PUT', 'PUT', 'PUT'],
    );
    assert.ok(s.calls[1]!.at - s.calls[0]!.at >= 190, 'waited the first RetryAfterMs');
    assert.ok(s.calls[2]!.at - s.calls[1]!.at >= 90, 'waited the second RetryAfterMs');
    await p.release();
    assert.equal(s.calls.at(-1)!.method, 'DELETE');
  });

  it('goes ahead when the servers have no such route, and retries a failed request', async () => {
    const notFound = Object.assign(new Error('HTTP 404: not found'), { status: 404 });
    const s1 = scripted([notFound]);
    await new RestartPermits(s1.call, { log: silentLogger() }).acquire(new AbortController().signal);
    assert.equal(s1.calls.length, 1);

    const s2 = scripted([new Error('connect ECONNREFUSED'), { Granted: true }]);
    await new RestartPermits(s2.call, { log: silentLogger() }).acquire(new AbortController().signal);
    assert.equal(s2.calls.length, 2);
  });

  it('stops waiting when aborted; a failed release does not throw', async () => {
    const s = scripted(Array.from({ length: 100 }, () => ({ Granted: false, RetryAfterMs: 5000 })));
    const p = new RestartPermits(s.call, { log: silentLogger() });
    const ac = new AbortController();
    const waiting = p.acquire(ac.signal);
    setTimeout(() => ac.abort(new Error('stopped')), 50);
    await assert.rejects(waiting, { message: 'stopped' });
    assert.equal(s.calls.length, 1);
    await new RestartPermits(() => Promise.reject(new Error('down')), { log: silentLogger() }).release();
  });
});
