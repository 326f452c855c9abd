/**
 * Child process of the crash test in `../postgres.test.ts`: the PostgreSQL twin of
 * `crash-writer.ts`. Writes to a PostgresBackend with 32 concurrent writers until it is
 * killed, printing one line per key only after the write's promise resolved (i.e. after
 * `COMMIT` returned). Every 10th write is a 3-key batch. Keys and values are
 * `crashKey`/`crashValue` of `crash-writer.ts`, so the parent can recompute them.
 *
 * Usage: `node --import tsx pg-crash-writer.ts <table>` with the connection URL in the
 * environment variable `CAIRN_CRASH_PG_URL` (kept off the command line, which `ps` shows).
 *
 * @module
 */

import { pathToFileURL } from 'node:url';
import { PostgresBackend } from '../postgres.js';
import { crashKey, crashValue } from './crash-writer.js';

/** Opens the backend on `table` and writes until killed. */
async function main(connectionUrl: string, table: string): Promise<void> {
  const backend = await PostgresBackend.open({ connectionUrl, table });
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
  const table = process.argv[2];
  const url = process.env.CAIRN_CRASH_PG_URL;
  if (!table || !url) {
    process.stderr.write('usage: CAIRN_CRASH_PG_URL=postgres://… pg-crash-writer.ts <table>\n');
    process.exit(2);
  }
  main(url, table).catch((err: unknown) => {
    process.stderr.write(`pg-crash-writer: ${String(err)}\n`);
    process.exit(1);
  });
}
