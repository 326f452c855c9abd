// Servers sharing one StateStore on PostgreSQL (issue 8 scope 3): leader election over the
// advisory lock, followers applying the leader's log from LISTEN/NOTIFY, the read barrier,
// failover with indexes that continue, a follower that fell behind the kept log, and a
// leader whose write failed recovering without a restart. Real PostgreSQL (throwaway
// cluster of testdata/pg-cluster.ts), real connections killed with pg_terminate_backend.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { pino } from 'pino';
import { StateLeadership } from './leadership.js';
import { PostgresBackend, quoteTableName, sideTableName } from './postgres.js';
import type { Backend } from './backend.js';
import { StateStore, StateStoreFailed, StateStoreReadOnly, type ChangeBatch, type TableSpec } from './state.js';
import { startPgTestServer } from './testdata/pg-cluster.js';

const server = await startPgTestServer();
const admin = new pg.Pool({ connectionString: server.url, max: 2 });
admin.on('error', () => undefined);
after(async () => {
  await admin.end();
  await server.stop();
});

const TABLES: TableSpec[] = [{ name: 'nodes', indexes: { name: (d: { Name?: string }) => d.Name } }];
const log = pino({ level: 'silent' });

/** One server: a backend, a shared store and its leadership on `table`. */
async function startServer(table: string, name: string, hooks: { onLeader?: () => void; onFollower?: () => void } = {}) {
  const backend = await PostgresBackend.open({ connectionUrl: server.url, table, applicationName: `cairn-test-${name}` });
  const store = await StateStore.open(backend, TABLES, undefined, { shared: true });
  const leadership = new StateLeadership({ backend, store, address: () => `${name}:1`, log, retryMs: 100, ...hooks });
  leadership.start();
  return {
    backend,
    store,
    leadership,
    async stop() {
      await leadership.stop();
      await backend.close();
    },
  };
}

async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function freshTable(): string {
  return `cairn_lead_${process.pid}_${randomBytes(3).toString('hex')}`;
}

async function drop(table: string): Promise<void> {
  await admin.query(`DROP TABLE IF EXISTS ${quoteTableName(table)}, ${sideTableName(table, 'index')}, ${sideTableName(table, 'ha')}`);
}

