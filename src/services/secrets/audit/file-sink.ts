/**
 * Where a file audit device writes: a file opened for appending (`O_APPEND`, created with
 * the device's `mode`), standard output (`stdout`) or nowhere (`discard`). Entries are
 * group-written: those of every request that reached its audit point in the same turn of
 * the event loop go out in one synchronous `write(2)` (`setImmediate`), and each request
 * waits for that write, so a failure is known before the request goes on (fail closed).
 * One write per entry cost two system calls per request, about a third of a KV read
 * (bench `kv-read-audit`). No fsync, as the reference. {@link reopen} serves log rotation
 * (SIGHUP): the file at the path is opened again.
 *
 * @module
 */
import { closeSync, constants, fchmodSync, openSync, writeSync } from 'node:fs';

const FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT;

/** A file device's output. */
export class FileSink {
  private fd: number | undefined;
  /** Lines waiting for this turn's write, and their writers. */
  private lines: string[] = [];
  private waiting: { resolve: () => void; reject: (err: unknown) => void }[] = [];

  /**
   * Opens `path` now (`stdout`, `discard` need nothing), or at the first write when
   * `openNow` is false. `mode`: the file's mode, set on the file even when it exists (0:
   * left as it is).
   * @throws the open error (`ENOENT`, `EISDIR`, `EACCES`, …).
   */
  constructor(
    private readonly path: string,
    private readonly mode: number,
    openNow = true,
  ) {
    if (openNow) this.fd = this.open();
  }

  private open(): number | undefined {
    if (this.path === 'discard') return undefined;
    if (this.path === 'stdout') return 1;
    const fd = openSync(this.path, FLAGS, this.mode || 0o600);
    try {
      if (this.mode) fchmodSync(fd, this.mode);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    return fd;
  }

  /**
   * Appends `line` with the other lines of this turn of the event loop; resolves once
   * written. A file closed by a failed reopen is opened again first.
   * @throws (rejects with) the open or write error.
   */
  write(line: string): void | Promise<void> {
    if (this.path === 'discard') return;
    return new Promise<void>((resolve, reject) => {
      this.lines.push(line);
      this.waiting.push({ resolve, reject });
      if (this.lines.length === 1) setImmediate(() => this.flush());
    });
  }

  /** Writes the lines queued so far in one go and settles their writers. */
  private flush(): void {
    const { lines, waiting } = this;
    this.lines = [];
    this.waiting = [];
    try {
      this.fd ??= this.open();
      // The string as it is (encoded without a Buffer of our own): a regular file takes it
      // whole; the rest of a partial write (a pipe: stdout) goes out from a Buffer.
      const text = lines.join('');
      const n = writeSync(this.fd!, text);
      if (n < Buffer.byteLength(text)) {
        let buf = Buffer.from(text).subarray(n);
        while (buf.length > 0) buf = buf.subarray(writeSync(this.fd!, buf));
      }
    } catch (err) {
      for (const w of waiting) w.reject(err);
      return;
    }
    for (const w of waiting) w.resolve();
  }

  /**
   * Closes the file and opens the one now at the path (log rotation). When it cannot be
   * opened, the device has no file: its writes fail (and try to open it again) until it can.
   * @throws the open error.
   */
  reopen(): void {
    this.close();
    this.fd = this.open();
  }

  /** Closes the file (never standard output). */
  close(): void {
    if (this.fd !== undefined && this.fd !== 1) closeSync(this.fd);
    this.fd = undefined;
  }
}
