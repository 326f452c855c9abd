/**
 * The plan applier's check at commit (optimistic concurrency): a plan computed before
 * another write filled the node is refused for what no longer fits, and the rest commits;
 * a run of the evaluation afterwards reports the group as failed and blocks. Real agent and
 * state; the plan is computed and applied by hand between the two writes, which the
 * scheduler's own workers never interleave this way in one process.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { KeyedLock } from '../../src/services/sched/csi/locks.js';
import type { SchedDeps } from '../../src/services/sched/deps.js';
import { newEvaluation, type Evaluation } from '../../src/services/sched/jobs/types.js';
import { applyPlan } from '../../src/services/sched/scheduler/apply.js';
import type { NewAlloc } from '../../src/services/sched/scheduler/model.js';
import { computePlan } from '../../src/services/sched/scheduler/schedule.js';
import { T } from '../../src/services/sched/state.js';
import { startAgent, type TestAgent } from './helpers.js';
import { allocsOf, group, job, simNode } from './workloads.js';

describe('scheduler: plan apply', () => {
  let a: TestAgent;
  after(async () => {
    await a?.stop();
  });

  it('refuses placements a write made since the plan no longer leaves room for, and commits the rest', async () => {
    a = await startAgent();
    const node = await simNode(a.url, 'n', { cpu: 1000, memory: 4096 });
    const deps = { state: a.state, now: Date.now, plugins: a.plugins, volumeLocks: new KeyedLock() } as unknown as SchedDeps;
    const j = job('late', [group('g', 2, { cpu: 400, memory: 256 })]);
    await a.state.txn((tx) => tx.put(T.jobs, 'default/late', j));
    const evaluation: Evaluation = newEvaluation(randomUUID(), j, { triggeredBy: 'job-register', nowNs: Date.now() * 1e6 });
    const plan = computePlan(deps, a.state, evaluation, { nowNs: Date.now() * 1e6 });
    assert.equal(plan.places.length, 2, 'both fit when planned');

    // Another plan commits first and takes 500 MHz of the node's 1,000.
    const other = {
      ...plan.places[0]!,
      ID: randomUUID(),
      JobID: 'early',
      Name: 'early.g[0]',
      AllocatedResources: { Tasks: { t: { Cpu: { CpuShares: 500 }, Memory: { MemoryMB: 256 } } }, Shared: { DiskMB: 0 } },
    } satisfies NewAlloc;
    await a.state.txn((tx) => tx.put(T.allocs, other.ID, other));

    const applied = await applyPlan(deps, plan, Date.now() * 1e6);
    assert.deepEqual([applied.placed, applied.refused], [1, 1]);
    const placed = await allocsOf(a.url, 'late');
    assert.equal(placed.length, 1);
    assert.equal(placed[0]!.NodeID, node);

    // Planned again from the state the apply left: the second allocation has no room.
    const again = computePlan(deps, a.state, evaluation, { nowNs: Date.now() * 1e6 });
    assert.equal(again.places.length, 0);
    assert.equal(again.failed.g?.NodesExhausted, 1);
    assert.deepEqual(again.failed.g?.DimensionExhausted, { cpu: 1 });
  });
});
