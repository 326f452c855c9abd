/**
 * Streaming replies (`HttpResponse.stream`): headers go out before the body, the body is
 * whatever the stream writes, and its signal aborts when the client leaves or the listener
 * closes (so a long-lived stream never holds a shutdown open).
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { silentLogger } from '../log/logger.js';
import { CairnError } from './errors.js';
import { CLOSE_GRACE_MS, listen, type HttpService } from './server.js';

/** A service whose only reply streams `tick N` lines every 10 ms until aborted; `ended` resolves with why. */
function ticking() {
  let endedWith: (why: string) => void = () => undefined;
  const ended = new Promise<string>((r) => (endedWith = r));
  const service: HttpService = {
    handle: async () => ({
      status: 200,
      headers: { 'Content-Type': 'application/json' },
      stream: async (out, signal) => {
        for (let i = 0; !signal.aborted; i++) {
          out.write(`tick ${i}\n`);
          await new Promise((r) => setTimeout(r, 10));
        }
        endedWith('aborted');
      },
    }),
    renderError: (err: CairnError) => ({ status: err.status, body: err.message }),
  };
  return { service, ended };
}

describe('streaming replies', () => {
  it('sends status and headers first, then the stream; a client that leaves aborts it', async () => {
    const { service, ended } = ticking();
    const l = await listen({ address: '127.0.0.1:0' }, service, silentLogger());
    const stop = new AbortController();
    const res = await fetch(l.url, { signal: stop.signal });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    assert.match(first, /^tick 0\n/);
    stop.abort();
    assert.equal(await ended, 'aborted');
    await l.close();
  });

  it('a closing listener aborts its streams and the close completes', async () => {
    const { service, ended } = ticking();
    const l = await listen({ address: '127.0.0.1:0' }, service, silentLogger());
    const res = await fetch(l.url);
    const text = res.text();
    await new Promise((r) => setTimeout(r, 30));
    await l.close();
    assert.equal(await ended, 'aborted');
    assert.match(await text, /^tick 0\ntick 1\n/);
  });

  it('a connection that has not sent a request does not hold the close for the grace period', async () => {
    const { service } = ticking();
    const l = await listen({ address: '127.0.0.1:0' }, service, silentLogger());
    const socket = connect(l.port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    const closed = new Promise((r) => socket.once('close', r));
    const started = performance.now();
    await l.close();
    await closed;
    assert.ok(performance.now() - started < CLOSE_GRACE_MS / 2, `close took ${performance.now() - started} ms`);
  });
});
