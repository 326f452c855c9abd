/**
 * The scheduler's `limits` block (issue 14 item 3): parsed with the reference's
 * `http_max_conns_per_client` (Nomad's default 100) and Cairn's timeouts and total cap, bad
 * values named by key, and an agent started from the parsed file applying them on its HTTP
 * listener: a slowloris client is cut at the header timeout, a client over its cap gets the
 * reference's 429, and a blocking query outlives every timeout.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../../src/kernel/config/index.js';
import { TOO_MANY_CONNECTIONS } from '../../src/kernel/http/index.js';
import { parseSchedAgentConfig } from '../../src/services/sched/config.js';
import { rawClient, within } from '../raw-client.js';
import { ROOT, startAgent } from './helpers.js';

const parse = (text: string) => parseSchedAgentConfig(`data_dir = "/tmp/s"\n${text}`, 'sched.hcl');

function messageOf(text: string): string {
  try {
    parse(text);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  assert.fail('expected a ConfigError');
}

describe('scheduler limits block', () => {
  it("defaults: Nomad's 100 connections per client, the kernel's timeouts and total cap", () => {
    assert.deepEqual(parse('').httpLimits, { maxConnectionsPerClient: 100 });
    assert.deepEqual(parse('limits { http_max_conns_per_client = 0 }').httpLimits, {
      headerTimeoutMs: 5_000,
      requestTimeoutMs: 30_000,
      idleTimeoutMs: 300_000,
      maxConnections: 4096,
      maxConnectionsPerClient: 0,
    });
  });

  it('reads every key', () => {
    const c = parse(`limits {
  http_read_header_timeout  = "3s"
  http_read_timeout         = "1m"
  http_idle_timeout         = "90s"
  http_max_conns            = 500
  http_max_conns_per_client = 20
}`);
    assert.deepEqual(c.httpLimits, {
      headerTimeoutMs: 3000,
      requestTimeoutMs: 60_000,
      idleTimeoutMs: 90_000,
      maxConnections: 500,
      maxConnectionsPerClient: 20,
    });
  });

  it('names the key of a bad value', () => {
    assert.equal(messageOf('limits {\n  http_max_conns_per_client = -1\n}'), 'sched.hcl:3: "http_max_conns_per_client" must be at least 0');
    assert.equal(messageOf('limits {\n  http_max_conns = "lots"\n}'), 'sched.hcl:3: "http_max_conns" must be an integer');
    assert.match(messageOf('limits {\n  http_idle_timeout = "forever"\n}'), /^sched\.hcl:3: "http_idle_timeout" must be a duration/);
    assert.equal(
      messageOf('limits {\n  http_read_timeout = "2s"\n  http_read_header_timeout = "5s"\n}'),
      'sched.hcl:4: "http_read_header_timeout" (5s) must not exceed "http_read_timeout" (2s)',
    );
    assert.equal(messageOf('limits {\n  rpc_max_conns_per_client = 5\n}'), 'sched.hcl:3: unknown key "rpc_max_conns_per_client" in limits');
  });

  it('an agent started from the file applies them on its HTTP listener', async () => {
    const { httpLimits } = parse('limits {\n  http_read_header_timeout = "1s"\n  http_read_timeout = "1s"\n  http_max_conns_per_client = 3\n}');
    const agent = await startAgent({ httpLimits });
    try {
      const port = Number(new URL(agent.url).port);
      // A blocking query outlives the 1 s read timeout: only what the client sends is timed.
      const blocking = await rawClient(port);
      blocking.socket.write(`GET /v1/acl/policies?index=1000&wait=2s HTTP/1.1\r\nHost: x\r\nX-Sched-Token: ${ROOT}\r\nConnection: close\r\n\r\n`);
      const slow = await rawClient(port);
      slow.socket.write('GET /v1/acl/policies HTTP/1.1\r\n');
      const trickle = setInterval(() => slow.socket.write('X-Slow: 1\r\n'), 100);
      const third = await rawClient(port);
      const refused = await rawClient(port);
      assert.match(await within(refused.closed, 4000), new RegExp(`^HTTP/1\\.1 429 Too Many Requests\\r\\n[^]*\\r\\n\\r\\n${TOO_MANY_CONNECTIONS}$`));
      assert.match(await within(slow.closed, 4000), /^HTTP\/1\.1 408 /);
      clearInterval(trickle);
      assert.match(await within(blocking.closed, 6000), /^HTTP\/1\.1 200 OK\r\n[^]*X-Sched-Index: \d+/i);
      third.socket.destroy();
    } finally {
      await agent.stop();
    }
  });
});
