/**
 * `cairn sched deployment …` in-process against a real scheduler agent (through the SDK, as a
 * user runs them), with a simulated node whose reports (`client-status` with a
 * `DeploymentStatus`) make allocations running and healthy: a service job with an `update`
 * block asking one canary, run with `job run`; `deployment list` and `status` (a prefix, the
 * reference's columns: Promoted and Canaries only with canaries, the progress deadline),
 * `pause`, `pause -resume`, `promote -detach`, `fail`, `-json`; a prefix matching nothing, a
 * missing argument.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cliRunner, scratchDir, type ScratchDir } from './cli-helpers.js';
import { call, ROOT, startAgent, type TestAgent } from './sched/helpers.js';
import { simNode, until } from './sched/workloads.js';

/** A service job of one allocation updated behind one canary, promoted by hand; `release` (an environment variable: a change that replaces allocations) tells versions apart. */
const web = (release: string) => `job "web" {
  datacenters = ["dc1"]
  group "app" {
    update {
      max_parallel = 1
      canary       = 1
      auto_promote = false
    }
    task "server" {
      driver = "raw_exec"
      env {
        RELEASE = "${release}"
      }
      config {
        command = "/bin/sleep"
        args    = ["300"]
      }
    }
  }
}
`;

interface Deployment {
  ID: string;
  JobVersion: number;
  Status: string;
  StatusDescription: string;
  TaskGroups: Record<string, { Promoted: boolean; HealthyAllocs: number }>;
}

