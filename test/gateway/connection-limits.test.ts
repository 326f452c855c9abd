/**
 * The gateway's connection limits (issue 14 item 3): `max_connections` on every listener,
 * Boundary's `http_read_header_timeout` / `http_read_timeout` / `http_idle_timeout` on the
 * api and ops listeners (refused, naming the key, on cluster and proxy listeners), and a
 * gateway started from the parsed file applying them: a slowloris client of the api
 * listener is cut, and connections past the cap of the proxy and cluster listeners are
 * closed while the admitted ones keep working.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, it } from 'node:test';
import { ConfigError } from '../../src/kernel/config/index.js';
import { silentLogger } from '../../src/kernel/log/logger.js';
import { parseGatewayServerConfig } from '../../src/services/gateway/config.js';
import { startGateway } from '../../src/services/gateway/server.js';

const listener = (purpose: string, extra = '') => `listener "tcp" {\n  purpose = "${purpose}"\n  address = "127.0.0.1:0"\n  tls_disable = true\n${extra}}\n`;
const parse = (text: string) => parseGatewayServerConfig(text, 'gw.hcl');
const errorOf = (text: string): string => {
  try {
    parse(text);
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.message;
  }
  assert.fail('expected a ConfigError');
};

/** A raw socket; `closed` resolves with everything received once the server closes it. */
async function rawClient(address: string): Promise<{ socket: net.Socket; closed: Promise<string> }> {
  const u = new URL(address.includes('://') ? address : `tcp://${address}`);
  const socket = net.connect(Number(u.port), u.hostname);
  let data = '';
  socket.on('data', (d) => (data += d.toString('latin1')));
  socket.on('error', () => undefined);
  const closed = new Promise<string>((r) => socket.once('close', () => r(data)));
  await new Promise((r) => socket.once('connect', r));
  return { socket, closed };
}

/** `p`, or `'still open'` after `ms`: a deadline on an event that must happen. */
function within<T>(p: Promise<T>, ms: number): Promise<T | 'still open'> {
  return Promise.race([p, new Promise<'still open'>((r) => setTimeout(() => r('still open'), ms).unref())]);
}

describe('gateway connection limits', { timeout: 60_000 }, () => {
  it('config: timeouts on api and ops listeners, max_connections on all, defaults otherwise', () => {
    const c = parse(
      `controller {}\nworker {}\n${listener('api', '  http_read_header_timeout = "2s"\n  http_idle_timeout = "1m"\n  max_connections = 50\n')}${listener('cluster', '  max_connections = 8\n')}${listener('proxy')}${listener('ops')}`,
    );
    const limits = Object.fromEntries(c.listeners.map((l) => [l.purpose, l.limits]));
    assert.deepEqual(limits.api, { maxConnections: 50, headerTimeoutMs: 2000, requestTimeoutMs: 30_000, idleTimeoutMs: 60_000 });
    assert.deepEqual(limits.cluster, { maxConnections: 8 });
    assert.deepEqual(limits.proxy, { maxConnections: 4096 });
    assert.deepEqual(limits.ops, { maxConnections: 4096, headerTimeoutMs: 5_000, requestTimeoutMs: 30_000, idleTimeoutMs: 300_000 });
  });

  it('config: bad values and misplaced timeouts name file, line and key', () => {
    assert.equal(
      errorOf(`worker {}\n${listener('proxy', '  http_read_header_timeout = "5s"\n')}`),
      'gw.hcl:6: "http_read_header_timeout" applies to api and ops listeners only, not to purpose "proxy"',
    );
    assert.equal(errorOf(`worker {}\n${listener('proxy', '  max_connections = -2\n')}`), 'gw.hcl:6: "max_connections" must be at least 0');
    assert.match(errorOf(`worker {}\n${listener('ops', '  http_read_timeout = "never"\n')}`), /^gw\.hcl:6: "http_read_timeout" must be a duration/);
  });

  it('a gateway started from the file cuts slow api clients and caps its proxy and cluster listeners', async () => {
    const gw = await startGateway({
      config: parse(
        `controller {\n  auth_token = "t"\n}\nworker {\n  name = "w1"\n}\n` +
          listener('api', '  http_read_header_timeout = "1s"\n  http_read_timeout = "1s"\n') +
          listener('cluster', '  max_connections = 1\n') +
          listener('proxy', '  max_connections = 2\n') +
          listener('ops'),
      ),
      log: silentLogger(),
      statusIntervalMs: 100,
    });
    try {
      const url = (purpose: string) => gw.listeners.find((l) => l.purpose === purpose)!.url;
      // api: a client trickling its headers is cut at the header timeout.
      const slow = await rawClient(url('api'));
      slow.socket.write('GET /v1/workers HTTP/1.1\r\n');
      const trickle = setInterval(() => slow.socket.write('X-Slow: 1\r\n'), 100);
      assert.match(await within(slow.closed, 5000), /^HTTP\/1\.1 408 /);
      clearInterval(trickle);

      // proxy: two handshaking clients are admitted, a third is closed at once; the two still get an answer.
      const admitted = [await rawClient(url('proxy')), await rawClient(url('proxy'))];
      const extra = await rawClient(url('proxy'));
      assert.equal(await within(extra.closed, 4000), '');
      for (const c of admitted) {
        c.socket.write('not-a-token\n');
        assert.match(await within(c.closed, 4000), /^ERR /);
      }

      // cluster: the worker's channel holds the only slot; another connection is closed, the worker keeps reporting.
      while (!gw.cluster!.workers.has('w1')) await new Promise((r) => setTimeout(r, 25));
      const intruder = await rawClient(url('cluster'));
      assert.equal(await within(intruder.closed, 4000), '');
      const seen = gw.cluster!.workers.get('w1')!.lastStatusMs;
      while (gw.cluster!.workers.get('w1')!.lastStatusMs === seen) await new Promise((r) => setTimeout(r, 25));
    } finally {
      await gw.shutdown();
    }
  });
});
