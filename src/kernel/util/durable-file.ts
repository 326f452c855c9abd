/**
 * Writing a small file (a key, an identity) so that a crash — `kill -9`, power loss — at any
 * moment leaves either no file or the whole file, never an empty or half-written one: the
 * bytes go to a temporary file in the same directory, are flushed (`fsync`), and the
 * temporary file is then renamed (or hard-linked, when an existing file must win) to its
 * name, and the directory is flushed so the new name survives too.
 *
 * Why: a first start killed while writing `dev-unseal-key` or a `*-state.key` left a data
 * directory that could never start again (issue 14 item 4).
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Options of {@link writeFileDurably}. */
export interface DurableWriteOptions {
  /** Permission bits of the file; default 0o600 (these files hold keys). */
  readonly mode?: number;
  /**
   * Only when `path` does not exist yet: an existing file (another process's, written the
   * same way) is kept and the call returns false. Default false: replace it.
   */
  readonly exclusive?: boolean;
}

/**
 * Writes `data` to `path` durably and atomically (see the module doc).
 * @returns true when `path` now holds `data`; false when `exclusive` and the file existed.
 * @throws the file system's error (the temporary file is removed first).
 */
export function writeFileDurably(path: string, data: string | Uint8Array, options: DurableWriteOptions = {}): boolean {
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const fd = openSync(tmp, 'wx', options.mode ?? 0o600);
    try {
      const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (options.exclusive) {
      try {
        linkSync(tmp, path); // fails with EEXIST instead of replacing, unlike rename
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw err;
      }
    } else {
      renameSync(tmp, path);
    }
    syncDirectory(dir);
    return true;
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** Flushes a directory's entries (a new or renamed name); a no-op where directories cannot be opened (Windows). */
function syncDirectory(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
