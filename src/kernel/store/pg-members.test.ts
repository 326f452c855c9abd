/**
 * Member locks (pg-members.ts) on a throwaway PostgreSQL cluster (or `CAIRN_TEST_PG_URL`):
 * `absentMembers` names exactly the members whose lock no session holds; a stopped member
 * and one whose connection the server cut are absent; a cut member comes back by itself;
 * a second agent with the same name waits for the first's lock; another table's members
 * are not this table's.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import type { PgMemberLock } from './pg-members.js';
import { PostgresBackend } from './postgres.js';
import { startPgTestServer, type PgTestServer } from './testdata/pg-cluster.js';

const server: PgTestServer = await startPgTestServer();
const table = `cairn_members_${randomBytes(4).toString('hex')}`;
const opened: PostgresBackend[] = [];
const locks: PgMemberLock[] = [];

after(async () => {
  await Promise.all(locks.map((l) => l.stop()));
  await Promise.all(opened.map((b) => b.close().catch(() => undefined)));
  if (!server.throwaway) {
    const c = new pg.Client({ connectionString: server.url });
    await c.connect();
    await c.query(`DROP TABLE IF EXISTS "${table}", "${table}_other"`).finally(() => c.end());
  }
  await server.stop();
});

async function until<T>(what: string, ms: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) assert.fail(`${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function open(t: string): Promise<PostgresBackend> {
  const b = await PostgresBackend.open({ connectionUrl: server.url, table: t, maxParallel: 2 });
  opened.push(b);
  return b;
}

describe('member locks', () => {
  it('absent members are exactly those whose lock no session holds', async () => {
    const backend = await open(table);
    const other = await open(`${table}_other`);
    const all = ['node-a', 'node-b', 'node-c'];
    assert.deepEqual(await backend.absentMembers(all), all);
    assert.deepEqual(await backend.absentMembers([]), []);

    const a = backend.memberLock('node-a', 50);
    const b = backend.memberLock('node-b', 500);
    locks.push(a, b);
    a.start();
    b.start();
    /** Resolves with the absent members once all of `names` are present. */
    const present = (names: string[]) => async () => {
      const absent = await backend.absentMembers(all);
      return names.every((n) => !absent.includes(n)) ? absent : undefined;
    };
    assert.deepEqual(await until('a and b hold their locks', 5000, present(['node-a', 'node-b'])), ['node-c']);
    assert.deepEqual(await other.absentMembers(all), all, 'members of another table are not these');

    // A second agent named node-a waits while the first runs, and takes over when it stops.
    const twin = backend.memberLock('node-a', 50);
    locks.push(twin);
    twin.start();
    await a.stop();
    assert.deepEqual(await until('node-a held again (by the twin)', 5000, present(['node-a', 'node-b'])), ['node-c']);
    await twin.stop();
    assert.deepEqual(
      await until('node-a absent', 5000, async () => ((await backend.absentMembers(all)).includes('node-a') ? await backend.absentMembers(all) : undefined)),
      ['node-a', 'node-c'],
    );

    // The server cuts node-b's session: absent at once, back after its retry pause.
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    try {
      const cut = await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2
           AND objid = (hashtext('node-b')::bigint & 4294967295)::oid`,
      );
      assert.equal(cut.rowCount, 1);
      // (pg_terminate_backend signals the session; it ends a moment later.)
      await until('node-b absent once its session ended', 5000, async () => ((await backend.absentMembers(all)).includes('node-b') ? true : undefined));
      assert.deepEqual(await until('node-b back', 5000, present(['node-b'])), ['node-a', 'node-c']);
    } finally {
      await admin.end();
    }
  });
});
