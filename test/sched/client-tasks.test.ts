/**
 * The client agent with real processes (issue 19 scope 3): an agent with its client enabled
 * registers its node with a fingerprint and drivers, runs the `raw_exec` tasks of jobs the
 * scheduler placed on it, reports `ClientStatus` and `TaskStates`, streams logs (plain,
 * framed, followed while the task prints), restarts a killed task by policy until `Not
 * Restarting` fails the allocation (with an `alloc-failure` evaluation the scheduler runs,
 * leaving a delayed follow-up), completes a batch
 * task that exits 0, and, when its job is stopped, stops a task with its `KillSignal` then
 * SIGKILL after `KillTimeout`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { T } from '../../src/services/sched/state.js';
import { until } from '../processes.js';
import { allocWhen, eventTypes, job, readyNode, runJob, shTask, startClientAgent, stopJob } from './client-helpers.js';
import { call, clientToken, ROOT, type TestAgent } from './helpers.js';

describe('scheduler client agent: tasks', () => {
  let a: TestAgent;
  before(async () => {
    a = await startClientAgent();
  });
  after(async () => {
    await a.stop();
  });

  it('registers its node with the fingerprint, the enabled drivers and an HTTP address', async () => {
    const node = await readyNode(a);
    assert.equal(node.Attributes['driver.raw_exec'], '1');
    assert.equal(node.Attributes['kernel.name'], 'linux');
    assert.ok(Number(node.Attributes['cpu.totalcompute']) > 0);
    assert.equal(node.NodeResources.Cpu.CpuShares, Number(node.Attributes['cpu.totalcompute']));
    assert.ok(node.NodeResources.Memory.MemoryMB > 0);
    assert.equal(node.Drivers.raw_exec.Healthy, true);
    assert.equal(node.Meta.rack, 'r1');
    assert.equal(node.HTTPAddr, new URL(a.url).host);
  });

  it('registers again, with its own secret, after the servers forgot the node', async () => {
    await readyNode(a);
    const nodeId = a.client!.nodeId;
    const before = await call(a.url, 'GET', `/v1/node/${nodeId}`, { token: ROOT });
    const purge = await call(a.url, 'POST', `/v1/node/${nodeId}/purge`, { token: ROOT });
    assert.equal(purge.status, 200, purge.text);
    // The client learns it at once (its watch of its allocations is refused) or at its next
    // heartbeat (every half of the 10 s default TTL), and registers anew: a node created after
    // the purge (the purged one may be back before a read could see it gone).
    const back = await until('node registered again', 15_000, async () => {
      const r = await call(a.url, 'GET', `/v1/node/${nodeId}`, { token: ROOT });
      return r.status === 200 && r.json.CreateIndex > before.json.CreateIndex ? r.json : undefined;
    });
    assert.equal(back.Status, 'ready');
    assert.equal(back.Drivers.raw_exec.Detected, true);
  });

  it('serves the node its allocations in full with its secret; others need node:read', async () => {
    await readyNode(a);
    const id = await runJob(a, job('secret-check', [shTask('t', 'sleep 30')]));
    const secret = JSON.parse(readFileSync(join(a.dataDir, 'client', 'node.json'), 'utf8')).SecretID as string;
    const mine = await call(a.url, 'GET', `/v1/node/${a.client!.nodeId}/allocations`, { token: secret });
    assert.equal(mine.status, 200, mine.text);
    const got = mine.json.find((x: { ID: string }) => x.ID === id);
    assert.equal(got.Job.ID, 'secret-check');
    assert.ok(Number(mine.headers.get('x-sched-index')) > 0);
    const other = await clientToken(a.url, 'nothing', 'namespace "default" { policy = "read" }');
    assert.equal((await call(a.url, 'GET', `/v1/node/${a.client!.nodeId}/allocations`, { token: other.secret })).status, 403);
    await stopJob(a, 'secret-check');
  });

  it('runs a task and serves its stdout: plain, framed and followed while it prints', async () => {
    await readyNode(a);
    const id = await runJob(a, job('printer', [shTask('web', 'i=0; while true; do echo "line $i"; i=$((i+1)); sleep 0.1; done')]));
    const running = await allocWhen(a, id, { what: 'running', ok: (x) => x.ClientStatus === 'running' });
    assert.equal(running.TaskStates.web.State, 'running');
    assert.deepEqual(eventTypes(running, 'web'), ['Received', 'Task Setup', 'Started']);

    const plain = await until('line 2 in the log', 10_000, async () => {
      const r = await call(a.url, 'GET', `/v1/client/fs/logs/${id}?task=web&type=stdout&plain=true`, { token: ROOT });
      return r.status === 200 && r.text.includes('line 2\n') ? r : undefined;
    });
    assert.match(plain.headers.get('content-type') ?? '', /^text\/plain/);
    assert.ok(plain.text.startsWith('line 0\nline 1\n'));

    const framed = await call(a.url, 'GET', `/v1/client/fs/logs/${id}?task=web&type=stdout`, { token: ROOT });
    const frames = framed.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(frames[0].File, 'web.stdout.0');
    const data = Buffer.concat(frames.map((f) => Buffer.from(f.Data, 'base64'))).toString();
    assert.ok(data.startsWith('line 0\n'));
    assert.equal(frames.at(-1).Offset, Buffer.byteLength(data));

    // origin=end: only the last bytes.
    const tail = await call(a.url, 'GET', `/v1/client/fs/logs/${id}?task=web&type=stdout&plain=true&origin=end&offset=7`, { token: ROOT });
    assert.equal(tail.text.length, 7);

    // Follow: lines the task prints after the request started arrive on the open reply.
    const before = (await call(a.url, 'GET', `/v1/client/fs/logs/${id}?task=web&plain=true`, { token: ROOT })).text;
    const lastBefore = Number(/line (\d+)\n$/.exec(before)![1]);
    const ac = new AbortController();
    const res = await fetch(`${a.url}/v1/client/fs/logs/${id}?task=web&plain=true&follow=true&origin=end&offset=0`, {
      headers: { 'X-Sched-Token': ROOT },
      signal: ac.signal,
    });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    let seen = '';
    while (!seen.includes(`line ${lastBefore + 5}\n`)) {
      const { value, done } = await reader.read();
      assert.equal(done, false, 'the followed log ended early');
      seen += Buffer.from(value!).toString();
    }
    ac.abort();
    assert.ok(!seen.includes('line 0\n'), 'origin=end with offset 0 starts at the end');

    const stderr = await call(a.url, 'GET', `/v1/client/fs/logs/${id}?task=web&type=stderr&plain=true`, { token: ROOT });
    assert.equal(stderr.status, 200);
    assert.equal(stderr.text, '');
    const bad = await call(a.url, 'GET', `/v1/client/fs/logs/${id}?task=nope`, { token: ROOT });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /unknown task name "nope"/);
    const denied = await clientToken(a.url, 'no-logs', 'namespace "default" { policy = "read" }');
    assert.equal((await call(a.url, 'GET', `/v1/client/fs/logs/${id}?task=web`, { token: denied.secret })).status, 403);

    await stopJob(a, 'printer');
    await allocWhen(a, id, { what: 'complete after stop', ok: (x) => x.ClientStatus === 'complete' });
  });

  it('completes a batch task that exits 0', async () => {
    await readyNode(a);
    const id = await runJob(a, job('once', [shTask('t', 'echo "hi from $CAIRN_TASK_NAME in $CAIRN_ALLOC_ID"; exit 0')], { type: 'batch' }));
    const done = await allocWhen(a, id, { what: 'complete', ok: (x) => x.ClientStatus === 'complete' });
    assert.equal(done.ClientDescription, 'All tasks have completed');
    assert.equal(done.TaskStates.t.State, 'dead');
    assert.equal(done.TaskStates.t.Failed, false);
    assert.deepEqual(eventTypes(done, 't'), ['Received', 'Task Setup', 'Started', 'Terminated']);
    assert.equal(done.TaskStates.t.Events[3].ExitCode, 0);
    const log = await call(a.url, 'GET', `/v1/client/fs/logs/${id}?task=t&plain=true`, { token: ROOT });
    assert.equal(log.text, `hi from t in ${id}\n`);
  });

  it('restarts a killed task by its policy, then fails the allocation with Not Restarting and an alloc-failure evaluation', async () => {
    await readyNode(a);
    const restart = { Attempts: 2, Interval: 600e9, Delay: 50e6, Mode: 'fail' };
    // Registered, so the scheduler sees the job when the failure is reported.
    const id = await runJob(a, job('crashy', [shTask('t', 'echo up; exec sleep 60')], { restart }));
    const pids = new Set<number>();
    for (let kill = 1; kill <= 3; kill++) {
      const pid = await until(`task process ${kill}`, 10_000, () => {
        const rec = JSON.parse(readFileSync(join(a.dataDir, 'client', 'tasks.json'), 'utf8'))[`${id}/t`];
        return rec && !pids.has(rec.pid) ? (rec.pid as number) : undefined;
      });
      pids.add(pid);
      await allocWhen(a, id, { what: `running ${kill}`, ok: (x) => x.TaskStates?.t?.State === 'running' });
      process.kill(pid, 'SIGKILL');
      if (kill < 3) await allocWhen(a, id, { what: `restart ${kill}`, ok: (x) => x.TaskStates?.t?.Restarts === kill });
    }
    const failed = await allocWhen(a, id, { what: 'failed', ok: (x) => x.ClientStatus === 'failed' });
    const t = failed.TaskStates.t;
    assert.equal(t.State, 'dead');
    assert.equal(t.Failed, true);
    assert.equal(t.Restarts, 2);
    // The job's deployment (the default update strategy) finds the allocation unhealthy once its task failed: its own event follows.
    const own = t.Events.filter((e: { Type: string }) => e.Type !== 'Alloc Unhealthy');
    const types = eventTypes(failed, 't').filter((x) => x !== 'Alloc Unhealthy');
    assert.deepEqual(types.slice(-3), ['Started', 'Terminated', 'Not Restarting']);
    assert.equal(types.filter((x) => x === 'Restarting').length, 2);
    const last = own.at(-1);
    assert.equal(last.RestartReason, 'Exceeded allowed attempts 2 in interval 10m0s and mode is "fail"');
    assert.equal(last.FailsTask, true);
    const term = own.at(-2);
    assert.equal(term.Signal, 9);
    // One alloc-failure evaluation from the client's report; the scheduler runs it and, the
    // reschedule policy (service default: 30 s delay) not yet due, leaves a delayed follow-up.
    type Ev = { ID: string; JobID: string; TriggeredBy: string; Status: string; PreviousEval: string; WaitUntil: number | null; CreateIndex: number };
    const evals = await until('the follow-up evaluation', 10_000, () => {
      const list = a.state
        .list<Ev>(T.evals)
        .filter((e) => e.JobID === 'crashy' && e.TriggeredBy === 'alloc-failure')
        .sort((x, y) => x.CreateIndex - y.CreateIndex);
      return list.length === 2 && list[0]!.Status === 'complete' ? list : undefined;
    });
    const [report, followup] = evals;
    assert.deepEqual([followup.Status, followup.PreviousEval, followup.WaitUntil !== null], ['pending', report.ID, true]);
    assert.ok(followup.WaitUntil! / 1e6 - Date.now() > 20_000, 'the 30 s reschedule delay (WaitUntil in Unix ns)');
    assert.equal((await call(a.url, 'GET', `/v1/allocation/${id}`, { token: ROOT })).json.FollowupEvalID, followup.ID);
  });

  it('stops a task when its job is stopped: KillSignal first, SIGKILL after kill_timeout', async () => {
    await readyNode(a);
    const script = 'trap "echo got TERM" TERM; echo ready; while true; do sleep 0.05; done';
    const id = await runJob(a, job('stubborn', [shTask('t', script, { KillSignal: 'SIGTERM', KillTimeout: 1e9 })]));
    await until(
      'ready printed',
      10_000,
      async () => (await call(a.url, 'GET', `/v1/client/fs/logs/${id}?task=t&plain=true`, { token: ROOT })).text.includes('ready') || undefined,
    );
    await stopJob(a, 'stubborn');
    const done = await allocWhen(a, id, { what: 'stopped', ok: (x) => x.TaskStates?.t?.State === 'dead' });
    assert.deepEqual([done.DesiredStatus, done.ClientStatus], ['stop', 'complete']);
    assert.deepEqual(eventTypes(done, 't').slice(-3), ['Killing', 'Terminated', 'Killed']);
    const [killing, terminated] = done.TaskStates.t.Events.slice(-3);
    assert.equal(killing.KillTimeout, 1e9);
    assert.equal(killing.Message, 'Sent interrupt. Waiting 1s before force killing');
    assert.equal(terminated.Signal, 9, 'the trap ignored SIGTERM, so SIGKILL ended it');
    const log = await call(a.url, 'GET', `/v1/client/fs/logs/${id}?task=t&plain=true`, { token: ROOT });
    assert.match(log.text, /got TERM/);
  });
});
