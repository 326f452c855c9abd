/**
 * The scheduler on the leader, over HTTP with simulated client nodes (registered through
 * `PUT /v1/node/register`) and jobs stored as the jobs API stores them (workloads.ts
 * `putJob`): placement with bin-packing and anti-affinity, failed placements and blocked
 * evaluations, optimistic concurrency under concurrent registrations, constraints, system
 * jobs, job stop, the plan dry run, allocation stop, and the events a plan produces.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { jobKey, type Evaluation, type Job } from '../../src/services/sched/jobs/types.js';
import { T } from '../../src/services/sched/state.js';
import { assertDenied, call, clientToken, ROOT, startAgent, type TestAgent } from './helpers.js';
import { Stream } from './stream.js';
import { allocsOf, group, job, putJob, running, settled, simNode, until } from './workloads.js';

const agents: TestAgent[] = [];
async function agent(over: Parameters<typeof startAgent>[0] = {}): Promise<TestAgent> {
  const a = await startAgent(over);
  agents.push(a);
  return a;
}
after(async () => {
  for (const a of agents) await a.stop();
});

const nodeRead = async (url: string, id: string) => (await call(url, 'GET', `/v1/node/${id}`, { token: ROOT })).json;

describe('scheduler: placement', () => {
  it('places a service job of count 3 on 2 nodes, the fuller node first, with the allocation fields and events of the reference', async () => {
    const a = await agent();
    const small = await simNode(a.url, 'small', { cpu: 1000, memory: 1024 });
    const big = await simNode(a.url, 'big', { cpu: 4000, memory: 8192 });
    const stream = await Stream.open(a.url, `index=${a.state.index + 1}&topic=Allocation&topic=Evaluation`);
    const evalId = await putJob(a, job('web', [group('g', 3, { cpu: 200, memory: 256 })]));
    const done = await settled(a, evalId);
    assert.equal(done.Status, 'complete');
    assert.equal(done.FailedTGAllocs, null);
    assert.deepEqual(done.QueuedAllocations, { g: 0 });
    const allocs = await allocsOf(a.url, 'web');
    assert.deepEqual(allocs.map((x) => x.Name).sort(), ['web.g[0]', 'web.g[1]', 'web.g[2]']);
    // Bin-packing fills the small node first; anti-affinity sends the second to the big one.
    assert.equal(allocs.filter((x) => x.NodeID === small).length, 2);
    assert.equal(allocs.filter((x) => x.NodeID === big).length, 1);
    for (const x of allocs) {
      assert.equal(x.DesiredStatus, 'run');
      assert.equal(x.ClientStatus, 'pending');
      assert.equal(x.NodeName, x.NodeID === small ? 'small' : 'big');
      assert.deepEqual(x.AllocatedResources?.Tasks, { t: { Cpu: { CpuShares: 200 }, Memory: { MemoryMB: 256 } } });
    }
    const stored = a.state.get<Job>(T.jobs, jobKey('default', 'web'))!;
    assert.equal(stored.Status, 'running');
    const seen: { Topic: string; Type: string }[] = [];
    while (!seen.some((e) => e.Topic === 'Evaluation' && e.Type === 'EvaluationUpdated')) {
      const f = await stream.frame();
      assert.ok(f, 'stream ended');
      for (const e of f.Events ?? []) seen.push({ Topic: e.Topic, Type: e.Type });
    }
    stream.close();
    assert.equal(seen.filter((e) => e.Topic === 'Allocation' && e.Type === 'PlanResult').length, 3);
    assert.ok(
      seen.some((e) => e.Topic === 'Evaluation' && e.Type === 'JobRegistered'),
      JSON.stringify(seen),
    );
  });

  it('a job that does not fit completes with FailedTGAllocs and a blocked evaluation, placed once a node registers', async () => {
    const a = await agent();
    await simNode(a.url, 'tiny', { cpu: 500, memory: 512 });
    const evalId = await putJob(a, job('big', [group('g', 1, { cpu: 2000, memory: 1024 })]));
    const done = await settled(a, evalId);
    assert.equal(done.Status, 'complete');
    const failed = done.FailedTGAllocs?.g;
    assert.ok(failed, JSON.stringify(done));
    assert.equal(failed.NodesEvaluated, 1);
    assert.equal(failed.NodesExhausted, 1);
    assert.deepEqual(failed.DimensionExhausted, { cpu: 1 });
    assert.deepEqual(done.QueuedAllocations, { g: 1 });
    const blocked = a.state.get<Evaluation>(T.evals, done.BlockedEval)!;
    assert.equal(blocked.Status, 'blocked');
    assert.equal(blocked.TriggeredBy, 'queued-allocs');
    assert.equal(blocked.PreviousEval, evalId);
    assert.deepEqual(await allocsOf(a.url, 'big'), []);
    assert.equal(a.state.get<Job>(T.jobs, jobKey('default', 'big'))!.Status, 'pending');

    const large = await simNode(a.url, 'large', { cpu: 4000, memory: 4096 });
    const placed = await until('the blocked job to be placed', async () => {
      const allocs = await allocsOf(a.url, 'big');
      return allocs.length === 1 ? allocs : undefined;
    });
    assert.equal(placed[0]!.NodeID, large);
    const unblocked = await settled(a, blocked.ID);
    assert.equal(unblocked.Status, 'complete');
  });

  it('20 concurrent job registrations never over-commit a node', async () => {
    const a = await agent({ schedulerWorkers: 8 });
    const nodes = await Promise.all(['n1', 'n2', 'n3'].map((n) => simNode(a.url, n, { cpu: 1000, memory: 1024 })));
    const evals = await Promise.all(Array.from({ length: 20 }, (_, i) => putJob(a, job(`j${i}`, [group('g', 2, { cpu: 300, memory: 200 })]))));
    const done = await Promise.all(evals.map((id) => settled(a, id)));
    assert.ok(done.every((e) => e.Status === 'complete'));
    const cpu = new Map<string, number>();
    const mem = new Map<string, number>();
    let placed = 0;
    for (let i = 0; i < 20; i++) {
      for (const x of running(await allocsOf(a.url, `j${i}`))) {
        placed++;
        const t = x.AllocatedResources!.Tasks.t!;
        cpu.set(x.NodeID, (cpu.get(x.NodeID) ?? 0) + t.Cpu.CpuShares);
        mem.set(x.NodeID, (mem.get(x.NodeID) ?? 0) + t.Memory.MemoryMB);
      }
    }
    for (const n of nodes) {
      assert.ok((cpu.get(n) ?? 0) <= 1000, `node ${n} cpu ${cpu.get(n)}`);
      assert.ok((mem.get(n) ?? 0) <= 1024, `node ${n} memory ${mem.get(n)}`);
    }
    // Three 300 MHz allocations fit on each 1000 MHz node, and all of that room is used.
    assert.equal(placed, 9);
    assert.ok(done.some((e) => e.FailedTGAllocs !== null));
  });

  it('constraints and drivers filter nodes, counted in ConstraintFiltered', async () => {
    const a = await agent();
    await simNode(a.url, 'r1', { over: { Meta: { rack: 'r1' } } });
    const r2 = await simNode(a.url, 'r2', {
      over: { Meta: { rack: 'r2' }, Attributes: { 'kernel.name': 'linux', 'driver.raw_exec': '1', 'os.version': '24.04' } },
    });
    const ok = await settled(
      a,
      await putJob(
        a,
        job('pinned', [group('g', 2, { cpu: 100, memory: 100, over: { Constraints: [{ LTarget: '${meta.rack}', RTarget: 'r2', Operand: '=' }] } })]),
      ),
    );
    assert.equal(ok.FailedTGAllocs, null);
    const pinned = await allocsOf(a.url, 'pinned');
    assert.deepEqual(
      pinned.map((x) => x.NodeID),
      [r2, r2],
    );
    const versioned = await settled(
      a,
      await putJob(
        a,
        job('versioned', [group('g', 1, { cpu: 100, memory: 100 })], {
          Constraints: [{ LTarget: '${attr.os.version}', RTarget: '>= 22.4', Operand: 'version' }],
        }),
      ),
    );
    assert.equal(versioned.FailedTGAllocs, null);
    assert.equal((await allocsOf(a.url, 'versioned'))[0]!.NodeID, r2);

    const none = await settled(
      a,
      await putJob(a, job('windows', [group('g', 2)], { Constraints: [{ LTarget: '${attr.kernel.name}', RTarget: 'windows', Operand: '=' }] })),
    );
    assert.equal(none.FailedTGAllocs?.g?.NodesFiltered, 2);
    assert.deepEqual(none.FailedTGAllocs?.g?.ConstraintFiltered, { '${attr.kernel.name} = windows': 2 });
    assert.equal(none.FailedTGAllocs?.g?.CoalescedFailures, 1);
    const docker = group('g', 1);
    const noDriver = await settled(a, await putJob(a, job('docker', [{ ...docker, Tasks: [{ ...docker.Tasks[0]!, Driver: 'docker' }] }])));
    assert.deepEqual(noDriver.FailedTGAllocs?.g?.ConstraintFiltered, { 'missing drivers': 2 });
    const distinct = await settled(
      a,
      await putJob(
        a,
        job('spread', [group('g', 3, { cpu: 100, memory: 100, over: { Constraints: [{ LTarget: '', RTarget: '', Operand: 'distinct_hosts' }] } })]),
      ),
    );
    assert.equal((await allocsOf(a.url, 'spread')).length, 2, 'one per host');
    assert.deepEqual(distinct.QueuedAllocations, { g: 1 });
  });

  it('a system job runs on every feasible node, and on a node that registers later', async () => {
    const a = await agent();
    const n1 = await simNode(a.url, 's1');
    const n2 = await simNode(a.url, 's2');
    await simNode(a.url, 'old', { over: { Attributes: { 'kernel.name': 'linux' }, Drivers: null } });
    const done = await settled(a, await putJob(a, job('agent', [group('g', 1, { cpu: 100, memory: 100 })], { Type: 'system' })));
    assert.equal(done.Status, 'complete');
    let allocs = await allocsOf(a.url, 'agent');
    assert.deepEqual(allocs.map((x) => x.NodeID).sort(), [n1, n2].sort(), 'not on the node without raw_exec');
    assert.ok(allocs.every((x) => x.Name === 'agent.g[0]'));
    const n3 = await simNode(a.url, 's3');
    allocs = await until('an allocation on the new node', async () => {
      const all = await allocsOf(a.url, 'agent');
      return all.length === 3 ? all : undefined;
    });
    assert.ok(allocs.some((x) => x.NodeID === n3));
    assert.equal(a.state.get<Job>(T.jobs, jobKey('default', 'agent'))!.Status, 'running');
  });

  it('stopping a job stops its allocations and the job goes dead', async () => {
    const a = await agent();
    await simNode(a.url, 'n');
    const j = job('gone', [group('g', 2)]);
    await settled(a, await putJob(a, j));
    assert.equal(running(await allocsOf(a.url, 'gone')).length, 2);
    await settled(a, await putJob(a, { ...j, Stop: true }));
    const allocs = await allocsOf(a.url, 'gone');
    assert.deepEqual(
      allocs.map((x) => [x.DesiredStatus, x.DesiredDescription]),
      [
        ['stop', 'alloc not needed due to job update'],
        ['stop', 'alloc not needed due to job update'],
      ],
    );
    assert.equal(a.state.get<Job>(T.jobs, jobKey('default', 'gone'))!.Status, 'dead');
  });

  it('a batch allocation that completed stays complete and is not replaced', async () => {
    const a = await agent();
    await simNode(a.url, 'n');
    const j = job('once', [group('g', 1)], { Type: 'batch' });
    await settled(a, await putJob(a, j));
    const [first] = await allocsOf(a.url, 'once');
    const r = await call(a.url, 'POST', `/v1/allocation/${first!.ID}/client-status`, { token: ROOT, body: { ClientStatus: 'complete' } });
    assert.equal(r.status, 200, r.text);
    await until('the job to be dead', () => a.state.get<Job>(T.jobs, jobKey('default', 'once'))!.Status === 'dead');
    await settled(a, await putJob(a, j));
    const allocs = await allocsOf(a.url, 'once');
    assert.deepEqual(
      allocs.map((x) => x.ClientStatus),
      ['complete'],
    );
  });
});

describe('scheduler: rescheduling', () => {
  it('a failed allocation is replaced after its reschedule delay, with the links and tracker of the reference, until no attempt is left', async () => {
    const a = await agent();
    const node = await simNode(a.url, 'n');
    // 5 s: the reference's smallest reschedule delay.
    const policy = { Attempts: 1, Interval: 3600e9, Delay: 5e9, DelayFunction: 'constant', MaxDelay: 0, Unlimited: false };
    const j = job('flaky', [group('g', 1, { cpu: 100, memory: 100, over: { ReschedulePolicy: policy } })]);
    await settled(a, await putJob(a, j));
    const [first] = await allocsOf(a.url, 'flaky');
    /** What the client agent does when an allocation fails: report it; the report writes an `alloc-failure` evaluation, which the scheduler settles. */
    const seen = new Set<string>();
    const fail = async (allocId: string) => {
      const r = await call(a.url, 'POST', `/v1/allocation/${allocId}/client-status`, { token: ROOT, body: { ClientStatus: 'failed' } });
      assert.equal(r.status, 200, r.text);
      // The report's evaluation is the oldest one not seen yet (a follow-up the scheduler makes is newer).
      const [report] = a.state
        .list<Evaluation>(T.evals)
        .filter((e) => e.JobID === 'flaky' && e.TriggeredBy === 'alloc-failure' && !seen.has(e.ID))
        .sort((x, y) => x.CreateIndex - y.CreateIndex);
      assert.ok(report, 'the report wrote an alloc-failure evaluation');
      seen.add(report.ID);
      const settledEval = await settled(a, report.ID);
      for (const e of a.state.list<Evaluation>(T.evals)) seen.add(e.ID);
      return settledEval;
    };
    const failedAt = Date.now();
    await fail(first!.ID);
    const waiting = (await allocsOf(a.url, 'flaky')).find((x) => x.ID === first!.ID)!;
    assert.notEqual(waiting.FollowupEvalID, '', 'a follow-up evaluation waits for the delay');
    const followup = a.state.get<Evaluation>(T.evals, waiting.FollowupEvalID)!;
    assert.equal(followup.TriggeredBy, 'alloc-failure');
    assert.ok(followup.WaitUntil! >= failedAt * 1e6 + 5e9 - 50e6, 'WaitUntil is the failure time plus the delay');
    // Shown as the reference's time.Time: an RFC3339 string (Go's zero time when there is none).
    const shown = await call(a.url, 'GET', `/v1/evaluation/${followup.ID}`, { token: ROOT });
    assert.equal(shown.json.WaitUntil, new Date(followup.WaitUntil! / 1e6).toISOString().replace(/\.?0*Z$/, 'Z'));
    assert.equal((await call(a.url, 'GET', `/v1/evaluation/${followup.PreviousEval}`, { token: ROOT })).json.WaitUntil, '0001-01-01T00:00:00Z');
    const allocs = await until(
      'the replacement',
      async () => {
        const all = await allocsOf(a.url, 'flaky');
        return all.length === 2 ? all : undefined;
      },
      30_000,
    );
    assert.ok(Date.now() - failedAt >= 4900, 'not before the delay');
    const old = allocs.find((x) => x.ID === first!.ID)!;
    const next = allocs.find((x) => x.ID !== first!.ID)!;
    assert.deepEqual([old.DesiredStatus, old.DesiredDescription, old.NextAllocation], ['stop', 'alloc was rescheduled because it failed', next.ID]);
    assert.deepEqual([next.PreviousAllocation, next.Name, next.NodeID], [first!.ID, 'flaky.g[0]', node]);
    assert.deepEqual(
      next.RescheduleTracker?.Events.map((e) => [e.PrevAllocID, e.PrevNodeID]),
      [[first!.ID, node]],
    );

    // The one attempt in the interval is used: the next failure stays failed, and its report
    // writes no evaluation (the reference's RescheduleEligible).
    const evalsBefore = a.state.list<Evaluation>(T.evals).length;
    const r = await call(a.url, 'POST', `/v1/allocation/${next.ID}/client-status`, { token: ROOT, body: { ClientStatus: 'failed' } });
    assert.equal(r.status, 200, r.text);
    assert.equal(a.state.list<Evaluation>(T.evals).length, evalsBefore);
    const after = await allocsOf(a.url, 'flaky');
    assert.equal(after.length, 2);
    assert.equal(after.find((x) => x.ID === next.ID)!.FollowupEvalID, '');
  });
});

