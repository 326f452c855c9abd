// Tests of PostgresBackend against a real PostgreSQL (a throwaway cluster started by
// testdata/pg-cluster.ts, or the database of CAIRN_TEST_PG_URL): the shared Backend
// conformance suite, plus what only PostgreSQL has: group commit counts, failure
// isolation inside a group, connections the server drops (pg_terminate_backend, a
// restart), bad connection URLs, the table option, synchronous_commit, and the
// StateStore on top of it. Each test gets its own table, dropped afterwards.

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { pino } from 'pino';
import { runBackendSuite } from './backend.suite.js';
import { groupCommitTests, writeAroundRefusedKeys } from './group-commit.suite.js';
import type { BackendChange } from './pg-listen.js';
import { PostgresBackend, describeConnectionUrl, quoteTableName, sideTableName, type PostgresBackendOptions } from './postgres.js';
import { StateConflict, StateStore, type ChangeBatch, type TableSpec } from './state.js';
import { assertAcknowledgedStored, killWriterMidStream } from './testdata/crash-writer.js';
import { startPgTestServer, type PgTestServer } from './testdata/pg-cluster.js';

const CRASH_WRITER = fileURLToPath(new URL('./testdata/pg-crash-writer.ts', import.meta.url));

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array | undefined): string | undefined => (b === undefined ? undefined : Buffer.from(b).toString());

const server: PgTestServer = await startPgTestServer();
const admin = new pg.Pool({ connectionString: server.url, max: 4 });
admin.on('error', () => undefined);
after(async () => {
  await admin.end();
  await server.stop();
});

let tables = 0;
/** A table name of its own for one test (random, so a shared CAIRN_TEST_PG_URL database is safe). */
function freshTable(): string {
  return `cairn_test_${process.pid}_${tables++}_${randomBytes(3).toString('hex')}`;
}

/** Drops `table` and its side tables (quoted as the backend quotes them). */
async function drop(table: string): Promise<void> {
  await admin.query(`DROP TABLE IF EXISTS ${quoteTableName(table)}, ${sideTableName(table, 'index')}, ${sideTableName(table, 'ha')}`);
}

/** Runs `fn` with a backend on a fresh table, then closes it and drops the table. */
async function withPg(fn: (backend: PostgresBackend, table: string) => Promise<void>, options: Partial<PostgresBackendOptions> = {}): Promise<void> {
  const table = options.table ?? freshTable();
  const backend = await PostgresBackend.open({ connectionUrl: server.url, ...options, table });
  try {
    await fn(backend, table);
  } finally {
    await backend.close().catch(() => undefined);
    await drop(table);
  }
}

/** Terminates every connection whose application_name is `app`; resolves with how many. */
async function terminate(app: string): Promise<number> {
  const r = await admin.query('SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = $1', [app]);
  return r.rows[0].n as number;
}

/** A pino logger that keeps every line it writes, for checking what was logged. */
function captureLogger(): { log: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const log = pino({ level: 'trace' }, { write: (s: string) => void lines.push(s) });
  return { log, lines };
}

runBackendSuite('PostgresBackend', async () => {
  const table = freshTable();
  return {
    backend: await PostgresBackend.open({ connectionUrl: server.url, table }),
    reopen: () => PostgresBackend.open({ connectionUrl: server.url, table }),
    cleanup: () => drop(table),
  };
});

