/**
 * Deployments on the servers (issue 29 item 1; contract 29 "Server"), over HTTP with
 * simulated client nodes whose health is reported as a client reports it (`client-status`
 * with `DeploymentStatus`): a rolling update `max_parallel` at a time that only moves on
 * healthy allocations and makes the version stable, an unhealthy allocation that fails the
 * deployment and auto-reverts to the stable version, the progress deadline, and a newer
 * version or a stop cancelling a running deployment.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';
import { deploymentOf, deploymentWhen, healAll, jobAllocs, live, placedBy, report, rolling } from './deployments-helpers.js';
import { putJob, settled, simNode, until } from './workloads.js';

const S = 1e9;

describe('deployments: rolling updates', () => {
  let a: TestAgent;
  before(async () => {
    a = await startAgent();
    await simNode(a.url, 'n1', { cpu: 8000, memory: 8192 });
  });
  after(() => a.stop());

  it('replaces at most max_parallel = 2 of 5 before they are healthy, then the version is stable', async () => {
    await putJob(a, rolling('web', 5, { MaxParallel: 2, HealthCheck: 'task_states' }, '300'));
    const d0 = await deploymentOf(a.url, 'web', 0);
    assert.equal(d0.Status, 'running');
    assert.equal(d0.StatusDescription, 'Deployment is running');
    // The first version places every allocation at once (max_parallel limits replacements only).
    await until('5 placements of version 0', async () => (await placedBy(a.url, d0.ID)).length === 5);
    assert.equal(await healAll(a.url, d0.ID), 5);
    const done0 = await deploymentWhen(a.url, d0.ID, (d) => d.Status === 'successful');
    assert.equal(done0.StatusDescription, 'Deployment completed successfully');
    assert.equal(done0.TaskGroups.g!.HealthyAllocs, 5);
    assert.equal((await call(a.url, 'GET', '/v1/job/web', { token: ROOT })).json.Stable, true, 'a successful deployment makes its version stable');

    await putJob(a, rolling('web', 5, { MaxParallel: 2, HealthCheck: 'task_states' }, '301'));
    const d1 = await deploymentOf(a.url, 'web', 1);
    assert.equal((await call(a.url, 'GET', '/v1/job/web', { token: ROOT })).json.Stable, false);
    let maxUnhealthyNew = 0;
    for (let round = 0; round < 10; round++) {
      // Wait until the scheduler placed what it may, then look.
      const placed = await until('the next batch', async () => {
        const xs = live(await placedBy(a.url, d1.ID)).filter((x) => x.DeploymentStatus?.Healthy !== true);
        const d = await deploymentWhen(a.url, d1.ID, () => true);
        return xs.length > 0 || d.Status !== 'running' ? xs : undefined;
      });
      const all = await jobAllocs(a.url, 'web');
      const stoppedOld = all.filter((x) => x.JobVersion === 0 && x.DesiredStatus === 'stop').length;
      const healthyNew = (await placedBy(a.url, d1.ID)).filter((x) => x.DeploymentStatus?.Healthy === true).length;
      assert.ok(placed.length <= 2, `${placed.length} new allocations not yet healthy at once`);
      assert.ok(stoppedOld <= healthyNew + 2, `${stoppedOld} old allocations stopped with only ${healthyNew} new healthy`);
      maxUnhealthyNew = Math.max(maxUnhealthyNew, placed.length);
      if (placed.length === 0) break;
      for (const x of placed) await report(a.url, x.ID, true);
    }
    assert.equal(maxUnhealthyNew, 2, 'two at a time');
    const done1 = await deploymentWhen(a.url, d1.ID, (d) => d.Status === 'successful');
    assert.deepEqual([done1.TaskGroups.g!.HealthyAllocs, done1.TaskGroups.g!.DesiredTotal], [5, 5]);
    const all = live(await jobAllocs(a.url, 'web'));
    assert.deepEqual(
      all.map((x) => x.JobVersion),
      [1, 1, 1, 1, 1],
    );
    const versions = (await call(a.url, 'GET', '/v1/job/web/versions', { token: ROOT })).json.Versions as { Version: number; Stable: boolean }[];
    assert.deepEqual(
      versions.map((v) => [v.Version, v.Stable]),
      [
        [1, true],
        [0, true],
      ],
    );
    const ev = (await call(a.url, 'GET', '/v1/job/web/evaluations', { token: ROOT })).json as { TriggeredBy: string; DeploymentID: string }[];
    assert.ok(
      ev.some((e) => e.TriggeredBy === 'deployment-watcher' && e.DeploymentID === d1.ID),
      'a healthy allocation makes a deployment-watcher evaluation with its DeploymentID',
    );
  });

  it('an unhealthy allocation fails the deployment and auto_revert registers the stable version again', async () => {
    const update = { MaxParallel: 1, AutoRevert: true };
    await putJob(a, rolling('api', 3, update, '300'));
    const d0 = await deploymentOf(a.url, 'api', 0);
    await until('3 placements', async () => (await placedBy(a.url, d0.ID)).length === 3);
    await healAll(a.url, d0.ID);
    await deploymentWhen(a.url, d0.ID, (d) => d.Status === 'successful');

    await putJob(a, rolling('api', 3, update, '999'));
    const d1 = await deploymentOf(a.url, 'api', 1);
    const [bad] = await until('the first replacement', async () => {
      const xs = live(await placedBy(a.url, d1.ID));
      return xs.length === 1 ? xs : undefined;
    });
    await report(a.url, bad!.ID, false);
    const failed = await deploymentWhen(a.url, d1.ID, (d) => d.Status === 'failed');
    assert.equal(failed.StatusDescription, 'Failed due to unhealthy allocations - rolling back to job version 0');
    assert.equal(failed.TaskGroups.g!.UnhealthyAllocs, 1);
    assert.equal((await placedBy(a.url, d1.ID)).length, 1, 'version 1 placed only max_parallel = 1 before it failed');

    const job = (await call(a.url, 'GET', '/v1/job/api', { token: ROOT })).json;
    assert.deepEqual([job.Version, job.TaskGroups[0].Tasks[0].Config.args], [2, ['300']], 'version 0 registered again as version 2');
    const d2 = await deploymentOf(a.url, 'api', 2);
    for (let i = 0; i < 6; i++) {
      const d = await deploymentWhen(a.url, d2.ID, () => true);
      if (d.Status === 'successful') break;
      await until('something to heal', async () => (await healAll(a.url, d2.ID)) > 0 || (await latest2(d2.ID)) === 'successful');
    }
    await deploymentWhen(a.url, d2.ID, (d) => d.Status === 'successful');
    const now = live(await jobAllocs(a.url, 'api'));
    assert.equal(now.length, 3);
    for (const x of now) {
      const full = (await call(a.url, 'GET', `/v1/allocation/${x.ID}`, { token: ROOT })).json;
      assert.deepEqual(full.Job.TaskGroups[0].Tasks[0].Config.args, ['300'], 'all 3 run the old spec again');
    }
  });

  /** The status of deployment `id`. */
  async function latest2(id: string): Promise<string> {
    return (await call(a.url, 'GET', `/v1/deployment/${id}`, { token: ROOT })).json.Status;
  }

  it('fails a deployment whose allocations make no progress before the progress deadline', async () => {
    await putJob(a, rolling('slow', 1, { MaxParallel: 1, MinHealthyTime: 0, HealthyDeadline: 1 * S, ProgressDeadline: 2 * S }));
    const d = await deploymentOf(a.url, 'slow', 0);
    assert.notEqual(d.TaskGroups.g!.RequireProgressBy, '0001-01-01T00:00:00Z');
    const failed = await deploymentWhen(a.url, d.ID, (x) => x.Status === 'failed', 15_000);
    assert.equal(failed.StatusDescription, 'Failed due to progress deadline');
  });

  it('a newer version cancels a running deployment; stopping the job cancels its deployment', async () => {
    await putJob(a, rolling('busy', 2, { MaxParallel: 1 }, '300'));
    const d0 = await deploymentOf(a.url, 'busy', 0);
    await putJob(a, rolling('busy', 2, { MaxParallel: 1 }, '301'));
    const d1 = await deploymentOf(a.url, 'busy', 1);
    const cancelled = await deploymentWhen(a.url, d0.ID, (x) => x.Status === 'cancelled');
    assert.equal(cancelled.StatusDescription, 'Cancelled due to newer version of job');
    const stop = await call(a.url, 'DELETE', '/v1/job/busy', { token: ROOT });
    assert.equal(stop.status, 200, stop.text);
    await settled(a, stop.json.EvalID);
    const stopped = await deploymentWhen(a.url, d1.ID, (x) => x.Status === 'cancelled');
    assert.equal(stopped.StatusDescription, 'Cancelled because job is stopped');
    const list = (await call(a.url, 'GET', '/v1/job/busy/deployments', { token: ROOT })).json as { ID: string }[];
    assert.deepEqual(
      list.map((x) => x.ID),
      [d1.ID, d0.ID],
      'newest first',
    );
  });
});