describe('cairn sched deployment against a real scheduler agent', () => {
  let a: TestAgent;
  let scratch: ScratchDir;
  const { cairn, ok } = cliRunner({ env: () => ({ SCHED_ADDR: a.url }), rootEnv: () => ({ SCHED_TOKEN: ROOT }) });

  /** The job's latest deployment, once `ready` holds for it. */
  const latest = (what: string, ready: (d: Deployment) => boolean) =>
    until(what, async () => {
      const d = (await call(a.url, 'GET', '/v1/job/web/deployment', { token: ROOT })).json as Deployment | null;
      return d && ready(d) ? d : undefined;
    });
  /** Reports every allocation of deployment `id` not yet healthy as running and healthy, as the node's client would. */
  const healthy = async (id: string) => {
    const allocs = (await call(a.url, 'GET', `/v1/deployment/allocations/${id}`, { token: ROOT })).json as {
      ID: string;
      DesiredStatus: string;
      DeploymentStatus?: { Healthy: boolean | null } | null;
    }[];
    for (const al of allocs.filter((x) => x.DesiredStatus === 'run' && x.DeploymentStatus?.Healthy !== true)) {
      const r = await call(a.url, 'POST', `/v1/allocation/${al.ID}/client-status`, {
        token: ROOT,
        body: { ClientStatus: 'running', DeploymentStatus: { Healthy: true } },
      });
      assert.equal(r.status, 200, r.text);
    }
  };

  before(async () => {
    a = await startAgent();
    scratch = scratchDir('cairn-cli-sched-deployment-');
    await simNode(a.url, 'w1');
  });
  after(async () => {
    await a.stop();
    scratch.remove();
  });

  it("lists the first version's deployment and shows it once its allocation is healthy", async () => {
    assert.equal(await ok('sched', 'deployment', 'list'), 'No deployments found\n');
    await ok('sched', 'job', 'run', '-detach', scratch.file('web.hcl', web('1')));
    const first = await latest('the first deployment to place its allocation', (d) => d.TaskGroups.app !== undefined);
    await healthy(first.ID);
    await latest('the first deployment to succeed', (d) => d.Status === 'successful');
    const short = first.ID.slice(0, 8);
    assert.equal(
      await ok('sched', 'deployment', 'list'),
      `ID        Job ID  Job Version  Status      Description\n${short}  web     0            successful  Deployment completed successfully\n`,
    );
    // The first version places no canary: no Promoted and Canaries columns.
    assert.match(
      await ok('sched', 'deployment', 'status', short),
      new RegExp(
        `^ID          = ${short}\\nJob ID      = web\\nJob Version = 0\\nStatus      = successful\\nDescription = Deployment completed successfully\\n\\nDeployed\\nTask Group  Desired  Placed  Healthy  Unhealthy  Progress Deadline\\napp         1        1       1        0          \\S+\\n$`,
      ),
    );
    const json = JSON.parse(await ok('sched', 'deployment', 'status', '-json', first.ID)) as Deployment;
    assert.deepEqual([json.ID, json.Status], [first.ID, 'successful']);
  });

  it('pauses and resumes a canary deployment, promotes it, and fails the next one', async () => {
    await ok('sched', 'job', 'run', '-detach', scratch.file('web.hcl', web('2')));
    const second = await latest('the canary to be placed', (d) => d.JobVersion === 1 && d.TaskGroups.app?.HealthyAllocs === 0);
    await healthy(second.ID);
    await latest('the deployment to wait for its promotion', (d) => d.StatusDescription === 'Deployment is running but requires manual promotion');
    const short = second.ID.slice(0, 8);
    assert.match(
      await ok('sched', 'deployment', 'status', short.slice(0, 5)),
      new RegExp(
        `^ID          = ${short}\\nJob ID      = web\\nJob Version = 1\\nStatus      = running\\nDescription = Deployment is running but requires manual promotion\\n\\nDeployed\\nTask Group  Promoted  Desired  Canaries  Placed  Healthy  Unhealthy  Progress Deadline\\napp         false     1        1         1       1        0          \\S+\\n$`,
      ),
    );

    assert.equal(await ok('sched', 'deployment', 'pause', short), `Deployment "${second.ID}" paused\n`);
    await latest('the deployment to be paused', (d) => d.Status === 'paused');
    assert.equal(await ok('sched', 'deployment', 'pause', '-resume', '-detach', short), `Deployment "${second.ID}" resumed\n`);
    await latest('the deployment to run again', (d) => d.Status === 'running');
    // -json prints the API's DeploymentUpdateResponse as it is.
    const paused = JSON.parse(await ok('sched', 'deployment', 'pause', '-json', short)) as Record<string, unknown>;
    assert.deepEqual([typeof paused.DeploymentModifyIndex, typeof paused.EvalID, typeof paused.Index], ['number', 'string', 'number']);
    await ok('sched', 'deployment', 'pause', '-resume', '-detach', short);
    await latest('the deployment to run once more', (d) => d.Status === 'running');

    assert.match(await ok('sched', 'deployment', 'promote', '-detach', '-group=app', short), /^Evaluation ID: [0-9a-f-]{36}\n$/);
    const promoted = await latest('the canary to be promoted', (d) => d.TaskGroups.app?.Promoted === true);
    assert.equal(promoted.ID, second.ID);

    await ok('sched', 'job', 'run', '-detach', scratch.file('web.hcl', web('3')));
    const third = await latest('the third deployment', (d) => d.JobVersion === 2);
    assert.equal(await ok('sched', 'deployment', 'fail', '-detach', third.ID), `Deployment "${third.ID}" failed\n`);
    const failed = await latest('the deployment to be failed', (d) => d.Status === 'failed');
    assert.equal(failed.StatusDescription, 'Deployment marked as failed');
    // A terminal deployment refuses another fail with the service's text.
    const again = await cairn({ SCHED_TOKEN: ROOT }, ['sched', 'deployment', 'fail', third.ID]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^Error: .*terminal deployment.* \(HTTP 400\)\n$/);
  });

  it('says a prefix matched nothing, and a missing argument is a usage error', async () => {
    const none = await cairn({ SCHED_TOKEN: ROOT }, ['sched', 'deployment', 'status', 'ffffffff']);
    assert.deepEqual([none.code, none.stderr], [1, 'Error: Deployment ID "ffffffff" matched no deployments\n']);
    const usage = await cairn({ SCHED_TOKEN: ROOT }, ['sched', 'deployment', 'promote']);
    assert.equal(usage.code, 2);
    const list = JSON.parse(await ok('sched', 'deployment', 'list', '-json')) as Deployment[];
    assert.deepEqual(
      list.map((d) => d.JobVersion),
      [2, 1, 0],
    );
  });
});
