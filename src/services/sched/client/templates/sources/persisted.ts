/**
 * The leased secrets a task's templates read or wrote, kept across client agent restarts
 * (issue 27 scope 6; reference/integration.md §8: a restarted client must not re-issue a
 * dynamic credential whose lease is still valid). One file per task,
 * `<task dir>/private/template-secrets.json` (`private/` 0700: the fs API never serves it;
 * the file 0600, replaced atomically), mapping each dependency's text (dependency.ts
 * `describeDependency`) to its latest response, that response's lease and when it was
 * obtained or last renewed (epoch ms):
 *
 * ```json
 * { "secret.write(auth/token/create …)": { "response": {…}, "lease": { "kind": "auth", "id": "…", "durationS": 3600, "renewable": true }, "obtainedMs": 1764350000000 } }
 * ```
 *
 * It holds secrets: its content is never logged. A file that cannot be read or parsed counts
 * as empty (the secrets are then fetched anew, as without it).
 *
 * @module
 */
import { chmodSync, closeSync, fstatSync, mkdirSync, openSync, readSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../../../../kernel/log/logger.js';
import type { SecretResponse } from '../../../template/dependency.js';
import type { Lease } from './lease.js';

/** The file's name under the task's `private/` directory. */
const PERSISTED_SECRETS_FILE = 'template-secrets.json';

/** A larger file is not read (it was not written by Cairn): its secrets are fetched anew. Bytes. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

/** One dependency's kept response. */
export interface PersistedSecret {
  readonly response: SecretResponse;
  readonly lease: Lease;
  /** When the lease was obtained or last renewed, epoch ms: it ends at `obtainedMs + lease.durationS × 1000`. */
  readonly obtainedMs: number;
}

/** The kept responses of one task (module doc). Writes are synchronous: one file, a few KiB. */
export class PersistedSecrets {
  private entries: Map<string, PersistedSecret> | undefined;
  private readonly file: string;

  /** `dir`: the task's `private/` directory (created 0700 at the first write). */
  constructor(
    private readonly dir: string,
    private readonly log: Logger,
  ) {
    this.file = join(dir, PERSISTED_SECRETS_FILE);
  }

  /** The kept response of `dependency`, if any. */
  get(dependency: string): PersistedSecret | undefined {
    return this.load().get(dependency);
  }

  /** Keeps `entry` as the response of `dependency`. A failed write is logged (without content) and otherwise ignored. */
  put(dependency: string, entry: PersistedSecret): void {
    this.load().set(dependency, entry);
    this.save();
  }

  /** Forgets `dependency` (its watch stopped for good, or its latest response has no lease). */
  delete(dependency: string): void {
    if (this.load().delete(dependency)) this.save();
  }

  private load(): Map<string, PersistedSecret> {
    if (this.entries) return this.entries;
    this.entries = new Map();
    let fd: number | undefined;
    try {
      fd = openSync(this.file, 'r');
      const size = fstatSync(fd).size;
      if (size > MAX_FILE_BYTES) throw new Error(`larger than ${MAX_FILE_BYTES} bytes`);
      const buf = Buffer.alloc(size);
      readSync(fd, buf, 0, size, 0);
      const parsed: unknown = JSON.parse(buf.toString('utf8'));
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not a JSON object');
      for (const [k, v] of Object.entries(parsed)) if (isEntry(v)) this.entries.set(k, v);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // The message of a JSON error may quote the file: only its kind is logged.
      if (code !== 'ENOENT') this.log.warn({ file: this.file, err: code ?? (err as Error).name }, 'client: ignoring the unreadable kept template secrets');
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    return this.entries;
  }

  private save(): void {
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      const tmp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(Object.fromEntries(this.entries!)), { mode: 0o600 });
      chmodSync(tmp, 0o600);
      renameSync(tmp, this.file);
    } catch (err) {
      this.log.warn({ file: this.file, err: (err as NodeJS.ErrnoException).code ?? (err as Error).message }, 'client: cannot keep the template secrets');
    }
  }
}

/** Whether `v` has the shape {@link PersistedSecrets} writes. */
function isEntry(v: unknown): v is PersistedSecret {
  const e = v as Partial<PersistedSecret> | null;
  const l = e?.lease as Partial<Lease> | undefined;
  return (
    typeof e === 'object' &&
    e !== null &&
    typeof e.response === 'object' &&
    e.response !== null &&
    typeof e.obtainedMs === 'number' &&
    typeof l === 'object' &&
    (l.kind === 'secret' || l.kind === 'auth') &&
    typeof l.id === 'string' &&
    typeof l.durationS === 'number' &&
    typeof l.renewable === 'boolean'
  );
}
