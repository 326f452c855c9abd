/**
 * `SuccessBeforePassing` and `FailuresBeforeCritical` of an agent's HTTP check (the
 * reference's check thresholds; the scheduler's `success_before_passing` and
 * `failures_before_critical` reach the agent as these): the status turns only after that many
 * consecutive results, while the output always shows the latest probe.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { until } from '../processes.js';
import { call, startAgent, type TestAgent } from './helpers.js';

const ROOT = '8a7b6c5d-4e3f-4a1b-9c8d-7e6f5a4b3c2d';

describe('discovery agent: check thresholds', () => {
  let a: TestAgent;
  let target: Server;
  let code = 200;
  /** Answers served with the current code since it was set. */
  let served = 0;

  before(async () => {
    a = await startAgent({ initialManagement: ROOT });
    target = createServer((_req, res) => {
      served += 1;
      res.writeHead(code);
      res.end(String(code));
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  });
  after(async () => {
    target.close();
    await a.stop();
  });

  const check = async () => (await call(a.url, 'GET', '/v1/agent/checks', { token: ROOT })).json['service:api'] as { Status: string; Output: string };

  it('turns critical only after FailuresBeforeCritical failures and passing after SuccessBeforePassing successes', { timeout: 30_000 }, async () => {
    const url = `http://127.0.0.1:${(target.address() as { port: number }).port}/`;
    const reg = await call(a.url, 'PUT', '/v1/agent/service/register', {
      token: ROOT,
      body: { Name: 'api', Check: { HTTP: url, Interval: '1s', Timeout: '1s', Status: 'passing', FailuresBeforeCritical: 3, SuccessBeforePassing: 2 } },
    });
    assert.equal(reg.status, 200, reg.text);
    assert.deepEqual((await call(a.url, 'GET', '/v1/agent/checks', { token: ROOT })).json['service:api'].Definition, {
      HTTP: url,
      Interval: '1s',
      Timeout: '1s',
      Header: {},
      TLSSkipVerify: false,
      SuccessBeforePassing: 2,
      FailuresBeforeCritical: 3,
    });
    await until('a first probe', 5_000, async () => ((await check()).Output.includes('200') ? true : undefined));

    code = 500;
    served = 0;
    let sawHeldBack = false;
    await until('critical after three failures', 15_000, async () => {
      const c = await check();
      if (c.Status === 'critical') {
        assert.ok(served >= 3, `critical after ${served} failures`);
        return true;
      }
      if (c.Output.includes('500')) sawHeldBack = true;
      return undefined;
    });
    assert.ok(sawHeldBack, 'a failing probe was seen while the check still passed');

    code = 200;
    served = 0;
    await until('passing after two successes', 15_000, async () => {
      const c = await check();
      if (c.Status !== 'passing') return undefined;
      assert.ok(served >= 2, `passing after ${served} successes`);
      return true;
    });
    const bad = await call(a.url, 'PUT', '/v1/agent/service/register', {
      token: ROOT,
      body: { Name: 'x', Check: { HTTP: url, Interval: '1s', FailuresBeforeCritical: -1 } },
    });
    assert.deepEqual([bad.status, bad.text.trim()], [400, 'Invalid check: SuccessBeforePassing and FailuresBeforeCritical must be >= 0']);
  });
});
