/**
 * The agent's node ID: a UUID made on first start and kept in `data_dir/node-id`, as the
 * reference keeps it, so the node keeps its ID across restarts.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The node ID kept in `dataDir/node-id`, made when the file is missing. @throws when the file holds something else or cannot be written. */
export function nodeIdOf(dataDir: string): string {
  const file = join(dataDir, 'node-id');
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (text !== undefined) {
    if (!UUID.test(text)) throw new Error(`${file} does not hold a UUID`);
    return text.toLowerCase();
  }
  const id = randomUUID();
  writeFileSync(file, `${id}\n`, { mode: 0o600 });
  return id;
}
