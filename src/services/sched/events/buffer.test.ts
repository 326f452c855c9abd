// The event buffer: bounded length, drop marking, the "next is ready" signal and where a
// reader starts (STYLE.md §2 "append 15 batches to a buffer of 10", reference/sched.md §3.3).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_EVENT_BUFFER_SIZE, EventBuffer, type BufferItem } from './buffer.js';
import type { EventBatch } from './event.js';

const batch = (index: number): EventBatch => ({
  index,
  events: [{ Topic: 'Node', Type: 'NodeRegistration', Key: `n${index}`, Namespace: '', FilterKeys: null, Index: index, Payload: {} }],
});

/** Steps `n` items forward from `from` (each step awaits the "next is ready" signal). */
async function walk(from: BufferItem, n: number): Promise<BufferItem> {
  let item = from;
  for (let i = 0; i < n; i++) item = await item.next;
  return item;
}

describe('EventBuffer: size', () => {
  it('takes 0 or nothing as the default of 100 batches and refuses a negative size', () => {
    assert.equal(new EventBuffer().maxBatches, DEFAULT_EVENT_BUFFER_SIZE);
    assert.equal(new EventBuffer({ eventBufferSize: 0 }).maxBatches, 100);
    assert.equal(new EventBuffer({ eventBufferSize: 7 }).maxBatches, 7);
    assert.throws(() => new EventBuffer({ eventBufferSize: -1 }), /event_buffer_size must be a non-negative integer, got -1/);
  });

  it('holds at most its size: 15 batches into 10 leave 6..15, and 1..5 are marked dropped', async () => {
    const buf = new EventBuffer({ eventBufferSize: 10 });
    buf.append(batch(1));
    const oldReader = buf.startAt(0).cursor;
    for (let i = 2; i <= 15; i++) {
      buf.append(batch(i));
      assert.ok(buf.length <= 10, `length ${buf.length} after batch ${i}`);
    }
    assert.equal(buf.length, 10);
    assert.equal(buf.headIndex, 6);
    assert.equal(buf.tailIndex, 15);
    const first = await oldReader.next;
    assert.equal(first.index, 1);
    assert.equal(first.dropped, true);
    assert.equal((await walk(first, 4)).index, 5);
    assert.equal((await walk(first, 4)).dropped, true);
    assert.equal((await walk(first, 5)).dropped, false);
  });

  it('refuses an index that does not follow the tail', () => {
    const buf = new EventBuffer();
    buf.append(batch(3));
    assert.throws(() => buf.append(batch(3)), /event batch index 3 does not follow 3/);
    assert.throws(() => buf.append(batch(2)), /does not follow 3/);
  });
});

describe('EventBuffer: the next-is-ready signal', () => {
  it('wakes every waiting reader of the tail with one append, and settles once', async () => {
    const buf = new EventBuffer();
    const tail = buf.startAt(0).cursor;
    const woken = Promise.all([tail.next, tail.next, tail.next]);
    buf.append(batch(1));
    buf.append(batch(2));
    const items = await woken;
    assert.deepEqual(
      items.map((i) => i.index),
      [1, 1, 1],
    );
    assert.equal((await items[0]!.next).index, 2);
  });

  it('settles whenDropped when the head moves past the item', async () => {
    const buf = new EventBuffer({ eventBufferSize: 1 });
    buf.append(batch(1));
    const one = await buf.startAt(1).cursor.next;
    let dropped = false;
    void one.whenDropped.then(() => (dropped = true));
    buf.append(batch(2));
    await one.whenDropped;
    assert.equal(dropped, true);
    assert.equal(buf.headIndex, 2);
  });
});

describe('EventBuffer.startAt', () => {
  const filled = () => {
    const buf = new EventBuffer({ eventBufferSize: 3 });
    for (const i of [10, 12, 14, 16, 18]) buf.append(batch(i));
    return buf; // holds 14, 16, 18; dropped 10, 12
  };

  it('starts an empty buffer at the next append', async () => {
    const buf = new EventBuffer();
    const pos = buf.startAt(0);
    assert.deepEqual([pos.firstIndex, pos.available], [null, true]);
    buf.append(batch(5));
    assert.equal((await pos.cursor.next).index, 5);
  });

  it('replays every held batch for index 0', async () => {
    const pos = filled().startAt(0);
    assert.deepEqual([pos.firstIndex, pos.available], [14, true]);
    assert.equal((await pos.cursor.next).index, 14);
  });

  it('starts at the requested index when held, inclusive, or at the next held one', async () => {
    const buf = filled();
    assert.deepEqual([buf.startAt(16).firstIndex, buf.startAt(16).available], [16, true]);
    assert.deepEqual([buf.startAt(15).firstIndex, buf.startAt(15).available], [16, true]);
    assert.equal((await buf.startAt(15).cursor.next).index, 16);
    assert.deepEqual([buf.startAt(13).firstIndex, buf.startAt(13).available], [14, true]);
  });

  it('starts at the oldest held batch and says unavailable when the index was dropped', () => {
    const buf = filled();
    assert.deepEqual([buf.startAt(12).firstIndex, buf.startAt(12).available], [14, false]);
    assert.deepEqual([buf.startAt(1).firstIndex, buf.startAt(1).available], [14, false]);
  });

  it('starts after the tail for an index beyond it, without re-sending the tail', async () => {
    const buf = filled();
    const pos = buf.startAt(19);
    assert.deepEqual([pos.firstIndex, pos.available], [null, true]);
    buf.append(batch(20));
    assert.equal((await pos.cursor.next).index, 20);
  });
});
