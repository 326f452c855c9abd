/**
 * DNS follows the checks the agent runs (issue 16 "Tests and measurements": an HTTP check
 * flips to critical when its target fails, and the service leaves DNS): a service
 * registered with the agent and an HTTP check on a local server answers once the check
 * passes, leaves the answers when the server stops answering 2xx, and comes back.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { defaultDnsConfig } from '../../src/services/mesh/config.js';
import { dig } from './dig.js';
import { call, startAgent, type TestAgent } from './helpers.js';

/** Polls `read` every 100 ms until `ok` holds, up to `ms`; returns the last value. */
async function until<T>(ms: number, read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const end = Date.now() + ms;
  let v = await read();
  while (!ok(v) && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 100));
    v = await read();
  }
  return v;
}

describe("discovery DNS follows the agent's checks", () => {
  let a: TestAgent;
  let target: Server;
  let healthy = true;
  let port: number;

  before(async () => {
    target = createServer((_req, res) => {
      res.writeHead(healthy ? 200 : 500);
      res.end();
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    a = await startAgent({ enabled: false }, { dns: defaultDnsConfig('127.0.0.1:0') });
    port = Number(a.dnsAddress!.split(':').pop());
    const url = `http://127.0.0.1:${(target.address() as { port: number }).port}/health`;
    const r = await call(a.url, 'PUT', '/v1/agent/service/register', {
      body: { Name: 'api', Address: '127.0.0.7', Port: 9000, Check: { HTTP: url, Interval: '1s' } },
    });
    assert.equal(r.status, 200, r.text);
  });
  after(async () => {
    await a.stop();
    target.close();
  });

  it('answers while the HTTP check passes, NXDOMAIN once it fails, answers again when it recovers', async () => {
    const answers = () => dig(port, 'api.service.cairn').then((r) => r.answer.map((x) => x.data));
    assert.deepEqual(await until(10_000, answers, (v) => v.length === 1), ['127.0.0.7'], 'passing: answered');
    healthy = false;
    assert.deepEqual(await until(10_000, answers, (v) => v.length === 0), [], 'critical: gone from DNS');
    assert.equal((await dig(port, 'api.service.cairn')).status, 'NXDOMAIN');
    healthy = true;
    assert.deepEqual(await until(10_000, answers, (v) => v.length === 1), ['127.0.0.7'], 'passing again');
  });
});