describe('PostgresBackend', () => {
  it('creates the table with key text COLLATE "C" primary key and value bytea', () =>
    withPg(async (backend, table) => {
      await backend.put('k', bytes('v'));
      const cols = await admin.query(
        `SELECT a.attname, format_type(a.atttypid, a.atttypmod) AS type, c.collname
           FROM pg_attribute a LEFT JOIN pg_collation c ON c.oid = a.attcollation
          WHERE a.attrelid = $1::regclass AND a.attnum > 0 ORDER BY a.attnum`,
        [table],
      );
      assert.deepEqual(
        cols.rows.map((r) => [r.attname, r.type, r.collname]),
        [
          ['key', 'text', 'C'],
          ['value', 'bytea', null],
        ],
      );
      const rows = await admin.query(`SELECT key, value FROM ${table}`);
      assert.deepEqual(rows.rows, [{ key: 'k', value: Buffer.from('v') }]);
    }));

  it('the table option: separate tables are separate stores; schema-qualified and mixed-case names work', async () => {
    const schema = `cairn_schema_${randomBytes(3).toString('hex')}`;
    await admin.query(`CREATE SCHEMA ${schema}`);
    const a = freshTable();
    const b = `${schema}.Mixed_Case`;
    const one = await PostgresBackend.open({ connectionUrl: server.url, table: a });
    const two = await PostgresBackend.open({ connectionUrl: server.url, table: b });
    try {
      assert.equal(one.table, a);
      await one.put('shared/name', bytes('in a'));
      await two.put('shared/name', bytes('in b'));
      await two.put('only-b', bytes('b'));
      assert.equal(text(await one.get('shared/name')), 'in a');
      assert.equal(text(await two.get('shared/name')), 'in b');
      assert.deepEqual(await one.list(''), ['shared/']);
      assert.deepEqual(await two.list(''), ['only-b', 'shared/']);
      const rows = await admin.query(`SELECT key FROM ${schema}."Mixed_Case" ORDER BY key`);
      assert.deepEqual(
        rows.rows.map((r) => r.key),
        ['only-b', 'shared/name'],
      );
    } finally {
      await one.close();
      await two.close();
      await drop(a);
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    }
  });

  it('refuses bad table names and other options before connecting', async () => {
    for (const table of ['', 'a-b', '1abc', 'a.b.c', 'x"; DROP TABLE y; --', 'a'.repeat(64), 'a.']) {
      await assert.rejects(PostgresBackend.open({ connectionUrl: server.url, table }), /must be "name" or "schema.name"/, table);
    }
    await assert.rejects(PostgresBackend.open({ connectionUrl: server.url, maxParallel: 0 }), /max_parallel must be a positive integer/);
    await assert.rejects(PostgresBackend.open({ connectionUrl: 'mysql://h/db' }), /must be a postgres:\/\/ or postgresql:\/\/ URL/);
    await assert.rejects(PostgresBackend.open({ connectionUrl: 'postgres://u:hunter2@host:notaport/db' }), (err: Error) => {
      assert.equal(err.message, 'PostgreSQL connection_url cannot be parsed: Invalid URL');
      return true;
    });
  });

  it('refuses an existing table of another shape, and leaves it alone', async () => {
    const table = freshTable();
    await admin.query(`CREATE TABLE ${table} (key text PRIMARY KEY, value bytea NOT NULL)`); // default collation
    try {
      await assert.rejects(PostgresBackend.open({ connectionUrl: server.url, table }), (err: Error) => {
        assert.match(
          err.message,
          new RegExp(`cannot prepare table ${table}: table exists with columns \\(key text collate default primary key, value bytea\\)`),
        );
        assert.match(err.message, /needs \(key text collate "C" primary key, value bytea\)/);
        return true;
      });
      const cols = await admin.query(`SELECT count(*)::int AS n FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0`, [table]);
      assert.equal(cols.rows[0].n, 2);
    } finally {
      await drop(table);
    }
  });

  describe('a wrong or unreachable connection_url is a clear error naming host and database, and creates nothing', () => {
    const url = new URL(server.url);
    const password = decodeURIComponent(url.password);

    it('nothing listens on the port', async () => {
      const probe = await import('node:net').then(
        (net) =>
          new Promise<number>((resolve) => {
            const s = net.createServer().listen(0, '127.0.0.1', () => {
              const { port } = s.address() as { port: number };
              s.close(() => resolve(port));
            });
          }),
      );
      const bad = new URL(server.url);
      bad.hostname = '127.0.0.1';
      bad.port = String(probe);
      await assert.rejects(PostgresBackend.open({ connectionUrl: bad.href }), (err: Error) => {
        assert.match(err.message, new RegExp(`^PostgreSQL ${url.username}@127\\.0\\.0\\.1:${probe}/postgres: cannot connect: .*ECONNREFUSED`));
        assert.ok(password === '' || !err.message.includes(password), 'the password is not in the message');
        return true;
      });
    });

    it('the database does not exist', async () => {
      const bad = new URL(server.url);
      bad.pathname = '/no_such_db';
      await assert.rejects(PostgresBackend.open({ connectionUrl: bad.href }), (err: Error) => {
        assert.match(err.message, /^PostgreSQL .*\/no_such_db: cannot connect: database "no_such_db" does not exist$/);
        assert.equal((err as Error & { code?: string }).code, '3D000');
        return true;
      });
    });

    it('the password is wrong', async (t) => {
      if (!server.throwaway) return t.skip('CAIRN_TEST_PG_URL: the server may not check passwords');
      const bad = new URL(server.url);
      bad.password = 'not-the-password';
      const table = freshTable();
      await assert.rejects(PostgresBackend.open({ connectionUrl: bad.href, table }), (err: Error) => {
        assert.match(err.message, /^PostgreSQL postgres@127\.0\.0\.1:\d+\/postgres: cannot connect: password authentication failed for user "postgres"$/);
        assert.ok(!err.message.includes('not-the-password') && !err.message.includes(password));
        return true;
      });
      const r = await admin.query('SELECT to_regclass($1) AS t', [table]);
      assert.equal(r.rows[0].t, null, 'no table was created');
    });

    it('an unresolvable host, and a connection that never answers, fail within the timeout', async () => {
      await assert.rejects(
        PostgresBackend.open({ connectionUrl: 'postgres://u:pw@no-such-host.invalid:5432/appdb' }),
        /^Error: PostgreSQL u@no-such-host\.invalid:5432\/appdb: cannot connect: .*(ENOTFOUND|EAI_AGAIN)/,
      );
      // A listener that accepts and never speaks: the connect timeout ends the wait.
      const net = await import('node:net');
      const sockets: Socket[] = [];
      const mute = net.createServer((s) => void sockets.push(s));
      await new Promise<void>((resolve) => mute.listen(0, '127.0.0.1', resolve));
      const port = (mute.address() as { port: number }).port;
      const started = Date.now();
      try {
        await assert.rejects(PostgresBackend.open({ connectionUrl: `postgres://u:secret@127.0.0.1:${port}/appdb`, connectTimeoutMs: 300 }), (err: Error) => {
          assert.match(err.message, new RegExp(`^PostgreSQL u@127\\.0\\.0\\.1:${port}/appdb: cannot connect: .*timeout`, 'i'));
          assert.ok(!err.message.includes('secret'));
          return true;
        });
        assert.ok(Date.now() - started < 5000);
      } finally {
        for (const s of sockets) s.destroy();
        mute.close();
      }
    });

    it('describeConnectionUrl never shows the password', () => {
      assert.equal(describeConnectionUrl('postgresql://alice:s3cr%40t@db.example.com:6543/vault?application_name=x'), 'alice@db.example.com:6543/vault');
      assert.equal(describeConnectionUrl('postgres://bob:pw@[::1]/x'), 'bob@[::1]:5432/x');
    });
  });

  groupCommitTests((fn) => withPg(fn));

  it('list reads one row per child, however big the sub-folders are', () =>
    withPg(async (backend, table) => {
      const ops = [];
      for (let i = 0; i < 20_000; i++) ops.push({ key: `big/sub/${i % 100}/${i}`, value: bytes('x') });
      for (let i = 0; i < 5_000; i++) ops.push({ key: `big/other/${i}`, value: bytes('x') });
      ops.push({ key: 'big/leaf', value: bytes('x') }, { key: 'big/sub', value: bytes('x') });
      await backend.batch(ops);
      await admin.query(`ANALYZE ${table}`);
      assert.deepEqual(await backend.list('big/'), ['leaf', 'other/', 'sub', 'sub/']);
      assert.deepEqual(await backend.list(''), ['big/']);
      assert.equal((await backend.list('big/sub/')).length, 100);
      // The plan seeks the primary-key index; it never scans the table.
      const plan = await admin.query(
        `EXPLAIN (ANALYZE, FORMAT JSON) WITH RECURSIVE walk(k) AS (
           (SELECT key FROM ${table} WHERE key >= 'big/' AND key < 'big0' ORDER BY key LIMIT 1)
           UNION ALL
           SELECT (SELECT key FROM ${table} WHERE key >= CASE WHEN s.slash = 0 THEN w.k || chr(1)
                     ELSE substr(w.k, 1, s.plen + s.slash - 1) || '0' END AND key < 'big0' ORDER BY key LIMIT 1)
           FROM walk w, LATERAL (SELECT 4 AS plen, strpos(substr(w.k, 5), '/') AS slash) s WHERE w.k IS NOT NULL
         ) SELECT k FROM walk WHERE k IS NOT NULL`,
      );
      const json = JSON.stringify(plan.rows[0]['QUERY PLAN']);
      assert.doesNotMatch(json, /Seq Scan/);
      assert.match(json, /Index Only Scan|Index Scan/);
      // Queued deletes of a few keys in a big folder are folded in without reading the folder.
      const pending = [backend.delete('big/other/0'), backend.delete('big/other/1'), backend.delete('big/leaf')];
      assert.deepEqual(await backend.list('big/'), ['other/', 'sub', 'sub/']);
      await Promise.all(pending);
      assert.deepEqual(await backend.list('big/'), ['other/', 'sub', 'sub/']);
    }));

  it('a folder emptied by queued deletes disappears from list before they commit', () =>
    withPg(async (backend) => {
      await backend.batch([
        { key: 'f/x/1', value: bytes('1') },
        { key: 'f/x/2', value: bytes('2') },
        { key: 'f/y', value: bytes('3') },
      ]);
      const pending = [backend.delete('f/x/1'), backend.delete('f/x/2')];
      assert.deepEqual(await backend.list('f/'), ['y']);
      const more = backend.put('f/x/3', bytes('back'));
      assert.deepEqual(await backend.list('f/'), ['x/', 'y']);
      await Promise.all([...pending, more]);
      assert.deepEqual(await backend.list('f/x/'), ['3']);
    }));

  it('a write failing inside a group commit rejects alone; its neighbours commit', () =>
    withPg(async (backend, table) => {
      await admin.query(`
        CREATE FUNCTION ${table}_no_boom() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NEW.key LIKE '%boom' THEN RAISE EXCEPTION 'boom refused'; END IF;
          RETURN NEW;
        END $$;
        CREATE TRIGGER no_boom BEFORE INSERT OR UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${table}_no_boom();`);
      try {
        const reason = String(await writeAroundRefusedKeys(backend));
        assert.match(reason, /^Error: PostgreSQL postgres@.*: write failed: boom refused$/);
        assert.equal(backend.stats.commits, 1, 'the call-by-call rerun is one transaction');
        await assert.rejects(backend.put('alone-boom', bytes('x')), /boom refused/);
        await backend.put('fine', bytes('ok'));
        assert.deepEqual(await backend.list(''), ['fine', 'ok1', 'ok2']);
      } finally {
        await admin.query(`DROP FUNCTION ${table}_no_boom() CASCADE`);
      }
    }));

  it('every pooled connection terminated at once, right before a read: the read still succeeds', () =>
    withPg(
      async (backend) => {
        await backend.put('a', bytes('1'));
        for (let round = 0; round < 5; round++) {
          // Fill the pool (4 connections), then kill them all with no time for the pool to notice.
          await Promise.all(Array.from({ length: 8 }, () => backend.get('a')));
          assert.ok((await terminate('cairn-test-all-idle')) >= 1);
          assert.equal(text(await backend.get('a')), '1', `round ${round}`);
        }
      },
      { applicationName: 'cairn-test-all-idle', maxParallel: 4 },
    ));

  it('connections the server terminates while idle: the next operations reconnect without an error', () =>
    withPg(
      async (backend) => {
        await backend.put('a', bytes('1'));
        await Promise.all([backend.get('a'), backend.get('a'), backend.list('')]); // several pooled connections
        assert.ok((await terminate('cairn-test-idle')) >= 1);
        await new Promise((r) => setTimeout(r, 50));
        assert.equal(text(await backend.get('a')), '1');
        await backend.put('b', bytes('2'));
        assert.deepEqual(await backend.list(''), ['a', 'b']);
        // Terminated again right before use, with no time to notice: reads retry, writes retry BEGIN.
        assert.ok((await terminate('cairn-test-idle')) >= 1);
        assert.equal(text(await backend.get('b')), '2');
        assert.ok((await terminate('cairn-test-idle')) >= 1);
        await backend.put('c', bytes('3'));
        assert.deepEqual(await backend.list(''), ['a', 'b', 'c']);
        assert.ok(backend.stats.connectionErrors >= 1, `connection errors seen: ${backend.stats.connectionErrors}`);
      },
      { applicationName: 'cairn-test-idle' },
    ));

  it('a connection lost mid-write rejects that write cleanly; later writes reconnect', () =>
    withPg(
      async (backend, table) => {
        await backend.put('before', bytes('x'));
        const locker = await admin.connect();
        let put: Promise<void>;
        try {
          await locker.query('BEGIN');
          await locker.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
          put = backend.put('during', bytes('lost'));
          const settled = put.then(
            () => 'fulfilled',
            (err: Error) => err,
          );
          // Wait until the group's statement is blocked on the lock, then cut its connection.
          for (let i = 0; ; i++) {
            const r = await admin.query(
              "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'cairn-test-mid' AND wait_event_type = 'Lock'",
            );
            if (r.rows[0].n > 0) break;
            assert.ok(i < 200, 'the write never blocked on the lock');
            await new Promise((r) => setTimeout(r, 10));
          }
          assert.equal(text(await backend.get('during')), 'lost', 'visible while committing');
          await terminate('cairn-test-mid');
          const outcome = await settled;
          assert.ok(outcome instanceof Error, 'the write was rejected');
          assert.match(outcome.message, /^PostgreSQL postgres@.*: write failed: terminating connection due to administrator command$/);
          assert.equal((outcome as Error & { code?: string }).code, '57P01');
        } finally {
          await locker.query('ROLLBACK');
          locker.release();
        }
        assert.equal(await backend.get('during'), undefined, 'a rejected write is not visible');
        assert.equal(text(await backend.get('before')), 'x');
        await backend.put('after', bytes('y'));
        assert.deepEqual(await backend.list(''), ['after', 'before']);
        assert.equal(backend.stats.failedCommits, 1);
      },
      { applicationName: 'cairn-test-mid' },
    ));

  it('connections terminated again and again under mixed load: each operation succeeds or rejects cleanly; nothing crashes', (t) =>
    withPg(
      async (backend) => {
        const acked = new Map<string, string>();
        const errors: string[] = [];
        let ops = 0;
        let stop = false;
        const loops = Array.from({ length: 8 }, async (_, w) => {
          for (let i = 0; !stop; i++) {
            const key = `churn/${w}/${i % 20}`;
            const value = `${w}.${i}`;
            try {
              if (i % 3 === 2) await backend.list(`churn/${w}/`);
              else if (i % 3 === 1) await backend.get(key);
              else {
                await backend.batch([
                  { key, value: bytes(value) },
                  { key: `${key}/twin`, value: bytes(value) },
                ]);
                acked.set(key, value);
              }
              ops++;
            } catch (err) {
              errors.push((err as Error).message);
              acked.delete(key); // unknown now: a later write of it may have been rejected
            }
          }
        });
        // 25 rounds or more; each waits 20 ms and for 5 more operations to go through (up to
        // 5 s) before it terminates the connections again. A fixed 20 ms let a loaded CI
        // machine spend every round reconnecting (97 operations in 1,000 rounds); the test
        // is about churn, not speed.
        for (let round = 0; round < 25 || (ops <= 100 && round < 200); round++) {
          const before = ops;
          await new Promise((r) => setTimeout(r, 20));
          for (let waited = 0; ops < before + 5 && waited < 5_000; waited += 10) await new Promise((r) => setTimeout(r, 10));
          await terminate('cairn-test-churn');
        }
        stop = true;
        await Promise.all(loops);
        for (const message of errors) assert.match(message, /^PostgreSQL postgres@127\.0\.0\.1:\d+\/postgres: (get|list|write) failed: /);
        assert.ok(ops > 100, `only ${ops} operations succeeded`);
        for (const [key, value] of acked) {
          assert.equal(text(await backend.get(key)), value, key);
          assert.equal(text(await backend.get(`${key}/twin`)), value, `${key}/twin: a batch is all or nothing`);
        }
        t.diagnostic(
          `${ops} operations succeeded, ${errors.length} rejected, ${backend.stats.connectionErrors} connections lost, ${backend.stats.retries} retried`,
        );
      },
      { applicationName: 'cairn-test-churn' },
    ));

  for (const mode of ['fast', 'immediate'] as const) {
    const what = mode === 'fast' ? 'a database restart' : 'a database crash (pg_ctl -m immediate) and recovery';
    it(`${what} under load: writes fail cleanly while it is down, acknowledged ones survive, no reopen needed`, async (t) => {
      if (!server.throwaway) return t.skip('CAIRN_TEST_PG_URL: this helper cannot restart that server');
      await withPg(async (backend) => {
        const acked: string[] = [];
        const failed: Error[] = [];
        let stop = false;
        const writers = Array.from({ length: 4 }, async (_, w) => {
          for (let i = 0; !stop; i++) {
            const key = `load/${w}/${i}`;
            try {
              await backend.put(key, bytes(key));
              acked.push(key);
            } catch (err) {
              failed.push(err as Error);
              await new Promise((r) => setTimeout(r, 20));
            }
          }
        });
        // Wait for acknowledged writes rather than a fixed time: on a loaded machine the
        // first commit can take longer than any fixed delay.
        for (let waited = 0; acked.length < 10 && waited < 15_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
        const ackedBefore = acked.length;
        await server.restart(mode);
        await new Promise((r) => setTimeout(r, 300));
        stop = true;
        await Promise.all(writers);
        assert.ok(ackedBefore > 0, 'writes went through before the restart');
        for (const err of failed) assert.match(err.message, /^PostgreSQL postgres@127\.0\.0\.1:\d+\/postgres: write failed: /);
        // After the restart: reads, writes and lists work on the same backend object.
        await backend.put('after-restart', bytes('ok'));
        assert.equal(text(await backend.get('after-restart')), 'ok');
        const stored = new Set<string>();
        for (let w = 0; w < 4; w++) for (const name of await backend.list(`load/${w}/`)) stored.add(`load/${w}/${name}`);
        for (const key of acked) assert.ok(stored.has(key), `acknowledged ${key} is stored`);
        for (const key of acked.filter((_, i) => i % 97 === 0)) assert.equal(text(await backend.get(key)), key);
        assert.ok(acked.length > ackedBefore, 'writes went through after the restart');
        const reasons = [...new Set(failed.map((e) => e.message.replace(/^.*?write failed: /, '')))];
        t.diagnostic(`${mode}: acknowledged ${acked.length} writes, ${failed.length} rejected during the restart (${reasons.join(' | ')})`);
      });
    });
  }

  it('every acknowledged write survives SIGKILL of the writing process', { timeout: 60_000 }, async () => {
    const table = freshTable();
    try {
      const acked = await killWriterMidStream(CRASH_WRITER, [table], { ...process.env, CAIRN_CRASH_PG_URL: server.url });
      const backend = await PostgresBackend.open({ connectionUrl: server.url, table });
      try {
        await assertAcknowledgedStored(backend, acked);
      } finally {
        await backend.close();
      }
    } finally {
      await drop(table);
    }
  });

  it('synchronous_commit = off for the role is set back to on for its connections', async (t) => {
    const role = `cairn_async_${randomBytes(3).toString('hex')}`;
    const table = freshTable();
    const seen = `${table}_seen`;
    try {
      await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD 'pw'`);
    } catch (err) {
      return t.skip(`cannot create a role here: ${(err as Error).message}`);
    }
    try {
      await admin.query(`ALTER ROLE ${role} SET synchronous_commit = off`);
      await admin.query(`GRANT CREATE ON SCHEMA public TO ${role}`);
      const url = new URL(server.url);
      url.username = role;
      url.password = 'pw';
      const { log, lines } = captureLogger();
      const backend = await PostgresBackend.open({ connectionUrl: url.href, table, log });
      try {
        assert.ok(
          lines.some((l) => /synchronous_commit is off; Cairn sets it to on/.test(l)),
          'warned',
        );
        // A trigger records the setting that each write transaction runs with.
        await admin.query(`CREATE TABLE ${seen} (setting text); GRANT INSERT ON ${seen} TO ${role};
          CREATE FUNCTION ${seen}_f() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN INSERT INTO ${seen} VALUES (current_setting('synchronous_commit')); RETURN NEW; END $$;
          CREATE TRIGGER rec BEFORE INSERT OR UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${seen}_f();`);
        await Promise.all([backend.put('a', bytes('1')), backend.put('b', bytes('2'))]);
        await backend.put('a', bytes('3'));
        const r = await admin.query(`SELECT DISTINCT setting FROM ${seen}`);
        assert.deepEqual(r.rows, [{ setting: 'on' }]);
        assert.ok(!lines.some((l) => l.includes(':pw@') || l.includes('"pw"')), 'the password is never logged');
      } finally {
        await backend.close();
      }
    } finally {
      await drop(table);
      await admin.query(`DROP TABLE IF EXISTS ${seen}; DROP FUNCTION IF EXISTS ${seen}_f();`);
      await admin.query(`REVOKE CREATE ON SCHEMA public FROM ${role}; DROP ROLE ${role}`);
    }
  });
});

describe('the change feed between servers sharing a table (LISTEN/NOTIFY)', () => {
  /** Resolves once `seen` holds a change matching `pred`. */
  const until = async (seen: BackendChange[], pred: (c: BackendChange) => boolean): Promise<BackendChange> => {
    for (let i = 0; i < 500; i++) {
      const hit = seen.find(pred);
      if (hit) return hit;
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.fail(`no change matched; seen ${JSON.stringify(seen)}`);
  };

  it('a write on server A reaches server B with its commit index and keys, in commit order; a lost feed resyncs', () =>
    withPg(
      async (a, table) => {
        const b = await PostgresBackend.open({ connectionUrl: server.url, table, applicationName: 'cairn-test-feed' });
        try {
          const seen: BackendChange[] = [];
          b.watchChanges((c) => seen.push(c));
          await until(seen, (c) => c.keys === undefined); // the first sync point
          await a.put('x/1', bytes('1'));
          assert.equal(a.commitIndex, 1, 'the writer knows its own commit index once acknowledged');
          await a.batch([{ key: 'x/2', value: bytes('2') }, { key: 'x/1' }]);
          assert.equal(a.commitIndex, 2);
          const second = await until(seen, (c) => c.index === 2);
          assert.deepEqual(second.keys, ['x/1', 'x/2']);
          assert.deepEqual(
            seen.filter((c) => c.keys).map((c) => [c.index, c.keys]),
            [
              [1, ['x/1']],
              [2, ['x/1', 'x/2']],
            ],
          );
          assert.equal(b.commitIndex, 2, 'the listener knows the latest index');
          assert.equal(await b.currentCommitIndex(), 2);
          // Too many keys for one notification: the change says "anything".
          await a.batch(Array.from({ length: 400 }, (_, i) => ({ key: `many/${'k'.repeat(20)}${i}`, value: bytes('v') })));
          assert.equal((await until(seen, (c) => c.index === 3)).keys, undefined);
          // The feed's connection is cut: it reconnects and reports a sync point at the current index.
          const before = seen.length;
          assert.ok((await terminate('cairn-listen')) >= 1);
          await a.put('x/3', bytes('3'));
          const sync = await until(seen, (c) => seen.indexOf(c) >= before && c.keys === undefined && c.index >= 4);
          assert.equal(sync.index, 4, 'the write made while the feed was down is covered by the sync point');
        } finally {
          await b.close();
        }
      },
      { applicationName: 'cairn-test-feed-writer' },
    ));
});

describe('StateStore on PostgreSQL', () => {
  const TABLES: TableSpec[] = [
    { name: 'policies', indexes: { name: (d: { Name?: string }) => d.Name } },
    { name: 'tokens', indexes: { secret: (d: { SecretID?: string }) => d.SecretID } },
  ];
  let table: string;
  before(() => {
    table = freshTable();
  });
  after(() => drop(table));

  it('transactions, unique indexes, watches and the change feed; a reopened store has it all', async () => {
    const backend = await PostgresBackend.open({ connectionUrl: server.url, table });
    const store = await StateStore.open(backend, TABLES);
    const feed: ChangeBatch[] = [];
    store.subscribe((b) => feed.push(b));
    assert.equal(store.index, 0);
    const a = await store.txn((tx) => tx.put('policies', 'p1', { Name: 'ops' }));
    assert.deepEqual(a, { result: { Name: 'ops', CreateIndex: 1, ModifyIndex: 1 }, index: 1 });
    const woken = store.watch(['tokens'], 1, 10_000);
    const b = await Promise.all(Array.from({ length: 20 }, (_, i) => store.txn((tx) => tx.put('tokens', `t${i}`, { SecretID: `s${i}` }), 'token-upsert')));
    assert.deepEqual(
      b.map((r) => r.index),
      Array.from({ length: 20 }, (_, i) => i + 2),
    );
    assert.ok((await woken) >= 2, 'the watch woke for the token writes');
    await assert.rejects(
      store.txn((tx) => tx.put('policies', 'p2', { Name: 'ops' })),
      (err: Error) => err instanceof StateConflict,
    );
    await store.txn((tx) => {
      tx.put('policies', 'p1', { Name: 'ops2' });
      tx.delete('tokens', 't3');
      tx.put('policies', 'id with spaces/and slash', { Name: 'odd' });
    });
    assert.deepEqual(
      feed.map((f) => f.index),
      Array.from({ length: 22 }, (_, i) => i + 1),
    );
    assert.equal(feed[1].label, 'token-upsert');
    assert.deepEqual([store.tableIndex('policies'), store.tableIndex('tokens')], [22, 22]);
    await backend.close();

    const again = await PostgresBackend.open({ connectionUrl: server.url, table });
    try {
      const reloaded = await StateStore.open(again, TABLES);
      assert.equal(reloaded.index, 22);
      assert.deepEqual(reloaded.get('policies', 'p1'), { Name: 'ops2', CreateIndex: 1, ModifyIndex: 22 });
      assert.deepEqual(reloaded.get('policies', 'id with spaces/and slash'), { Name: 'odd', CreateIndex: 22, ModifyIndex: 22 });
      assert.equal(reloaded.getBy<{ SecretID: string }>('tokens', 'secret', 's7')?.SecretID, 's7');
      assert.equal(reloaded.get('tokens', 't3'), undefined);
      assert.equal(reloaded.list('tokens').length, 19);
      assert.deepEqual([reloaded.tableIndex('policies'), reloaded.tableIndex('tokens')], [22, 22]);
      const next = await reloaded.txn((tx) => tx.put('tokens', 't3', { SecretID: 's3' }));
      assert.equal(next.index, 23);
    } finally {
      await again.close();
    }
  });
});
