/**
 * Connection limits of the kernel listener on real sockets (issue 14 item 3): the header
 * timeout cuts a slowloris client, idle keep-alive connections are closed, the total and
 * per-client caps refuse extra connections while the admitted ones keep working, and
 * replies that take long (blocking queries, streams) are not cut by any of it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rawClient, within, type RawClient } from '../../../test/raw-client.js';
import { silentLogger } from '../log/logger.js';
import { TOO_MANY_CONNECTIONS, nodeHttpTimeouts, resolveLimits } from './connection-limits.js';
import type { CairnError } from './errors.js';
import { listen, type HttpService, type Listener, type ListenerOptions } from './server.js';

/** Answers `ok`, after `delay` ms when the path is `/slow?ms=N`; `/stream` ticks every 50 ms until the client leaves. */
const service: HttpService = {
  handle: async (req) => {
    if (req.path === '/slow') await new Promise((r) => setTimeout(r, Number(req.query.get('ms'))));
    if (req.path === '/stream') {
      return {
        status: 200,
        stream: async (out, signal) => {
          for (let i = 0; !signal.aborted; i++) {
            out.write(`tick ${i}\n`);
            await new Promise((r) => setTimeout(r, 50));
          }
        },
      };
    }
    return { status: 200, body: 'ok' };
  },
  renderError: (err: CairnError) => ({ status: err.status, body: err.message }),
};

async function start(options: Omit<ListenerOptions, 'address'>): Promise<Listener> {
  return listen({ address: '127.0.0.1:0', ...options }, service, silentLogger());
}

/** Sends one keep-alive GET on `socket` and resolves with the reply's status line once its body arrived. */
function get(c: RawClient, path = '/'): Promise<string> {
  const before = c.received().length;
  c.socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
  return new Promise((resolve) => {
    const check = () => {
      const reply = c.received().slice(before);
      if (/\r\n\r\nok$/.test(reply) || reply.endsWith(TOO_MANY_CONNECTIONS)) {
        c.socket.off('data', check);
        resolve(reply.split('\r\n')[0]);
      }
    };
    c.socket.on('data', check);
    check();
  });
}

