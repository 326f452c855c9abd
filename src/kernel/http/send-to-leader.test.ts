// sendToLeader (forward.ts): a request whose connection to the known leader was refused
// goes to the leader read anew, once; a request that reached a server and got no answer is
// never sent again (it may have been applied). Real loopback servers.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, describe, it } from 'node:test';
import { neverSent, NoLeaderKnown, sendToLeader } from './forward.js';

const servers: Server[] = [];
after(async () => {
  for (const s of servers) await new Promise((r) => s.close(r));
});

/** A listening server; `handler` answers or drops each request. Resolves with its `host:port`. */
async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const s = createServer(handler);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `127.0.0.1:${(s.address() as { port: number }).port}`;
}

/** A `host:port` nothing listens on. */
async function closedAddress(): Promise<string> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return `127.0.0.1:${port}`;
}

const post = async (address: string) => (await fetch(`http://${address}/write`, { method: 'POST', body: 'x' })).text();

describe('sendToLeader', () => {
  it('a refused connection: reads who leads now and sends there once', async () => {
    let leader = await closedAddress();
    const live = await serve((_req, res) => res.end('applied'));
    let refreshed = 0;
    const out = await sendToLeader({
      leader: () => leader,
      refreshLeader: async () => {
        refreshed++;
        leader = live;
      },
      send: post,
    });
    assert.deepEqual([out, refreshed], ['applied', 1]);
  });

  it('a request that reached the leader and got no answer is not sent again', async () => {
    let received = 0;
    const dropping = await serve((req) => {
      received++;
      req.socket.destroy();
    });
    const other = await serve((_req, res) => res.end('applied twice'));
    let leader = dropping;
    await assert.rejects(
      sendToLeader({
        leader: () => leader,
        refreshLeader: async () => {
          leader = other;
        },
        send: post,
      }),
      (err: Error) => !(err instanceof NoLeaderKnown) && !neverSent(err),
    );
    assert.equal(received, 1);
  });

  it('no leader, before and after reading it anew: NoLeaderKnown', async () => {
    await assert.rejects(sendToLeader({ leader: () => undefined, refreshLeader: async () => undefined, send: post }), NoLeaderKnown);
    const dead = await closedAddress();
    await assert.rejects(sendToLeader({ leader: () => dead, refreshLeader: async () => undefined, send: post }), NoLeaderKnown);
  });
});
