/**
 * Restart policy `Mode = "delay"` (reference/sched-workloads.md "Client agent": after
 * `Attempts` restarts within `Interval`, the task waits for the interval to end instead of
 * failing): a task that keeps exiting 3 is restarted within policy, then restarted again
 * only once the interval is over (`Exceeded allowed attempts, applying a delay`), and the
 * allocation never fails.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { allocWhen, job, readyNode, runJob, shTask, startClientAgent } from './client-helpers.js';
import type { TestAgent } from './helpers.js';

const agents: TestAgent[] = [];
after(async () => {
  for (const a of agents) await a.stop();
});

type TaskEvent = { Type: string; Time: number; RestartReason: string };

describe('client restart policy mode delay', () => {
  it('waits for the next interval after the attempts instead of failing the allocation', async () => {
    const a = await startClientAgent();
    agents.push(a);
    await readyNode(a);
    // 5 s: the smallest interval the reference accepts.
    const interval = 5e9;
    const restart = { Attempts: 1, Interval: interval, Delay: 100e6, Mode: 'delay' };
    const id = await runJob(a, job('delayed', [shTask('t', 'exit 3')], { restart }));
    const alloc = await allocWhen(a, id, 'restarted after the delay', (x) => (x.TaskStates?.t?.Restarts ?? 0) >= 2 && x.TaskStates.t.Events.filter((e: TaskEvent) => e.Type === 'Started').length >= 3, 20_000);
    assert.notEqual(alloc.ClientStatus, 'failed');
    const events = alloc.TaskStates.t.Events as TaskEvent[];
    const restarting = events.filter((e) => e.Type === 'Restarting');
    assert.equal(restarting[0]!.RestartReason, 'Restart within policy');
    assert.equal(restarting[1]!.RestartReason, 'Exceeded allowed attempts, applying a delay');
    assert.ok(!events.some((e) => e.Type === 'Not Restarting'));
    // The third start waits for the end of the interval the first start opened.
    const started = events.filter((e) => e.Type === 'Started');
    assert.ok(started[2]!.Time - started[0]!.Time >= interval - 50e6, `third start ${(started[2]!.Time - started[0]!.Time) / 1e6} ms after the first`);
  });
});
