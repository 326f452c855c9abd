/**
 * "Nothing acknowledged is ever lost": writes acknowledged over HTTP before a `kill -9`
 * of the server process are all present after a restart on the same data directory.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { it } from 'node:test';
import Database from 'better-sqlite3';
import { call } from '../helpers.js';

const script = join(import.meta.dirname, 'testdata', 'dev-server.ts');

function startChild(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => resolve({ child, url: JSON.parse(line).url }));
    child.once('exit', (code) => reject(new Error(`dev server exited early with ${code}`)));
  });
}

it('keeps every acknowledged write across kill -9', { timeout: 180_000 }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cairn-crash-'));
  try {
    const { child, url } = await startChild(dataDir);
    const acked = new Map<string, number>();
    let n = 0;
    let killed = false;
    const writer = async () => {
      while (!killed) {
        const i = n++;
        try {
          const r = await call(url, 'POST', `/v1/secret/data/crash/k${i}`, { token: 'crash-root', body: { data: { i } } });
          if (r.status === 200) acked.set(`k${i}`, i);
        } catch {
          return; // the connection died with the process: not acknowledged
        }
        if (acked.size >= 1500 && !killed) {
          killed = true;
          child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 32 }, writer));
    await new Promise((r) => (child.exitCode !== null || child.signalCode ? r(null) : child.once('exit', r)));
    assert.ok(acked.size >= 1500);

    const again = await startChild(dataDir);
    try {
      for (const [key, i] of acked) {
        const r = await call(again.url, 'GET', `/v1/secret/data/crash/${key}`, { token: 'crash-root' });
        assert.equal(r.status, 200, `acknowledged ${key} lost`);
        assert.deepEqual(r.json.data.data, { i });
      }
    } finally {
      again.child.kill('SIGKILL');
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

it('answers a write whose commit failed with an error, never acknowledges it, and stores nothing of it', { timeout: 180_000 }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cairn-crash-'));
  const { child, url } = await startChild(dataDir);
  try {
    const ok = await call(url, 'POST', '/v1/secret/data/fail/before', { token: 'crash-root', body: { data: { n: 0 } } });
    assert.equal(ok.status, 200);
    // Another connection holds the write lock: every commit of the server fails (SQLITE_BUSY
    // after its busy timeout), including groups handed to the writer thread while an
    // earlier one was still trying (the pipeline).
    const locker = new Database(join(dataDir, 'secrets.db'));
    locker.exec('BEGIN IMMEDIATE');
    let replies;
    try {
      replies = await Promise.all(
        Array.from({ length: 4 }, async (_, i) => {
          await new Promise((r) => setTimeout(r, i * 20));
          return call(url, 'POST', `/v1/secret/data/fail/k${i}`, { token: 'crash-root', body: { data: { i } } });
        }),
      );
    } finally {
      locker.exec('ROLLBACK');
      locker.close();
    }
    for (const r of replies) {
      assert.equal(r.status, 500, `a failed commit answered ${r.status}`);
      assert.ok(Array.isArray(r.json.errors) && r.json.errors.length > 0);
    }
    for (let i = 0; i < 4; i++) {
      const r = await call(url, 'GET', `/v1/secret/data/fail/k${i}`, { token: 'crash-root' });
      assert.equal(r.status, 404, `k${i}, never acknowledged, is not stored`);
    }
    const after = await call(url, 'POST', '/v1/secret/data/fail/k0', { token: 'crash-root', body: { data: { i: 0 } } });
    assert.equal(after.status, 200);
    assert.equal(after.json.data.version, 1, 'the failed write left no version behind');
  } finally {
    child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
