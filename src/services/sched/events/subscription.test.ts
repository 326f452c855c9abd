// Subscriptions: the topic/key/namespace filter table (reference/sched.md §3.5), the
// cursor's delivery, the fell-behind error, resume inside and outside the buffer, closing.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventBuffer } from './buffer.js';
import type { EventBatch, StreamEvent } from './event.js';
import { filterEvents, parseTopics, Subscription, SubscriptionEnded, TopicParseError } from './subscription.js';

/** An event of `Topic` about `Key`; the namespace (default ''), filter keys (default null) and index (default 1) as given. */
const ev = (
  Topic: string,
  Key: string,
  { Namespace = '', FilterKeys = null, Index = 1 }: { Namespace?: string; FilterKeys?: string[] | null; Index?: number } = {},
): StreamEvent => ({
  Topic,
  Type: 'T',
  Key,
  Namespace,
  FilterKeys,
  Index,
  Payload: {},
});
const nodeBatch = (index: number): EventBatch => ({ index, events: [ev('Node', `n${index}`, { Namespace: '', FilterKeys: null, Index: index })] });
/** Lets every pending promise reaction run (setImmediate comes after the microtask queue). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** A subscription the way the broker makes one. */
function subscribe(buf: EventBuffer, topics: string[], index = 0, namespace = 'default'): Subscription {
  const pos = buf.startAt(index);
  return new Subscription({ topics: parseTopics(topics), namespace }, pos.cursor, pos.firstIndex ?? buf.tailIndex + 1);
}

describe('parseTopics', () => {
  it('reads Topic, Topic:*, Topic:Key and no value as all topics', () => {
    assert.deepEqual([...parseTopics([])], [['*', ['*']]]);
    assert.deepEqual([...parseTopics(['Node'])], [['Node', ['*']]]);
    assert.deepEqual([...parseTopics(['Node:*'])], [['Node', ['*']]]);
    assert.deepEqual(
      [...parseTopics(['Node:a', 'Node:b', 'Node:a', 'Job:web'])],
      [
        ['Node', ['a', 'b']],
        ['Job', ['web']],
      ],
    );
  });

  it('refuses a value with more than one colon, with the reference text', () => {
    assert.throws(
      () => parseTopics(['Job:a:b']),
      (e: unknown) => {
        assert.ok(e instanceof TopicParseError);
        assert.equal(e.message, 'Invalid topic query: error parsing topics: Invalid key value pair for topic, topic: Job:a:b');
        return true;
      },
    );
    assert.throws(() => parseTopics([':x']), TopicParseError);
  });
});

describe('filterEvents: the filter table', () => {
  const events = [
    ev('Node', 'n1'),
    ev('Node', 'n2'),
    ev('ACLToken', 'acc1'),
    ev('Job', 'web', { Namespace: 'default' }),
    ev('Job', 'api', { Namespace: 'prod' }),
    ev('Allocation', 'a1', { Namespace: 'default', FilterKeys: ['web', 'dep1'] }),
    ev('Allocation', 'a2', { Namespace: 'prod', FilterKeys: ['api', 'dep2'] }),
  ];
  const keys = (topics: string[], namespace = 'default') => filterEvents({ topics: parseTopics(topics), namespace }, events).map((e) => `${e.Topic}:${e.Key}`);

  const table: [string, string[], string, string[]][] = [
    ['Node', ['Node'], 'default', ['Node:n1', 'Node:n2']],
    ['Node:*', ['Node:*'], 'default', ['Node:n1', 'Node:n2']],
    ['Node:<id>', ['Node:n2'], 'default', ['Node:n2']],
    ['unknown key', ['Node:n9'], 'default', []],
    ['unknown topic', ['Volume'], 'default', []],
    ['* in namespace default', ['*'], 'default', ['Node:n1', 'Node:n2', 'ACLToken:acc1', 'Job:web', 'Allocation:a1']],
    ['* in namespace prod', ['*'], 'prod', ['Node:n1', 'Node:n2', 'ACLToken:acc1', 'Job:api', 'Allocation:a2']],
    ['* in namespace *', ['*'], '*', events.map((e) => `${e.Topic}:${e.Key}`)],
    ['*:<key> matches a key on any topic', ['*:web'], '*', ['Job:web', 'Allocation:a1']],
    ['FilterKeys: Allocation:<job>', ['Allocation:api'], '*', ['Allocation:a2']],
    ['FilterKeys: Allocation:<deployment>', ['Allocation:dep1'], '*', ['Allocation:a1']],
    ['namespace filter on a namespaced topic', ['Job'], 'default', ['Job:web']],
    ['namespace * on a namespaced topic', ['Job'], '*', ['Job:web', 'Job:api']],
    ['several topics', ['Node:n1', 'Job'], 'prod', ['Node:n1', 'Job:api']],
    ['* among keys means every key', ['Job:*', 'Job:web'], '*', ['Job:web', 'Job:api']],
    ['an event matching two keys appears once', ['Allocation:a1', 'Allocation:web'], '*', ['Allocation:a1']],
  ];
  for (const [name, topics, namespace, want] of table) {
    it(name, () => assert.deepEqual(keys(topics, namespace), want));
  }
});

