// An allocation runner with real task processes decides its deployment health and reports it
// once as `DeploymentStatus` (deployment-health.ts): healthy after min_healthy_time of
// running; unhealthy with an `Alloc Unhealthy` event when its task fails; nothing for an
// allocation outside a deployment or with a manual health check. The real-client tests
// (test/sched/client-deployment-health.test.ts) show the report landing on the servers.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { silentLogger } from '../../../kernel/log/logger.js';
import { decodeJob } from '../jobs/decode.js';
import type { Job, UpdateStrategy } from '../jobs/types.js';
import { AllocRunner, type AllocReport, type ClientAlloc } from './alloc-runner.js';

const S = 1e9;
const root = mkdtempSync(join(tmpdir(), 'cairn-alloc-health-'));

/** A service job of one `/bin/sh -c script` task, no restarts, with group strategy `update`. */
function job(script: string, update: Partial<UpdateStrategy>): Job {
  const j = decodeJob(
    {
      ID: 'web',
      TaskGroups: [
        {
          Name: 'g',
          RestartPolicy: { Attempts: 0, Interval: 60 * S, Delay: 0, Mode: 'fail' },
          Tasks: [{ Name: 't', Driver: 'raw_exec', Config: { command: '/bin/sh', args: ['-c', script] }, KillTimeout: 0.2 * S }],
        },
      ],
    },
    { namespace: 'default', region: 'global' },
  );
  const strategy: UpdateStrategy = {
    Stagger: 0,
    MaxParallel: 1,
    HealthCheck: 'task_states',
    MinHealthyTime: 0.3 * S,
    HealthyDeadline: 20 * S,
    ProgressDeadline: 0,
    AutoRevert: false,
    AutoPromote: false,
    Canary: 0,
    ...update,
  };
  return { ...j, TaskGroups: j.TaskGroups.map((g) => ({ ...g, Update: strategy })) };
}

/** Runs allocation `id` of `j` in deployment `deployment` until `until` holds for its reports (or 15 s), then stops it; its reports. */
async function run(id: string, j: Job, o: { deployment: string; until: (reports: AllocReport[]) => boolean; ms?: number }): Promise<AllocReport[]> {
  const reports: AllocReport[] = [];
  const alloc: ClientAlloc = {
    ID: id,
    Name: 'web.g[0]',
    Namespace: 'default',
    JobID: 'web',
    TaskGroup: 'g',
    Job: j,
    DesiredStatus: 'run',
    ClientStatus: 'pending',
    TaskStates: null,
    DeploymentID: o.deployment,
    DeploymentStatus: null,
  };
  const runner = new AllocRunner({
    alloc,
    allocRoot: root,
    datacenter: 'dc1',
    node: { attributes: {}, meta: {}, node: {} },
    drivers: { raw_exec: true },
    resumed: false,
    now: Date.now,
    report: (_id, r) => reports.push(r),
    onPid: () => undefined,
    log: silentLogger(),
  });
  const deadline = Date.now() + (o.ms ?? 15_000);
  while (!o.until(reports) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  await runner.stop();
  return reports;
}

const health = (reports: AllocReport[]) => reports.flatMap((r) => (r.DeploymentStatus ? [r.DeploymentStatus] : []));

describe('AllocRunner: deployment health', { timeout: 60_000 }, () => {
  after(() => rmSync(root, { recursive: true, force: true }));

  it('healthy after min_healthy_time of running, reported once with its time', async () => {
    const started = Date.now();
    const reports = await run('a-healthy', job('sleep 30', {}), { deployment: 'd1', until: (r) => health(r).length > 0 });
    const [h, ...more] = health(reports);
    assert.equal(h?.Healthy, true);
    assert.deepEqual(more, [], 'reported once');
    const at = Date.parse(h!.Timestamp);
    assert.ok(at >= started + 300, 'not before min_healthy_time');
    // The report carrying it already showed the task running.
    assert.equal(reports.find((r) => r.DeploymentStatus)?.TaskStates.t?.State, 'running');
    assert.ok(reports.slice(reports.findIndex((r) => r.DeploymentStatus) + 1).length > 0, 'later reports (the stop) came without it');
  });

  it('a failed task: unhealthy at once, with an Alloc Unhealthy event naming why', async () => {
    const reports = await run('a-failed', job('sleep 0.2; exit 3', {}), { deployment: 'd1', until: (r) => health(r).length > 0 });
    assert.deepEqual(
      health(reports).map((h) => h.Healthy),
      [false],
    );
    const last = reports.at(-1)!;
    const event = last.TaskStates.t?.Events.find((e) => e.Type === 'Alloc Unhealthy');
    assert.equal(event?.Message, 'Unhealthy because of failed task');
    assert.equal(last.ClientStatus, 'failed');
  });

  it('healthy_deadline before min_healthy_time: unhealthy', async () => {
    const reports = await run('a-late', job('sleep 30', { MinHealthyTime: 30 * S, HealthyDeadline: 1 * S }), {
      deployment: 'd1',
      until: (r) => health(r).length > 0,
    });
    assert.deepEqual(
      health(reports).map((h) => h.Healthy),
      [false],
    );
    const event = reports.at(-1)!.TaskStates.t?.Events.find((e) => e.Type === 'Alloc Unhealthy');
    assert.equal(event?.Message, 'Task not running for min_healthy_time of 30s by deadline');
  });

  it('nothing outside a deployment or with health_check = "manual"', async () => {
    for (const [id, j, deployment] of [
      ['a-none', job('sleep 30', {}), ''],
      ['a-manual', job('sleep 30', { HealthCheck: 'manual' }), 'd1'],
    ] as const) {
      // Long enough for min_healthy_time (0.3 s) to have passed twice.
      const reports = await run(id, j, { deployment, until: () => false, ms: 1_000 });
      assert.ok(
        reports.some((r) => r.TaskStates.t?.State === 'running'),
        id,
      );
      assert.deepEqual(health(reports), [], id);
    }
  });
});
