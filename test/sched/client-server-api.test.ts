/**
 * The client's calls to the servers (client/server-api.ts) fail over: a server that cannot be
 * reached or answers 5xx (a follower without a leader) is skipped for the next one listed,
 * and the one that answered is asked first next time; a 4xx is the answer.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { ServerApi, ServerError } from '../../src/services/sched/client/server-api.js';

const servers: Server[] = [];
after(() => {
  for (const s of servers) s.close();
});

/** A server answering `status` and `body`, counting its requests. */
async function fake(status: number, body: string): Promise<{ address: string; hits: () => number }> {
  let hits = 0;
  const s = createServer((_req, res) => {
    hits++;
    res.writeHead(status, { 'Content-Type': 'application/json', 'X-Sched-Index': '7' }).end(body);
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return { address: `127.0.0.1:${(s.address() as AddressInfo).port}`, hits: () => hits };
}

describe('client server API failover', () => {
  it('skips an unreachable server and one answering 5xx, then keeps to the one that answered', async () => {
    const leaderless = await fake(500, 'No cluster leader');
    const good = await fake(200, '{"ok":true}');
    const api = new ServerApi(() => ['127.0.0.1:1', leaderless.address, good.address]);
    const r = await api.call<{ ok: boolean }>('GET', '/v1/status/leader');
    assert.deepEqual([r.body, r.index], [{ ok: true }, 7]);
    assert.equal(leaderless.hits(), 1);
    await api.call('GET', '/v1/status/leader');
    assert.deepEqual([leaderless.hits(), good.hits()], [1, 2], 'the answering server is asked first');
  });

  it('gives up with the last 5xx when every server fails, and returns a 4xx as it is', async () => {
    const a = await fake(503, 'busy');
    const b = await fake(500, 'No cluster leader');
    await assert.rejects(new ServerApi(() => [a.address, b.address]).call('GET', '/x'), (err: unknown) => err instanceof ServerError && err.status === 500);
    const denied = await fake(403, 'Permission denied');
    const other = await fake(200, '{}');
    await assert.rejects(
      new ServerApi(() => [denied.address, other.address]).call('GET', '/x'),
      (err: unknown) => err instanceof ServerError && err.status === 403,
    );
    assert.equal(other.hits(), 0);
  });
});
