// The broker: publish decoupled from readers, subscribe with a start report, authorisation
// before a subscription exists and on ACL events, closeByToken (reference/sched.md §3.3, §3.6).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventBroker, SubscribeDenied, type Authorize, type AuthorizeVerdict, type SubscribeRequest } from './broker.js';
import type { EventBatch, StreamEvent } from './event.js';
import { parseTopics, type SubscriptionEnded } from './subscription.js';

const ev = (Topic: string, Type: string, Key: string, Index: number): StreamEvent => ({
  Topic,
  Type,
  Key,
  Namespace: '',
  FilterKeys: null,
  Index,
  Payload: {},
});
const nodeBatch = (index: number): EventBatch => ({ index, events: [ev('Node', 'NodeRegistration', `n${index}`, index)] });
const settle = () => new Promise((resolve) => setImmediate(resolve));
const allow: Authorize = () => ({ allowed: true });
const request = (accessor: string, index = 0, topics = ['*']): SubscribeRequest => ({
  topics: parseTopics(topics),
  namespace: 'default',
  index,
  token: { accessor, secret: `secret-${accessor}` },
});

/** A broker whose publish loop runs only when the test calls `drain()`. */
function manual(authorize: Authorize = allow, eventBufferSize = 10) {
  const pending: (() => void)[] = [];
  const broker = new EventBroker({ eventBufferSize, authorize, schedule: (d) => pending.push(d) });
  return { broker, drain: () => pending.splice(0).forEach((d) => d()) };
}

describe('EventBroker.publish', () => {
  it('returns before the batch reaches the buffer; the loop appends it later', async () => {
    const { broker, drain } = manual();
    broker.publish(nodeBatch(1));
    assert.equal(broker.bufferedBatches, 0);
    drain();
    assert.equal(broker.bufferedBatches, 1);
  });

  it('flushes in place when its queue is full, never exceeding the queue or the buffer', () => {
    const pending: (() => void)[] = [];
    const broker = new EventBroker({ eventBufferSize: 5, publishQueueBatches: 3, authorize: allow, schedule: (d) => pending.push(d) });
    for (let i = 1; i <= 4; i++) broker.publish(nodeBatch(i));
    assert.equal(broker.bufferedBatches, 3);
    for (let i = 5; i <= 20; i++) broker.publish(nodeBatch(i));
    assert.equal(broker.bufferedBatches, 5);
  });

  it('skips empty batches and refuses an index out of order', () => {
    const { broker, drain } = manual();
    broker.publish({ index: 1, events: [] });
    broker.publish(nodeBatch(2));
    assert.throws(() => broker.publish(nodeBatch(2)), /event batch index 2 does not follow 2/);
    drain();
    assert.equal(broker.bufferedBatches, 1);
  });

  it('never blocks on a slow reader: 1,000 batches go through while a subscriber reads nothing', async () => {
    const broker = new EventBroker({ eventBufferSize: 100, authorize: allow });
    const { subscription: idle } = await broker.subscribe(request('a'));
    const { subscription: reader } = await broker.subscribe(request('b'));
    const seen: number[] = [];
    const reading = (async () => {
      for (;;) seen.push((await reader.next()).index);
    })().catch((e: unknown) => e);
    for (let i = 1; i <= 1000; i++) {
      broker.publish(nodeBatch(i));
      if (i % 50 === 0) await settle();
      assert.ok(broker.bufferedBatches <= 100);
    }
    await settle();
    assert.equal(idle.ended?.code, 'dropped');
    assert.equal(seen.length, 1000);
    assert.deepEqual(seen.slice(-2), [999, 1000]);
    reader.close();
    assert.equal(((await reading) as SubscriptionEnded).code, 'closed');
  });
});

describe('EventBroker.subscribe', () => {
  it('reports where it started: inside the buffer, before it (a gap) and past it (live)', async () => {
    const { broker, drain } = manual(allow, 4);
    for (let i = 1; i <= 8; i++) broker.publish(nodeBatch(i));
    drain(); // holds 5..8
    const inside = await broker.subscribe(request('a', 6));
    assert.deepEqual(inside.start, { requestedIndex: 6, firstIndex: 6, available: true });
    assert.equal((await inside.subscription.next()).index, 6);
    const gap = await broker.subscribe(request('a', 2));
    assert.deepEqual(gap.start, { requestedIndex: 2, firstIndex: 5, available: false });
    assert.equal((await gap.subscription.next()).index, 5);
    const live = await broker.subscribe(request('a', 100));
    assert.deepEqual(live.start, { requestedIndex: 100, firstIndex: null, available: true });
    broker.publish(nodeBatch(9));
    drain();
    assert.equal((await live.subscription.next()).index, 9);
  });

  it('refuses before a subscription exists when the callback denies', async () => {
    const seen: SubscribeRequest[] = [];
    const { broker } = manual((r) => {
      seen.push(r);
      return { allowed: false, reason: 'Permission denied' };
    });
    await assert.rejects(broker.subscribe(request('a', 0, ['Node'])), (e: unknown) => e instanceof SubscribeDenied && e.message === 'Permission denied');
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.token.secret, 'secret-a');
    assert.equal(broker.subscriptionCount, 0);
  });

  it('passes a callback failure on to the caller', async () => {
    const { broker } = manual(() => {
      throw new Error('token store unavailable');
    });
    await assert.rejects(broker.subscribe(request('a')), /token store unavailable/);
  });

  it('checks again when an ACL event was applied while the check ran', async () => {
    let calls = 0;
    let release!: (v: AuthorizeVerdict) => void;
    const { broker, drain } = manual(() => {
      calls++;
      return calls === 1 ? new Promise((r) => (release = r)) : { allowed: false, reason: 'policy changed' };
    });
    const subscribing = broker.subscribe(request('a'));
    broker.publish({ index: 1, events: [ev('ACLPolicy', 'ACLPolicyUpserted', 'readonly', 1)] });
    drain();
    release({ allowed: true });
    await assert.rejects(subscribing, /policy changed/);
    assert.equal(calls, 2);
  });
});