describe('scheduler: failure reports and the reschedule policy', () => {
  it('a failure report writes an alloc-failure evaluation only when the group may be rescheduled', async () => {
    const a = await agent();
    await simNode(a.url, 'n');
    const policy = (o: Record<string, unknown>) => ({
      Attempts: 0,
      Interval: 3600e9,
      Delay: 5e9,
      DelayFunction: 'constant',
      MaxDelay: 0,
      Unlimited: false,
      ...o,
    });
    const failOnce = async (id: string, p: Record<string, unknown>) => {
      await settled(a, await putJob(a, job(id, [group('g', 1, { cpu: 100, memory: 100, over: { ReschedulePolicy: policy(p) } })])));
      const [x] = await allocsOf(a.url, id);
      const r = await call(a.url, 'POST', `/v1/allocation/${x!.ID}/client-status`, { token: ROOT, body: { ClientStatus: 'failed' } });
      assert.equal(r.status, 200, r.text);
      // The report's own evaluation: the scheduler may already have written its delayed follow-up
      // (also `alloc-failure`, with `PreviousEval`) by the time the count runs.
      return a.state.list<Evaluation>(T.evals).filter((e) => e.JobID === id && e.TriggeredBy === 'alloc-failure' && !e.PreviousEval).length;
    };
    assert.equal(await failOnce('never', {}), 0, 'no attempts: no evaluation');
    assert.equal(await failOnce('unlimited', { Unlimited: true }), 1, 'unlimited: an evaluation');
    assert.equal(await failOnce('twice', { Attempts: 2 }), 1, 'attempts left: an evaluation');
  });
});

