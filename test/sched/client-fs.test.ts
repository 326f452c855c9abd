/**
 * The client agent's file-system and lifecycle endpoints and drivers with real processes,
 * running jobs registered through `POST /v1/jobs` and placed by the scheduler: `ls`/`cat`
 * confined to the allocation directory (`..` and symbolic links out refused; task names that
 * would leave it or take its shared `alloc` directory refused on register), log rotation by
 * `LogConfig`, `raw_exec` disabled by default (the node does not offer it, so the scheduler
 * does not place such a task; a task whose driver went away after placement fails with a
 * driver failure), the `exec` driver's memory limit, user restart and signal, the stats of a
 * running allocation's tasks, and a client that restarts (same node, its tasks started again).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { until } from '../processes.js';
import { allocWhen, eventTypes, job, readyNode, runJob, shTask, startClientAgent, stopJob } from './client-helpers.js';
import { call, ROOT, type TestAgent } from './helpers.js';

describe('scheduler client agent: files, drivers, lifecycle', () => {
  let a: TestAgent;
  before(async () => {
    a = await startClientAgent();
    await readyNode(a);
  });
  after(async () => {
    await a.stop();
  });

  it('lists and reads the allocation directory, and refuses paths that leave it', async () => {
    const id = await runJob(a, job('files', [shTask('t', 'echo data > "$CAIRN_ALLOC_DIR/data/out.txt"; echo secret > "$CAIRN_SECRETS_DIR/s"; sleep 30')]));
    await allocWhen(a, id, { what: 'running', ok: (x) => x.ClientStatus === 'running' });
    const root = await call(a.url, 'GET', `/v1/client/fs/ls/${id}?path=/`, { token: ROOT });
    assert.equal(root.status, 200, root.text);
    assert.deepEqual(
      root.json.map((e: { Name: string; IsDir: boolean }) => [e.Name, e.IsDir]),
      [
        ['alloc', true],
        ['t', true],
      ],
    );
    const shared = await call(a.url, 'GET', `/v1/client/fs/ls/${id}?path=alloc`, { token: ROOT });
    assert.deepEqual(
      shared.json.map((e: { Name: string }) => e.Name),
      ['data', 'logs', 'tmp'],
    );
    assert.match(shared.json[0].FileMode, /^drwx/);
    const task = await call(a.url, 'GET', `/v1/client/fs/ls/${id}?path=t`, { token: ROOT });
    assert.deepEqual(
      task.json.map((e: { Name: string }) => e.Name),
      ['local', 'secrets', 'tmp'],
    );
    const file = await until('out.txt', 10_000, async () => {
      const r = await call(a.url, 'GET', `/v1/client/fs/cat/${id}?path=alloc/data/out.txt`, { token: ROOT });
      return r.status === 200 ? r : undefined;
    });
    assert.equal(file.text, 'data\n');

    for (const p of ['..', '../..', 'alloc/../../', '/../etc/passwd', 'alloc/data/../../../x']) {
      const r = await call(a.url, 'GET', `/v1/client/fs/cat/${id}?path=${encodeURIComponent(p)}`, { token: ROOT });
      assert.equal(r.status, 400, `${p}: ${r.text}`);
      assert.match(r.text, /escapes the allocation directory/);
    }
    symlinkSync('/etc', join(a.dataDir, 'alloc', id, 'alloc', 'data', 'etc-link'));
    const viaLink = await call(a.url, 'GET', `/v1/client/fs/cat/${id}?path=alloc/data/etc-link/hostname`, { token: ROOT });
    assert.equal(viaLink.status, 400, viaLink.text);
    assert.match(viaLink.text, /escapes the allocation directory/);
    assert.equal((await call(a.url, 'GET', `/v1/client/fs/ls/${id}?path=alloc/data/etc-link`, { token: ROOT })).status, 400);
    assert.equal((await call(a.url, 'GET', `/v1/client/fs/cat/${id}?path=alloc/nope`, { token: ROOT })).status, 404);
    // A task's secrets are never read through the API: by their path, a detour, or a link to them.
    const secrets = await call(a.url, 'GET', `/v1/client/fs/ls/${id}?path=t/secrets`, { token: ROOT });
    assert.deepEqual(
      secrets.json.map((e: { Name: string }) => e.Name),
      ['s'],
      'names are listed, as in the reference',
    );
    symlinkSync(join(a.dataDir, 'alloc', id, 't', 'secrets', 's'), join(a.dataDir, 'alloc', id, 'alloc', 'data', 'secret-link'));
    for (const p of ['t/secrets/s', '/t/./secrets/s', 't/tmp/../secrets/s', 'alloc/data/secret-link']) {
      const r = await call(a.url, 'GET', `/v1/client/fs/cat/${id}?path=${encodeURIComponent(p)}`, { token: ROOT });
      assert.deepEqual([r.status, r.text.includes('secret\n')], [403, false], `${p}: ${r.text}`);
      assert.match(r.text, /Reading secret file prohibited/);
    }
    mkdirSync(join(a.dataDir, 'alloc', id, 't', 'private'), { recursive: true });
    writeFileSync(join(a.dataDir, 'alloc', id, 't', 'private', 'vault_token'), 'token');
    const priv = await call(a.url, 'GET', `/v1/client/fs/cat/${id}?path=t/private/vault_token`, { token: ROOT });
    assert.equal(priv.status, 403, priv.text);
    assert.match(priv.text, /Reading private file prohibited: t\/private\/vault_token/);
    assert.equal((await call(a.url, 'GET', `/v1/client/fs/cat/${id}?path=alloc`, { token: ROOT })).status, 400);
    await stopJob(a, 'files');
  });

  it('refuses jobs whose task names would leave the allocation directory or take its shared directory, naming the problem', async () => {
    // A task's directory on the client is `<allocation directory>/<task name>`, beside the shared `alloc`.
    const cases = [
      ['../evil', /Task \.\.\/evil validation failed: Task name cannot include slashes/],
      ['..', /Task \.\. validation failed: Task name cannot be "\." or "\.\."/],
      ['.', /Task \. validation failed: Task name cannot be "\." or "\.\."/],
      ['alloc', /Task alloc validation failed: Task name "alloc" is reserved for the allocation's shared directory/],
      ['', /Task 1 validation failed: Missing task name/],
    ] as const;
    for (const [name, want] of cases) {
      const r = await call(a.url, 'POST', '/v1/jobs', { token: ROOT, body: { Job: job('bad', [shTask(name, 'true')]) } });
      assert.equal(r.status, 400, `${name}: ${r.text}`);
      assert.match(r.text, want);
      assert.equal((await call(a.url, 'GET', '/v1/job/bad', { token: ROOT })).status, 404, 'nothing stored');
    }
  });

  it("rotates a task's log files by LogConfig, keeping MaxFiles of MaxFileSizeMB", async () => {
    // 3.5 MB in 1 MiB files: .0 .1 .2 full, .3 the rest; 2 kept.
    const script = "head -c 3500000 /dev/zero | tr '\\0' 'a'";
    const id = await runJob(a, job('chatty', [shTask('t', script, { LogConfig: { MaxFiles: 2, MaxFileSizeMB: 1 } })], { type: 'batch' }));
    await allocWhen(a, id, { what: 'complete', ok: (x) => x.ClientStatus === 'complete' });
    const logs = join(a.dataDir, 'alloc', id, 'alloc', 'logs');
    assert.deepEqual(
      readdirSync(logs)
        .filter((n) => n.startsWith('t.stdout'))
        .sort(),
      ['t.stdout.2', 't.stdout.3'],
    );
    assert.equal(statSync(join(logs, 't.stdout.2')).size, 1024 * 1024);
    assert.equal(statSync(join(logs, 't.stdout.3')).size, 3_500_000 - 3 * 1024 * 1024);
    const all = await call(a.url, 'GET', `/v1/client/fs/logs/${id}?task=t&plain=true`, { token: ROOT });
    assert.equal(all.text.length, 1024 * 1024 + 3_500_000 - 3 * 1024 * 1024);
  });

  it('restarts a task on request without counting it against the policy, and signals it', async () => {
    const id = await runJob(
      a,
      job('lifecycle', [shTask('t', 'trap "echo got HUP" HUP; echo start; while true; do sleep 0.05; done')], {
        restart: { Attempts: 0, Interval: 600e9, Delay: 0, Mode: 'fail' },
      }),
    );
    await allocWhen(a, id, { what: 'running', ok: (x) => x.TaskStates?.t?.State === 'running' });
    const r = await call(a.url, 'POST', `/v1/client/allocation/${id}/restart`, { token: ROOT, body: { TaskName: 't' } });
    assert.equal(r.status, 200, r.text);
    const restarted = await allocWhen(a, id, { what: 'restarted', ok: (x) => x.TaskStates.t.Restarts === 1 && x.TaskStates.t.State === 'running' });
    assert.deepEqual(eventTypes(restarted, 't').slice(-4), ['Restart Signaled', 'Terminated', 'Restarting', 'Started']);
    assert.equal(restarted.ClientStatus, 'running');
    await until(
      'started twice',
      10_000,
      async () => (await call(a.url, 'GET', `/v1/client/fs/logs/${id}?task=t&plain=true`, { token: ROOT })).text === 'start\nstart\n' || undefined,
    );

    const s = await call(a.url, 'POST', `/v1/client/allocation/${id}/signal`, { token: ROOT, body: { Signal: 'SIGHUP', Task: 't' } });
    assert.equal(s.status, 200, s.text);
    await until(
      'HUP handled',
      10_000,
      async () => (await call(a.url, 'GET', `/v1/client/fs/logs/${id}?task=t&plain=true`, { token: ROOT })).text.includes('got HUP') || undefined,
    );
    const bad = await call(a.url, 'POST', `/v1/client/allocation/${id}/signal`, { token: ROOT, body: { Signal: 'SIGNOPE', Task: 't' } });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /unknown signal "SIGNOPE"/);
    await stopJob(a, 'lifecycle');
  });

  it("reads a running allocation's memory and CPU from its tasks' processes, in the reference's shape", async () => {
    // A task whose shell keeps one core busy.
    const id = await runJob(a, job('busy', [shTask('t', 'while :; do :; done')]));
    await allocWhen(a, id, { what: 'running', ok: (x) => x.TaskStates?.t?.State === 'running' });
    await new Promise((r) => setTimeout(r, 1500));
    const first = await call(a.url, 'GET', `/v1/client/allocation/${id}/stats`, { token: ROOT });
    assert.equal(first.status, 200, first.text);
    await new Promise((r) => setTimeout(r, 1000));
    const r = await call(a.url, 'GET', `/v1/client/allocation/${id}/stats`, { token: ROOT });
    const t = r.json.Tasks.t.ResourceUsage;
    assert.deepEqual(t.MemoryStats.Measured, ['RSS']);
    assert.ok(t.MemoryStats.RSS > 1024 * 1024, `RSS ${t.MemoryStats.RSS} bytes`);
    // The busy loop: most of a core over the second between the two reads (the machine may be loaded).
    assert.ok(t.CpuStats.Percent > 20 && t.CpuStats.Percent < 400, `CPU ${t.CpuStats.Percent} %`);
    assert.ok(Math.abs(t.CpuStats.UserMode + t.CpuStats.SystemMode - t.CpuStats.Percent) < 0.001);
    assert.equal(r.json.ResourceUsage.MemoryStats.RSS, t.MemoryStats.RSS, "the allocation's figures are its one task's");
    assert.ok(r.json.Timestamp > Date.now() * 1e6 - 60e9, 'a Unix ns timestamp');
    // read-job is needed: no token, 403.
    assert.equal((await call(a.url, 'GET', `/v1/client/allocation/${id}/stats`)).status, 403);
    await stopJob(a, 'busy');
    await allocWhen(a, id, { what: 'stopped', ok: (x) => x.ClientStatus === 'complete' || x.ClientStatus === 'failed' });
    const gone = await call(a.url, 'GET', `/v1/client/allocation/${id}/stats`, { token: ROOT });
    assert.deepEqual([gone.status, gone.text], [400, `Allocation "${id}" is not running`]);
  });
});

describe('scheduler client agent: drivers and restarts', () => {
  it('offers no raw_exec unless enabled: such a task is not placed (missing drivers); exec runs with a memory limit', async () => {
    const a = await startClientAgent({ drivers: { raw_exec: false, exec: true } });
    try {
      const node = await readyNode(a);
      assert.equal(node.Attributes['driver.raw_exec'], undefined);
      assert.equal(node.Drivers.raw_exec, undefined);
      assert.equal(node.Attributes['driver.exec'], '1');
      const reg = await call(a.url, 'POST', '/v1/jobs', { token: ROOT, body: { Job: job('raw', [shTask('t', 'echo no')]) } });
      assert.equal(reg.status, 200, reg.text);
      const evaluation = await until('the raw evaluation done', 15_000, async () => {
        const r = await call(a.url, 'GET', `/v1/evaluation/${reg.json.EvalID as string}`, { token: ROOT });
        return r.status === 200 && r.json.Status === 'complete' ? r.json : undefined;
      });
      const metric = evaluation.FailedTGAllocs?.g;
      assert.ok(metric, JSON.stringify(evaluation));
      assert.deepEqual([metric.NodesEvaluated, metric.NodesFiltered, metric.ConstraintFiltered], [1, 1, { 'missing drivers': 1 }]);
      assert.deepEqual((await call(a.url, 'GET', '/v1/job/raw/allocations', { token: ROOT })).json, []);

      const ex = await runJob(a, job('ex', [shTask('t', 'ulimit -v; pwd', { Driver: 'exec', Resources: { CPU: 100, MemoryMB: 64 } })], { type: 'batch' }));
      await allocWhen(a, ex, { what: 'complete', ok: (x) => x.ClientStatus === 'complete' });
      const out = await call(a.url, 'GET', `/v1/client/fs/logs/${ex}?task=t&plain=true`, { token: ROOT });
      assert.equal(out.text, `${64 * 1024}\n${join(a.dataDir, 'alloc', ex, 't')}\n`);
    } finally {
      await a.stop();
    }
  });

  it("keeps its node across a restart and starts the allocation's tasks again", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cairn-client-restart-'));
    try {
      let a = await startClientAgent({ dataDir });
      const nodeId = a.client!.nodeId;
      await readyNode(a);
      const id = await runJob(a, job('survivor', [shTask('t', 'echo run; sleep 60')]));
      await allocWhen(a, id, { what: 'running', ok: (x) => x.TaskStates?.t?.State === 'running' });
      await a.close();
      a = await startClientAgent({ dataDir });
      try {
        assert.equal(a.client!.nodeId, nodeId);
        const again = await allocWhen(a, id, { what: 'running again', ok: (x) => x.TaskStates?.t?.Restarts === 1 && x.TaskStates.t.State === 'running' });
        const restart = again.TaskStates.t.Events.find((e: { Type: string }) => e.Type === 'Restarting');
        assert.equal(restart.RestartReason, 'Client agent restarted');
        await until(
          'second run logged',
          10_000,
          async () => (await call(a.url, 'GET', `/v1/client/fs/logs/${id}?task=t&plain=true`, { token: ROOT })).text === 'run\nrun\n' || undefined,
        );
      } finally {
        await a.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('fails a task whose driver went away after placement with a driver failure', async () => {
    // The scheduler places a task only on a node offering its driver; a client restarted
    // without that driver still holds the allocation placed before.
    const dataDir = mkdtempSync(join(tmpdir(), 'cairn-client-driver-'));
    try {
      let a = await startClientAgent({ dataDir });
      await readyNode(a);
      const id = await runJob(a, job('gone', [shTask('t', 'echo run; sleep 60')]));
      await allocWhen(a, id, { what: 'running', ok: (x) => x.TaskStates?.t?.State === 'running' });
      await a.close();
      a = await startClientAgent({ dataDir, drivers: { raw_exec: false, exec: true } });
      try {
        const failed = await allocWhen(a, id, { what: 'failed', ok: (x) => x.ClientStatus === 'failed' });
        assert.equal(failed.TaskStates.t.State, 'dead');
        assert.equal(failed.TaskStates.t.Failed, true);
        // The job's deployment (the default update strategy) then finds the allocation unhealthy: its event follows.
        const events = failed.TaskStates.t.Events as { Type: string; Message: string }[];
        assert.deepEqual(
          events.slice(-2).map((e) => e.Type),
          ['Driver Failure', 'Alloc Unhealthy'],
        );
        assert.equal(events.at(-1)!.Message, 'Unhealthy because of failed task');
        const last = events.at(-2) as unknown as { Type: string; DriverError: string; FailsTask: boolean };
        assert.equal(last.DriverError, 'driver "raw_exec" is not available on this node');
        assert.equal(last.FailsTask, true);
      } finally {
        await a.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
