// Tests of SqliteBackend: the shared Backend conformance suite on a real temp-dir file,
// plus what only SQLite has: file modes, group commit counts, folder skipping in list,
// failure isolation inside a group commit, and durability across a SIGKILL.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { runBackendSuite } from './backend.suite.js';
import { groupCommitTests, writeAroundRefusedKeys } from './group-commit.suite.js';
import { SqliteBackend } from './sqlite.js';
import { assertAcknowledgedStored, killWriterMidStream } from './testdata/crash-writer.js';

const CRASH_WRITER = fileURLToPath(new URL('./testdata/crash-writer.ts', import.meta.url));
const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'cairn-sqlite-'));
}

/** Runs `fn` with a backend on a fresh temp file, then closes it and removes the directory. */
async function withSqlite(fn: (backend: SqliteBackend, path: string) => Promise<void>, options: { busyTimeoutMs?: number } = {}): Promise<void> {
  const dir = tempDir();
  const path = join(dir, 'store.db');
  const backend = SqliteBackend.open({ path, ...options });
  try {
    await fn(backend, path);
  } finally {
    await backend.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

runBackendSuite('SqliteBackend', async () => {
  const dir = tempDir();
  const path = join(dir, 'store.db');
  return {
    backend: SqliteBackend.open({ path }),
    reopen: async () => SqliteBackend.open({ path }),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

describe('SqliteBackend', () => {
  it('creates missing directories 0700 and the database files 0600, in WAL mode', async () => {
    const dir = tempDir();
    try {
      const path = join(dir, 'a', 'b', 'store.db');
      const backend = SqliteBackend.open({ path });
      await backend.put('k', bytes('v'));
      assert.equal(statSync(join(dir, 'a')).mode & 0o777, 0o700);
      assert.equal(statSync(join(dir, 'a', 'b')).mode & 0o777, 0o700);
      for (const f of ['store.db', 'store.db-wal', 'store.db-shm']) {
        assert.equal(statSync(join(dir, 'a', 'b', f)).mode & 0o777, 0o600, f);
      }
      await backend.close();
      const raw = new Database(path, { readonly: true });
      try {
        assert.equal(raw.pragma('journal_mode', { simple: true }), 'wal');
        assert.deepEqual(raw.prepare('SELECT k FROM kv').pluck().all(), ['k']);
      } finally {
        raw.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a file with a newer schema version', async () => {
    const dir = tempDir();
    try {
      const path = join(dir, 'store.db');
      await SqliteBackend.open({ path }).close();
      const raw = new Database(path);
      raw.pragma('user_version = 2');
      raw.close();
      assert.throws(() => SqliteBackend.open({ path }), /schema version 2 is newer/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  groupCommitTests(withSqlite);

  it('list skips over big sub-folders instead of reading them', () =>
    withSqlite(async (backend) => {
      const ops = [];
      for (let i = 0; i < 20_000; i++) ops.push({ key: `big/sub/${i % 100}/${i}`, value: bytes('x') });
      for (let i = 0; i < 5_000; i++) ops.push({ key: `big/other/${i}`, value: bytes('x') });
      ops.push({ key: 'big/leaf', value: bytes('x') }, { key: 'big/sub', value: bytes('x') });
      await backend.batch(ops);
      const before = backend.stats.listRowsScanned;
      assert.deepEqual(await backend.list('big/'), ['leaf', 'other/', 'sub', 'sub/']);
      const scanned = backend.stats.listRowsScanned - before;
      assert.ok(scanned <= 10, `list read ${scanned} rows`);
      assert.deepEqual(await backend.list(''), ['big/']);
      assert.equal((await backend.list('big/sub/')).length, 100);
      // Queued deletes of a few keys in a big folder do not make list read the folder.
      const pending = [backend.delete('big/other/0'), backend.delete('big/other/1')];
      const before2 = backend.stats.listRowsScanned;
      assert.deepEqual(await backend.list('big/'), ['leaf', 'other/', 'sub', 'sub/']);
      assert.ok(backend.stats.listRowsScanned - before2 <= 12);
      await Promise.all(pending);
    }));

  it('a write failing inside a group commit rejects alone; its neighbours commit', () =>
    withSqlite(async (backend, path) => {
      // Another connection installs a trigger that fails any write of key "boom".
      const raw = new Database(path);
      raw.exec(`CREATE TRIGGER no_boom BEFORE INSERT ON kv WHEN NEW.k LIKE '%boom'
                BEGIN SELECT RAISE(ABORT, 'boom refused'); END`);
      raw.close();
      assert.match(String(await writeAroundRefusedKeys(backend)), /boom refused/);
      assert.equal(backend.stats.commits, 1);
    }));

  it('a failed transaction rejects every write of the flush and drops them from reads', () =>
    withSqlite(
      async (backend, path) => {
        await backend.put('before', bytes('x'));
        const locker = new Database(path);
        try {
          locker.exec('BEGIN IMMEDIATE'); // holds the write lock: our BEGIN IMMEDIATE gets SQLITE_BUSY
          const a = backend.put('a', bytes('1'));
          const b = backend.batch([{ key: 'b', value: bytes('2') }, { key: 'before' }]);
          assertHas(await backend.get('a'), '1'); // visible while queued
          const results = await Promise.allSettled([a, b]);
          assert.deepEqual(
            results.map((r) => r.status),
            ['rejected', 'rejected'],
          );
          assert.match(String((results[0] as PromiseRejectedResult).reason), /busy|locked/i);
          assert.equal(await backend.get('a'), undefined, 'a rejected write is not visible');
          assertHas(await backend.get('before'), 'x');
          assert.deepEqual(await backend.list(''), ['before']);
          assert.equal(backend.stats.failedCommits, 1);
        } finally {
          locker.exec('ROLLBACK');
          locker.close();
        }
        await backend.put('a', bytes('3'));
        assertHas(await backend.get('a'), '3');
      },
      { busyTimeoutMs: 20 },
    ));

  it('a read of a key never stored skips SQLite; every stored key is found, after a reopen and past the key filter capacity', async () => {
    const dir = tempDir();
    const path = join(dir, 'store.db');
    try {
      let backend = SqliteBackend.open({ path });
      // 70,000 keys, more than the smallest filter holds (65,536): the filter is rebuilt.
      for (let b = 0; b < 7; b++) {
        await backend.batch(Array.from({ length: 10_000 }, (_, i) => ({ key: `k/${b * 10_000 + i}`, value: bytes(`v${b * 10_000 + i}`) })));
      }
      await backend.delete('k/5');
      for (let reopened = 0; reopened < 2; reopened++) {
        const before = backend.stats;
        for (const i of [0, 1, 65_535, 65_536, 69_999]) assertHas(await backend.get(`k/${i}`), `v${i}`);
        assert.equal(await backend.get('k/5'), undefined, 'a deleted key reads as absent');
        for (let i = 0; i < 1_000; i++) assert.equal(await backend.get(`missing/${i}`), undefined);
        const after = backend.stats;
        assert.ok(after.readsSkipped - before.readsSkipped >= 990, `only ${after.readsSkipped - before.readsSkipped} of 1,000 misses skipped SQLite`);
        assert.ok(after.storedReads - before.storedReads >= 5, 'stored keys are read from SQLite');
        await backend.close();
        backend = SqliteBackend.open({ path });
      }
      await backend.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('pipelines groups: the next is handed to the writer while one commits; failed groups are rejected and never acknowledged', () =>
    withSqlite(
      async (backend, path) => {
        // One write per event-loop turn, none waiting for the previous: each turn's write is a group.
        const writes: Array<Promise<void>> = [];
        for (let i = 0; i < 50; i++) {
          writes.push(backend.put(`p/${i}`, bytes(`${i}`)));
          await new Promise((r) => setImmediate(r));
        }
        await Promise.all(writes);
        assert.ok(backend.stats.pipelined > 0, 'no group was handed over while another committed');
        assert.equal(backend.stats.writes, 50);
        const locker = new Database(path);
        try {
          locker.exec('BEGIN IMMEDIATE'); // every commit of the writer thread fails: SQLITE_BUSY
          const before = backend.stats;
          const first = backend.put('x/1', bytes('1'));
          await new Promise((r) => setImmediate(r));
          const second = backend.put('x/2', bytes('2')); // a second group, sent while the first is in flight
          const results = await Promise.allSettled([first, second]);
          assert.deepEqual(
            results.map((r) => r.status),
            ['rejected', 'rejected'],
          );
          assert.ok(backend.stats.pipelined > before.pipelined, 'the second group was pipelined');
          assert.equal(backend.stats.writes, before.writes, 'nothing acknowledged');
          assert.equal(await backend.get('x/1'), undefined);
          assert.equal(await backend.get('x/2'), undefined);
        } finally {
          locker.exec('ROLLBACK');
          locker.close();
        }
        await backend.put('x/2', bytes('3'));
        assertHas(await backend.get('x/2'), '3');
        assert.equal(new Database(path, { readonly: true }).prepare('SELECT count(*) FROM kv WHERE k = ?').pluck().get('x/1'), 0);
      },
      { busyTimeoutMs: 50 },
    ));

  it('every acknowledged write survives SIGKILL of the writer', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const path = join(dir, 'crash.db');
    try {
      const acked = await killWriterMidStream(CRASH_WRITER, [path]);
      const backend = SqliteBackend.open({ path });
      try {
        await assertAcknowledgedStored(backend, acked);
      } finally {
        await backend.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function assertHas(actual: Uint8Array | undefined, expected: string): void {
  assert.ok(actual, `expected ${JSON.stringify(expected)}, got undefined`);
  assert.equal(Buffer.from(actual).toString(), expected);
}
