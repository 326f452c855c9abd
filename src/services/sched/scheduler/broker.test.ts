import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { newEvaluation, type Evaluation } from '../jobs/types.js';
import { EvalBroker } from './broker.js';

const ev = (id: string, job: string, priority: number, extra: Partial<Evaluation> = {}): Evaluation => ({
  ...newEvaluation(id, { ID: job, Namespace: 'default', Type: 'service', Priority: priority, JobModifyIndex: 1 }, { triggeredBy: 'job-register', nowNs: 0 }),
  ...extra,
});

/** A broker whose runs record their order and finish when `release` is called for them. */
function recording(workers: number) {
  const order: string[] = [];
  const gates = new Map<string, () => void>();
  const broker = new EvalBroker({
    workers,
    now: Date.now,
    run: (id) => {
      order.push(id);
      return new Promise<void>((resolve) => gates.set(id, resolve));
    },
  });
  const release = async (id: string) => {
    gates.get(id)!();
    await sleep(1);
  };
  return { broker, order, release };
}

describe('evaluation broker', () => {
  it('runs the highest priority first, then the oldest, on its workers', async () => {
    const { broker, order, release } = recording(1);
    broker.start();
    broker.offer(ev('first', 'a', 50));
    broker.offer(ev('low', 'b', 10));
    broker.offer(ev('high', 'c', 90));
    broker.offer(ev('mid-old', 'd', 50));
    broker.offer(ev('mid-new', 'e', 50));
    assert.deepEqual(order, ['first']);
    for (const id of ['first', 'high', 'mid-old', 'mid-new']) await release(id);
    assert.deepEqual(order, ['first', 'high', 'mid-old', 'mid-new', 'low']);
    await release('low');
    await broker.stop();
  });

  it('never runs two evaluations of one job at once; a withdrawn one does not run', async () => {
    const { broker, order, release } = recording(2);
    broker.start();
    broker.offer(ev('a1', 'a', 50));
    broker.offer(ev('a2', 'a', 50));
    broker.offer(ev('b1', 'b', 50));
    broker.offer(ev('gone', 'c', 50));
    broker.offer(ev('gone', 'c', 50, { Status: 'canceled' }));
    assert.deepEqual(order, ['a1', 'b1'], 'a2 waits for a1');
    await release('a1');
    assert.deepEqual(order, ['a1', 'b1', 'a2']);
    await release('a2');
    await release('b1');
    assert.deepEqual(order, ['a1', 'b1', 'a2'], 'the canceled one never ran');
    assert.equal(broker.depth, 0);
    await broker.stop();
  });

  it('holds an evaluation until its WaitUntil', async () => {
    const { broker, order, release } = recording(1);
    broker.start();
    broker.offer(ev('later', 'a', 50, { WaitUntil: (Date.now() + 150) * 1e6 }));
    assert.equal(broker.depth, 1);
    await sleep(50);
    assert.deepEqual(order, []);
    await sleep(200);
    assert.deepEqual(order, ['later']);
    await release('later');
    await broker.stop();
  });
});
