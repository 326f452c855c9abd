/**
 * `SchedClient.deployments` against a real agent (issue 29 item 1; src/sdk/sched-deployments.ts):
 * a job's latest deployment and its list, a read and its allocations, pause and resume, a
 * promotion refused with the server's text as `SchedApiError`, and fail.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SchedApiError, SchedClient } from '../../src/sdk/index.js';
import { ROOT, startAgent, type TestAgent } from './helpers.js';
import { rolling } from './deployments-helpers.js';
import { putJob, simNode, until } from './workloads.js';

describe('sdk: deployments', () => {
  let a: TestAgent;
  let sched: SchedClient;
  before(async () => {
    a = await startAgent();
    await simNode(a.url, 'n1', { cpu: 8000, memory: 8192 });
    sched = new SchedClient({ address: a.url, token: ROOT });
  });
  after(async () => {
    await sched.close();
    await a.stop();
  });

  it('reads, lists, pauses, resumes, refuses a promotion without canaries and fails a deployment', async () => {
    await putJob(a, rolling('web', 2, { MaxParallel: 1 }));
    const latest = await until('the deployment', async () => (await sched.deployments.jobLatestDeployment('web')).data ?? undefined);
    assert.deepEqual([latest.JobID, latest.JobVersion, latest.Status], ['web', 0, 'running']);
    const read = await sched.deployments.read(latest.ID);
    assert.equal(read.data.ID, latest.ID);
    assert.ok(read.index >= latest.ModifyIndex);
    assert.deepEqual(
      (await sched.deployments.jobDeployments('web')).data.map((d) => d.ID),
      [latest.ID],
    );
    assert.ok((await sched.deployments.list({ prefix: latest.ID.slice(0, 6) })).data.some((d) => d.ID === latest.ID));
    await until('its allocations', async () => (await sched.deployments.allocations(latest.ID)).data.length === 2);

    const paused = await sched.deployments.pause(latest.ID, true);
    assert.ok(paused.Index > 0);
    assert.equal((await sched.deployments.read(latest.ID)).data.Status, 'paused');
    const resumed = await sched.deployments.pause(latest.ID, false);
    assert.match(resumed.EvalID, /^[0-9a-f-]{36}$/);

    await assert.rejects(
      sched.deployments.promote(latest.ID),
      (err: unknown) => err instanceof SchedApiError && err.status === 400 && err.message === 'no canaries to promote',
    );
    const failed = await sched.deployments.fail(latest.ID);
    assert.equal(failed.RevertedJobVersion, null);
    assert.equal((await sched.deployments.read(latest.ID)).data.StatusDescription, 'Deployment marked as failed');
    await assert.rejects(sched.deployments.read('00000000-0000-4000-8000-000000000000'), (err: unknown) => err instanceof SchedApiError && err.status === 404);
    assert.equal((await sched.deployments.jobLatestDeployment('nothing')).data, null);
  });
});
