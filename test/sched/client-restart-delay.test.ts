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

type TaskEvent = { Type: string; Time: number; RestartReason: string; Details: Record<string, string> };

describe('client restart policy mode delay', () => {
  it('waits for the next interval after the attempts instead of failing the allocation', async () => {
    const a = await startClientAgent();
    agents.push(a);
    await readyNode(a);
    // 5 s: the smallest interval the reference accepts.
    const interval = 5e9;
    const restart = { Attempts: 1, Interval: interval, Delay: 100e6, Mode: 'delay' };
    const id = await runJob(a, job('delayed', [shTask('t', 'exit 3')], { restart }));
    const startedAfterDelay = (events: TaskEvent[]) => {
      const i = events.findIndex((e) => e.Type === 'Restarting' && e.RestartReason === 'Exceeded allowed attempts, applying a delay');
      return i >= 0 && events.slice(i).some((e) => e.Type === 'Started');
    };
    const alloc = await allocWhen(a, id, { what: 'restarted after the delay', ok: (x) => startedAfterDelay(x.TaskStates?.t?.Events ?? []), ms: 20_000 });
    assert.notEqual(alloc.ClientStatus, 'failed');
    // The client keeps a task's last 10 events (as the reference): find the cycle that was delayed.
    const events = alloc.TaskStates.t.Events as TaskEvent[];
    assert.ok(!events.some((e) => e.Type === 'Not Restarting'));
    const delayed = events.findIndex((e) => e.Type === 'Restarting' && e.RestartReason === 'Exceeded allowed attempts, applying a delay');
    assert.ok(delayed > 0, JSON.stringify(events.map((e) => [e.Type, e.RestartReason])));
    const withinPolicy = events.slice(0, delayed).filter((e) => e.Type === 'Restarting');
    assert.ok(withinPolicy.every((e) => e.RestartReason === 'Restart within policy'));
    // It waits for the rest of the interval (5 s from the task's setup, minus the one quick attempt), not the 100 ms Delay.
    const delayNs = Number(events[delayed]!.Details.start_delay);
    assert.ok(delayNs >= 2e9 && delayNs <= interval, `start_delay ${delayNs} ns`);
    const next = events.slice(delayed).find((e) => e.Type === 'Started')!;
    assert.ok(next.Time - events[delayed]!.Time >= delayNs - 50e6, `started ${(next.Time - events[delayed]!.Time) / 1e6} ms after the delayed Restarting`);
  });
});
