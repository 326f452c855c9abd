/**
 * A task's log stream written to rotated files (reference/sched-workloads.md "Client agent"):
 * `<alloc>/alloc/logs/<task>.<stdout|stderr>.<N>`, a new file when the current one reaches
 * `MaxFileSizeMB` MiB, keeping the newest `MaxFiles` files. A restarted task (or agent)
 * continues after the highest index it finds.
 *
 * @module
 */
import { closeSync, openSync, readdirSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** The index files of `<prefix>.<N>` in `dir`, ascending. */
export function logIndexes(dir: string, prefix: string): number[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const re = new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.(\\d+)$`);
  return names
    .map((n) => re.exec(n)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

/** Writes chunks to `<dir>/<prefix>.<N>`, rotating at `maxBytes` and keeping `maxFiles` files. */
export class LogRotator {
  private index: number;
  private fd: number;
  private size: number;

  /**
   * @param prefix `<task>.stdout` or `<task>.stderr`
   * @param maxBytes bytes per file (≥ 1)
   * @param maxFiles files kept (≥ 1)
   */
  constructor(
    private readonly dir: string,
    private readonly prefix: string,
    private readonly maxBytes: number,
    private readonly maxFiles: number,
  ) {
    const existing = logIndexes(dir, prefix);
    this.index = existing.at(-1) ?? 0;
    this.fd = openSync(this.path(this.index), 'a', 0o644);
    this.size = statSync(this.path(this.index)).size;
  }

  /** Appends `chunk`, splitting it across files at the size limit. */
  write(chunk: Buffer): void {
    let rest = chunk;
    while (rest.length > 0) {
      if (this.size >= this.maxBytes) this.rotate();
      const n = Math.min(rest.length, this.maxBytes - this.size);
      writeSync(this.fd, rest, 0, n);
      this.size += n;
      rest = rest.subarray(n);
    }
  }

  /** Closes the current file. */
  close(): void {
    closeSync(this.fd);
  }

  private path(i: number): string {
    return join(this.dir, `${this.prefix}.${i}`);
  }

  /** Opens the next file and deletes those beyond `maxFiles`. */
  private rotate(): void {
    closeSync(this.fd);
    this.index += 1;
    this.fd = openSync(this.path(this.index), 'a', 0o644);
    this.size = 0;
    for (const i of logIndexes(this.dir, this.prefix)) {
      if (i <= this.index - this.maxFiles) unlinkSync(this.path(i));
    }
  }
}
