/**
 * Child process of the crash test in `../postgres.test.ts`: the PostgreSQL twin of
 * `crash-writer.ts`. Opens a PostgresBackend and runs `writeUntilKilled` of
 * `crash-writer.ts` on it (an acknowledged line means `COMMIT` returned).
 *
 * Usage: `node --import tsx pg-crash-writer.ts <table>` with the connection URL in the
 * environment variable `CAIRN_CRASH_PG_URL` (kept off the command line, which `ps` shows).
 *
 * @module
 */

import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { PostgresBackend } from '../postgres.js';
import { writeUntilKilled } from './crash-writer.js';

// Run as a script, also through the symlink npm test starts (as crash-writer.ts).
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  const table = process.argv[2];
  const url = process.env.CAIRN_CRASH_PG_URL;
  if (!table || !url) {
    process.stderr.write('usage: CAIRN_CRASH_PG_URL=postgres://… pg-crash-writer.ts <table>\n');
    process.exit(2);
  }
  PostgresBackend.open({ connectionUrl: url, table })
    .then(writeUntilKilled)
    .catch((err: unknown) => {
      process.stderr.write(`pg-crash-writer: ${String(err)}\n`);
      process.exit(1);
    });
}
