/**
 * A group's update strategy at register (issue 29 item 1; the reference's
 * `TaskGroup.Canonicalize` merge and `UpdateStrategy.Validate`): the job's `update` with the
 * group's own over it, in JSON and HCL; the refusals with the reference's texts (changing
 * nothing); a job stored before groups carried their strategy is not a new version when
 * registered again unchanged.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { jobKey, type Job } from '../../src/services/sched/jobs/types.js';
import { T } from '../../src/services/sched/state.js';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';
import { minimalJob } from './jobs-helpers.js';

const S = 1e9;

describe('deployments: the update strategy of a group', () => {
  let a: TestAgent;
  const req = (method: string, path: string, body?: unknown) => call(a.url, method, path, { token: ROOT, body });
  const groupOf = async (id: string) => (await req('GET', `/v1/job/${id}`)).json.TaskGroups[0];
  before(async () => {
    a = await startAgent({ schedulerWorkers: 0 });
  });
  after(() => a.stop());

  it("merges the job's update with the group's own (JSON)", async () => {
    const job = minimalJob('merged', { Update: { MaxParallel: 2, AutoRevert: true } });
    (job.TaskGroups as Record<string, unknown>[])[0]!.Count = 3;
    (job.TaskGroups as Record<string, unknown>[])[0]!.Update = { Canary: 1, AutoPromote: true, MinHealthyTime: 1 * S };
    const r = await req('POST', '/v1/jobs', { Job: job });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual((await groupOf('merged')).Update, {
      Stagger: 30 * S,
      MaxParallel: 2,
      HealthCheck: 'checks',
      MinHealthyTime: 1 * S,
      HealthyDeadline: 300 * S,
      ProgressDeadline: 600 * S,
      AutoRevert: true,
      AutoPromote: true,
      Canary: 1,
    });
    // A group without its own block inherits the job's.
    const plain = await req('POST', '/v1/jobs', { Job: minimalJob('plain') });
    assert.equal(plain.status, 200, plain.text);
    assert.equal((await groupOf('plain')).Update.MaxParallel, 1);
  });

  it('merges the update blocks of an HCL job file', async () => {
    const hcl = `job "hcl" {
  update {
    max_parallel = 3
    health_check = "task_states"
  }
  group "app" {
    count = 4
    update {
      canary           = 2
      healthy_deadline = "2m"
    }
    task "server" {
      driver = "raw_exec"
      config { command = "/bin/sleep" }
    }
  }
}
`;
    const parsed = await req('POST', '/v1/jobs/parse', { JobHCL: hcl });
    assert.equal(parsed.status, 200, parsed.text);
    assert.deepEqual(parsed.json.TaskGroups[0].Update, { Canary: 2, HealthyDeadline: 120 * S });
    const r = await req('POST', '/v1/jobs', { Job: parsed.json });
    assert.equal(r.status, 200, r.text);
    const u = (await groupOf('hcl')).Update;
    assert.deepEqual([u.MaxParallel, u.HealthCheck, u.Canary, u.HealthyDeadline, u.ProgressDeadline], [3, 'task_states', 2, 120 * S, 600 * S]);
  });

  it("refuses a bad strategy with the reference's texts, changing nothing", async () => {
    const cases: [Record<string, unknown>, string, number?][] = [
      [{ MaxParallel: -1 }, 'Max parallel can not be less than zero: -1 < 0'],
      [{ HealthCheck: 'ping' }, 'Invalid health check given: "ping"'],
      [{ Canary: -1 }, 'Canary count can not be less than zero: -1 < 0'],
      [{ AutoPromote: true }, 'Auto Promote requires a Canary count greater than zero'],
      [{ MinHealthyTime: 300 * S }, 'Minimum healthy time must be less than healthy deadline'],
      [{ HealthyDeadline: 600 * S }, 'Healthy deadline must be less than progress deadline'],
      [{ HealthyDeadline: 0 }, 'Healthy deadline must be greater than zero'],
      [{ Canary: 3 }, "Update.Canary (3) must not be greater than the task group's count (1)"],
    ];
    for (const [update, text] of cases) {
      const job = minimalJob('bad-update');
      (job.TaskGroups as Record<string, unknown>[])[0]!.Update = update;
      const r = await req('POST', '/v1/jobs', { Job: job });
      assert.equal(r.status, 400, JSON.stringify(update));
      assert.ok(r.text.includes(`Task group app validation failed: `) && r.text.includes(text), `${JSON.stringify(update)}: ${r.text}`);
    }
    const wrongKind = minimalJob('bad-update');
    (wrongKind.TaskGroups as Record<string, unknown>[])[0]!.Update = { MaxParallel: 'two' };
    const kind = await req('POST', '/v1/jobs', { Job: wrongKind });
    assert.deepEqual([kind.status, kind.text], [400, 'json: cannot unmarshal string into Go struct field Job.TaskGroups.Update.MaxParallel of type int64']);
    const batch = minimalJob('bad-update', { Type: 'batch' });
    (batch.TaskGroups as Record<string, unknown>[])[0]!.Update = { MaxParallel: 1 };
    const b = await req('POST', '/v1/jobs', { Job: batch });
    assert.ok(b.status === 400 && b.text.includes('Job type "batch" does not allow update block'), b.text);
    assert.equal((await req('GET', '/v1/job/bad-update')).status, 404, 'nothing stored');
  });

  it('a job stored before groups carried their strategy is the same version when registered again', async () => {
    const r = await req('POST', '/v1/jobs', { Job: minimalJob('old') });
    assert.equal(r.status, 200, r.text);
    // As an older Cairn stored it: no Update on its groups.
    await a.state.txn((tx) => {
      const j = tx.get<Job>(T.jobs, jobKey('default', 'old'))!;
      tx.put(T.jobs, jobKey('default', 'old'), { ...j, TaskGroups: j.TaskGroups.map(({ Update: _u, ...g }) => g) });
    });
    const again = await req('POST', '/v1/jobs', { Job: minimalJob('old') });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.json.JobModifyIndex, r.json.JobModifyIndex, 'no new version');
    assert.equal((await req('GET', '/v1/job/old')).json.Version, 0);
  });
});