describe('scheduler: nodes', () => {
  it('a node that misses its heartbeat goes down; its allocations are lost and replaced on the other node', async () => {
    const a = await agent({ heartbeatTtlMs: 1000, heartbeatGraceMs: 500 });
    const secrets = { dying: randomUUID(), alive: randomUUID() };
    const dying = await simNode(a.url, 'dying', { over: { SecretID: secrets.dying } });
    const alive = await simNode(a.url, 'alive', { over: { SecretID: secrets.alive } });
    let dyingBeats = true;
    const beat = setInterval(() => {
      for (const id of dyingBeats ? [alive, dying] : [alive]) void call(a.url, 'POST', `/v1/node/${id}/status`, { token: ROOT, body: { Status: 'ready' } });
    }, 200);
    try {
      const reg = await call(a.url, 'POST', `/v1/node/${alive}/status`, { token: ROOT, body: { Status: 'ready' } });
      assert.equal(reg.json.HeartbeatTTL, 1000 * 1e6);
      await settled(a, await putJob(a, job('svc', [group('g', 2)])));
      const before = await allocsOf(a.url, 'svc');
      const onDying = before.find((x) => x.NodeID === dying);
      assert.ok(onDying, 'anti-affinity put one allocation on each node');
      dyingBeats = false;
      const node = await until('the node to be down', async () => {
        const n = await nodeRead(a.url, dying);
        return n.Status === 'down' ? n : undefined;
      });
      assert.equal(node.Events.at(-1).Message, 'Node heartbeat missed');
      const allocs = await until('the replacement', async () => {
        const all = await allocsOf(a.url, 'svc');
        return running(all).length === 2 && all.length === 3 ? all : undefined;
      });
      const lost = allocs.find((x) => x.ID === onDying.ID)!;
      assert.equal(lost.ClientStatus, 'lost');
      assert.equal(lost.DesiredStatus, 'stop');
      const replacement = allocs.find((x) => x.PreviousAllocation === lost.ID)!;
      assert.equal(replacement.NodeID, alive);
      assert.equal(replacement.Name, lost.Name);
      assert.equal(lost.NextAllocation, replacement.ID);
      assert.equal((await nodeRead(a.url, alive)).Status, 'ready');
      // The replacement's node reads the lost allocation with its secret (its client removes the lost one's registrations); no other node does.
      const read = (id: string, token: string) => call(a.url, 'GET', `/v1/allocation/${id}`, { token });
      const mine = await read(lost.ID, secrets.alive);
      assert.deepEqual([mine.status, mine.json.ClientStatus, mine.json.NodeID], [200, 'lost', dying]);
      assertDenied(await read(lost.ID, secrets.dying), "the lost allocation's own node");
      assertDenied(await read(lost.ID, randomUUID()), 'another secret');
      assertDenied(await read(replacement.ID, secrets.alive), 'an allocation not replaced');
    } finally {
      clearInterval(beat);
    }
  });

  it('a drain moves allocations to other nodes and completes', async () => {
    const a = await agent();
    const drained = await simNode(a.url, 'drained');
    const other = await simNode(a.url, 'other');
    await settled(a, await putJob(a, job('svc', [group('g', 2)])));
    const moving = (await allocsOf(a.url, 'svc')).find((x) => x.NodeID === drained)!;
    const r = await call(a.url, 'POST', `/v1/node/${drained}/drain`, { token: ROOT, body: { DrainSpec: { Deadline: 3600e9, IgnoreSystemJobs: false } } });
    assert.equal(r.status, 200, r.text);
    const node = await until('the drain to complete', async () => {
      const n = await nodeRead(a.url, drained);
      return n.DrainStrategy === null && n.LastDrain?.Status === 'complete' ? n : undefined;
    });
    assert.equal(node.Events.at(-1).Message, 'Node drain complete');
    assert.equal(node.SchedulingEligibility, 'ineligible');
    const allocs = await allocsOf(a.url, 'svc');
    const old = allocs.find((x) => x.ID === moving.ID)!;
    assert.deepEqual([old.DesiredStatus, old.DesiredDescription, old.DesiredTransition.Migrate], ['stop', 'alloc is being migrated', true]);
    const live = running(allocs);
    assert.equal(live.length, 2);
    assert.ok(live.every((x) => x.NodeID === other));
    assert.equal(live.find((x) => x.PreviousAllocation === moving.ID)?.Name, moving.Name);
  });
});

