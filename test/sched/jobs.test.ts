/**
 * The jobs API over HTTP (reference/sched-workloads.md "Jobs"): register with the
 * reference's defaults, versions, `EnforceIndex`, `PreserveCounts`, stop and purge with
 * their evaluations, status and summary from allocations, scale and evaluate, list stubs
 * with prefix, filter, namespaces and paging, ACL capabilities, bad input.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { assertDenied, call, clientToken, ROOT, startAgent, type TestAgent } from './helpers.js';
import { jobKey, type Job } from '../../src/services/sched/jobs/types.js';
import type { StoredAlloc } from '../../src/services/sched/alloc.js';
import { T } from '../../src/services/sched/state.js';
import { minimalJob } from './jobs-helpers.js';
import { group, job, putJob, settled, simNode, until } from './workloads.js';

const S = 1e9;

// The scheduler is off (`schedulerWorkers: 0`): these tests read what the jobs API itself
// writes (pending evaluations); the scheduler's handling of the same writes is in
// scheduler.test.ts and jobs-events.test.ts, and status and summary from placed allocations
// in the second suite below.
describe('scheduler jobs API', () => {
  let a: TestAgent;
  const req = (method: string, path: string, body?: unknown, token: string | null = ROOT) => call(a.url, method, path, { token: token ?? undefined, body });

  before(async () => {
    a = await startAgent({ schedulerWorkers: 0 });
    assert.equal((await req('PUT', '/v1/namespace/prod', { Name: 'prod' })).status, 200);
  });
  after(async () => {
    await a.stop();
  });

  it('registers a job with the reference defaults, a version and a pending evaluation', async () => {
    const r = await req('POST', '/v1/jobs', { Job: minimalJob('web') });
    assert.equal(r.status, 200, r.text);
    assert.match(r.json.EvalID, /^[0-9a-f-]{36}$/);
    assert.equal(r.json.EvalCreateIndex, r.json.JobModifyIndex);
    assert.equal(r.json.Index, r.json.JobModifyIndex);
    assert.deepEqual([r.json.Warnings, r.json.KnownLeader, r.json.LastContact], ['', true, 0]);
    assert.equal(r.headers.get('x-sched-index'), String(r.json.Index));

    const job = (await req('GET', '/v1/job/web')).json;
    assert.deepEqual(
      [job.ID, job.Name, job.Namespace, job.Region, job.Type, job.Priority, job.Datacenters, job.NodePool, job.Stop, job.Version, job.Status],
      ['web', 'web', 'default', 'global', 'service', 50, ['*'], 'default', false, 0, 'pending'],
    );
    assert.equal(job.JobModifyIndex, r.json.JobModifyIndex);
    assert.ok(job.SubmitTime > 1e18, 'Unix ns');
    assert.deepEqual(job.Update, {
      Stagger: 30 * S,
      MaxParallel: 1,
      HealthCheck: 'checks',
      MinHealthyTime: 10 * S,
      HealthyDeadline: 300 * S,
      ProgressDeadline: 600 * S,
      AutoRevert: false,
      AutoPromote: false,
      Canary: 0,
    });
    const g = job.TaskGroups[0];
    assert.equal(g.Count, 1);
    assert.deepEqual(g.RestartPolicy, { Attempts: 2, Interval: 1800 * S, Delay: 15 * S, Mode: 'fail', RenderTemplates: false });
    assert.deepEqual(g.ReschedulePolicy, { Attempts: 0, Interval: 0, Delay: 30 * S, DelayFunction: 'exponential', MaxDelay: 3600 * S, Unlimited: true });
    assert.deepEqual(g.EphemeralDisk, { Sticky: false, SizeMB: 300, Migrate: false });
    const t = g.Tasks[0];
    assert.deepEqual(t.Resources, { CPU: 100, Cores: 0, MemoryMB: 300, MemoryMaxMB: 0, DiskMB: null });
    assert.deepEqual([t.KillTimeout, t.KillSignal, t.LogConfig], [5 * S, 'SIGINT', { MaxFiles: 10, MaxFileSizeMB: 10, Disabled: false }]);
    assert.deepEqual(t.Config, { command: '/bin/sleep', args: ['300'] });

    const ev = (await req('GET', `/v1/evaluation/${r.json.EvalID}`)).json;
    assert.deepEqual(
      [ev.Status, ev.TriggeredBy, ev.JobID, ev.Namespace, ev.Type, ev.Priority, ev.JobModifyIndex, ev.CreateIndex],
      ['pending', 'job-register', 'web', 'default', 'service', 50, r.json.JobModifyIndex, r.json.EvalCreateIndex],
    );
    const versions = (await req('GET', '/v1/job/web/versions')).json;
    assert.deepEqual(
      versions.Versions.map((v: { Version: number }) => v.Version),
      [0],
    );
    assert.equal(versions.Diffs, null);
  });

  it('batch jobs get the batch restart and reschedule policies and no update strategy', async () => {
    assert.equal((await req('PUT', '/v1/jobs', { Job: minimalJob('nightly', { Type: 'batch' }) })).status, 200);
    const job = (await req('GET', '/v1/job/nightly')).json;
    assert.equal(job.Update, null);
    assert.deepEqual(job.TaskGroups[0].RestartPolicy, { Attempts: 3, Interval: 86400 * S, Delay: 15 * S, Mode: 'fail', RenderTemplates: false });
    assert.deepEqual(job.TaskGroups[0].ReschedulePolicy, {
      Attempts: 1,
      Interval: 86400 * S,
      Delay: 5 * S,
      DelayFunction: 'constant',
      MaxDelay: 0,
      Unlimited: false,
    });
  });

  it('versions: a changed job is a new version; an identical one is not, but is evaluated again', async () => {
    const first = (await req('GET', '/v1/job/web')).json;
    const same = await req('POST', '/v1/jobs', { Job: minimalJob('web') });
    assert.equal(same.json.JobModifyIndex, first.JobModifyIndex);
    assert.notEqual(same.json.EvalID, '');
    const changed = await req('POST', '/v1/job/web', { Job: minimalJob('web', { Priority: 70 }) });
    assert.equal(changed.status, 200, changed.text);
    assert.ok(changed.json.JobModifyIndex > first.JobModifyIndex);
    const job = (await req('GET', '/v1/job/web')).json;
    assert.deepEqual([job.Version, job.Priority, job.CreateIndex], [1, 70, first.CreateIndex]);
    const versions = (await req('GET', '/v1/job/web/versions')).json.Versions;
    assert.deepEqual(
      versions.map((v: { Version: number; Priority: number }) => [v.Version, v.Priority]),
      [
        [1, 70],
        [0, 50],
      ],
    );
    for (let i = 0; i < 7; i++) await req('POST', '/v1/jobs', { Job: minimalJob('web', { Priority: 10 + i }) });
    const kept = (await req('GET', '/v1/job/web/versions')).json.Versions.map((v: { Version: number }) => v.Version);
    assert.deepEqual(kept, [8, 7, 6, 5, 4, 3], 'the last 6 versions are kept');
    const evals = (await req('GET', '/v1/job/web/evaluations')).json;
    assert.equal(evals.length, 10);
    assert.ok(evals.every((e: { Status: string; TriggeredBy: string }) => e.Status === 'pending' && e.TriggeredBy === 'job-register'));
  });

  it('EnforceIndex registers only at the given JobModifyIndex, with the reference texts', async () => {
    const job = (await req('GET', '/v1/job/web')).json;
    const stale = await req('POST', '/v1/jobs', { Job: minimalJob('web'), EnforceIndex: true, JobModifyIndex: job.JobModifyIndex - 1 });
    assert.deepEqual(
      [stale.status, stale.text],
      [400, `Enforcing job modify index ${job.JobModifyIndex - 1}: job exists with conflicting job modify index: ${job.JobModifyIndex}`],
    );
    const missing = await req('POST', '/v1/jobs', { Job: minimalJob('nope'), EnforceIndex: true, JobModifyIndex: 5 });
    assert.deepEqual([missing.status, missing.text], [400, 'Enforcing job modify index 5: job does not exist']);
    assert.equal((await req('GET', '/v1/job/nope')).status, 404);
    const ok = await req('POST', '/v1/jobs', { Job: minimalJob('web', { Priority: 99 }), EnforceIndex: true, JobModifyIndex: job.JobModifyIndex });
    assert.equal(ok.status, 200, ok.text);
    const create = await req('POST', '/v1/jobs', { Job: minimalJob('fresh'), EnforceIndex: true, JobModifyIndex: 0 });
    assert.equal(create.status, 200, create.text);
  });

  it('PreserveCounts keeps the stored count of existing groups; scale sets it with a job-scaling evaluation', async () => {
    const job = minimalJob('api', { TaskGroups: [{ Name: 'app', Count: 3, Tasks: [{ Name: 't', Driver: 'raw_exec', Config: { command: '/bin/true' } }] }] });
    assert.equal((await req('POST', '/v1/jobs', { Job: job })).status, 200);
    const again = { ...job, Meta: { x: 'y' }, TaskGroups: [{ ...(job.TaskGroups as object[])[0], Count: 1 }] };
    assert.equal((await req('POST', '/v1/jobs', { Job: again, PreserveCounts: true })).status, 200);
    assert.equal((await req('GET', '/v1/job/api')).json.TaskGroups[0].Count, 3);
    const s = await req('POST', '/v1/job/api/scale', { Count: 5, Target: { Group: 'app' } });
    assert.equal(s.status, 200, s.text);
    const read = (await req('GET', '/v1/job/api')).json;
    assert.deepEqual([read.TaskGroups[0].Count, read.Version], [5, 2]);
    assert.equal((await req('GET', `/v1/evaluation/${s.json.EvalID}`)).json.TriggeredBy, 'job-scaling');
    const bad: [unknown, string][] = [
      [{ Count: 1 }, 'missing task group name for scaling action'],
      [{ Count: 1, Target: { Group: 'nope' } }, 'task group "nope" specified for scaling does not exist in job'],
      [{ Count: -1, Target: { Group: 'app' } }, "scaling action count can't be negative"],
    ];
    for (const [body, text] of bad) assert.deepEqual([(await req('POST', '/v1/job/api/scale', body)).text], [text]);
    assert.equal((await req('POST', '/v1/job/missing/scale', { Count: 1, Target: { Group: 'app' } })).status, 404);
  });

  it('evaluate makes a new pending evaluation', async () => {
    const r = await req('POST', '/v1/job/api/evaluate', { JobID: 'api' });
    assert.equal(r.status, 200, r.text);
    const e = (await req('GET', `/v1/evaluation/${r.json.EvalID}`)).json;
    assert.deepEqual([e.Status, e.TriggeredBy, e.JobID], ['pending', 'job-register', 'api']);
    assert.equal((await req('POST', '/v1/job/missing/evaluate')).status, 404);
    assert.equal((await req('POST', '/v1/job/api/evaluate', { JobID: 'other' })).text, 'Job ID does not match');
  });

  it('purge deletes the job and its versions, with a job-deregister evaluation', async () => {
    assert.equal((await req('POST', '/v1/jobs', { Job: minimalJob('gone') })).status, 200);
    const r = await req('DELETE', '/v1/job/gone?purge=true');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual([r.json.VolumeEvalID, r.json.KnownLeader], ['', true]);
    assert.deepEqual([(await req('GET', '/v1/job/gone')).status, (await req('GET', '/v1/job/gone')).text], [404, 'job not found']);
    assert.equal((await req('GET', '/v1/job/gone/versions')).status, 404);
    const e = (await req('GET', `/v1/evaluation/${r.json.EvalID}`)).json;
    assert.deepEqual([e.Status, e.TriggeredBy, e.JobID], ['pending', 'job-deregister', 'gone']);
    assert.deepEqual([(await req('DELETE', '/v1/job/gone')).status, (await req('DELETE', '/v1/job/gone')).text], [404, 'job not found']);
  });

  it("a client's report of an allocation updates the job's stored status", async () => {
    assert.equal((await req('POST', '/v1/jobs', { Job: minimalJob('synced') })).status, 200);
    const stored = () => a.state.get<Job>(T.jobs, jobKey('default', 'synced'))!;
    assert.equal(stored().Status, 'pending');
    // A placed allocation (the scheduler is off here, so nothing else writes the job).
    const nowNs = Date.now() * 1e6;
    const alloc: StoredAlloc = {
      ID: randomUUID(),
      Namespace: 'default',
      EvalID: randomUUID(),
      Name: 'synced.app[0]',
      NodeID: randomUUID(),
      JobID: 'synced',
      TaskGroup: 'app',
      DesiredStatus: 'run',
      DesiredDescription: '',
      ClientStatus: 'pending',
      ClientDescription: '',
      Volumes: null,
      DeploymentID: '',
      CreateTime: nowNs,
      ModifyTime: nowNs,
    };
    await a.state.txn((tx) => tx.put(T.allocs, alloc.ID, alloc));
    assert.equal(stored().Status, 'pending');
    const r = await req('POST', `/v1/allocation/${alloc.ID}/client-status`, { ClientStatus: 'running' });
    assert.equal(r.status, 200, r.text);
    assert.equal(stored().Status, 'running');
    assert.equal(stored().ModifyIndex, r.json.Index, "stored in the report's own write");
  });

  it('a namespace with a job that is not dead cannot be deleted', async () => {
    assert.equal((await req('PUT', '/v1/namespace/tmp', { Name: 'tmp' })).status, 200);
    assert.equal((await req('POST', '/v1/jobs?namespace=tmp', { Job: minimalJob('j') })).status, 200);
    const r = await req('DELETE', '/v1/namespace/tmp');
    assert.deepEqual([r.status, r.text], [409, 'namespace "tmp" has non-terminal jobs in regions: [global]']);
    assert.equal((await req('DELETE', '/v1/job/j?namespace=tmp&purge=true')).status, 200);
    assert.equal((await req('DELETE', '/v1/namespace/tmp')).status, 200);
  });

  it('lists stubs by namespace, prefix and filter, paged', async () => {
    for (const id of ['list-a', 'list-b', 'list-c']) assert.equal((await req('POST', '/v1/jobs', { Job: minimalJob(id) })).status, 200);
    assert.equal((await req('POST', '/v1/jobs?namespace=prod', { Job: minimalJob('list-p') })).status, 200);
    const r = await req('GET', '/v1/jobs?prefix=list-');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      r.json.map((j: { ID: string }) => j.ID),
      ['list-a', 'list-b', 'list-c'],
    );
    const stub = r.json[0];
    assert.deepEqual(Object.keys(stub).sort(), [
      'CreateIndex',
      'Datacenters',
      'ID',
      'JobModifyIndex',
      'JobSummary',
      'Meta',
      'ModifyIndex',
      'Multiregion',
      'Name',
      'Namespace',
      'NodePool',
      'ParameterizedJob',
      'ParentID',
      'Periodic',
      'Priority',
      'Status',
      'StatusDescription',
      'Stop',
      'SubmitTime',
      'Type',
    ]);
    assert.deepEqual(stub.JobSummary.Summary, { app: { Queued: 0, Complete: 0, Failed: 0, Running: 0, Starting: 0, Lost: 0, Unknown: 0 } });
    const all = await req('GET', '/v1/jobs?namespace=*&prefix=list-');
    assert.deepEqual(
      all.json.map((j: { Namespace: string; ID: string }) => `${j.Namespace}/${j.ID}`),
      ['default/list-a', 'default/list-b', 'default/list-c', 'prod/list-p'],
    );
    const p1 = await req('GET', '/v1/jobs?namespace=*&prefix=list-&per_page=2');
    assert.deepEqual(
      p1.json.map((j: { ID: string }) => j.ID),
      ['list-a', 'list-b'],
    );
    assert.equal(p1.headers.get('x-sched-nexttoken'), 'default.list-c');
    const p2 = await req('GET', '/v1/jobs?namespace=*&prefix=list-&per_page=2&next_token=default.list-c');
    assert.deepEqual(
      p2.json.map((j: { ID: string }) => j.ID),
      ['list-c', 'list-p'],
    );
    assert.equal(p2.headers.get('x-sched-nexttoken'), null);
    const f = await req('GET', `/v1/jobs?filter=${encodeURIComponent('ID matches "^list-[ab]$" and TaskGroups.0.Tasks.0.Driver == "raw_exec"')}`);
    assert.equal(f.status, 200, f.text);
    assert.deepEqual(
      f.json.map((j: { ID: string }) => j.ID),
      ['list-a', 'list-b'],
    );
    const bad = await req('GET', `/v1/jobs?filter=${encodeURIComponent('ID ==')}`);
    assert.equal(bad.status, 400);
    assert.match(bad.text, /^failed to create result paginator: failed to read filter expression/);
  });

  it('refuses bad jobs with 400s naming the field, and changes nothing', async () => {
    const before = (await req('GET', '/v1/jobs')).json.length;
    const cases: [unknown, string | RegExp][] = [
      [{}, 'Job must be specified'],
      [{ Job: 'x' }, 'json: cannot unmarshal string into Go value of type api.Job'],
      [{ Job: minimalJob('x', { Priority: 'high' }) }, 'json: cannot unmarshal string into Go struct field Job.Priority of type int64'],
      [
        { Job: minimalJob('x', { TaskGroups: [{ Name: 'g', Count: '2', Tasks: [] }] }) },
        'json: cannot unmarshal string into Go struct field Job.TaskGroups.Count of type int64',
      ],
      [{ Job: minimalJob('x', { Meta: { n: 1 } }) }, 'json: cannot unmarshal number into Go struct field Job.Meta.n of type string'],
      [
        { Job: minimalJob('x', { TaskGroups: [{ Name: 'g', Tasks: [{ Name: 't', Driver: 'x', Env: ['A=1'] }] }] }) },
        'json: cannot unmarshal array into Go struct field Job.TaskGroups.Tasks.Env of type map[string]string',
      ],
      [{ Job: minimalJob('', { Name: 'n' }) }, '1 error occurred:\n\t* Missing job ID\n\n'],
      [{ Job: minimalJob('a b') }, /Job ID contains a space/],
      [{ Job: minimalJob('x', { Priority: 101 }) }, /Job priority must be between \[1, 100\]/],
      [{ Job: minimalJob('x', { Type: 'cron' }) }, /Invalid job type: "cron"/],
      [{ Job: minimalJob('x', { TaskGroups: [] }) }, /Missing job task groups/],
      [
        { Job: minimalJob('x', { TaskGroups: [{ Name: 'g', Tasks: [{ Name: 't' }] }] }) },
        /Task group g validation failed: Task t validation failed: Missing task driver/,
      ],
      [
        { Job: minimalJob('x', { TaskGroups: [{ Name: 'g', Tasks: [{ Name: 't', Driver: 'raw_exec' }] }] }) },
        /config: missing required "command" for the raw_exec driver/,
      ],
      [{ Job: minimalJob('x', { TaskGroups: [{ Name: 'g', Count: -1, Tasks: [{ Name: 't', Driver: 'x' }] }] }) }, /Task group count can't be negative/],
      [
        { Job: minimalJob('x', { TaskGroups: [{ Name: 'g', Count: 100001, Tasks: [{ Name: 't', Driver: 'x' }] }] }) },
        /Task group count 100001 is more than 50000/,
      ],
      [
        { Job: minimalJob('x', { TaskGroups: [{ Name: 'g', RestartPolicy: { Mode: 'sometimes' }, Tasks: [{ Name: 't', Driver: 'x' }] }] }) },
        /Unsupported restart mode: "sometimes"/,
      ],
      [
        { Job: minimalJob('x', { TaskGroups: [{ Name: 'g', Tasks: [{ Name: 't', Driver: 'x', Resources: { MemoryMB: 5 } }] }] }) },
        /minimum MemoryMB value is 10; got 5/,
      ],
      [
        { Job: minimalJob('x', { TaskGroups: [{ Name: 'g', Tasks: [{ Name: 't', Driver: 'x', VolumeMounts: [{ Volume: 'v', Destination: '/d' }] }] }] }) },
        /Volume Mount \(0\) references undefined volume v/,
      ],
      [
        { Job: minimalJob('x', { TaskGroups: [{ Name: 'g', Volumes: { v: { Type: 'csi', Source: 'db' } }, Tasks: [{ Name: 't', Driver: 'x' }] }] }) },
        'volume "v": CSI volumes must have an attachment mode',
      ],
      [{ Job: minimalJob('x', { Constraints: [{ LTarget: '${attr.kernel.name}', RTarget: 'linux', Operand: 'like' }] }) }, /has unknown operand "like"/],
      [{ Job: minimalJob('x', { Region: 'mars' }) }, /Job region "mars" is not this server's region "global"/],
      [{ Job: minimalJob('x', { Namespace: 'nowhere' }) }, 'job "x" is in nonexistent namespace "nowhere"'],
    ];
    for (const [body, text] of cases) {
      const r = await req('POST', '/v1/jobs', body);
      assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
      if (typeof text === 'string') assert.equal(r.text, text);
      else assert.match(r.text, text);
    }
    const two = await req('POST', '/v1/jobs', { Job: minimalJob('', { Priority: 0 }) });
    assert.equal(two.text, '3 errors occurred:\n\t* Missing job ID\n\t* Missing job name\n\t* Job priority must be between [1, 100]\n\n');
    const mismatch = await req('POST', '/v1/job/other', { Job: minimalJob('web') });
    assert.deepEqual([mismatch.status, mismatch.text], [400, 'Job ID does not match name']);
    assert.equal((await req('GET', '/v1/jobs')).json.length, before);
  });

  it('checks submit-job, read-job, list-jobs, parse-job and scale-job per namespace', async () => {
    const reader = await clientToken(a.url, 'job-reader', 'namespace "default" { capabilities = ["read-job", "list-jobs"] }');
    const submitter = await clientToken(a.url, 'job-submitter', 'namespace "prod" { capabilities = ["submit-job"] }');
    const scaler = await clientToken(a.url, 'job-scaler', 'namespace "default" { capabilities = ["scale-job"] }');
    const parser = await clientToken(a.url, 'job-parser', 'namespace "default" { capabilities = ["parse-job"] }');
    assertDenied(await req('POST', '/v1/jobs', { Job: minimalJob('acl') }, reader.secret), 'read-job cannot submit');
    assertDenied(await req('POST', '/v1/jobs', { Job: minimalJob('acl') }, submitter.secret), 'submit-job in prod only');
    assert.equal((await req('POST', '/v1/jobs', { Job: minimalJob('acl', { Namespace: 'prod' }) }, submitter.secret)).status, 200);
    assert.equal((await req('POST', '/v1/jobs?namespace=prod', { Job: minimalJob('acl2') }, submitter.secret)).status, 200);
    assertDenied(await req('GET', '/v1/job/acl?namespace=prod', undefined, submitter.secret), 'submit-job alone does not read');
    assert.equal((await req('GET', '/v1/job/web', undefined, reader.secret)).status, 200);
    assertDenied(await req('GET', '/v1/jobs?namespace=prod', undefined, reader.secret));
    const star = await req('GET', '/v1/jobs?namespace=*', undefined, reader.secret);
    assert.ok(star.json.length > 0 && star.json.every((j: { Namespace: string }) => j.Namespace === 'default'), 'only the namespaces it may list');
    assertDenied(await req('DELETE', '/v1/job/web', undefined, reader.secret));
    assertDenied(await req('POST', '/v1/job/web/evaluate', undefined, reader.secret));
    assertDenied(await req('POST', '/v1/job/api/scale', { Count: 2, Target: { Group: 'app' } }, reader.secret));
    assert.equal((await req('POST', '/v1/job/api/scale', { Count: 2, Target: { Group: 'app' } }, scaler.secret)).status, 200);
    const hcl = 'job "p" {\n group "g" {\n task "t" {\n driver = "raw_exec"\n config { command = "/bin/true" }\n }\n }\n}\n';
    assertDenied(await req('POST', '/v1/jobs/parse', { JobHCL: hcl }, reader.secret));
    assert.equal((await req('POST', '/v1/jobs/parse', { JobHCL: hcl }, parser.secret)).status, 200);
    assertDenied(await req('GET', '/v1/evaluations', undefined, submitter.secret));
    assert.equal((await req('GET', '/v1/evaluations', undefined, reader.secret)).status, 200);
    const anon = await req('GET', '/v1/jobs', undefined, null);
    assertDenied(anon, 'anonymous');
  });
});

// The scheduler on: jobs placed on a simulated node (workloads.ts `simNode`, no client agent),
// whose client status the tests report as the node would (`client-status` with the root token,
// which has node:write).
describe('scheduler jobs API: status and summary from placed allocations', () => {
  let a: TestAgent;
  const req = (method: string, path: string, body?: unknown) => call(a.url, method, path, { token: ROOT, body });
  const jobStatusIs = (id: string, status: string) =>
    until(`job ${id} to be ${status}`, async () => (await req('GET', `/v1/job/${id}`)).json.Status === status);
  const report = async (allocId: string, ClientStatus: string) => {
    const r = await req('POST', `/v1/allocation/${allocId}/client-status`, { ClientStatus });
    assert.equal(r.status, 200, r.text);
    return r.json.Index as number;
  };

  before(async () => {
    a = await startAgent();
  });
  after(async () => {
    await a.stop();
  });

  it("status and summary follow the placed allocations and the client's reports: pending, running, dead after a stop", async () => {
    // No node yet: the register's evaluation cannot place, a blocked one waits, the job is pending with 3 queued.
    const noReschedule = { Attempts: 0, Interval: 0, Delay: 30 * S, DelayFunction: 'exponential', MaxDelay: 3600 * S, Unlimited: false };
    const first = await settled(a, await putJob(a, job('svc', [group('app', 3, { cpu: 100, memory: 300, over: { ReschedulePolicy: noReschedule } })])));
    assert.equal(first.Status, 'complete');
    assert.equal((await req('GET', '/v1/job/svc')).json.Status, 'pending', 'a blocked evaluation is not finished');
    const queued = (await req('GET', '/v1/job/svc/summary')).json;
    assert.deepEqual(queued.Summary, { app: { Queued: 3, Complete: 0, Failed: 0, Running: 0, Starting: 0, Lost: 0, Unknown: 0 } });
    assert.deepEqual([queued.JobID, queued.Namespace, queued.Children], ['svc', 'default', { Pending: 0, Running: 0, Dead: 0 }]);

    // A node arrives: the scheduler places the three, the client has not started them (Starting).
    // (The plan is written before its evaluation reports nothing queued, as the reference's.)
    await simNode(a.url, 'w1');
    await until('the evaluation that placed them to finish', async () => (await req('GET', '/v1/job/svc/summary')).json.Summary.app.Queued === 0);
    assert.deepEqual((await req('GET', '/v1/job/svc/summary')).json.Summary.app, {
      Queued: 0,
      Complete: 0,
      Failed: 0,
      Running: 0,
      Starting: 3,
      Lost: 0,
      Unknown: 0,
    });
    assert.equal((await req('GET', '/v1/job/svc')).json.Status, 'running');
    const allocs = (await req('GET', '/v1/job/svc/allocations')).json as { ID: string }[];
    assert.equal(allocs.length, 3);

    await report(allocs[0]!.ID, 'running');
    await report(allocs[2]!.ID, 'failed');
    assert.equal((await req('GET', '/v1/job/svc')).json.Status, 'running');
    assert.deepEqual((await req('GET', '/v1/job/svc/summary')).json.Summary.app, {
      Queued: 0,
      Complete: 0,
      Failed: 1,
      Running: 1,
      Starting: 1,
      Lost: 0,
      Unknown: 0,
    });
    assert.equal((await req('GET', '/v1/job/svc/allocations')).json.length, 3, 'the failed one is not rescheduled (no attempts)');

    // Stopped: the job stays with Stop true; dead once the scheduler stopped its allocations and its evaluations are done.
    const stop = await req('DELETE', '/v1/job/svc');
    assert.equal(stop.status, 200, stop.text);
    const stopped = (await req('GET', '/v1/job/svc')).json;
    assert.deepEqual([stopped.Stop, stopped.Version], [true, 1]);
    const e = await settled(a, stop.json.EvalID);
    assert.deepEqual([e.TriggeredBy, e.Status], ['job-deregister', 'complete']);
    await jobStatusIs('svc', 'dead');
    const stoppedAllocs = (await req('GET', '/v1/job/svc/allocations')).json as { DesiredStatus: string; ClientStatus: string }[];
    // The live ones are stopped; the failed one is already terminal and left as it is (as the reference's reconciler).
    assert.deepEqual(
      stoppedAllocs.map((x) => `${x.ClientStatus}/${x.DesiredStatus}`).sort(),
      ['failed/run', 'pending/stop', 'running/stop'],
      'the client has not reported them stopped yet',
    );
    assert.equal(a.state.get<Job>(T.jobs, jobKey('default', 'svc'))!.Status, 'dead', 'the stored status (Job events) follows');
  });

  it('a job read blocks until the job, its allocations or evaluations change', async () => {
    await simNode(a.url, 'w2');
    await settled(a, await putJob(a, job('api', [group('app', 1)])));
    await jobStatusIs('api', 'running');
    const [alloc] = (await req('GET', '/v1/job/api/allocations')).json as { ID: string }[];
    const first = await req('GET', '/v1/job/api');
    const index = Number(first.headers.get('x-sched-index'));
    const started = Date.now();
    const waiting = req('GET', `/v1/job/api?index=${index}&wait=10s`);
    await new Promise((r) => setTimeout(r, 100));
    const reported = await report(alloc!.ID, 'running');
    let woke = await waiting;
    // Another write to the job's tables (the scheduler's own, under load) may wake the read
    // first: then a read blocking from there is woken by the allocation's report.
    for (let seen = Number(woke.headers.get('x-sched-index')); seen < reported; seen = Number(woke.headers.get('x-sched-index'))) {
      assert.ok(seen > index, `woken by a change (index ${seen} after ${index})`);
      woke = await req('GET', `/v1/job/api?index=${seen}&wait=10s`);
    }
    assert.ok(Date.now() - started < 9000, 'woken by the allocation, not the timeout');
    assert.equal(woke.json.Status, 'running');
    assert.equal(Number(woke.headers.get('x-sched-index')), reported);
  });
});
