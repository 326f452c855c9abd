/**
 * Job and evaluation events on the stream (reference/sched.md §3.4, spec 002 "Events"), and
 * the evaluation list: `Job` events `JobRegistered` / `JobDeregistered` with `{Job}`,
 * `Evaluation` events with `{Evaluation}` typed by the write that made them (the scheduler
 * runs: each write's frame is read by its index), key filters by
 * job ID, the `read-job` topic ACL; `GET /v1/evaluations` with status, job, filter and paging.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, clientToken, ROOT, startAgent, type TestAgent } from './helpers.js';
import { minimalJob } from './jobs-helpers.js';
import { Stream } from './stream.js';
import { settled, until } from './workloads.js';
import type { Evaluation } from '../../src/services/sched/jobs/types.js';
import { T } from '../../src/services/sched/state.js';

describe('scheduler job and evaluation events, evaluation lists', () => {
  let a: TestAgent;
  const req = (method: string, path: string, body?: unknown, token: string = ROOT) => call(a.url, method, path, { token, body });
  const fromNow = () => `index=${a.state.index + 1}`;

  before(async () => {
    a = await startAgent();
    assert.equal((await req('PUT', '/v1/namespace/prod', { Name: 'prod' })).status, 200);
  });
  after(async () => {
    await a.stop();
  });

  it('register, evaluate, stop and purge emit Job and Evaluation events', async () => {
    const s = await Stream.open(a.url, `${fromNow()}&topic=Job&topic=Evaluation`);
    assert.equal(s.res.status, 200);
    const reg = (await req('POST', '/v1/jobs', { Job: minimalJob('web') })).json;
    // Each write's own frame (the scheduler's writes on the evaluations come in between).
    const [job, ev] = await s.eventsAt(reg.Index);
    assert.deepEqual([job.Topic, job.Type, job.Key, job.Namespace, job.FilterKeys, job.Index], ['Job', 'JobRegistered', 'web', 'default', null, reg.Index]);
    assert.deepEqual([job.Payload.Job.ID, job.Payload.Job.Status, job.Payload.Job.TaskGroups[0].Count], ['web', 'pending', 1]);
    assert.deepEqual([ev.Topic, ev.Type, ev.Key, ev.FilterKeys], ['Evaluation', 'JobRegistered', reg.EvalID, ['web', '']]);
    assert.deepEqual([ev.Payload.Evaluation.Status, ev.Payload.Evaluation.TriggeredBy, ev.Payload.Evaluation.DeploymentID], ['pending', 'job-register', '']);

    const evaluated = (await req('POST', '/v1/job/web/evaluate')).json;
    const [only, ...more] = await s.eventsAt(evaluated.EvalCreateIndex);
    assert.equal(more.length, 0);
    assert.deepEqual([only.Topic, only.Type, only.Key], ['Evaluation', 'EvaluationUpdated', evaluated.EvalID]);

    const stopped = (await req('DELETE', '/v1/job/web')).json;
    const stop = await s.eventsAt(stopped.EvalCreateIndex);
    assert.deepEqual(
      stop.map((e) => `${e.Topic}/${e.Type}`),
      ['Job/JobDeregistered', 'Evaluation/JobDeregistered'],
    );
    assert.equal(stop[0].Payload.Job.Stop, true);

    const purged = (await req('DELETE', '/v1/job/web?purge=true')).json;
    const purge = await s.eventsAt(purged.EvalCreateIndex);
    const deleted = purge.find((e) => e.Topic === 'Job')!;
    assert.deepEqual([deleted.Type, deleted.Payload.Deleted, deleted.Payload.Job.ID], ['JobDeregistered', true, 'web']);
    s.close();
  });

  it('key filters: an evaluation matches its job ID; namespaces and the read-job ACL apply', async () => {
    const reader = await clientToken(a.url, 'ev-reader', 'namespace "prod" { capabilities = ["read-job"] }');
    const denied = await Stream.open(a.url, `${fromNow()}&topic=Job`, reader.secret);
    assert.equal(denied.res.status, 403, 'read-job in default is needed');
    denied.close();
    const s = await Stream.open(a.url, `${fromNow()}&namespace=prod&topic=Evaluation:api`, reader.secret);
    assert.equal(s.res.status, 200);
    await req('POST', '/v1/jobs', { Job: minimalJob('api') });
    await req('POST', '/v1/jobs?namespace=prod', { Job: minimalJob('other') });
    const reg = (await req('POST', '/v1/jobs?namespace=prod', { Job: minimalJob('api') })).json;
    const [e] = await s.events(1);
    assert.deepEqual([e.Key, e.Namespace, e.Payload.Evaluation.JobID], [reg.EvalID, 'prod', 'api']);
    s.close();
  });

  it('lists evaluations by status, job, filter and page; reads one and its allocations', async () => {
    const ids: string[] = [];
    for (const id of ['e1', 'e2', 'e3']) ids.push((await req('POST', '/v1/jobs', { Job: minimalJob(id) })).json.EvalID);
    // The scheduler runs them: no node, so each completes with a failed placement and leaves a blocked one.
    for (const id of ids) await settled(a, id);
    await until('no pending evaluation (those of the test before too)', () => a.state.list<Evaluation>(T.evals).every((e) => e.Status !== 'pending'));
    const all = (await req('GET', '/v1/evaluations')).json as { ID: string; CreateIndex: number; JobID: string }[];
    assert.ok(
      all.every((e, i) => i === 0 || all[i - 1].CreateIndex <= e.CreateIndex),
      'oldest first',
    );
    const byJob = (await req('GET', '/v1/evaluations?job=e2')).json as { ID: string; Status: string; TriggeredBy: string; PreviousEval: string }[];
    assert.deepEqual(
      byJob.map((e) => [e.ID === ids[1] ? 'register' : e.PreviousEval === ids[1] ? 'its blocked one' : e.ID, e.Status, e.TriggeredBy]),
      [
        ['register', 'complete', 'job-register'],
        ['its blocked one', 'blocked', 'queued-allocs'],
      ],
    );
    const complete = (await req('GET', '/v1/evaluations?status=complete')).json as { ID: string; Status: string }[];
    assert.ok(ids.every((id) => complete.some((e) => e.ID === id)) && complete.every((e) => e.Status === 'complete'));
    assert.deepEqual((await req('GET', '/v1/evaluations?status=pending')).json, []);
    const f = await req('GET', `/v1/evaluations?filter=${encodeURIComponent('JobID == "e3" and Status == "complete"')}`);
    assert.deepEqual(
      f.json.map((e: { ID: string }) => e.ID),
      [ids[2]],
    );
    const both = await req('GET', `/v1/evaluations?job=e3&filter=${encodeURIComponent('JobID == "e3"')}`);
    assert.deepEqual([both.status, both.text], [400, 'Filter expression cannot be used with other filter parameters']);
    const p1 = await req('GET', '/v1/evaluations?per_page=2');
    assert.equal(p1.json.length, 2);
    const token = p1.headers.get('x-sched-nexttoken')!;
    assert.equal(token, `${all[2].CreateIndex}.${all[2].ID}`);
    const p2 = await req('GET', `/v1/evaluations?per_page=100&next_token=${token}`);
    assert.deepEqual(
      p2.json.map((e: { ID: string }) => e.ID),
      all.slice(2).map((e) => e.ID),
    );
    const prod = (await req('GET', '/v1/evaluations?namespace=prod')).json;
    assert.ok(prod.length > 0 && prod.every((e: { Namespace: string }) => e.Namespace === 'prod'));
    const star = (await req('GET', '/v1/evaluations?namespace=*')).json;
    assert.equal(star.length, all.length + prod.length);
    const pre = await req('GET', `/v1/evaluations?prefix=${ids[0].slice(0, 4)}`);
    assert.ok(pre.json.some((e: { ID: string }) => e.ID === ids[0]));
    assert.equal((await req('GET', '/v1/evaluations?prefix=abc')).status, 400);
    const one = await req('GET', `/v1/evaluation/${ids[0]}`);
    assert.deepEqual([one.status, one.json.ID, one.headers.get('x-sched-index')], [200, ids[0], String(one.json.ModifyIndex)]);
    assert.deepEqual([(await req('GET', '/v1/evaluation/nope')).status, (await req('GET', '/v1/evaluation/nope')).text], [404, 'eval not found']);
    assert.deepEqual((await req('GET', `/v1/evaluation/${ids[0]}/allocations`)).json, []);
  });
});
