/**
 * `MeshClient.session` and `MeshLock` against a real discovery agent on loopback: create
 * with the reference's fields, info/node/list with the index of the sessions table, a
 * blocking list woken by a create, renew (404 → undefined), destroy; the lock recipe:
 * acquire (the key shows the session, with the lock flags), a second lock waits until the
 * first is released, a destroyed session signals the loss, destroy() deletes the key only
 * when no one holds it, and a key that is not a lock is refused; the semaphore recipe: two
 * holders of a limit of 2, a third waits until one releases, a destroyed session frees its
 * slot, a different limit is refused, destroy() deletes `.lock` once no one holds a slot.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  kvValue,
  MESH_LOCK_FLAGS,
  MESH_SEMAPHORE_FLAGS,
  MeshApiError,
  MeshClient,
  MeshLock,
  MeshLockConflictError,
  MeshLockInUseError,
  MeshSemaphore,
  MeshSemaphoreInUseError,
} from '../../src/sdk/index.js';
import { call, startAgent, type TestAgent } from './helpers.js';

describe('MeshClient.session and MeshLock', () => {
  let a: TestAgent;
  let mesh: MeshClient;

  before(async () => {
    a = await startAgent();
    mesh = new MeshClient({ address: a.url, token: (await call(a.url, 'PUT', '/v1/acl/bootstrap')).json.SecretID });
    // The agent's own node (with serfHealth) reaches the catalog on its first sync.
    for (let i = 0; i < 200 && (await mesh.catalog.nodes()).items.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
  });
  after(async () => {
    await mesh.close();
    await a.stop();
  });

  it('create, info, node, list, renew and destroy', async () => {
    const before = await mesh.session.list();
    const id = await mesh.session.create({ Name: 'sdk', TTL: '30s', LockDelay: '5s', Behavior: 'delete' });
    const { session, index } = await mesh.session.info(id);
    assert.ok(session);
    assert.deepEqual(
      [session.ID, session.Name, session.Node, session.LockDelay, session.Behavior, session.TTL, session.NodeChecks],
      [id, 'sdk', 'test', 5e9, 'delete', '30s', ['serfHealth']],
    );
    assert.ok(index > before.index, 'the index of the sessions table moved');
    assert.deepEqual(
      (await mesh.session.node('test')).items.map((s) => s.ID),
      [id],
    );
    assert.deepEqual((await mesh.session.node('other')).items, []);
    assert.deepEqual(
      (await mesh.session.list()).items.map((s) => s.ID),
      [id],
    );
    assert.equal((await mesh.session.renew(id))?.TTL, '30s');

    // A blocking list wakes when another session is made.
    const woken = mesh.session.list({ index, wait: '10s' });
    const second = await mesh.session.create({ NodeChecks: [] });
    const after = await woken;
    assert.ok(after.index > index);
    assert.deepEqual(after.items.map((s) => s.ID).sort(), [id, second].sort());

    await mesh.session.destroy(id);
    await mesh.session.destroy(second);
    assert.equal((await mesh.session.info(id)).session, undefined);
    assert.equal(await mesh.session.renew(id), undefined, 'a gone session renews to undefined');
    await assert.rejects(
      mesh.session.create({ TTL: '1s' }),
      (err: unknown) => err instanceof MeshApiError && err.status === 400 && /Invalid Session TTL/.test(err.message),
    );
  });

  it('kv.put acquire/release hold and free a key', async () => {
    const id = await mesh.session.create({ LockDelay: '0s' });
    assert.equal(await mesh.kv.put('sdk/held', 'x', { acquire: id }), true);
    const other = await mesh.session.create({ LockDelay: '0s' });
    assert.equal(await mesh.kv.put('sdk/held', 'y', { acquire: other }), false);
    assert.equal((await mesh.kv.get('sdk/held')).entry?.Session, id);
    assert.equal(await mesh.kv.put('sdk/held', 'x', { release: other }), false);
    assert.equal(await mesh.kv.put('sdk/held', 'x', { release: id }), true);
    assert.equal((await mesh.kv.get('sdk/held')).entry?.Session, undefined);
    await mesh.session.destroy(id);
    await mesh.session.destroy(other);
  });

  it('MeshLock: held, waited for, lost on a destroyed session, cleaned up', { timeout: 30_000 }, async () => {
    const first = new MeshLock(mesh, { key: 'svc/leader/.lock', sessionTtl: '10s' });
    const lost = await first.acquire();
    assert.ok(lost && !lost.aborted);
    const held = (await mesh.kv.get('svc/leader/.lock')).entry!;
    assert.equal(held.Session, first.sessionId);
    assert.equal(held.Flags, MESH_LOCK_FLAGS);

    const second = new MeshLock(mesh, { key: 'svc/leader/.lock' });
    let secondHeld = false;
    const waiting = second.acquire().then((s) => ((secondHeld = true), s));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(secondHeld, false, 'the second lock waits while the first holds');
    await assert.rejects(first.destroy(), /Lock already held/);
    await first.release();
    const lost2 = await waiting;
    assert.ok(lost2);
    assert.equal((await mesh.kv.get('svc/leader/.lock')).entry?.Session, second.sessionId);
    assert.equal((await mesh.session.info(first.sessionId ?? 'none')).session, undefined);
    await assert.rejects(first.destroy(), MeshLockInUseError);

    // Someone destroys the holder's session: the loss is signalled.
    const sid = second.sessionId!;
    await mesh.session.destroy(sid);
    await new Promise<void>((resolve) => (lost2.aborted ? resolve() : lost2.addEventListener('abort', () => resolve())));
    await second.release();
    await second.destroy();
    assert.equal((await mesh.kv.get('svc/leader/.lock')).entry, undefined, 'destroy deleted the free key');

    await mesh.kv.put('svc/other/.lock', 'plain');
    await assert.rejects(new MeshLock(mesh, { key: 'svc/other/.lock' }).acquire(), MeshLockConflictError);
  });

  it('MeshLock with tryOnce gives up after waitMs; a stop signal ends the wait', { timeout: 30_000 }, async () => {
    const holder = new MeshLock(mesh, { key: 'svc/busy/.lock' });
    assert.ok(await holder.acquire());
    const tryOnce = new MeshLock(mesh, { key: 'svc/busy/.lock', tryOnce: true, waitMs: 500 });
    assert.equal(await tryOnce.acquire(), undefined);
    const stop = new AbortController();
    const stopped = new MeshLock(mesh, { key: 'svc/busy/.lock' }).acquire(stop.signal);
    setTimeout(() => stop.abort(), 200);
    assert.equal(await stopped, undefined);
    // Neither left a session behind.
    assert.deepEqual(
      (await mesh.session.list()).items.map((s) => s.ID),
      [holder.sessionId],
    );
    await holder.release();
  });

  it('MeshSemaphore: at most limit holders; a freed slot goes to a waiter', { timeout: 30_000 }, async () => {
    const sem = () => new MeshSemaphore(mesh, { prefix: 'svc/workers', limit: 2 });
    const [one, two, three] = [sem(), sem(), sem()];
    const lostOne = await one.acquire();
    assert.ok(await two.acquire());
    let third: AbortSignal | undefined;
    const waiting = three.acquire().then((s) => (third = s));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(third, undefined, 'the third waits');
    const lock = (await mesh.kv.get('svc/workers/.lock')).entry!;
    assert.equal(lock.Flags, MESH_SEMAPHORE_FLAGS);
    assert.deepEqual(JSON.parse(kvValue(lock).toString()), { Limit: 2, Holders: { [one.sessionId!]: true, [two.sessionId!]: true } });
    assert.equal((await mesh.kv.get(`svc/workers/${one.sessionId}`)).entry?.Session, one.sessionId, 'the contender key is held by its session');
    await assert.rejects(
      new MeshSemaphore(mesh, { prefix: 'svc/workers', limit: 3, tryOnce: true, waitMs: 100 }).acquire(),
      /semaphore limit conflict \(lock: 2, local: 3\)/,
    );

    // One's session is destroyed: its slot is lost and goes to the third.
    await mesh.session.destroy(one.sessionId!);
    await new Promise<void>((resolve) => (lostOne!.aborted ? resolve() : lostOne!.addEventListener('abort', () => resolve())));
    await waiting;
    assert.ok(third);
    await one.release();
    await assert.rejects(sem().destroy(), MeshSemaphoreInUseError);
    await two.release();
    await three.release();
    assert.equal((await mesh.kv.list('svc/workers/')).items.length, 1, 'only .lock is left');
    await sem().destroy();
    assert.deepEqual((await mesh.kv.list('svc/workers/')).items, []);
  });
});
