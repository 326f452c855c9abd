/**
 * `cairn sched job plan FILE` in-process against a real scheduler agent: the reference's
 * output (diff, `Scheduler dry-run:`, the job modify index for `job run -check-index`) and
 * exit codes: 1 when allocations would be created, 0 when nothing changes, 255 on errors;
 * a group that cannot be placed is listed with why; nothing is written.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { cliRunner, scratchDir, type ScratchDir } from './cli-helpers.js';
import { call, ROOT, startAgent, type TestAgent } from './sched/helpers.js';
import { simNode } from './sched/workloads.js';

const web = (count: number, memory = 100) => `job "web" {
  datacenters = ["dc1"]
  group "app" {
    count = ${count}
    task "server" {
      driver = "raw_exec"
      config {
        command = "/bin/sleep"
        args    = ["300"]
      }
      resources {
        cpu    = 100
        memory = ${memory}
      }
    }
  }
}
`;

const help = (index: number, file: string) => `Job Modify Index: ${index}
To submit the job with version verification run:

cairn sched job run -check-index ${index} ${file}

When running the job with the check-index flag, the job will only be run if the
job modify index given matches the server-side version. If the index has
changed, another user has modified the job and the plan's results are
potentially invalid.
`;

describe('cairn sched job plan', () => {
  let a: TestAgent;
  let scratch: ScratchDir;
  const { cairn } = cliRunner({ env: () => ({ SCHED_ADDR: a.url }), rootEnv: () => ({ SCHED_TOKEN: ROOT }) });

  before(async () => {
    a = await startAgent();
    scratch = scratchDir('cairn-cli-sched-plan-');
    await simNode(a.url, 'w1', { cpu: 4000, memory: 4096 });
  });
  after(async () => {
    await a.stop();
    scratch.remove();
  });

  it('prints the diff and the dry run; exit 1 for a new job, 0 once it runs unchanged; writes nothing', async () => {
    const file = scratch.file('web.hcl', web(2));
    const first = await cairn({ SCHED_TOKEN: ROOT }, ['sched', 'job', 'plan', file]);
    assert.equal(first.stderr, '');
    assert.equal(first.code, 1);
    assert.equal(first.stdout, `+ Job: "web"\n+ Task Group: "app" (2 create)\n\nScheduler dry-run:\n- All tasks successfully allocated.\n\n${help(0, file)}`);
    assert.equal((await call(a.url, 'GET', '/v1/job/web', { token: ROOT })).status, 404, 'a plan registers nothing');

    const run = await cairn({ SCHED_TOKEN: ROOT }, ['sched', 'job', 'run', '-detach', file]);
    assert.equal(run.code, 0, run.stderr);
    const index = (await call(a.url, 'GET', '/v1/job/web', { token: ROOT })).json.JobModifyIndex as number;
    const same = await cairn({ SCHED_TOKEN: ROOT }, ['sched', 'job', 'plan', file]);
    assert.equal(same.code, 0, same.stdout + same.stderr);
    assert.match(same.stdout, /^Job: "web"\nTask Group: "app" \(2 ignore\)\n\nScheduler dry-run:\n- All tasks successfully allocated\.\n/);
    assert.ok(same.stdout.endsWith(help(index, file)));
  });

  it('lists a group that would not be placed, and exits 255 on errors', async () => {
    const big = scratch.file('big.hcl', web(1, 100_000).replace('"web"', '"big"'));
    const r = await cairn({ SCHED_TOKEN: ROOT }, ['sched', 'job', 'plan', big]);
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /Scheduler dry-run:\n- WARNING: Failed to place all allocations\.\n {2}Task Group "app" \(failed to place 1 allocation\):\n {4}\* Resources exhausted on 1 nodes\n {4}\* Dimension "memory" exhausted on 1 nodes\n\n/,
    );
    const missing = await cairn({ SCHED_TOKEN: ROOT }, [
      'sched',
      'job',
      'plan',
      scratch.file('nothing.hcl', 'job "x" {}\n').replace('nothing.hcl', 'absent.hcl'),
    ]);
    assert.equal(missing.code, 255);
    assert.match(missing.stderr, /^Error during plan: /);
    const denied = await cairn({ SCHED_TOKEN: randomUUID() }, ['sched', 'job', 'plan', big]);
    assert.equal(denied.code, 255);
    assert.match(denied.stderr, /^Error during plan: .*Permission denied/);
    assert.equal((await cairn({ SCHED_TOKEN: ROOT }, ['sched', 'job', 'plan'])).code, 255);
  });
});
