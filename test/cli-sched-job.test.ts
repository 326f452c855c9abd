/**
 * `cairn sched job …` and `cairn sched eval …` in-process against a real scheduler agent
 * (through the SDK, as a user runs them): `job run` of an HCL file with `-detach`, with
 * `-check-index`, and following its evaluation until the scheduler completes it (exit 2 on a
 * placement failure; an agent with the scheduler off for the monitor's timeout);
 * `job status` list and detail with aligned columns and 8-character IDs (a job the scheduler
 * placed on a simulated node, reported running through `client-status`), `inspect`,
 * `history` (`-p` diffs, `-version`), `revert`, `stop` and `-purge`; `eval list` and `eval status`; `-json`; errors.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { cliRunner, scratchDir, type ScratchDir } from './cli-helpers.js';
import { call, ROOT, startAgent, type TestAgent } from './sched/helpers.js';
import { settled, simNode } from './sched/workloads.js';

const WEB = `job "web" {
  datacenters = ["dc1"]
  group "app" {
    count = 2
    task "server" {
      driver = "raw_exec"
      config {
        command = "/bin/sleep"
        args    = ["300"]
      }
    }
  }
}
`;

describe('cairn sched job and eval against a real scheduler agent', () => {
  let a: TestAgent;
  let scratch: ScratchDir;
  const { cairn, ok } = cliRunner({ env: () => ({ SCHED_ADDR: a.url }), rootEnv: () => ({ SCHED_TOKEN: ROOT }) });
  const nodeID = randomUUID();
  let dc2Node: string;

  before(async () => {
    a = await startAgent();
    scratch = scratchDir('cairn-cli-sched-job-');
    assert.equal(
      (
        await call(a.url, 'PUT', '/v1/node/register', {
          token: ROOT,
          body: { Node: { ID: nodeID, SecretID: 's', Datacenter: 'dc1', Name: 'w1', Attributes: { 'os.name': 'linux' } } },
        })
      ).status,
      200,
    );
    // A node that runs raw_exec tasks, in dc2 only (the dc1 jobs below stay unplaced), with memory for one allocation of 300 MiB.
    dc2Node = await simNode(a.url, 'w2', { memory: 512, over: { Datacenter: 'dc2' } });
  });
  after(async () => {
    await a.stop();
    scratch.remove();
  });

  it('job run -detach registers the file and prints the evaluation ID; -check-index guards it', async () => {
    const file = scratch.file('web.hcl', WEB);
    const out = await ok('sched', 'job', 'run', '-detach', file);
    const m = /^Job registration successful\nEvaluation ID: ([0-9a-f-]{36})\n$/.exec(out);
    assert.ok(m, out);
    const job = (await call(a.url, 'GET', '/v1/job/web', { token: ROOT })).json;
    assert.deepEqual([job.TaskGroups[0].Count, job.Datacenters], [2, ['dc1']]);
    const stale = await cairn({ SCHED_TOKEN: ROOT }, ['sched', 'job', 'run', '-detach', `-check-index=${job.JobModifyIndex + 1}`, file]);
    assert.equal(stale.code, 1);
    assert.equal(
      stale.stderr,
      `Error: Enforcing job modify index ${job.JobModifyIndex + 1}: job exists with conflicting job modify index: ${job.JobModifyIndex} (HTTP 400)\n`,
    );
    await ok('sched', 'job', 'run', '-detach', `-check-index=${job.JobModifyIndex}`, file);
    const bad = await cairn({ SCHED_TOKEN: ROOT }, [
      'sched',
      'job',
      'run',
      scratch.file('bad.hcl', 'job "x" {\n  group "g" {\n    task "t" { drivr = "x" }\n  }\n}\n'),
    ]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^Error: input\.hcl:3: unknown key "drivr" in task "t"/);
  });

  it('job run follows the evaluation until it is no longer pending', async () => {
    // The scheduler on the leader runs it: the only dc1 node has no raw_exec driver, so nothing is placed (exit 2, as the reference).
    const file = scratch.file('batch.hcl', WEB.replace('job "web"', 'job "batch"'));
    const run = await cairn({ SCHED_TOKEN: ROOT }, ['sched', 'job', 'run', file]);
    assert.equal(run.code, 2, run.stderr);
    assert.match(
      run.stdout,
      /^==> Monitoring evaluation "[0-9a-f]{8}"\n {4}Evaluation triggered by job "batch"\n {4}Evaluation status changed: "pending" -> "complete"\n==> Evaluation "[0-9a-f]{8}" finished with status "complete" but failed to place all allocations:\n {4}Task Group "app" could not be placed\n {4}Evaluation "[0-9a-f]{8}" waiting for additional capacity to place remainder\n$/,
    );
    const blocked = /Evaluation "([0-9a-f]{8})" waiting/.exec(run.stdout)![1];
    const evals = (await call(a.url, 'GET', '/v1/job/batch/evaluations', { token: ROOT })).json as { ID: string; Status: string }[];
    assert.equal(evals.find((e) => e.ID.startsWith(blocked))?.Status, 'blocked');
    // With no scheduler running (an agent with it off) the monitor gives up at its timeout.
    const idle = await startAgent({ schedulerWorkers: 0 });
    try {
      const pending = await cairn({ SCHED_TOKEN: ROOT, SCHED_ADDR: idle.url }, [
        'sched',
        'job',
        'run',
        '-monitor-timeout=200ms',
        scratch.file('lonely.hcl', WEB.replace('job "web"', 'job "lonely"')),
      ]);
      assert.equal(pending.code, 1);
      assert.match(pending.stdout, /is still pending after 0s: is a scheduler running on the leader\?\n$/);
      const listed = await cairn({ SCHED_TOKEN: ROOT, SCHED_ADDR: idle.url }, ['sched', 'eval', 'list', '-job=lonely']);
      const lines = listed.stdout.trimEnd().split('\n');
      assert.match(lines[0], /^ID {8}Priority {2}Triggered By {2}Job ID {2}Namespace {2}Node ID {2}Status {3}Placement Failures$/);
      assert.match(lines[1], /^[0-9a-f]{8} {2}50 {8}job-register {2}lonely {2}default {4}<none> {3}pending {2}false$/);
      const id = lines[1].slice(0, 8);
      const status = await cairn({ SCHED_TOKEN: ROOT, SCHED_ADDR: idle.url }, ['sched', 'eval', 'status', id]);
      assert.match(
        status.stdout,
        new RegExp(
          `^ID {17}= ${id}\\nCreate Time {8}= \\S+\\nModify Time {8}= \\S+\\nStatus {13}= pending\\nStatus Description = pending\\nType {15}= service\\nTriggeredBy {8}= job-register\\nJob ID {13}= lonely\\nNamespace {10}= default\\nPriority {11}= 50\\nPlacement Failures = false\\n$`,
        ),
      );
    } finally {
      await idle.stop();
    }
  });

  it('job status lists jobs and shows one with its summary and allocations', async () => {
    // api (dc2, count 2): the scheduler places one on w2 (no memory for the second), which the node reports running.
    const run = await ok('sched', 'job', 'run', '-detach', scratch.file('api.hcl', WEB.replace('job "web"', 'job "api"').replace('["dc1"]', '["dc2"]')));
    const evalId = /Evaluation ID: ([0-9a-f-]{36})/.exec(run)![1]!;
    assert.equal((await settled(a, evalId)).Status, 'complete');
    const placed = (await call(a.url, 'GET', '/v1/job/api/allocations', { token: ROOT })).json as { ID: string; NodeID: string }[];
    assert.deepEqual(
      placed.map((x) => x.NodeID),
      [dc2Node],
    );
    const alloc = placed[0]!;
    assert.equal((await call(a.url, 'POST', `/v1/allocation/${alloc.ID}/client-status`, { token: ROOT, body: { ClientStatus: 'running' } })).status, 200);

    const listed = await ok('sched', 'job', 'status');
    const lines = listed.trimEnd().split('\n');
    assert.match(lines[0], /^ID {5}Type {5}Priority {2}Status {3}Submit Date$/);
    assert.match(
      lines.find((l) => l.startsWith('api '))!,
      /^api {4}service {2}50 {8}running {2}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
    );
    assert.match(
      lines.find((l) => l.startsWith('web '))!,
      /^web {4}service {2}50 {8}pending {2}/,
      'nothing placed, its blocked evaluation waits',
    );
    const one = await ok('sched', 'job', 'status', 'ap');
    assert.match(
      one,
      /^ID {12}= api\nName {10}= api\nSubmit Date {3}= \S+\nType {10}= service\nPriority {6}= 50\nDatacenters {3}= dc2\nNamespace {5}= default\nNode Pool {5}= default\nStatus {8}= running\n/,
    );
    // Queued 1: the scheduler could place only one of api's two allocations.
    assert.match(
      one,
      /\n\nSummary\nTask Group {2}Queued {2}Starting {2}Running {2}Failed {2}Complete {2}Lost {2}Unknown\napp {9}1 {7}0 {9}1 {8}0 {7}0 {9}0 {5}0\n/,
    );
    assert.match(
      one,
      new RegExp(
        `\\n\\nAllocations\\nID {8}Node ID {3}Task Group {2}Version {2}Desired {2}Status {3}Created {2,}Modified\\n${alloc.ID.slice(0, 8)} {2}${dc2Node.slice(0, 8)} {2}app {9}0 {8}run {6}running {2}\\d+s ago`,
      ),
    );
    const json = JSON.parse(await ok('sched', 'job', 'status', 'api', '-json'));
    assert.equal(json.ID, 'api');
    const missing = await cairn({ SCHED_TOKEN: ROOT }, ['sched', 'job', 'status', 'zzz']);
    assert.deepEqual([missing.code, missing.stderr], [1, 'Error: No job(s) with prefix or id "zzz" found\n']);
  });

  it('inspect, history (with diffs), revert, stop and purge', async () => {
    const inspect = JSON.parse(await ok('sched', 'job', 'inspect', 'web'));
    assert.equal(inspect.Job.ID, 'web');
    const history = await ok('sched', 'job', 'history', 'web');
    assert.match(
      history,
      /^Version {5}= 0\nStable {6}= false\nSubmit Date = \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$/,
      'the re-runs of the same file made no new version',
    );
    // A changed file is version 1: history -p shows its diff, revert goes back to version 0's spec as version 2.
    const changed = scratch.file('web-v1.hcl', WEB.replace('args    = ["300"]', 'args    = ["301"]'));
    await ok('sched', 'job', 'run', '-detach', changed);
    const diffed = await ok('sched', 'job', 'history', '-p', 'web');
    assert.match(diffed, /^Version {5}= 1\nStable {6}= false\nSubmit Date = \S+\nDiff {8}=\n\+\/- Job: "web"\n/);
    assert.match(
      diffed,
      /\n\+\/- Task Group: "app"\n {2}\+\/- Task: "server"\n {4}\+\/- Config \{\n {6}\+\/- args \{\n {8}- args: "300"\n {8}\+ args: "301"\n {6}\}\n {4}\}\n/,
    );
    assert.match(diffed, /\n\nVersion {5}= 0\nStable {6}= false\nSubmit Date = \S+\n$/, 'the first version has no diff');
    assert.match(await ok('sched', 'job', 'history', '-version=0', 'web'), /^Version {5}= 0\n/);
    const none = await cairn({ SCHED_TOKEN: ROOT }, ['sched', 'job', 'history', '-version=7', 'web']);
    assert.deepEqual([none.code, none.stderr], [1, 'Error: version 7 of job "web" not found\n']);
    const reverted = await ok('sched', 'job', 'revert', '-detach', 'web', '0');
    assert.match(reverted, /^Job "web" reverted to version 0\nEvaluation ID: [0-9a-f-]{36}\n$/);
    const job = (await call(a.url, 'GET', '/v1/job/web', { token: ROOT })).json;
    assert.deepEqual([job.Version, job.TaskGroups[0].Tasks[0].Config.args], [2, ['300']]);
    const current = await cairn({ SCHED_TOKEN: ROOT }, ['sched', 'job', 'revert', 'web', '2']);
    assert.deepEqual([current.code, current.stderr], [1, "Error: can't revert to current version (HTTP 400)\n"]);

    const stopped = await ok('sched', 'job', 'stop', '-detach', 'web');
    assert.match(stopped, /^Job "web" stopped\nEvaluation ID: [0-9a-f-]{36}\n$/);
    assert.equal((await call(a.url, 'GET', '/v1/job/web', { token: ROOT })).json.Stop, true);
    const purged = await ok('sched', 'job', 'stop', '-purge', '-detach', 'web');
    assert.match(purged, /^Job "web" purged\n/);
    assert.equal((await call(a.url, 'GET', '/v1/job/web', { token: ROOT })).status, 404);
  });

  it('eval list and eval status', async () => {
    // The scheduler completed "batch"'s evaluation with a placement failure and left a blocked one.
    const listed = await ok('sched', 'eval', 'list', '-job=batch');
    const lines = listed.trimEnd().split('\n');
    assert.match(lines[0], /^ID {8}Priority {2}Triggered By {3}Job ID {2}Namespace {2}Node ID {2}Status {4}Placement Failures$/);
    const reg = lines.find((l) => l.includes('job-register'))!;
    assert.match(reg, /^[0-9a-f]{8} {2}50 {8}job-register {3}batch {3}default {4}<none> {3}complete {2}true$/);
    assert.ok(
      lines.some((l) => /^[0-9a-f]{8} {2}50 {8}queued-allocs {2}batch {3}default {4}<none> {3}blocked {3}false$/.test(l)),
      listed,
    );
    const id = reg.slice(0, 8);
    const status = await ok('sched', 'eval', 'status', id);
    assert.match(status, new RegExp(`^ID {17}= ${id}\\nCreate Time {8}= \\S+\\nModify Time {8}= \\S+\\nStatus {13}= complete\\n`));
    assert.match(status, /\nTriggeredBy {8}= job-register\nJob ID {13}= batch\n(.*\n)*Placement Failures = true\n/);
    const json = JSON.parse(await ok('sched', 'eval', 'list', '-json', '-status=complete'));
    assert.ok(json.length > 0 && json.every((e: { Status: string }) => e.Status === 'complete'));
    const none = await cairn({ SCHED_TOKEN: ROOT }, ['sched', 'eval', 'status', 'ffffffff']);
    assert.deepEqual([none.code, none.stderr], [1, 'Error: No evaluation(s) with prefix or id "ffffffff" found\n']);
  });
});
