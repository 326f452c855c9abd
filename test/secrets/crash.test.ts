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
import { call } from '../helpers.js';

const script = join(import.meta.dirname, 'testdata', 'dev-server.ts');

function startChild(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => resolve({ child, url: JSON.parse(line).url }));
    child.once('exit', (code) => reject(new Error(`dev server exited early with ${code}`)));
  });
}

it('keeps every acknowledged write across kill -9', { timeout: 60_000 }, async () => {
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