describe('StateLeadership: servers sharing a StateStore on PostgreSQL', () => {
  it('one leader writes; a follower applies its log (watches and change feed fire), refuses writes, and has every acknowledged write after readBarrier', async () => {
    const table = freshTable();
    const a = await startServer(table, 'a');
    await until('a leads', () => a.leadership.isLeader);
    const b = await startServer(table, 'b');
    try {
      // The follower learns the leader's address from its first poll: wait for it, not a fixed time.
      await until('b names the leader', () => b.leadership.leaderAddress === 'a:1');
      assert.equal(b.leadership.isLeader, false, 'only one leader');
      assert.equal(a.leadership.isLeader, true);
      await assert.rejects(
        b.store.txn((tx) => tx.put('nodes', 'x', { Name: 'x' })),
        StateStoreReadOnly,
      );

      const feed: ChangeBatch[] = [];
      b.store.subscribe((batch) => feed.push(batch));
      const woke = b.store.watch(['nodes'], b.store.tableIndex('nodes'), 5000);
      const started = Date.now();
      const { index } = await a.store.txn((tx) => tx.put('nodes', 'n1', { Name: 'one' }), 'node-register');
      assert.equal(await woke, index, 'the blocking watch on the follower woke for the leader write');
      assert.ok(Date.now() - started < 1000, 'woken by the feed, not the periodic check');
      assert.deepEqual(
        feed.map((f) => [f.index, f.label, f.changes[0].op, f.changes[0].id]),
        [[index, 'node-register', 'put', 'n1']],
      );
      assert.equal(b.store.getBy<{ Name: string }>('nodes', 'name', 'one')?.Name, 'one', 'unique indexes are kept on the follower');

      // Read-after-write: right after the leader acknowledges, the barrier makes the follower current.
      for (let i = 0; i < 20; i++) {
        const w = await a.store.txn((tx) => tx.put('nodes', `r${i}`, { Name: `r${i}` }));
        await b.leadership.readBarrier();
        assert.equal(b.store.index, w.index);
        assert.ok(b.store.get('nodes', `r${i}`));
      }
      const del = await a.store.txn((tx) => tx.delete('nodes', 'r0'));
      await b.leadership.readBarrier();
      assert.equal(b.store.get('nodes', 'r0'), undefined);
      assert.equal(b.store.getBy('nodes', 'name', 'r0'), undefined);
      assert.deepEqual(
        b.store.list('nodes').map((n) => n.ModifyIndex),
        a.store.list('nodes').map((n) => n.ModifyIndex),
      );
      assert.equal(b.store.tableIndex('nodes'), del.index);
    } finally {
      await b.stop();
      await a.stop();
      await drop(table);
    }
  });

  it('the leader stops: a follower takes over, catches up first, and its indexes continue; leader-only work moves with it', async () => {
    const table = freshTable();
    const work: string[] = [];
    const a = await startServer(table, 'a', { onLeader: () => work.push('a+'), onFollower: () => work.push('a-') });
    await until('a leads', () => a.leadership.isLeader);
    const b = await startServer(table, 'b', { onLeader: () => work.push('b+'), onFollower: () => work.push('b-') });
    try {
      let last = 0;
      for (let i = 0; i < 5; i++) last = (await a.store.txn((tx) => tx.put('nodes', `n${i}`, { Name: `n${i}` }))).index;
      await a.stop();
      await until('b leads', () => b.leadership.isLeader);
      assert.equal(b.store.index, last, 'caught up before writing');
      const next = await b.store.txn((tx) => tx.put('nodes', 'after', { Name: 'after' }));
      assert.equal(next.index, last + 1);
      assert.deepEqual(work, ['a+', 'a-', 'b+']);
    } finally {
      await b.stop();
      await drop(table);
    }
  });

  it("says it leads only once the leader's first writes are made (until then it knows no leader, and requests get No cluster leader)", async () => {
    const table = freshTable();
    let firstWrites!: () => void;
    const made = new Promise<void>((r) => (firstWrites = r));
    const a = await startServer(table, 'a', {
      onLeader: async () => {
        await a.store.txn((tx) => tx.put('nodes', 'builtin', { Name: 'builtin' }));
        await made;
      },
    });
    const b = await startServer(table, 'b');
    try {
      await until('a made its first write', () => a.store.get('nodes', 'builtin') !== undefined);
      assert.equal(a.leadership.isLeader, false, 'not the leader while its first writes run');
      assert.equal(a.leadership.knownLeader, false);
      firstWrites();
      await until('a leads', () => a.leadership.isLeader);
      await until('b names a', () => b.leadership.leaderAddress === 'a:1');
    } finally {
      await b.stop();
      await a.stop();
      await drop(table);
    }
  });

  it('a follower further behind than the kept log reloads the whole state', async () => {
    const table = freshTable();
    const backend = await PostgresBackend.open({ connectionUrl: server.url, table });
    const leader = await StateStore.open(backend, TABLES, undefined, { shared: true });
    leader.setWritable(true);
    const other = await PostgresBackend.open({ connectionUrl: server.url, table });
    const follower = await StateStore.open(other, TABLES, undefined, { shared: true });
    try {
      await leader.txn((tx) => tx.put('nodes', 'a', { Name: 'a' }));
      await follower.catchUp();
      for (let i = 0; i < 3; i++) await leader.txn((tx) => tx.put('nodes', `b${i}`, { Name: `b${i}` }));
      // The entries the follower needs are gone (as if pruned past LOG_KEEP).
      await admin.query(`DELETE FROM ${quoteTableName(table)} WHERE key LIKE '\\_log/%'`);
      const reloads: number[] = [];
      follower.onReload((i) => reloads.push(i));
      await follower.catchUp(false);
      assert.equal(follower.index, 1, 'the log tail alone cannot tell');
      await follower.catchUp(true);
      assert.equal(follower.index, 4);
      assert.deepEqual(reloads, [4]);
      assert.deepEqual(
        follower.list<{ Name: string }>('nodes').map((n) => n.Name),
        ['a', 'b0', 'b1', 'b2'],
      );
    } finally {
      await other.close();
      await backend.close();
      await drop(table);
    }
  });

  it('a follower whose check races a commit (the entry lands between its reads) applies it later and does not reload', async () => {
    const table = freshTable();
    const backend = await PostgresBackend.open({ connectionUrl: server.url, table });
    const leader = await StateStore.open(backend, TABLES, undefined, { shared: true });
    leader.setWritable(true);
    const other = await PostgresBackend.open({ connectionUrl: server.url, table });
    // The follower's storage: when armed, the leader commits right after the follower read a missing log entry.
    let armed = false;
    const racing: Backend = Object.assign(Object.create(other) as Backend, {
      get: async (key: string) => {
        const value = await other.get(key);
        if (armed && key.startsWith('_log/') && value === undefined) {
          armed = false;
          await leader.txn((tx) => tx.put('nodes', 'late', { Name: 'late' }));
        }
        return value;
      },
    });
    const follower = await StateStore.open(racing, TABLES, undefined, { shared: true });
    try {
      await leader.txn((tx) => tx.put('nodes', 'a', { Name: 'a' }));
      await follower.catchUp(true);
      const reloads: number[] = [];
      follower.onReload((i) => reloads.push(i));
      armed = true;
      await follower.catchUp(true);
      assert.equal(follower.index, 1, 'the entry committed after its log read is not applied yet');
      await follower.catchUp(true);
      assert.equal(follower.index, 2);
      assert.ok(follower.get('nodes', 'late'));
      assert.deepEqual(reloads, [], 'a follower that is merely behind never reloads (its event streams would end)');
    } finally {
      await other.close();
      await backend.close();
      await drop(table);
    }
  });

  it('a leader whose write failed refuses writes until it reloaded from the database (dropping what the database never got), then writes again without a restart', async () => {
    const table = freshTable();
    const a = await startServer(table, 'w');
    const t = quoteTableName(table);
    const fn = `${table}_refuse`;
    try {
      await until('leads', () => a.leadership.isLeader);
      await a.store.txn((tx) => tx.put('nodes', 'before', { Name: 'before' }));
      // The database refuses one document: that batch fails after the store applied it in memory.
      await admin.query(`CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.key LIKE 'nodes/boom%' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$;
        CREATE TRIGGER refuse BEFORE INSERT OR UPDATE ON ${t} FOR EACH ROW EXECUTE FUNCTION ${fn}()`);
      await assert.rejects(
        a.store.txn((tx) => tx.put('nodes', 'boom', { Name: 'boom' })),
        /refused by the test/,
      );
      await assert.rejects(
        a.store.txn((tx) => tx.put('nodes', 'next', { Name: 'next' })),
        StateStoreFailed,
      );
      await admin.query(`DROP TRIGGER refuse ON ${t}; DROP FUNCTION ${fn}()`);
      // The periodic check reloads from the database; writes are taken again.
      await until('writes taken again', () =>
        a.store
          .txn((tx) => tx.put('nodes', 'later', { Name: 'later' }))
          .then(
            () => true,
            () => false,
          ),
      );
      assert.equal(a.store.get('nodes', 'boom'), undefined, 'the refused document is gone from memory');
      assert.ok(a.store.get('nodes', 'before'));
      const check = await PostgresBackend.open({ connectionUrl: server.url, table });
      const fresh = await StateStore.open(check, TABLES, undefined, { shared: true });
      await check.close();
      assert.deepEqual(
        fresh.list<{ Name: string }>('nodes').map((n) => n.Name),
        ['before', 'later'],
      );
    } finally {
      await a.stop();
      await drop(table);
      await admin.query(`DROP FUNCTION IF EXISTS ${fn}() CASCADE`);
    }
  });

  it(
    'the database restarts under writes: writes fail cleanly while it is away, then the same servers write and follow again without a restart',
    { timeout: 60_000 },
    async (t) => {
      if (!server.throwaway) return t.skip('needs a throwaway cluster to restart');
      const table = freshTable();
      const a = await startServer(table, 'ra');
      await until('a leads', () => a.leadership.isLeader);
      const b = await startServer(table, 'rb');
      try {
        const acknowledged: string[] = [];
        const failures: Error[] = [];
        let stop = false;
        const writer = (async () => {
          for (let i = 0; !stop; i++) {
            try {
              // The leadership may move while the database is away: write where it is.
              const leader = b.leadership.isLeader ? b : a;
              await leader.store.txn((tx) => tx.put('nodes', `w${i}`, { Name: `w${i}` }));
              acknowledged.push(`w${i}`);
            } catch (err) {
              failures.push(err as Error);
              await new Promise((r) => setTimeout(r, 20));
            }
          }
        })();
        await until('writes flow', () => acknowledged.length >= 20);
        await server.restart('immediate');
        const before = acknowledged.length;
        await until('writes flow again', () => acknowledged.length > before + 20, 30_000);
        stop = true;
        await writer;
        assert.ok(failures.length > 0, 'some writes failed while the database was down');
        assert.ok(
          failures.every((e) => e instanceof Error && e.message.length > 0),
          'each failure is an error with a message',
        );
        // The leader may have moved while the lock connections were down: either server writes now.
        await until('one leader', () => a.leadership.isLeader !== b.leadership.isLeader, 10_000);
        const leader = a.leadership.isLeader ? a : b;
        const follower = leader === a ? b : a;
        const last = await leader.store.txn((tx) => tx.put('nodes', 'final', { Name: 'final' }));
        await follower.leadership.readBarrier();
        assert.equal(follower.store.index, last.index);
        for (const name of acknowledged) assert.ok(follower.store.get('nodes', name), `acknowledged ${name} is on the follower`);
      } finally {
        await b.stop();
        await a.stop();
        await drop(table);
      }
    },
  );
});
