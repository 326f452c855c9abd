/**
 * The deployment writes and reads of the API (issue 29 item 1; the reference's deployments
 * HTTP API), over HTTP with a simulated client node: pause stops the roll and resume
 * continues it, fail by hand (and the terminal refusals with the reference's texts),
 * allocation health set by hand, the list and reads with their 404s, and the ACL capability
 * each needs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertDenied, call, clientToken, ROOT, startAgent, type TestAgent } from './helpers.js';
import { deploymentOf, deploymentWhen, healAll, live, placedBy, rolling } from './deployments-helpers.js';
import { settled, putJob, simNode, until } from './workloads.js';

describe('deployments: operations', () => {
  let a: TestAgent;
  const req = (method: string, path: string, body?: unknown, token: string = ROOT) => call(a.url, method, path, { token, body });
  before(async () => {
    a = await startAgent();
    await simNode(a.url, 'n1', { cpu: 8000, memory: 8192 });
  });
  after(() => a.stop());

  /** Version 0 of `id` (`count` allocations) deployed and healthy, then version 1 registered; its deployment. */
  async function updating(id: string, count: number, update: Record<string, unknown>) {
    await putJob(a, rolling(id, count, update, '300'));
    const d0 = await deploymentOf(a.url, id, 0);
    await until('placements', async () => (await placedBy(a.url, d0.ID)).length === count);
    await healAll(a.url, d0.ID);
    await deploymentWhen(a.url, d0.ID, (d) => d.Status === 'successful');
    await putJob(a, rolling(id, count, update, '301'));
    return deploymentOf(a.url, id, 1);
  }

  it('pause stops the roll and resume continues it', async () => {
    const d1 = await updating('paced', 3, { MaxParallel: 1 });
    await until('the first replacement', async () => live(await placedBy(a.url, d1.ID)).length === 1);
    const paused = await req('POST', `/v1/deployment/pause/${d1.ID}`, { DeploymentID: d1.ID, Pause: true });
    assert.equal(paused.status, 200, paused.text);
    assert.equal(paused.json.EvalID, '', 'pausing makes no evaluation');
    const p = await deploymentWhen(a.url, d1.ID, (d) => d.Status === 'paused');
    assert.equal(p.StatusDescription, 'Deployment is paused');
    await healAll(a.url, d1.ID);
    await deploymentWhen(a.url, d1.ID, (d) => d.TaskGroups.g!.HealthyAllocs === 1);
    // An evaluation of the job while paused replaces nothing more.
    const ev = await req('POST', '/v1/job/paced/evaluate', {});
    assert.equal(ev.status, 200, ev.text);
    await settled(a, ev.json.EvalID);
    assert.equal((await placedBy(a.url, d1.ID)).length, 1, 'nothing rolls while paused');

    const resumed = await req('PUT', `/v1/deployment/pause/${d1.ID}`, { DeploymentID: d1.ID, Pause: false });
    assert.equal(resumed.status, 200, resumed.text);
    assert.match(resumed.json.EvalID, /^[0-9a-f-]{36}$/, 'resuming makes an evaluation');
    const r = await deploymentWhen(a.url, d1.ID, (d) => d.Status === 'running');
    assert.equal(r.StatusDescription, 'Deployment is running');
    await until('the second replacement', async () => (await placedBy(a.url, d1.ID)).length === 2);
  });

  it('fail by hand, and the refusals of a terminal deployment', async () => {
    const d1 = await updating('doomed', 2, { MaxParallel: 1 });
    const failed = await req('POST', `/v1/deployment/fail/${d1.ID}`, { DeploymentID: d1.ID });
    assert.equal(failed.status, 200, failed.text);
    assert.equal(failed.json.RevertedJobVersion, null);
    assert.match(failed.json.EvalID, /^[0-9a-f-]{36}$/);
    const d = await deploymentWhen(a.url, d1.ID, (x) => x.Status === 'failed');
    assert.equal(d.StatusDescription, 'Deployment marked as failed');
    const refused: [string, unknown, string][] = [
      ['fail', { DeploymentID: d1.ID }, "can't fail terminal deployment"],
      ['pause', { DeploymentID: d1.ID, Pause: true }, "can't pause terminal deployment"],
      ['pause', { DeploymentID: d1.ID, Pause: false }, "can't resume terminal deployment"],
      ['promote', { DeploymentID: d1.ID, All: true }, "can't promote terminal deployment"],
      ['allocation-health', { DeploymentID: d1.ID, HealthyAllocationIDs: ['x'] }, "can't set health of allocations for a terminal deployment"],
    ];
    for (const [op, body, text] of refused) {
      const r = await req('POST', `/v1/deployment/${op}/${d1.ID}`, body);
      assert.deepEqual([r.status, r.text], [400, text], op);
    }
    assert.equal((await deploymentWhen(a.url, d1.ID, () => true)).StatusDescription, 'Deployment marked as failed', 'a refusal changes nothing');
  });

  it('fail by hand auto-reverts when the group asks, and answers the reverted version', async () => {
    const d1 = await updating('undo', 2, { MaxParallel: 1, AutoRevert: true });
    const failed = await req('POST', `/v1/deployment/fail/${d1.ID}`, { DeploymentID: d1.ID });
    assert.equal(failed.status, 200, failed.text);
    assert.equal(failed.json.RevertedJobVersion, 0);
    const d = await deploymentWhen(a.url, d1.ID, (x) => x.Status === 'failed');
    assert.equal(d.StatusDescription, 'Deployment marked as failed - rolling back to job version 0');
    assert.equal((await req('GET', '/v1/job/undo')).json.Version, 2);
  });

  it('allocation-health sets health by hand; reads, lists and 404s', async () => {
    const d1 = await updating('manual', 2, { MaxParallel: 1, HealthCheck: 'manual' });
    const [x] = await until('a replacement', async () => {
      const xs = live(await placedBy(a.url, d1.ID));
      return xs.length === 1 ? xs : undefined;
    });
    const none = await req('POST', `/v1/deployment/allocation-health/${d1.ID}`, { DeploymentID: d1.ID });
    assert.deepEqual([none.status, none.text], [400, 'must specify at least one healthy/unhealthy allocation ID']);
    const stranger = await req('POST', `/v1/deployment/allocation-health/${d1.ID}`, { DeploymentID: d1.ID, HealthyAllocationIDs: ['nope'] });
    assert.deepEqual([stranger.status, stranger.text], [400, `Deployment "${d1.ID}" does not contain allocation "nope"`]);
    const other = await req('POST', `/v1/deployment/allocation-health/${d1.ID}`, { DeploymentID: 'other', HealthyAllocationIDs: [x!.ID] });
    assert.equal(other.status, 400);
    const ok = await req('POST', `/v1/deployment/allocation-health/${d1.ID}`, { DeploymentID: d1.ID, HealthyAllocationIDs: [x!.ID] });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.json.Index, Number(ok.headers.get('x-sched-index')));
    const full = (await req('GET', `/v1/allocation/${x!.ID}`)).json;
    assert.deepEqual([full.DeploymentStatus.Healthy, full.DeploymentStatus.Canary], [true, false]);
    await deploymentWhen(a.url, d1.ID, (d) => d.TaskGroups.g!.HealthyAllocs === 1);
    await until('the next replacement', async () => (await placedBy(a.url, d1.ID)).length === 2);

    const list = await req('GET', '/v1/deployments');
    assert.equal(list.status, 200);
    assert.ok((list.json as { ID: string }[]).some((d) => d.ID === d1.ID));
    const byPrefix = await req('GET', `/v1/deployments?prefix=${d1.ID.slice(0, 8)}`);
    assert.deepEqual(
      (byPrefix.json as { ID: string }[]).map((d) => d.ID),
      [d1.ID],
    );
    const one = await req('GET', `/v1/deployment/${d1.ID}`);
    assert.deepEqual([one.json.ID, one.json.JobID, one.json.Namespace, one.json.IsMultiregion], [d1.ID, 'manual', 'default', false]);
    assert.equal(one.headers.get('x-sched-index'), String(one.json.ModifyIndex));
    const missing = await req('GET', '/v1/deployment/00000000-0000-4000-8000-000000000000');
    assert.deepEqual([missing.status, missing.text], [404, 'deployment not found']);
    assert.equal((await req('POST', '/v1/deployment/fail/00000000-0000-4000-8000-000000000000', {})).status, 404);
    assert.equal((await req('GET', '/v1/job/manual/deployment')).json.ID, d1.ID);
    assert.equal((await req('GET', '/v1/job/nothing/deployment')).json, null);
  });

  it('reads need read-job, writes submit-job, in the deployment namespace', async () => {
    const d = (await req('GET', '/v1/deployments')).json[0] as { ID: string };
    const reader = (await clientToken(a.url, 'deploy-reader', 'namespace "default" { capabilities = ["read-job"] }')).secret;
    const nobody = (await clientToken(a.url, 'deploy-nobody', 'namespace "other" { capabilities = ["read-job"] }')).secret;
    assert.equal((await req('GET', `/v1/deployment/${d.ID}`, undefined, reader)).status, 200);
    assert.equal((await req('GET', `/v1/deployment/allocations/${d.ID}`, undefined, reader)).status, 200);
    assert.equal((await req('GET', '/v1/deployments', undefined, reader)).status, 200);
    assertDenied(await req('GET', `/v1/deployment/${d.ID}`, undefined, nobody));
    assertDenied(await req('GET', '/v1/deployments', undefined, nobody));
    assert.deepEqual((await req('GET', '/v1/deployments?namespace=*', undefined, nobody)).json, [], 'the list of every namespace shows only readable ones');
    assertDenied(await req('POST', `/v1/deployment/fail/${d.ID}`, { DeploymentID: d.ID }, reader));
    assertDenied(await req('POST', `/v1/deployment/pause/${d.ID}`, { DeploymentID: d.ID, Pause: true }, reader));
  });
});