describe('EventBroker: token lifecycle', () => {
  it("closeByToken ends exactly that token's streams and forgets them", async () => {
    const { broker } = manual();
    const a1 = (await broker.subscribe(request('a'))).subscription;
    const a2 = (await broker.subscribe(request('a'))).subscription;
    const b = (await broker.subscribe(request('b'))).subscription;
    assert.equal(broker.closeByToken('a'), 2);
    assert.equal(a1.ended?.code, 'revoked');
    assert.equal(a2.ended?.message, 'subscription closed by server, client should resubscribe: token revoked');
    assert.equal(b.ended, null);
    assert.equal(broker.subscriptionCount, 1);
    assert.equal(broker.closeByToken('a'), 0);
    b.close();
    assert.equal(broker.subscriptionCount, 0);
  });

  it("an ACLTokenDeleted event closes that token's streams", async () => {
    const { broker, drain } = manual();
    const a = (await broker.subscribe(request('a'))).subscription;
    const b = (await broker.subscribe(request('b'))).subscription;
    broker.publish({ index: 1, events: [ev('ACLToken', 'ACLTokenDeleted', 'a', 1)] });
    drain();
    assert.equal(a.ended?.code, 'revoked');
    assert.equal(b.ended, null);
  });

  it('re-checks the token of an ACLTokenUpserted event, and every token on a policy or role event', async () => {
    const denied = new Set<string>();
    const checked: string[] = [];
    const { broker, drain } = manual((r) => {
      checked.push(r.token.accessor);
      return denied.has(r.token.accessor) ? { allowed: false, reason: 'Permission denied' } : { allowed: true };
    });
    const a = (await broker.subscribe(request('a'))).subscription;
    const b = (await broker.subscribe(request('b'))).subscription;
    checked.length = 0;
    denied.add('b');
    broker.publish({ index: 1, events: [ev('ACLToken', 'ACLTokenUpserted', 'a', 1)] });
    drain();
    await settle();
    assert.deepEqual(checked, ['a']);
    assert.equal(b.ended, null);
    broker.publish({ index: 2, events: [ev('ACLRole', 'ACLRoleUpserted', 'r1', 2)] });
    drain();
    await settle();
    assert.deepEqual(checked.sort(), ['a', 'a', 'b']);
    assert.equal(a.ended, null);
    // `b.ended` was narrowed to null by the assertion above; the getter has changed since.
    assert.equal((b.ended as SubscriptionEnded | null)?.message, 'subscription closed by server, client should resubscribe: Permission denied');
  });

  it('ends a live subscription whose re-check throws (fail closed)', async () => {
    let fail = false;
    const { broker, drain } = manual(() => {
      if (fail) throw new Error('boom');
      return { allowed: true };
    });
    const a = (await broker.subscribe(request('a'))).subscription;
    fail = true;
    broker.publish({ index: 1, events: [ev('ACLPolicy', 'ACLPolicyDeleted', 'p', 1)] });
    drain();
    await settle();
    assert.match(a.ended!.message, /authorization failed: boom$/);
  });

  it('close() flushes, ends every subscription and refuses new ones', async () => {
    const { broker } = manual();
    const a = (await broker.subscribe(request('a'))).subscription;
    broker.publish(nodeBatch(1));
    broker.close();
    broker.close();
    assert.equal(broker.bufferedBatches, 1);
    assert.equal(a.ended?.code, 'closed');
    assert.equal(broker.subscriptionCount, 0);
    await assert.rejects(broker.subscribe(request('a')), /event broker is closed/);
  });
});

describe('EventBroker.reset (the state was reloaded)', () => {
  it('ends every subscription naming its resume index, drops held batches, reports the gap, and follows the new index', async () => {
    const { broker, drain } = manual();
    broker.publish(nodeBatch(1));
    broker.publish(nodeBatch(2));
    drain();
    const a = (await broker.subscribe(request('a', 1))).subscription;
    assert.equal((await a.next()).index, 1);
    const b = (await broker.subscribe(request('b', 0, ['ACLToken']))).subscription;
    assert.equal(broker.reset(7), 2);
    await assert.rejects(a.next(), {
      message: 'subscription closed by server, client should resubscribe: the server reloaded its state; resubscribe with index=2',
    });
    assert.match(b.ended!.message, /resubscribe with index=1$/, 'a reader that read nothing resumes where it started (the replay from 1)');
    assert.equal(broker.bufferedBatches, 0);
    assert.equal(broker.subscriptionCount, 0);

    const again = await broker.subscribe(request('a', 2));
    assert.deepEqual(again.start, { requestedIndex: 2, firstIndex: null, available: false }, 'batches up to the reload are gone: the client is told');
    assert.equal((await broker.subscribe(request('c', 8))).start.available, true);
    assert.throws(() => broker.publish(nodeBatch(7)), /does not follow 7/);
    broker.publish(nodeBatch(8));
    drain();
    assert.equal((await again.subscription.next()).index, 8);
  });
});
