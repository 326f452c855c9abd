/**
 * An enabled audit device: its stored configuration, its hash and its output, made once
 * at enable (or load) so that writing an entry costs only formatting and one write.
 *
 * @module
 */
import { parseOptions, type StoredDevice } from './config.js';
import type { EntryStyle } from './entry.js';
import { FileSink } from './file-sink.js';
import { Hasher } from './hasher.js';
import { SocketSink } from './socket-sink.js';

/** One device ready to write. */
export class AuditDevice {
  readonly hasher: Hasher;
  readonly style: EntryStyle;
  private readonly sink: FileSink | SocketSink;

  /**
   * Parses the options and opens the output (a file now unless `openNow` is false; a
   * socket at the first write).
   * @throws CairnError 400 naming a bad option; the file's open error.
   */
  constructor(
    readonly stored: StoredDevice,
    openNow = true,
  ) {
    const o = parseOptions(stored.type, stored.options);
    this.hasher = new Hasher(stored.salt);
    const identity = <T>(v: T) => v;
    this.style = {
      hash: o.logRaw ? identity : (s) => this.hasher.hash(s),
      deep: o.logRaw ? identity : (v) => this.hasher.deep(v),
      hmacAccessor: o.hmacAccessor,
      prefix: o.prefix,
    };
    this.sink = o.kind === 'file' ? new FileSink(o.filePath, o.mode, openNow) : new SocketSink(o.address, o.socketType, o.writeTimeoutMs);
  }

  /** Writes one line. @throws (or rejects with) the output's error. */
  write(line: string): void | Promise<void> {
    return this.sink.write(line);
  }

  /** Opens the output again (SIGHUP). @throws the open error. */
  reopen(): void {
    this.sink.reopen();
  }

  /** Closes the output (disabled, replaced, or the server seals). */
  close(): void {
    this.sink.close();
  }

  /** Whether `other` is this device's configuration (same path, options and salt): a reload keeps the device open. */
  sameAs(other: StoredDevice): boolean {
    return JSON.stringify(this.stored) === JSON.stringify(other);
  }
}
