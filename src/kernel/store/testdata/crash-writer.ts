/**
 * The SIGKILL durability test of both backends (`../sqlite.test.ts`, `../postgres.test.ts`).
 *
 * Run as a script, it is the child for SQLite: it writes to a SqliteBackend with
 * {@link writeUntilKilled}. `pg-crash-writer.ts` is the same child for PostgreSQL. The
 * parent side is {@link killWriterMidStream} and {@link assertAcknowledgedStored}.
 *
 * Usage: `node --import tsx crash-writer.ts <db-path>`
 *
 * @module
 */

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Backend } from '../backend.js';
import { SqliteBackend } from '../sqlite.js';

const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** The key written by job `i`, sub-key `j` (0 for plain puts, 0–2 inside batches). */
export function crashKey(i: number, j = 0): string {
  return `crash/${i % 50}/${i}-${j}`;
}

/**
 * The value stored under {@link crashKey}(i, j): 64–1088 bytes that are a function of
 * (i, j) only, including NUL and non-UTF-8 bytes, so the parent can recompute it.
 */
export function crashValue(i: number, j = 0): Uint8Array {
  const out = new Uint8Array(64 + ((i * 37 + j * 11) % 1025));
  for (let n = 0; n < out.length; n++) out[n] = (i * 131 + j * 17 + n * 7) & 0xff;
  return out;
}

/**
 * The child's job: writes to `backend` with 32 concurrent writers until the process is
 * killed, printing `ready`, then one line `i j` per key only after the write's promise
 * resolved (i.e. after it was acknowledged durable). Every 10th write is a 3-key batch.
 * stdout to a pipe is synchronous on Linux, so a line the parent reads was acknowledged
 * before the kill.
 */
export async function writeUntilKilled(backend: Backend): Promise<void> {
  let next = 0;
  const worker = async (): Promise<never> => {
    for (;;) {
      const i = next++;
      if (i % 10 === 9) {
        await backend.batch([0, 1, 2].map((j) => ({ key: crashKey(i, j), value: crashValue(i, j) })));
        process.stdout.write(`${i} 0\n${i} 1\n${i} 2\n`);
      } else {
        await backend.put(crashKey(i), crashValue(i));
        process.stdout.write(`${i} 0\n`);
      }
    }
  };
  process.stdout.write('ready\n');
  await Promise.all(Array.from({ length: 32 }, worker));
}

/**
 * The parent's side: runs the writer script `script` with `args` (and `env`), SIGKILLs
 * it mid-stream once 1000 writes were acknowledged, and resolves with the acknowledged
 * `[i, j]` pairs.
 *
 * @throws AssertionError when the child ended before it was killed (its stderr attached).
 */
export async function killWriterMidStream(script: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<Array<[number, number]>> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('close', (code, signal) => resolve(signal ?? code)));
  const acked: Array<[number, number]> = [];
  let killed = false;
  for await (const line of createInterface({ input: child.stdout })) {
    if (line === 'ready') continue;
    const [i, j] = line.split(' ').map(Number);
    acked.push([i, j]);
    if (!killed && acked.length >= 1000) {
      killed = true;
      child.kill('SIGKILL'); // mid-stream: more writes (a group commit) are in flight right now
    }
  }
  const how = await exited;
  assert.equal(how, 'SIGKILL', `writer ended with ${String(how)} before being killed; stderr: ${stderr}`);
  assert.ok(acked.length >= 1000, `only ${acked.length} acknowledged writes`);
  return acked;
}

/** Asserts that every acknowledged `[i, j]` is stored in `backend` with its exact bytes. */
export async function assertAcknowledgedStored(backend: Backend, acked: ReadonlyArray<[number, number]>): Promise<void> {
  for (const [i, j] of acked) {
    const got = await backend.get(crashKey(i, j));
    assert.ok(got, `acknowledged key ${crashKey(i, j)} is missing after SIGKILL`);
    assert.equal(Buffer.compare(Buffer.from(got), Buffer.from(crashValue(i, j))), 0, crashKey(i, j));
  }
}

// Run as a script: node gives import.meta.url the file's real path, and argv[1] as given (npm
// test starts it through the symlink in .test-build/, scripts/test-build.mjs).
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  const path = process.argv[2];
  if (!path) {
    process.stderr.write('usage: crash-writer.ts <db-path>\n');
    process.exit(2);
  }
  writeUntilKilled(SqliteBackend.open({ path })).catch((err: unknown) => {
    process.stderr.write(`crash-writer: ${String(err)}\n`);
    process.exit(1);
  });
}