describe('Subscription: delivery', () => {
  it('yields the backlog then live batches, holding only matching events, skipping batches with none', async () => {
    const buf = new EventBuffer();
    buf.append({ index: 1, events: [ev('Node', 'n1'), ev('Job', 'web', { Namespace: 'default' })] });
    buf.append({ index: 2, events: [ev('Job', 'api', { Namespace: 'default' })] });
    const sub = subscribe(buf, ['Node']);
    const first = await sub.next();
    assert.deepEqual([first.index, first.events.map((e) => e.Key)], [1, ['n1']]);
    const live = sub.next();
    buf.append({ index: 3, events: [ev('Job', 'x', { Namespace: 'default' })] });
    buf.append({ index: 4, events: [ev('Node', 'n4')] });
    assert.deepEqual((await live).index, 4);
  });

  it('refuses a second next() while one is pending', async () => {
    const buf = new EventBuffer();
    const sub = subscribe(buf, ['*']);
    const pending = sub.next();
    await assert.rejects(sub.next(), /called again before the previous call settled/);
    sub.close();
    await assert.rejects(pending, SubscriptionEnded);
  });
});

describe('Subscription: falling behind', () => {
  it('15 batches into a buffer of 10: the old reader gets the dropped error, a new one starts at 6', async () => {
    const buf = new EventBuffer({ eventBufferSize: 10 });
    buf.append(nodeBatch(1));
    const old = subscribe(buf, ['*']);
    assert.equal((await old.next()).index, 1);
    for (let i = 2; i <= 15; i++) buf.append(nodeBatch(i));
    await assert.rejects(old.next(), (e: unknown) => {
      assert.ok(e instanceof SubscriptionEnded);
      assert.equal(e.code, 'dropped');
      assert.match(e.message, /^event dropped from buffer: the subscriber fell behind .*; resubscribe with index=2$/);
      return true;
    });
    const fresh = subscribe(buf, ['*']);
    assert.equal((await fresh.next()).index, 6);
    assert.equal(buf.headIndex, 6);
  });

  it('ends a reader that does not call next() as soon as its next batch is dropped, releasing its cursor', async () => {
    const buf = new EventBuffer({ eventBufferSize: 3 });
    const idle = subscribe(buf, ['*']);
    const ends: string[] = [];
    idle.onEnd((r) => ends.push(r.code));
    for (let i = 1; i <= 3; i++) buf.append(nodeBatch(i));
    await settle();
    assert.equal(idle.ended, null);
    buf.append(nodeBatch(4));
    await settle();
    // `idle.ended` was narrowed to null by the assertion above; the getter has changed since.
    const ended = idle.ended as SubscriptionEnded | null;
    assert.equal(ended?.code, 'dropped');
    assert.match(ended!.message, /resubscribe with index=1$/);
    assert.deepEqual(ends, ['dropped']);
  });

  it('never cuts a caught-up reader, even with a buffer of 1', async () => {
    const buf = new EventBuffer({ eventBufferSize: 1 });
    const sub = subscribe(buf, ['*']);
    for (let i = 1; i <= 5; i++) {
      const next = sub.next();
      buf.append(nodeBatch(i));
      assert.equal((await next).index, i);
    }
  });
});

describe('Subscription: resume from an index', () => {
  const buf = new EventBuffer({ eventBufferSize: 4 });
  for (let i = 1; i <= 8; i++) buf.append(nodeBatch(i)); // holds 5..8

  it('inside the buffer: starts at that index, inclusive', async () => {
    assert.equal((await subscribe(buf, ['*'], 7).next()).index, 7);
  });

  it('outside the buffer: starts at the oldest batch still held', async () => {
    assert.equal(buf.startAt(2).available, false);
    assert.equal((await subscribe(buf, ['*'], 2).next()).index, 5);
  });
});

describe('Subscription: closing', () => {
  it('is idempotent: the first reason wins, listeners run once, a pending next() rejects', async () => {
    const buf = new EventBuffer();
    const sub = subscribe(buf, ['*']);
    const calls: string[] = [];
    sub.onEnd((r) => calls.push(r.message));
    const pending = sub.next();
    sub.close(new SubscriptionEnded('revoked', 'first'));
    sub.close(new SubscriptionEnded('closed', 'second'));
    sub.close();
    await assert.rejects(pending, /first/);
    await assert.rejects(sub.next(), /first/);
    assert.deepEqual(calls, ['first']);
    sub.onEnd((r) => calls.push(`late ${r.code}`));
    assert.deepEqual(calls, ['first', 'late revoked']);
  });
});
