/**
 * Streaming replies (`HttpResponse.stream`): headers go out before the body, the body is
 * whatever the stream writes, and its signal aborts when the client leaves or the listener
 * closes (so a long-lived stream never holds a shutdown open). A stream the server ends
 * closes its socket even when the client never reads; a client that leaves is not logged
 * as a server error.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { silentLogger } from '../log/logger.js';
import type { CairnError } from './errors.js';
import { CLOSE_GRACE_MS, STREAM_END_GRACE_MS, listen, type HttpService } from './server.js';

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

/** A pino logger keeping every line, at debug. */
function captureLogger() {
  const lines: Array<{ level: number; msg: string }> = [];
  const log = pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  return { log, lines };
}

describe('streams the server ends', () => {
  it('destroys the socket of a cut stream whose client is paused and never reads', async () => {
    let serverSocket: Socket | undefined;
    const service: HttpService = {
      handle: async () => ({
        status: 200,
        stream: async (out) => {
          serverSocket = (out as ServerResponse).socket ?? undefined;
          // More than the kernel queues hold, as behind a slow event-stream reader; then cut it.
          const chunk = Buffer.alloc(1024 * 1024, 'x');
          for (let i = 0; i < 32; i++) out.write(chunk);
          out.end('{"Error":"cut"}\n');
        },
      }),
      renderError: (err: CairnError) => ({ status: err.status, body: err.message }),
    };
    const l = await listen({ address: '127.0.0.1:0' }, service, silentLogger());
    const client = connect(l.port, '127.0.0.1');
    client.on('error', () => undefined);
    await new Promise((r) => client.once('connect', r));
    client.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    client.pause();
    while (!serverSocket) await new Promise((r) => setTimeout(r, 10));
    const socket = serverSocket;
    const closed = new Promise<string>((r) => (socket.destroyed ? r('closed') : socket.once('close', () => r('closed'))));
    const outcome = await Promise.race([closed, new Promise((r) => setTimeout(() => r('still open'), STREAM_END_GRACE_MS + 3000))]);
    assert.equal(outcome, 'closed');
    client.destroy();
    await l.close();
  });
});

describe('clients that leave', () => {
  const echo: HttpService = {
    handle: async (req) => ({ status: 200, body: req.body }),
    renderError: (err: CairnError) => ({ status: err.status, body: err.message }),
  };

  it('a client that disconnects mid-body is logged at debug, not as an internal error', async () => {
    const { log, lines } = captureLogger();
    const l = await listen({ address: '127.0.0.1:0' }, echo, log);
    const client = connect(l.port, '127.0.0.1');
    await new Promise((r) => client.once('connect', r));
    client.write('PUT /x HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n0123456789');
    await new Promise((r) => setTimeout(r, 50));
    client.destroy();
    await new Promise((r) => setTimeout(r, 100));
    await l.close();
    assert.deepEqual(
      lines.filter((x) => x.level >= 40),
      [],
    );
    assert.ok(
      lines.some((x) => x.level === 20 && /client closed the connection/.test(x.msg)),
      JSON.stringify(lines),
    );
  });

  it('a stream that fails because its client left is logged at debug', async () => {
    const { log, lines } = captureLogger();
    const service: HttpService = {
      handle: async () => ({
        status: 200,
        stream: async (out, signal) => {
          out.write('first\n');
          await new Promise((r) => signal.addEventListener('abort', r, { once: true }));
          // What a stream reading from a source tied to the request does (e.g. a fetch): reject.
          throw new Error('aborted');
        },
      }),
      renderError: (err: CairnError) => ({ status: err.status, body: err.message }),
    };
    const l = await listen({ address: '127.0.0.1:0' }, service, log);
    const stop = new AbortController();
    const res = await fetch(l.url, { signal: stop.signal });
    await res.body!.getReader().read();
    stop.abort();
    await new Promise((r) => setTimeout(r, 100));
    await l.close();
    assert.deepEqual(
      lines.filter((x) => x.level >= 40),
      [],
    );
    assert.ok(
      lines.some((x) => x.level === 20 && /ended by its client/.test(x.msg)),
      JSON.stringify(lines),
    );
  });
});
