/**
 * Reading a task's rotated log files as one stream (the reference's `/v1/client/fs/logs`):
 * the files `<task>.<type>.<N>` in index order, a start position counted from the start or
 * the end of what is kept, and, when following, the bytes and files written later.
 *
 * @module
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { logIndexes } from './log-rotator.js';

/** One piece read: `data` from `file` (the log file's name), ending at `offset` in it. */
export interface LogChunk {
  readonly file: string;
  readonly data: Buffer;
  readonly offset: number;
}

/** Bytes read per chunk at most. */
const CHUNK = 64 * 1024;

/** A read position across the rotated files of one task stream. */
export class LogCursor {
  private index: number | undefined;
  private offset = 0;

  /**
   * @param dir `alloc/logs`
   * @param prefix `<task>.<stdout|stderr>`
   * @param origin `start` or `end`; `offset` bytes from it (clamped to what is kept)
   */
  constructor(
    private readonly dir: string,
    private readonly prefix: string,
    origin: 'start' | 'end',
    offset: number,
  ) {
    const files = this.files();
    const total = files.reduce((n, f) => n + f.size, 0);
    let pos = origin === 'start' ? Math.min(offset, total) : Math.max(0, total - offset);
    for (const f of files) {
      this.index = f.index;
      if (pos <= f.size) {
        this.offset = pos;
        return;
      }
      pos -= f.size;
    }
    this.offset = 0;
  }

  private files(): { index: number; size: number }[] {
    return logIndexes(this.dir, this.prefix).map((index) => {
      let size = 0;
      try {
        size = statSync(join(this.dir, `${this.prefix}.${index}`)).size;
      } catch {
        // Rotated away between the listing and the stat.
      }
      return { index, size };
    });
  }

  /** The bytes written since the last read (across rotations), in chunks; empty when there are none. */
  read(): LogChunk[] {
    const out: LogChunk[] = [];
    for (;;) {
      const indexes = logIndexes(this.dir, this.prefix);
      if (indexes.length === 0) return out;
      // Not started, or the file was rotated away: continue at the oldest kept file.
      if (this.index === undefined || !indexes.includes(this.index)) {
        this.index = indexes.find((i) => this.index === undefined || i > this.index) ?? indexes[0]!;
        this.offset = 0;
      }
      const name = `${this.prefix}.${this.index}`;
      const got = readFrom(join(this.dir, name), this.offset);
      if (got.length > 0) {
        this.offset += got.length;
        out.push({ file: name, data: got, offset: this.offset });
        continue;
      }
      const next = indexes.find((i) => i > this.index!);
      if (next === undefined) return out;
      this.index = next;
      this.offset = 0;
    }
  }
}

/** Up to {@link CHUNK} bytes of `path` from `offset`; empty when none (or the file is gone). */
function readFrom(path: string, offset: number): Buffer {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return Buffer.alloc(0);
  }
  try {
    const buf = Buffer.alloc(CHUNK);
    const n = readSync(fd, buf, 0, CHUNK, offset);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}
