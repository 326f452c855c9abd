/**
 * `PUT|DELETE /v1/allocation/:id/restart-permit` (issue 27 scope 6, a Cairn addition) through the
 * SDK with a node's secret, on an agent with a simulated node: at most the job's
 * `update.max_parallel` allocations of a group hold a permit; a release lets the next one in; a
 * stopped allocation's permit is freed; only the allocation's node may ask, and a terminal or
 * unknown allocation is refused. Expiry on a clock: src/services/sched/restart-permits.test.ts.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { SchedApiError, SchedClient } from '../../src/sdk/index.js';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';
import { allocsOf, group, job, putJob, running, settled, simNode, until } from './workloads.js';

describe('scheduler restart permits', () => {
  let a: TestAgent;
  let node: SchedClient;
  let other: SchedClient;
  let ids: string[];

  before(async () => {
    a = await startAgent();
    const secret = randomUUID();
    const otherSecret = randomUUID();
    await simNode(a.url, 'n1', { over: { SecretID: secret } });
    await simNode(a.url, 'n2', { cpu: 1, memory: 1, over: { SecretID: otherSecret } });
    await settled(a, await putJob(a, job('web', [group('g', 4, { cpu: 10, memory: 10 })], { Update: { MaxParallel: 2 } })));
    ids = running(await allocsOf(a.url, 'web')).map((x) => x.ID);
    assert.equal(ids.length, 4);
    node = new SchedClient({ address: a.url, token: secret });
    other = new SchedClient({ address: a.url, token: otherSecret });
  });
  after(async () => {
    await node.close();
    await other.close();
    await a.stop();
  });

  it('grants max_parallel permits of a group, refuses the next with a retry delay, and grants it after a release', async () => {
    const [a1, a2, a3] = ids as [string, string, string];
    const first = await node.allocations.acquireRestartPermit(a1);
    assert.equal(first.Granted, true);
    assert.ok(first.Granted && Date.parse(first.ExpiresAt) > Date.now() + 50_000, 'held about 60 s');
    assert.equal((await node.allocations.acquireRestartPermit(a2)).Granted, true);
    const refused = await node.allocations.acquireRestartPermit(a3);
    assert.equal(refused.Granted, false);
    assert.ok(
      !refused.Granted && refused.Holders === 2 && refused.Limit === 2 && refused.RetryAfterMs > 0 && refused.RetryAfterMs <= 5000,
      JSON.stringify(refused),
    );
    // Asking again renews a held permit.
    assert.equal((await node.allocations.acquireRestartPermit(a1)).Granted, true);
    await node.allocations.releaseRestartPermit(a1);
    await node.allocations.releaseRestartPermit(a1);
    assert.equal((await node.allocations.acquireRestartPermit(a3)).Granted, true);
    assert.equal((await node.allocations.acquireRestartPermit(a1)).Granted, false);
    await node.allocations.releaseRestartPermit(a3);
  });

  it("frees a stopped allocation's permit, and refuses one to a terminal allocation", async () => {
    const [, a2, , a4] = ids as [string, string, string, string];
    // a2 holds one from the test before; take the second place.
    assert.equal((await node.allocations.acquireRestartPermit(a4)).Granted, true);
    const stop = await call(a.url, 'POST', `/v1/allocation/${a2}/stop`, { token: ROOT, body: {} });
    assert.equal(stop.status, 200, stop.text);
    await until('the allocation stopped', () => a.state.get<{ DesiredStatus: string }>('allocs', a2)?.DesiredStatus === 'stop');
    const [, , a3] = ids as [string, string, string];
    assert.equal((await node.allocations.acquireRestartPermit(a3)).Granted, true);
    const terminal = await node.allocations.acquireRestartPermit(a2).catch((e: unknown) => e);
    assert.ok(terminal instanceof SchedApiError && terminal.status === 400 && /alloc is terminal/.test(terminal.message), String(terminal));
  });

  it("answers only the allocation's node: another node's secret and a management token get 403, an unknown allocation 404", async () => {
    for (const op of [() => other.allocations.acquireRestartPermit(ids[0]!), () => other.allocations.releaseRestartPermit(ids[0]!)]) {
      const err = await op().catch((e: unknown) => e);
      assert.ok(err instanceof SchedApiError && err.status === 403, String(err));
    }
    for (const token of [undefined, ROOT]) {
      for (const method of ['PUT', 'DELETE']) {
        const r = await call(a.url, method, `/v1/allocation/${ids[0]}/restart-permit`, { token });
        assert.equal(r.status, 403, `${method} ${token ?? 'no token'}: ${r.text}`);
      }
    }
    const unknown = await call(a.url, 'PUT', `/v1/allocation/${randomUUID()}/restart-permit`, { token: ROOT });
    assert.equal(unknown.status, 404, unknown.text);
  });
});
