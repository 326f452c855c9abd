/**
 * Writes a rendered template (issue 27 scope 6, reference/integration.md §8.2: act only when
 * the rendered bytes change). The file on disk is the reference point: when it already holds
 * the same bytes (a client that restarted, a dependency that changed without changing the
 * output) nothing is written and nothing fires; else the bytes go to a temporary file beside
 * it, get their mode, and replace it with a rename, so a task never reads half a file.
 *
 * @module
 */
import { chmodSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * The mode of a rendered file: the template's `perms` (octal text such as `"644"`); under
 * `secrets/` never readable or writable by group or others (Cairn: a rendered secret stays
 * the task's own). @throws Error `invalid perms "<p>"` for text that is not 1–4 octal digits.
 */
export function fileMode(perms: string, secret: boolean): number {
  if (!/^[0-7]{1,4}$/.test(perms)) throw new Error(`invalid perms "${perms}": expected an octal mode such as "644"`);
  const mode = parseInt(perms, 8);
  return secret ? mode & 0o7700 : mode;
}

/** Does the regular file at `path` hold exactly `bytes` with `mode`? */
function same(path: string, bytes: Buffer, mode: number): boolean {
  try {
    const st = lstatSync(path);
    if (!st.isFile() || st.size !== bytes.length || (st.mode & 0o7777) !== mode) return false;
    return readFileSync(path).equals(bytes);
  } catch {
    return false;
  }
}

/**
 * Writes `text` to `path` with `mode` unless the file already holds it (module doc); creates
 * missing parent directories (0755). Returns whether the file changed.
 * @throws the file system's error (the temporary file is removed).
 */
export function writeIfChanged(path: string, text: string, mode: number): boolean {
  const bytes = Buffer.from(text, 'utf8');
  if (same(path, bytes, mode)) return false;
  mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    writeFileSync(tmp, bytes, { mode });
    // The process umask may have narrowed the mode given at creation.
    chmodSync(tmp, mode);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  return true;
}
