/**
 * Where a file audit device writes: a file opened for appending (`O_APPEND`, created with
 * the device's `mode`), standard output (`stdout`) or nowhere (`discard`). Each entry is
 * one synchronous `write(2)`: the reference writes without fsync too, and a failure is
 * known before the request goes on (fail closed). {@link reopen} serves log rotation
 * (SIGHUP): the file at the path is opened again.
 *
 * @module
 */
import { closeSync, constants, fchmodSync, openSync, writeSync } from 'node:fs';

const FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT;

/** A file device's output. */
export class FileSink {
  private fd: number | undefined;

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
   * Appends `line`. A file closed by a failed reopen is opened again first.
   * @throws the open or write error.
   */
  write(line: string): void {
    if (this.path === 'discard') return;
    this.fd ??= this.open();
    let buf = Buffer.from(line);
    // A regular file takes the whole buffer at once; a pipe (stdout) may take part of it.
    for (let n = writeSync(this.fd!, buf); n < buf.length; n = writeSync(this.fd!, buf)) buf = buf.subarray(n);
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
