/**
 * The leader collects expired tokens (issue 8 scope 3, "expiry"; the reference's expired
 * ACL token GC): a token is deleted from the state once it has been expired for longer
 * than the GC threshold (`server.acl_token_gc_threshold`); tokens not yet past it, and tokens without expiry, stay.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { T } from '../../src/services/sched/state.js';
import { until } from '../processes.js';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';

describe('expired token collection', () => {
  const agents: TestAgent[] = [];
  after(async () => {
    for (const a of agents) await a.stop();
  });

  it('deletes tokens expired for longer than the threshold and keeps the others', async () => {
    let clock = Date.now();
    const agent = await startAgent({ aclTokenGcThresholdMs: 10 * 60_000 }, { now: () => clock, tokenReapIntervalMs: 50 });
    agents.push(agent);
    const make = async (body: object) => {
      const r = await call(agent.url, 'POST', '/v1/acl/token', { token: ROOT, body: { Type: 'management', ...body } });
      assert.equal(r.status, 200, r.text);
      return (r.json as { AccessorID: string }).AccessorID;
    };
    const short = await make({ Name: 'short', ExpirationTTL: '1m' });
    const long = await make({ Name: 'long', ExpirationTTL: '1h' });
    const forever = await make({ Name: 'forever' });

    clock += 5 * 60_000; // expired 4 min ago: within the threshold
    await new Promise((r) => setTimeout(r, 300));
    assert.ok(agent.state.get(T.tokens, short), 'expired, but not for longer than the threshold');

    clock += 10 * 60_000;
    await until('the token is collected', 5000, () => (agent.state.get(T.tokens, short) === undefined ? true : undefined));
    assert.ok(agent.state.get(T.tokens, long));
    assert.ok(agent.state.get(T.tokens, forever));
  });
});
