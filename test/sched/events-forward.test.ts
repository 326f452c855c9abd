/**
 * `GET /v1/event/stream?region=<other>` is forwarded and streamed through (reference/sched.md
 * §1.6): frames of the other region's changes arrive as they happen, and the forwarded
 * stream ends when the client leaves.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';
import { Stream, until } from './stream.js';

describe('event stream across regions', () => {
  let global: TestAgent;
  let europe: TestAgent;
  before(async () => {
    global = await startAgent();
    europe = await startAgent({ region: 'europe', authoritativeRegion: 'global', regionAddresses: { global: new URL(global.url).host } }, { root: null });
  });
  after(async () => {
    await europe.stop();
    await global.stop();
  });

  it("streams the other region's events through this one, live", async () => {
    const stream = await Stream.open(europe.url, `region=global&topic=Node&index=${global.state.index + 1}`, ROOT);
    try {
      const id = '7d0c6a51-0000-4000-8000-00000000e0e0';
      const reg = await call(global.url, 'PUT', '/v1/node/register', {
        token: ROOT,
        body: { Node: { ID: id, SecretID: 'node-secret-e0e0', Datacenter: 'dc1', Name: 'far', Attributes: { 'os.name': 'linux' } } },
      });
      assert.equal(reg.status, 200, reg.text);
      const frame = await stream.frame();
      assert.deepEqual(
        frame?.Events?.map((e) => [e.Topic, e.Type, e.Key]),
        [['Node', 'NodeRegistration', id]],
      );
    } finally {
      stream.close();
    }
    // The client left: the forwarded stream, and the other region's subscription, end too.
    await until(() => global.broker!.subscriptionCount === 0, 5000, 'the other region to drop the subscription');
  });

  it("passes the other region's refusal on before any byte", async () => {
    const r = await call(europe.url, 'GET', '/v1/event/stream?region=global&topic=Node', { token: 'not-a-token' });
    assert.deepEqual([r.status, r.text], [403, 'Permission denied']);
  });
});