describe('listener connection limits', () => {
  it('cuts a client trickling its header bytes once the header timeout has passed (408)', async () => {
    const l = await start({ headerTimeoutMs: 300, requestTimeoutMs: 5000 });
    const clients = await Promise.all(Array.from({ length: 5 }, () => rawClient(l.port)));
    const timers = clients.map((c) => {
      c.socket.write('GET / HTTP/1.1\r\n');
      return setInterval(() => c.socket.write('X-Slow: 1\r\n'), 50);
    });
    const outcomes = await Promise.all(clients.map((c) => within(c.closed, 4000)));
    timers.forEach(clearInterval);
    for (const o of outcomes) assert.match(o, /^HTTP\/1\.1 408 /);
    await l.close();
  });

  it('cuts a connection that never sends anything after the header timeout', async () => {
    const l = await start({ headerTimeoutMs: 300, requestTimeoutMs: 5000 });
    const c = await rawClient(l.port);
    assert.notEqual(await within(c.closed, 4000), 'still open');
    await l.close();
  });

  it('cuts a client trickling its body once the request timeout has passed', async () => {
    const l = await start({ headerTimeoutMs: 200, requestTimeoutMs: 400 });
    const c = await rawClient(l.port);
    c.socket.write('PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n');
    const t = setInterval(() => c.socket.write('x'), 50);
    const outcome = await within(c.closed, 4000);
    clearInterval(t);
    assert.notEqual(outcome, 'still open');
    assert.doesNotMatch(outcome, /\r\n\r\nok$/);
    await l.close();
  });

  it('closes an idle keep-alive connection after the idle timeout, not before it has served', async () => {
    const l = await start({ idleTimeoutMs: 300 });
    const c = await rawClient(l.port);
    assert.equal(await get(c), 'HTTP/1.1 200 OK');
    assert.equal(await get(c), 'HTTP/1.1 200 OK');
    // Node closes an idle socket up to 1 s after its keep-alive timeout.
    assert.notEqual(await within(c.closed, 5000), 'still open');
    await l.close();
  });

  it('replies that take longer than every timeout still arrive (blocking queries)', async () => {
    const l = await start({ headerTimeoutMs: 200, requestTimeoutMs: 300, idleTimeoutMs: 300 });
    const res = await fetch(`${l.url}/slow?ms=1200`);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), 'ok');
    await l.close();
  });

  it('a stream runs on past every timeout', async () => {
    const l = await start({ headerTimeoutMs: 200, requestTimeoutMs: 300, idleTimeoutMs: 300 });
    const stop = new AbortController();
    const res = await fetch(`${l.url}/stream`, { signal: stop.signal });
    const reader = res.body!.getReader();
    let text = '';
    const started = Date.now();
    while (Date.now() - started < 1500) text += new TextDecoder().decode((await reader.read()).value);
    assert.match(text, /tick 20\n/);
    stop.abort();
    await l.close();
  });

  it('refuses connections past max_connections; the admitted ones keep working', async () => {
    const l = await start({ maxConnections: 3 });
    const admitted = await Promise.all([rawClient(l.port), rawClient(l.port), rawClient(l.port)]);
    for (const c of admitted) assert.equal(await get(c), 'HTTP/1.1 200 OK');
    const extra = await rawClient(l.port);
    extra.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.equal(await within(extra.closed, 4000), '', 'the extra connection is closed without a reply');
    for (const c of admitted) assert.equal(await get(c), 'HTTP/1.1 200 OK');
    // A slot freed is a slot available again.
    admitted[0].socket.destroy();
    await admitted[0].closed;
    await new Promise((r) => setTimeout(r, 50));
    const next = await rawClient(l.port);
    assert.equal(await get(next), 'HTTP/1.1 200 OK');
    for (const c of [...admitted, next]) c.socket.destroy();
    await l.close();
  });

  it('answers 429 with the reference text past http_max_conns_per_client; the others keep working', async () => {
    const l = await start({ maxConnectionsPerClient: 2 });
    const admitted = await Promise.all([rawClient(l.port), rawClient(l.port)]);
    for (const c of admitted) assert.equal(await get(c), 'HTTP/1.1 200 OK');
    const extra = await rawClient(l.port);
    const reply = await within(extra.closed, 4000);
    assert.match(reply, /^HTTP\/1\.1 429 Too Many Requests\r\n/);
    assert.ok(reply.endsWith(`\r\n\r\n${TOO_MANY_CONNECTIONS}`));
    for (const c of admitted) assert.equal(await get(c), 'HTTP/1.1 200 OK');
    for (const c of admitted) c.socket.destroy();
    await l.close();
  });
});

describe('resolveLimits / nodeHttpTimeouts', () => {
  it('fills the reference defaults in and applies the idle fallback', () => {
    assert.deepEqual(resolveLimits(), {
      headerTimeoutMs: 5_000,
      requestTimeoutMs: 30_000,
      idleTimeoutMs: 300_000,
      maxConnections: 4096,
      maxConnectionsPerClient: 0,
    });
    assert.equal(resolveLimits({ idleTimeoutMs: 0 }).idleTimeoutMs, 30_000);
    assert.equal(resolveLimits({ idleTimeoutMs: 0, requestTimeoutMs: 0 }).idleTimeoutMs, 5_000);
  });

  it('refuses a header timeout above the request timeout', () => {
    assert.throws(() => nodeHttpTimeouts(resolveLimits({ headerTimeoutMs: 5000, requestTimeoutMs: 1000 })), /header timeout/);
    assert.equal(nodeHttpTimeouts(resolveLimits({ headerTimeoutMs: 5000, requestTimeoutMs: 0 })).requestTimeout, 0);
  });
});
