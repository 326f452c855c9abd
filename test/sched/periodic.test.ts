/**
 * Periodic jobs (issue 29 item 3; the reference's `periodic` block, its periodic dispatcher
 * and `POST /v1/job/:id/periodic/force`) on an agent with a real client: the parent is never
 * scheduled (no evaluation, status `running`); the leader launches a child
 * `<id>/periodic-<unix s>` at each cron time (seconds field), each with a `periodic-job`
 * evaluation; with `prohibit_overlap` no two children ever run at once (their tasks' run
 * windows do not overlap); a forced launch; the checks with the reference's texts; the HCL
 * block; the plan's next launch; `cairn sched job periodic force`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cliRunner } from '../cli-helpers.js';
import type { JsonReply } from '../helpers.js';
import { until } from '../processes.js';
import { readyNode, shTask, startClientAgent } from './client-helpers.js';
import { call, ROOT, type TestAgent } from './helpers.js';

/** A periodic batch job `id` launched every second whose task runs `script`. */
const periodicJob = (id: string, script: string, periodic: Record<string, unknown> = {}) => ({
  ID: id,
  Type: 'batch',
  Periodic: { Specs: ['* * * * * *'], ProhibitOverlap: true, ...periodic },
  TaskGroups: [{ Name: 'g', Tasks: [shTask('t', script, { Resources: { CPU: 20, MemoryMB: 32 } })] }],
});

describe('periodic jobs', () => {
  let a: TestAgent;
  const req = (method: string, path: string, body?: unknown) => call(a.url, method, path, { token: ROOT, body });
  const children = async (parent: string) =>
    ((await req('GET', `/v1/jobs?prefix=${encodeURIComponent(`${parent}/periodic-`)}`)).json as JsonReply[]).map((j) => j.ID as string).sort();
  const { cairn, ok } = cliRunner({ env: () => ({ SCHED_ADDR: a.url }), rootEnv: () => ({ SCHED_TOKEN: ROOT }) });

  before(async () => {
    a = await startClientAgent();
    await readyNode(a);
  });
  after(() => a.stop());

  it('refuses what the reference refuses, with its texts', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ Specs: ['not a cron'] }, /Invalid cron spec "not a cron": /],
      [{ TimeZone: 'Mars/Olympus' }, /Invalid time zone "Mars\/Olympus"/],
      [{ Specs: [] }, /Must specify a spec/],
    ];
    for (const [periodic, text] of cases) {
      const r = await req('POST', '/v1/jobs', { Job: periodicJob('bad', 'true', periodic) });
      assert.equal(r.status, 400, JSON.stringify(periodic));
      assert.match(r.text, text);
    }
    const service = await req('POST', '/v1/jobs', { Job: { ...periodicJob('bad', 'true'), Type: 'service' } });
    assert.match(service.text, /Periodic can only be used with "batch" or "sysbatch" scheduler/);
    assert.equal((await req('GET', '/v1/job/bad')).status, 404, 'a refused job is not stored');
  });

  it('launches a child each second with prohibit_overlap: never two running at once', async () => {
    const r = await req('POST', '/v1/jobs', { Job: periodicJob('tick', 'sleep 2.5') });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual([r.json.EvalID, (await req('GET', '/v1/job/tick')).json.Status], ['', 'running']);
    const ids = await until('three children launched', 30_000, async () => {
      const c = await children('tick');
      return c.length >= 3 ? c : undefined;
    });
    assert.equal((await req('PUT', '/v1/job/tick', { Job: { ...periodicJob('tick', 'sleep 2.5'), Stop: true } })).status, 200);
    for (const id of ids) assert.match(id, /^tick\/periodic-\d{10}$/);
    // Each child's task window, from its allocation's task state; with prohibit_overlap none overlaps the next.
    const windows: [number, number][] = [];
    for (const id of ids) {
      const allocs = (await req('GET', `/v1/job/${encodeURIComponent(id)}/allocations`)).json as JsonReply[];
      assert.equal(allocs.length, 1, id);
      const done = await until(`${id} finishes`, 15_000, async () => {
        const al = (await req('GET', `/v1/allocation/${allocs[0].ID}`)).json;
        return al.TaskStates?.t?.FinishedAt && al.TaskStates.t.FinishedAt !== '0001-01-01T00:00:00Z' ? al : undefined;
      });
      windows.push([Date.parse(done.TaskStates.t.StartedAt), Date.parse(done.TaskStates.t.FinishedAt)]);
      const ev = ((await req('GET', `/v1/job/${encodeURIComponent(id)}/evaluations`)).json as JsonReply[])[0];
      assert.equal(ev.TriggeredBy, 'periodic-job');
    }
    windows.sort((x, y) => x[0] - y[0]);
    for (let i = 1; i < windows.length; i++) assert.ok(windows[i][0] >= windows[i - 1][1], `child ${i} started after child ${i - 1} finished`);
    const seconds = ids.map((id) => Number(id.split('-').pop()));
    assert.equal(new Set(seconds).size, seconds.length, 'one child per launch time');
  });

  it('force launches now; a job that is not periodic is refused; HCL, plan and the CLI', async () => {
    const hcl = `job "nightly" {
  type = "batch"
  periodic {
    crons            = ["0 3 * * *"]
    prohibit_overlap = true
    time_zone        = "Europe/Paris"
  }
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/true"
      }
    }
  }
}`;
    const parsed = await req('POST', '/v1/jobs/parse', { JobHCL: hcl });
    assert.equal(parsed.status, 200, parsed.text);
    assert.deepEqual(parsed.json.Periodic, { Specs: ['0 3 * * *'], ProhibitOverlap: true, TimeZone: 'Europe/Paris' });
    const plan = await req('POST', '/v1/job/nightly/plan', { Job: parsed.json });
    const next = new Date(plan.json.NextPeriodicLaunch);
    assert.ok(next.getTime() > Date.now() && next.getTime() <= Date.now() + 24 * 3600_000, plan.json.NextPeriodicLaunch);
    assert.equal(new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', hour: 'numeric' }).format(next), '03');
    assert.equal((await req('POST', '/v1/jobs', { Job: parsed.json })).status, 200);

    const forced = await req('POST', '/v1/job/nightly/periodic/force');
    assert.equal(forced.status, 200, forced.text);
    const ev = (await req('GET', `/v1/evaluation/${forced.json.EvalID}`)).json;
    assert.match(ev.JobID, /^nightly\/periodic-\d{10}$/);
    assert.equal(ev.TriggeredBy, 'periodic-job');
    assert.equal(
      (await req('POST', '/v1/jobs', { Job: { ID: 'once', Type: 'batch', TaskGroups: [{ Name: 'g', Tasks: [shTask('t', 'true')] }] } })).status,
      200,
    );
    const plain = await req('POST', '/v1/job/once/periodic/force');
    assert.deepEqual([plain.status, plain.text], [400, "can't force launch non-periodic job"]);

    await new Promise((r) => setTimeout(r, 1100)); // a new second: another launch time
    const out = await ok('sched', 'job', 'periodic', 'force', '-detach', 'nightly');
    assert.match(out, /^Force periodic successful\nEvaluation ID: [0-9a-f-]{36}\n$/);
    assert.equal((await children('nightly')).length, 2);
    const refused = await cairn({ SCHED_TOKEN: ROOT }, ['sched', 'job', 'periodic', 'force', 'once']);
    assert.deepEqual([refused.code, refused.stderr], [1, "Error: can't force launch non-periodic job (HTTP 400)\n"]);
  });
});
