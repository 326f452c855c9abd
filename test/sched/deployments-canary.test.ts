/**
 * Canary deployments (issue 29 item 1; contract 29 "Server"), over HTTP with a simulated
 * client node: one canary placed beside the 3 old allocations (flagged `Canary`, named after
 * one it will replace), promotion refused while it is not healthy, promoted by hand (the flag
 * cleared), then the rest rolls; `auto_promote` promotes by itself; every deployment event
 * type appears on the event stream, each keyed by the deployment and filtered by the job.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';
import { deploymentOf, deploymentWhen, healAll, jobAllocs, live, placedBy, report, rolling } from './deployments-helpers.js';
import { Stream, type Ev } from './stream.js';
import { putJob, simNode, until } from './workloads.js';

describe('deployments: canaries', () => {
  let a: TestAgent;
  before(async () => {
    a = await startAgent();
    await simNode(a.url, 'n1', { cpu: 8000, memory: 8192 });
  });
  after(() => a.stop());

  /** Version 0 of `id` (3 allocations) deployed and healthy. */
  async function deployed(id: string, update: Record<string, unknown>): Promise<void> {
    await putJob(a, rolling(id, 3, update, '300'));
    const d0 = await deploymentOf(a.url, id, 0);
    assert.equal(d0.TaskGroups.g!.DesiredCanaries, 0, 'the first version has nothing to try canaries against');
    await until('3 placements', async () => (await placedBy(a.url, d0.ID)).length === 3);
    await healAll(a.url, d0.ID);
    await deploymentWhen(a.url, d0.ID, (d) => d.Status === 'successful');
  }

  it('places one canary beside the old allocations, promotes it, then rolls the rest; the stream shows each event type', async () => {
    const stream = await Stream.open(a.url, `index=${a.state.index + 1}&topic=Deployment:*`);
    await deployed('web', { MaxParallel: 1, Canary: 1 });
    const plan = await call(a.url, 'POST', '/v1/job/web/plan', { token: ROOT, body: { Job: rolling('web', 3, { MaxParallel: 1, Canary: 1 }, '301') } });
    assert.equal(plan.status, 200, plan.text);
    const planned = plan.json.Annotations.DesiredTGUpdates.g;
    assert.deepEqual(
      [planned.Canary, planned.DestructiveUpdate, planned.Ignore],
      [1, 0, 3],
      'the plan shows the canary and the old allocations it waits beside',
    );
    await putJob(a, rolling('web', 3, { MaxParallel: 1, Canary: 1 }, '301'));
    const d1 = await deploymentOf(a.url, 'web', 1);
    const [canary] = await until('the canary', async () => {
      const xs = live(await placedBy(a.url, d1.ID));
      return xs.length === 1 ? xs : undefined;
    });
    assert.deepEqual([canary!.DeploymentStatus?.Healthy, canary!.DeploymentStatus?.Canary], [null, true], 'placed as a canary, health not yet decided');
    const all = live(await jobAllocs(a.url, 'web'));
    assert.deepEqual(all.map((x) => x.JobVersion).sort(), [0, 0, 0, 1], 'the canary runs beside the 3 old allocations');
    assert.ok(
      all.some((x) => x.JobVersion === 0 && x.Name === canary!.Name),
      'the canary is named after an allocation it will replace',
    );
    const d = await deploymentWhen(a.url, d1.ID, (x) => x.TaskGroups.g!.PlacedCanaries?.length === 1);
    assert.equal(d.TaskGroups.g!.DesiredCanaries, 1);
    assert.equal(d.StatusDescription, 'Deployment is running but requires manual promotion');

    const early = await call(a.url, 'POST', `/v1/deployment/promote/${d1.ID}`, { token: ROOT, body: { DeploymentID: d1.ID, All: true } });
    assert.deepEqual([early.status, early.text], [400, 'Task group "g" has 0/1 healthy allocations']);
    await report(a.url, canary!.ID, true);
    await deploymentWhen(a.url, d1.ID, (x) => x.TaskGroups.g!.HealthyAllocs === 1);
    assert.equal(live(await jobAllocs(a.url, 'web')).length, 4, 'nothing old is replaced before promotion');

    const promoted = await call(a.url, 'POST', `/v1/deployment/promote/${d1.ID}`, { token: ROOT, body: { DeploymentID: d1.ID, All: true } });
    assert.equal(promoted.status, 200, promoted.text);
    assert.match(promoted.json.EvalID, /^[0-9a-f-]{36}$/);
    assert.ok(promoted.json.DeploymentModifyIndex > 0);
    const afterPromotion = await deploymentWhen(a.url, d1.ID, (x) => x.TaskGroups.g!.Promoted);
    assert.equal(afterPromotion.StatusDescription, 'Deployment is running');
    const flag = (await call(a.url, 'GET', `/v1/allocation/${canary!.ID}`, { token: ROOT })).json.DeploymentStatus;
    assert.deepEqual([flag.Healthy, flag.Canary], [true, false], 'the promoted canary is no longer flagged');

    for (let i = 0; i < 6; i++) {
      const cur = await deploymentWhen(a.url, d1.ID, () => true);
      if (cur.Status !== 'running') break;
      const healed = await until('the next allocation', async () => {
        const n = await healAll(a.url, d1.ID);
        const s = (await call(a.url, 'GET', `/v1/deployment/${d1.ID}`, { token: ROOT })).json.Status;
        return n > 0 || s !== 'running' ? n + 1 : undefined;
      });
      assert.ok(healed >= 1);
    }
    await deploymentWhen(a.url, d1.ID, (x) => x.Status === 'successful');
    const end = live(await jobAllocs(a.url, 'web'));
    assert.deepEqual(
      end.map((x) => x.JobVersion),
      [1, 1, 1],
    );

    const events: Ev[] = [];
    while (!events.some((e) => e.Type === 'DeploymentStatusUpdate' && e.Payload.Deployment.ID === d1.ID)) {
      const f = await stream.frame();
      assert.ok(f, 'stream ended');
      events.push(...(f.Events ?? []));
    }
    stream.close();
    const types = new Set(events.filter((e) => e.Key === d1.ID).map((e) => e.Type));
    for (const t of ['PlanResult', 'DeploymentAllocHealth', 'DeploymentPromotion', 'DeploymentStatusUpdate'])
      assert.ok(types.has(t), `${t} in ${[...types].join(', ')}`);
    for (const e of events) {
      assert.equal(e.Topic, 'Deployment');
      assert.deepEqual(e.FilterKeys, ['web']);
      assert.equal(e.Payload.Deployment.ID, e.Key);
    }
  });

  it('auto_promote promotes once every canary is healthy', async () => {
    await deployed('auto', { MaxParallel: 3, Canary: 1, AutoPromote: true });
    await putJob(a, rolling('auto', 3, { MaxParallel: 3, Canary: 1, AutoPromote: true }, '301'));
    const d1 = await deploymentOf(a.url, 'auto', 1);
    const waiting = await deploymentWhen(a.url, d1.ID, (x) => x.TaskGroups.g!.PlacedCanaries?.length === 1);
    assert.equal(waiting.StatusDescription, 'Deployment is running pending automatic promotion');
    await healAll(a.url, d1.ID);
    await deploymentWhen(a.url, d1.ID, (x) => x.TaskGroups.g!.Promoted);
    await until('the rest placed', async () => live(await placedBy(a.url, d1.ID)).length === 3);
    await healAll(a.url, d1.ID);
    await deploymentWhen(a.url, d1.ID, (x) => x.Status === 'successful');
  });
});