describe('scheduler: routes', () => {
  it('POST /v1/job/:id/plan shows what would happen and changes nothing', async () => {
    const a = await agent();
    await simNode(a.url, 'n', { cpu: 1000, memory: 2048 });
    const body = {
      Job: {
        ID: 'web',
        TaskGroups: [
          { Name: 'g', Count: 3, Tasks: [{ Name: 't', Driver: 'raw_exec', Config: { command: '/bin/true' }, Resources: { CPU: 400, MemoryMB: 256 } }] },
        ],
      },
      Diff: true,
    };
    const index = a.state.index;
    const r = await call(a.url, 'POST', '/v1/job/web/plan', { token: ROOT, body });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.Annotations.DesiredTGUpdates.g, {
      Ignore: 0,
      Place: 3,
      Migrate: 0,
      Stop: 0,
      InPlaceUpdate: 0,
      DestructiveUpdate: 0,
      Canary: 0,
      Preemptions: 0,
    });
    assert.equal(r.json.FailedTGAllocs.g.NodesExhausted, 1, 'the third does not fit');
    assert.equal(r.json.JobModifyIndex, 0);
    assert.equal(r.json.Diff.Type, 'Added');
    assert.deepEqual(r.json.Diff.TaskGroups[0].Updates, { create: 3 });
    assert.equal(a.state.index, index, 'nothing written');
    assert.equal(a.state.count(T.evals), 0);
    assert.deepEqual(await allocsOf(a.url, 'web'), []);

    await settled(a, await putJob(a, job('web', [group('g', 2, { cpu: 400, memory: 256 })])));
    const scaled = await call(a.url, 'PUT', '/v1/job/web/plan', { token: ROOT, body: { Job: job('web', [group('g', 1, { cpu: 400, memory: 256 })]) } });
    assert.equal(scaled.status, 200, scaled.text);
    assert.deepEqual(scaled.json.Annotations.DesiredTGUpdates.g, {
      Ignore: 0,
      Place: 0,
      Migrate: 0,
      Stop: 1,
      InPlaceUpdate: 1,
      DestructiveUpdate: 0,
      Canary: 0,
      Preemptions: 0,
    });
    assert.equal(scaled.json.Diff, null);
    assert.ok(scaled.json.JobModifyIndex > 0);
    assert.equal(running(await allocsOf(a.url, 'web')).length, 2, 'nothing stopped');

    const mismatch = await call(a.url, 'POST', '/v1/job/other/plan', { token: ROOT, body });
    assert.deepEqual([mismatch.status, mismatch.text], [400, 'Job ID does not match request path']);
    const bad: [unknown, string][] = [
      [{ ID: 'web', TaskGroups: [] }, 'job "web" has no task groups'],
      [{ ID: 'web', TaskGroups: [7] }, 'json: cannot unmarshal number into Go value of type structs.TaskGroup'],
      [
        { ID: 'web', Constraints: 'x', TaskGroups: [{ Name: 'g', Tasks: [] }] },
        'json: cannot unmarshal string into Go struct field structs.Job.Constraints of type []*structs.Constraint',
      ],
      [
        { ID: 'web', TaskGroups: [{ Name: 'g', Count: 'three', Tasks: [] }] },
        'json: cannot unmarshal string into Go struct field structs.TaskGroup.Count of type int64',
      ],
      [{ ID: 'web', TaskGroups: [{ Name: 'g', Tasks: [{ Name: 't' }] }] }, 'task group "g": a task is missing its name or driver'],
    ];
    for (const [j, text] of bad) {
      const r = await call(a.url, 'POST', '/v1/job/web/plan', { token: ROOT, body: { Job: j } });
      assert.deepEqual([r.status, r.text], [400, text], JSON.stringify(j));
    }
    const reader = await clientToken(a.url, 'reader', 'namespace "default" { policy = "read" }');
    assertDenied(await call(a.url, 'POST', '/v1/job/web/plan', { token: reader.secret, body }));
  });

  it('FailedTGAllocs counts the failed placement only, not the nodes exhausted while placing the others', async () => {
    const a = await agent();
    await simNode(a.url, 'a', { cpu: 1000, memory: 4096 });
    await simNode(a.url, 'b', { cpu: 500, memory: 4096 });
    const r = await call(a.url, 'POST', '/v1/job/three/plan', { token: ROOT, body: { Job: job('three', [group('g', 3, { cpu: 600, memory: 100 })]) } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.Annotations.DesiredTGUpdates.g.Place, 3);
    const failed = r.json.FailedTGAllocs.g;
    assert.deepEqual([failed.NodesEvaluated, failed.NodesExhausted, failed.DimensionExhausted, failed.CoalescedFailures], [2, 2, { cpu: 2 }, 1]);
    assert.deepEqual(failed.NodesAvailable, { dc1: 2 });
  });

  it('POST /v1/allocation/:id/stop stops the allocation and the scheduler replaces it', async () => {
    const a = await agent();
    await simNode(a.url, 'n');
    await settled(a, await putJob(a, job('svc', [group('g', 1)])));
    const [first] = await allocsOf(a.url, 'svc');
    const reader = await clientToken(a.url, 'reader2', 'namespace "default" { policy = "read" }');
    assertDenied(await call(a.url, 'POST', `/v1/allocation/${first!.ID}/stop`, { token: reader.secret }));
    const r = await call(a.url, 'POST', `/v1/allocation/${first!.ID}/stop`, { token: ROOT });
    assert.equal(r.status, 200, r.text);
    assert.ok(r.json.Index > 0);
    const e = await settled(a, r.json.EvalID);
    assert.deepEqual([e.TriggeredBy, e.Status], ['alloc-stop', 'complete']);
    const allocs = await allocsOf(a.url, 'svc');
    assert.equal(allocs.find((x) => x.ID === first!.ID)!.DesiredStatus, 'stop');
    assert.equal(running(allocs)[0]!.PreviousAllocation, first!.ID);
    const missing = await call(a.url, 'POST', '/v1/allocation/00000000-0000-4000-8000-000000000000/stop', { token: ROOT });
    assert.deepEqual([missing.status, missing.text], [404, 'alloc not found']);
  });
});
