/**
 * The SDK's job and evaluation methods against a real agent: parse, register with
 * `enforceIndex`, read, list pages, versions, scale, evaluate, the job's evaluations and
 * allocations, summary, the evaluation list's pages, reads, stop and purge, and the
 * server's errors as `SchedApiError`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SchedApiError, SchedClient } from '../../src/sdk/index.js';
import { ROOT, startAgent, type TestAgent } from './helpers.js';
import { settled } from './workloads.js';

const HCL = 'job "web" {\n  group "app" {\n    count = 2\n    task "t" {\n      driver = "raw_exec"\n      config { command = "/bin/sleep" }\n    }\n  }\n}\n';

describe('SDK: scheduler jobs and evaluations', () => {
  let a: TestAgent;
  let sched: SchedClient;

  before(async () => {
    a = await startAgent();
    sched = new SchedClient({ address: a.url, token: ROOT });
  });
  after(async () => {
    await sched.close();
    await a.stop();
  });

  it('parses, registers, reads, scales, evaluates, stops and purges a job', async () => {
    const canonical = await sched.jobs.parseJob(HCL, { canonicalize: true });
    assert.equal(canonical.TaskGroups[0].Tasks[0].KillTimeout, 5e9);
    const job = await sched.jobs.parseJob(HCL);
    const reg = await sched.jobs.registerJob(job, { enforceIndex: true, jobModifyIndex: 0 });
    assert.match(reg.EvalID, /^[0-9a-f-]{36}$/);
    await assert.rejects(sched.jobs.registerJob(job, { enforceIndex: true, jobModifyIndex: 0 }), (err: unknown) => {
      assert.ok(err instanceof SchedApiError);
      assert.deepEqual([err.status, err.message], [400, `Enforcing job modify index 0: job exists with conflicting job modify index: ${reg.JobModifyIndex}`]);
      return true;
    });
    const read = await sched.jobs.readJob('web');
    assert.deepEqual([read.data.Status, read.data.TaskGroups[0].Count, read.index > 0], ['pending', 2, true]);
    const scaled = await sched.jobs.scaleJob('web', 'app', 4);
    assert.equal((await sched.jobs.readEvaluation(scaled.EvalID)).data.TriggeredBy, 'job-scaling');
    assert.deepEqual(
      (await sched.jobs.jobVersions('web')).data.map((v) => v.Version),
      [1, 0],
    );
    const evaluated = await sched.jobs.evaluateJob('web');
    // The scheduler runs them too (no node: each leaves a blocked evaluation, the older ones canceled).
    const mine = [reg.EvalID, scaled.EvalID, evaluated.EvalID];
    const evals = (await sched.jobs.jobEvaluations('web')).data;
    assert.deepEqual(
      evals.filter((e) => mine.includes(e.ID)).map((e) => e.ID),
      mine,
    );
    assert.ok(evals.every((e) => e.JobID === 'web' && (mine.includes(e.ID) || e.TriggeredBy === 'queued-allocs')));
    assert.deepEqual((await sched.jobs.jobAllocations('web', { all: true })).data, []);
    assert.deepEqual((await sched.jobs.evaluationAllocations(reg.EvalID)).data, []);
    assert.deepEqual(Object.keys((await sched.jobs.jobSummary('web')).data.Summary), ['app']);
    const stop = await sched.jobs.deregisterJob('web');
    assert.equal((await sched.jobs.readJob('web')).data.Stop, true);
    assert.notEqual(stop.EvalID, '');
    await sched.jobs.deregisterJob('web', { purge: true });
    await assert.rejects(sched.jobs.readJob('web'), (err: unknown) => err instanceof SchedApiError && err.status === 404 && err.message === 'job not found');
  });

  it('lists jobs and evaluations page by page', async () => {
    const ids: string[] = [];
    for (const id of ['p1', 'p2', 'p3'])
      ids.push(
        (await sched.jobs.registerJob({ ID: id, TaskGroups: [{ Name: 'g', Tasks: [{ Name: 't', Driver: 'raw_exec', Config: { command: '/bin/true' } }] }] }))
          .EvalID,
      );
    // The scheduler completes each (no node) and leaves a blocked one in the same write.
    for (const id of ids) await settled(a, id);
    const seen: string[] = [];
    for (let token: string | undefined = ''; token !== undefined;) {
      const page = await sched.jobs.listJobs({ prefix: 'p', perPage: 2, nextToken: token });
      seen.push(...page.data.map((j) => j.ID));
      token = page.nextToken;
    }
    assert.deepEqual(seen, ['p1', 'p2', 'p3']);
    const evals: string[] = [];
    for (let token: string | undefined = ''; token !== undefined;) {
      const page = await sched.jobs.listEvaluations({ perPage: 2, nextToken: token, status: 'complete' });
      evals.push(...page.data.map((e) => e.JobID));
      token = page.nextToken;
    }
    assert.deepEqual(evals.slice(-3), ['p1', 'p2', 'p3']);
    assert.deepEqual(
      (await sched.jobs.listEvaluations({ job: 'p2' })).data.map((e) => [e.JobID, e.Status]),
      [
        ['p2', 'complete'],
        ['p2', 'blocked'],
      ],
    );
  });
});
