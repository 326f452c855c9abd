/**
 * The HA lock (pg-lock.ts) and the write fence of {@link PostgresBackend}, in process on a
 * throwaway PostgreSQL cluster (or `CAIRN_TEST_PG_URL`): one holder at a time; a
 * terminated lock connection demotes its holder at once and its writes are refused; the
 * other takes over; a partitioned ex-active that still believes its old term cannot write.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { FencedWriteError, PostgresBackend } from './postgres.js';
import type { PgHaLock } from './pg-lock.js';
import { startPgTestServer, type PgTestServer } from './testdata/pg-cluster.js';

const server: PgTestServer = await startPgTestServer();
const table = `cairn_lock_${randomBytes(4).toString('hex')}`;
const opened: PostgresBackend[] = [];
const locks: PgHaLock[] = [];

after(async () => {
  await Promise.all(locks.map((l) => l.stop()));
  await Promise.all(opened.map((b) => b.close().catch(() => undefined)));
  if (!server.throwaway) {
    const c = new pg.Client({ connectionString: server.url });
    await c.connect();
    await c.query(`DROP TABLE IF EXISTS "${table}", "${table}_ha"`).finally(() => c.end());
  }
  await server.stop();
});

async function until(what: string, ms: number, check: () => boolean): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A backend on the shared table with its lock started; records the lock's events. */
async function node(address: string, retryMs = 50) {
  const backend = await PostgresBackend.open({ connectionUrl: server.url, table, maxParallel: 2 });
  opened.push(backend);
  const lock = backend.haLock({ address: () => address, retryMs });
  locks.push(lock);
  const events: string[] = [];
  lock.start({ onActive: (term) => void events.push(`active ${term}`), onStandby: () => void events.push('standby') });
  return { backend, lock, events };
}

describe('PgHaLock and the write fence', () => {
  it('one active at a time; a cut lock connection demotes at once, refuses writes, and the other takes over; a stale term cannot write', async () => {
    const a = await node('http://a');
    await until('A active', 5000, () => a.lock.isActive);
    await a.backend.put('k', Buffer.from('1'));
    const b = await node('http://b');
    await until('B sees A as leader', 5000, () => b.lock.leader?.leaderAddress === 'http://a');
    assert.equal(b.lock.isActive, false);
    await assert.rejects(b.backend.put('k', Buffer.from('from-standby')), FencedWriteError);

    // Cut A's lock connection from the server side.
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    try {
      const cut = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'cairn-ha' AND pid <> pg_backend_pid()");
      assert.ok(cut.rowCount! >= 1);
    } finally {
      await admin.end();
    }
    // Both lock connections were cut: whoever is active next, exactly one is.
    await until('a new active server', 5000, () => a.lock.isActive !== b.lock.isActive && a.events.includes('standby'));
    const [active, stale] = a.lock.isActive ? [a, b] : [b, a];
    await active.backend.put('k', Buffer.from('2'));
    await assert.rejects(stale.backend.put('k', Buffer.from('late')), FencedWriteError);

    // A partitioned ex-active that has not noticed yet still holds its old term: refused inside the transaction.
    const oldTerm = Number(a.events.find((e) => e.startsWith('active'))!.split(' ')[1]);
    (stale.backend as unknown as { fence: number }).fence = oldTerm;
    await assert.rejects(stale.backend.put('k', Buffer.from('late')), FencedWriteError);
    (stale.backend as unknown as { fence: string }).fence = 'closed';
    assert.deepEqual(await active.backend.get('k'), Buffer.from('2'));
  });

  it('a standby waits in the lock: it takes over when the holder goes, not at its next retry', async () => {
    for (const l of locks.splice(0)) await l.stop();
    const slow = 60_000; // no retry, heartbeat or leader read would come within the test
    const a = await node('http://slow-a', slow);
    await until('A active', 5000, () => a.lock.isActive);
    const b = await node('http://slow-b', slow);
    await until('B reads the leader row', 5000, () => b.lock.leader?.leaderAddress === 'http://slow-a');
    await a.lock.stop();
    // Within 5 s, where a retry would come after 60 s.
    await until('B active long before a retry', 5000, () => b.lock.isActive);
    assert.equal(b.lock.leader?.leaderAddress, 'http://slow-b');
  });
});
