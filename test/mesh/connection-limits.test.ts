/**
 * The discovery service's `limits` block (issue 14 item 3): Consul's
 * `http_max_conns_per_client` (default 200) beside Cairn's timeouts and total cap, bad
 * values named by key, and an agent started from the parsed file refusing a client over
 * its cap with the reference's 429 while its other connections keep working.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../../src/kernel/config/index.js';
import { TOO_MANY_CONNECTIONS } from '../../src/kernel/http/index.js';
import { parseMeshAgentConfig } from '../../src/services/mesh/config.js';
import { rawClient } from '../raw-client.js';
import { startAgent } from './helpers.js';

const parse = (text: string) => parseMeshAgentConfig(`data_dir = "/tmp/m"\n${text}`, 'mesh.hcl');

describe('discovery limits block', () => {
  it("defaults to Consul's 200 connections per client and reads every key", () => {
    assert.deepEqual(parse('').httpLimits, { maxConnectionsPerClient: 200 });
    const c = parse(
      'limits {\n  http_read_header_timeout = "5s"\n  http_read_timeout = 0\n  http_idle_timeout = "1m"\n  http_max_conns = 64\n  http_max_conns_per_client = 8\n}',
    );
    assert.deepEqual(c.httpLimits, { headerTimeoutMs: 5000, requestTimeoutMs: 0, idleTimeoutMs: 60_000, maxConnections: 64, maxConnectionsPerClient: 8 });
  });

  it('names the key of a bad value', () => {
    let message = '';
    try {
      parse('limits {\n  http_max_conns_per_client = "x"\n}');
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      message = err.message;
    }
    assert.equal(message, 'mesh.hcl:3: "http_max_conns_per_client" must be an integer');
  });

  it('an agent started from the file answers 429 past the per-client cap; admitted connections keep working', async () => {
    const { httpLimits } = parse('limits { http_max_conns_per_client = 2 }');
    const agent = await startAgent({}, { httpLimits });
    try {
      const port = Number(new URL(agent.url).port);
      const admitted = [await rawClient(port), await rawClient(port)];
      const refused = await rawClient(port);
      assert.ok((await refused.closed).endsWith(`\r\n\r\n${TOO_MANY_CONNECTIONS}`));
      for (const c of admitted) {
        c.socket.write('GET /v1/status/leader HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
        assert.match(await c.closed, /^HTTP\/1\.1 200 OK\r\n/);
      }
    } finally {
      await agent.stop();
    }
  });
});
