/**
 * Child process of the crash test in `../sqlite.test.ts`: writes to a SqliteBackend
 * with 32 concurrent writers until it is killed, printing one line per key only after
 * the write's promise resolved (i.e. after it was acknowledged durable). Every 10th
 * write is a 3-key batch. stdout to a pipe is synchronous on Linux, so a line the
 * parent reads was acknowledged before the kill.
 *
 * Usage: `node --import tsx crash-writer.ts <db-path>`
 *
 * @module
 */

import { pathToFileURL } from 'node:url';
import { SqliteBackend } from '../sqlite.js';

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

async function main(path: string): Promise<void> {
  const backend = SqliteBackend.open({ path });
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

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const path = process.argv[2];
  if (!path) {
    process.stderr.write('usage: crash-writer.ts <db-path>\n');
    process.exit(2);
  }
  main(path).catch((err: unknown) => {
    process.stderr.write(`crash-writer: ${String(err)}\n`);
    process.exit(1);
  });
}
