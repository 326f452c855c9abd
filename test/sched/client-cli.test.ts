/**
 * `cairn sched alloc status|logs|stop|restart|signal` and `cairn sched node drain|eligibility`
 * against an agent running a client with real tasks: the reference CLI's output style,
 * allocation and node ID prefixes, logs of a chosen stream, `-tail -n`, and `-f` following
 * until interrupted; `alloc stop` as the reference (the scheduler migrates the allocation: it
 * stops it and places a replacement). The job is registered and placed by the scheduler.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SchedClient } from '../../src/sdk/index.js';
import { cliRunner } from '../cli-helpers.js';
import { until } from '../processes.js';
import { allocWhen, job, readyNode, runJob, shTask, startClientAgent } from './client-helpers.js';
import { call, ROOT, type TestAgent } from './helpers.js';

describe('cairn sched alloc and node commands', () => {
  let a: TestAgent;
  let id: string;
  const { start, cairn, ok } = cliRunner({ env: () => ({ SCHED_ADDR: a.url }), rootEnv: () => ({ SCHED_TOKEN: ROOT }) });
  before(async () => {
    a = await startClientAgent();
    await readyNode(a);
    id = await runJob(a, job('web', [shTask('srv', 'echo out-1; echo err-1 >&2; i=0; while true; do i=$((i+1)); echo "tick $i"; sleep 0.1; done')]));
    await allocWhen(a, id, { what: 'running', ok: (x) => x.ClientStatus === 'running' });
  });
  after(async () => {
    await a.stop();
  });

  it('alloc status shows the allocation and its task events, by ID prefix', async () => {
    const out = await ok('sched', 'alloc', 'status', id.slice(0, 8));
    assert.match(out, new RegExp(`^ID +\\= ${id.slice(0, 8)}$`, 'm'));
    assert.match(out, /^Client Status +\= running$/m);
    assert.match(out, /^Client Description +\= Tasks are running$/m);
    assert.match(out, /^Task "srv" is "running"$/m);
    assert.match(out, /^Total Restarts +\= 0$/m);
    assert.match(out, /^Time +Type +Description$/m);
    assert.match(out, /Started +Task started by client$/m);
    const json = JSON.parse(await ok('sched', 'alloc', 'status', '-json', id));
    assert.equal(json.TaskStates.srv.State, 'running');
    const none = await cairn({ SCHED_TOKEN: ROOT }, ['sched', 'alloc', 'status', 'ffff']);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /No allocation\(s\) with prefix or id "ffff" found/);
  });

  it('alloc logs prints stdout or stderr, the tail, and follows until interrupted', async () => {
    await until('tick 3', 10_000, async () => (await ok('sched', 'alloc', 'logs', id)).includes('tick 3\n') || undefined);
    assert.ok((await ok('sched', 'alloc', 'logs', id, 'srv')).startsWith('out-1\ntick 1\n'));
    const err = await cairn({ SCHED_TOKEN: ROOT }, ['sched', 'alloc', 'logs', '-stderr', id]);
    assert.equal(err.code, 0);
    assert.equal(err.stderr, 'err-1\n');
    const tail = await ok('sched', 'alloc', 'logs', '-tail', '-n', '2', id);
    assert.match(tail, /^tick \d+\ntick \d+\n$/);

    const stop = new AbortController();
    const run = start({ SCHED_TOKEN: ROOT }, ['sched', 'alloc', 'logs', '-f', id], { shutdown: stop.signal });
    const seenAt = Number(/tick (\d+)\n$/.exec(await ok('sched', 'alloc', 'logs', id))![1]);
    await until('followed past the current end', 10_000, () => run.out.stdout.includes(`tick ${seenAt + 3}\n`) || undefined);
    stop.abort();
    assert.equal(await run.code, 0);
  });

  it('the SDK lists and reads allocation files and reads logs as frames', async () => {
    const sdk = new SchedClient({ address: a.url, token: ROOT });
    try {
      const files = await sdk.allocations.listAllocationFiles(id, 'alloc/logs');
      assert.deepEqual(files.map((f) => f.Name).sort(), ['srv.stderr.0', 'srv.stdout.0']);
      assert.equal((await sdk.allocations.readAllocationFile(id, 'alloc/logs/srv.stderr.0')).toString(), 'err-1\n');
      await assert.rejects(sdk.allocations.readAllocationFile(id, '../../etc/passwd'), (err: Error & { status?: number }) => err.status === 400);
      const frames = [];
      for await (const f of sdk.allocations.allocationLogs(id, { task: 'srv', type: 'stderr' })) frames.push(f);
      assert.deepEqual(
        frames.map((f) => [f.File, f.Data.toString(), f.Offset]),
        [['srv.stderr.0', 'err-1\n', 6]],
      );
      const nodeAllocs = await sdk.allocations.listNodeAllocations(a.client!.nodeId);
      assert.deepEqual(
        nodeAllocs.data.map((x) => x.ID),
        [id],
      );
    } finally {
      await sdk.close();
    }
  });

  it('alloc restart and signal act on the task; alloc stop stops it and prints the evaluation', async () => {
    assert.match(await ok('sched', 'alloc', 'restart', id, 'srv'), /^Successfully restarted task "srv" of allocation "[0-9a-f]{8}"\n$/);
    await allocWhen(a, id, { what: 'restarted', ok: (x) => x.TaskStates.srv.Restarts === 1 && x.TaskStates.srv.State === 'running' });
    await ok('sched', 'alloc', 'signal', '-s', 'SIGHUP', id, 'srv');
    const sig = await allocWhen(a, id, {
      what: 'restarted after HUP',
      ok: (x) => x.TaskStates.srv.Events.some((e: { Type: string }) => e.Type === 'Signaling'),
    });
    assert.ok(sig);
    const evalId = (await ok('sched', 'alloc', 'stop', id)).trim();
    assert.match(evalId, /^[0-9a-f-]{36}$/);
    const stopped = await allocWhen(a, id, { what: 'stopped', ok: (x) => x.ClientStatus === 'complete' });
    // The reference's Alloc.Stop: the allocation is marked for migration, the scheduler stops it and places a replacement.
    assert.deepEqual([stopped.DesiredStatus, stopped.DesiredDescription, stopped.DesiredTransition.Migrate], ['stop', 'alloc is being migrated', true]);
    const ev = await call(a.url, 'GET', `/v1/evaluation/${evalId}`, { token: ROOT });
    assert.deepEqual([ev.status, ev.json.TriggeredBy, ev.json.JobID], [200, 'alloc-stop', 'web']);
    const next = await allocWhen(a, stopped.NextAllocation, { what: 'the replacement running', ok: (x) => x.ClientStatus === 'running' });
    assert.deepEqual([next.PreviousAllocation, next.Name, next.DesiredStatus], [id, stopped.Name, 'run']);
  });

  it('node eligibility and drain change the node', async () => {
    const node = a.client!.nodeId;
    // Nothing left to move, so the drain stays until cleared (with an allocation it would complete as soon as that stopped).
    assert.equal((await call(a.url, 'DELETE', '/v1/job/web?purge=true', { token: ROOT })).status, 200);
    await until("the job's allocations stopped", 15_000, async () => {
      const list = (await call(a.url, 'GET', `/v1/node/${node}/allocations`, { token: ROOT })).json as { ClientStatus: string }[];
      return list.every((x) => x.ClientStatus !== 'running' && x.ClientStatus !== 'pending') || undefined;
    });
    assert.equal(
      await ok('sched', 'node', 'eligibility', '-disable', node.slice(0, 6)),
      `Node "${node}" scheduling eligibility set: ineligible for scheduling\n`,
    );
    assert.equal((await call(a.url, 'GET', `/v1/node/${node}`, { token: ROOT })).json.SchedulingEligibility, 'ineligible');
    assert.equal(await ok('sched', 'node', 'eligibility', '-enable', node), `Node "${node}" scheduling eligibility set: eligible for scheduling\n`);
    assert.equal(await ok('sched', 'node', 'drain', '-enable', '-deadline', '10m', node), `Node "${node}" drain strategy set\n`);
    const drained = (await call(a.url, 'GET', `/v1/node/${node}`, { token: ROOT })).json;
    assert.equal(drained.DrainStrategy.Deadline, 600e9);
    assert.equal(drained.SchedulingEligibility, 'ineligible');
    assert.equal(await ok('sched', 'node', 'drain', '-disable', node), `Node "${node}" drain strategy unset\n`);
    assert.equal((await call(a.url, 'GET', `/v1/node/${node}`, { token: ROOT })).json.SchedulingEligibility, 'eligible');
    const both = await cairn({ SCHED_TOKEN: ROOT }, ['sched', 'node', 'eligibility', node]);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /Either the '-enable' or '-disable' flag must be set/);
  });
});
