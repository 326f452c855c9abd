/**
 * The leader deletes expired tokens (issue 8 scope 3, "expiry"): an expired token is
 * already absent to every read; the reaper removes it from the stored state, leaves
 * tokens without expiry or not yet expired alone.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { T } from '../../src/services/mesh/state.js';
import { until } from '../processes.js';
import { call, startAgent, type TestAgent } from './helpers.js';

describe('expired token reaping', () => {
  const agents: TestAgent[] = [];
  after(async () => {
    for (const a of agents) await a.stop();
  });

  it('deletes expired tokens from the state and keeps the others', async () => {
    let clock = Date.now();
    const root = randomUUID();
    const agent = await startAgent({ initialManagement: root }, {}, { now: () => clock, tokenReapIntervalMs: 50 });
    agents.push(agent);
    const make = async (body: object) => {
      const r = await call(agent.url, 'PUT', '/v1/acl/token', { token: root, body });
      assert.equal(r.status, 200, r.text);
      return (r.json as { AccessorID: string }).AccessorID;
    };
    const short = await make({ Description: 'short', ExpirationTTL: '1m' });
    const long = await make({ Description: 'long', ExpirationTTL: '1h' });
    const forever = await make({ Description: 'forever' });
    await new Promise((r) => setTimeout(r, 200));
    assert.ok(agent.state.get(T.tokens, short), 'not expired yet: kept');

    clock += 2 * 60_000;
    await until('the expired token is deleted', 5000, () => (agent.state.get(T.tokens, short) === undefined ? true : undefined));
    assert.ok(agent.state.get(T.tokens, long));
    assert.ok(agent.state.get(T.tokens, forever));
    assert.equal((await call(agent.url, 'GET', `/v1/acl/token/${short}`, { token: root })).status, 404);
  });
});
