/**
 * A deployment carries on across a restart of the scheduler (issue 29 item 1; contract 29:
 * the watcher "survives failover from stored state"): a rollout started by one agent is
 * finished by the next one on the same data, which picks the deployment up from the state,
 * counts the health reported to it and places the next batch.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';
import { deploymentOf, deploymentWhen, healAll, live, placedBy, rolling } from './deployments-helpers.js';
import { putJob, simNode, until } from './workloads.js';

describe('deployments: a restart of the scheduler', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-deploy-restart-'));
  const agents: TestAgent[] = [];
  after(async () => {
    for (const x of agents) await x.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the next agent finishes the rollout the first one started', async () => {
    const first = await startAgent({ dataDir: dir });
    agents.push(first);
    await simNode(first.url, 'n1', { cpu: 8000, memory: 8192 });
    await putJob(first, rolling('web', 2, { MaxParallel: 1 }, '300'));
    const d0 = await deploymentOf(first.url, 'web', 0);
    await until('2 placements', async () => (await placedBy(first.url, d0.ID)).length === 2);
    await healAll(first.url, d0.ID);
    await deploymentWhen(first.url, d0.ID, (d) => d.Status === 'successful');
    await putJob(first, rolling('web', 2, { MaxParallel: 1 }, '301'));
    const d1 = await deploymentOf(first.url, 'web', 1);
    await until('the first replacement', async () => live(await placedBy(first.url, d1.ID)).length === 1);
    await first.stop();
    agents.splice(agents.indexOf(first), 1);

    const second = await startAgent({ dataDir: dir });
    agents.push(second);
    assert.equal((await call(second.url, 'GET', `/v1/deployment/${d1.ID}`, { token: ROOT })).json.Status, 'running');
    assert.equal(await healAll(second.url, d1.ID), 1);
    await until('the second replacement, placed by the new leader', async () => (await placedBy(second.url, d1.ID)).length === 2);
    await healAll(second.url, d1.ID);
    const done = await deploymentWhen(second.url, d1.ID, (d) => d.Status === 'successful');
    assert.equal(done.TaskGroups.g!.HealthyAllocs, 2);
    assert.equal((await call(second.url, 'GET', '/v1/job/web', { token: ROOT })).json.Stable, true);
  });
});
