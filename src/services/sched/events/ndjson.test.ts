// NDJSON framing: heartbeat at once and on the (fake) timer, one line per batch, the end
// line, client disconnects, and a slow client cut while memory stays bounded (§3.2, §6.2).

import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { EventBroker } from './broker.js';
import type { EventBatch } from './event.js';
import { encodeBatch, HEARTBEAT_FRAME, writeNdjson, type IntervalTimers } from './ndjson.js';
import { parseTopics } from './subscription.js';

const settle = () => new Promise((resolve) => setImmediate(resolve));
const nodeBatch = (index: number): EventBatch => ({
  index,
  events: [
    { Topic: 'Node', Type: 'NodeRegistration', Key: `n${index}`, Namespace: '', FilterKeys: null, Index: index, Payload: { Node: { ID: `n${index}` } } },
  ],
});

/** Timers that fire only when the test says so. */
function fakeTimers() {
  const live = new Map<number, { tick: () => void; periodMs: number }>();
  let next = 1;
  const timers: IntervalTimers = {
    setInterval: (tick, periodMs) => (live.set(next, { tick, periodMs }), next++),
    clearInterval: (handle) => live.delete(handle as number),
  };
  return { timers, live, fire: () => [...live.values()].forEach((t) => t.tick()) };
}

/** A client: collects frames; when `stuck`, it never acknowledges a write. */
function client(stuck = false, highWaterMark = 64) {
  const frames: string[] = [];
  const out = new Writable({
    highWaterMark,
    write(chunk, _encoding, done) {
      frames.push(String(chunk));
      if (!stuck) done();
    },
  });
  return { out, frames };
}

async function setup(eventBufferSize = 10) {
  const broker = new EventBroker({ eventBufferSize, authorize: () => ({ allowed: true }) });
  const { subscription } = await broker.subscribe({ topics: parseTopics([]), namespace: 'default', index: 0, token: { accessor: 'a', secret: 's' } });
  return { broker, sub: subscription };
}

describe('encodeBatch', () => {
  it('writes the spec frame with the event fields in order, and nothing else', () => {
    const line = encodeBatch({ index: 7, events: [{ ...nodeBatch(7).events[0]!, Extra: 1 } as never] });
    assert.equal(
      line,
      '{"Index":7,"Events":[{"Topic":"Node","Type":"NodeRegistration","Key":"n7","Namespace":"","FilterKeys":null,"Index":7,"Payload":{"Node":{"ID":"n7"}}}]}\n',
    );
  });
});

describe('writeNdjson', () => {
  it('sends {} at once, then on every tick of its heartbeat timer, and batches as lines', async () => {
    const { broker, sub } = await setup();
    const { out, frames } = client();
    const clock = fakeTimers();
    const done = writeNdjson(sub, out, { heartbeatMs: 5000, timers: clock.timers });
    assert.deepEqual(frames, [HEARTBEAT_FRAME]);
    assert.equal([...clock.live.values()][0]!.periodMs, 5000);
    clock.fire();
    clock.fire();
    broker.publish(nodeBatch(1));
    await settle();
    assert.deepEqual(frames, ['{}\n', '{}\n', '{}\n', encodeBatch(nodeBatch(1))]);
    assert.ok(frames.every((f) => f.endsWith('\n') && JSON.parse(f)));
    sub.close();
    assert.equal((await done).code, 'closed');
    assert.equal(clock.live.size, 0);
  });

  it('defaults the heartbeat to 30 s', async () => {
    const { sub } = await setup();
    const clock = fakeTimers();
    const done = writeNdjson(sub, client().out, { timers: clock.timers });
    assert.equal([...clock.live.values()][0]!.periodMs, 30_000);
    sub.close();
    await done;
  });

  it('ends with an Error line and ends the response when the server closes the subscription', async () => {
    const { broker, sub } = await setup();
    const { out, frames } = client();
    const done = writeNdjson(sub, out, { timers: fakeTimers().timers });
    broker.closeByToken('a');
    const reason = await done;
    assert.equal(reason.code, 'revoked');
    assert.equal(frames.at(-1), '{"Error":"subscription closed by server, client should resubscribe: token revoked"}\n');
    assert.equal(out.writableEnded, true);
  });

  it('closes the subscription when the client goes away', async () => {
    const { broker, sub } = await setup();
    const { out } = client();
    const clock = fakeTimers();
    const done = writeNdjson(sub, out, { timers: clock.timers });
    out.destroy();
    assert.equal((await done).code, 'closed');
    assert.equal(broker.subscriptionCount, 0);
    assert.equal(clock.live.size, 0);
  });

  it('cuts a slow client with the dropped message while the buffer and the writer stay bounded', async () => {
    const { broker, sub } = await setup(10);
    const { out, frames } = client(true, 16);
    const clock = fakeTimers();
    const done = writeNdjson(sub, out, { timers: clock.timers });
    let maxWriterBytes = 0;
    for (let i = 1; i <= 200; i++) {
      broker.publish(nodeBatch(i));
      await settle();
      clock.fire(); // heartbeats are skipped while the client needs draining
      assert.ok(broker.bufferedBatches <= 10, `buffer holds ${broker.bufferedBatches}`);
      maxWriterBytes = Math.max(maxWriterBytes, out.writableLength);
    }
    const reason = await done;
    assert.equal(reason.code, 'dropped');
    assert.match(reason.message, /^event dropped from buffer: the subscriber fell behind .*resubscribe with index=2$/);
    assert.ok(maxWriterBytes <= HEARTBEAT_FRAME.length + encodeBatch(nodeBatch(1)).length + 200, `writer held ${maxWriterBytes} bytes`);
    assert.equal(broker.subscriptionCount, 0);
    assert.deepEqual(frames, [HEARTBEAT_FRAME]); // the stuck client acknowledged nothing after its first write
  });
});
