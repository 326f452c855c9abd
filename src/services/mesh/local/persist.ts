/**
 * Where an agent keeps the services and checks registered with it across restarts (the
 * reference persists them under its data directory): one file, `data_dir/agent-local.bin`,
 * rewritten atomically (temp file + rename) on every change of a definition, never on a
 * check's status. It is encrypted with the state key (`mesh-state.key`), because check
 * definitions may hold secrets (an HTTP check's `Authorization` header).
 *
 * @module
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { StateCodec } from '../../../kernel/store/index.js';
import type { ServiceDoc } from '../catalog/model.js';
import type { LocalCheck } from './definition.js';

/** What is kept: the definitions, each check with its status as registered. */
export interface LocalSnapshot {
  readonly services: readonly ServiceDoc[];
  readonly checks: readonly LocalCheck[];
}

/** The file of one agent's definitions. */
export class LocalStore {
  constructor(
    private readonly path: string,
    private readonly codec: StateCodec,
  ) {}

  /** The kept definitions; undefined when there is no file yet. @throws when it cannot be read or decrypted. */
  load(): LocalSnapshot | undefined {
    let raw: Buffer;
    try {
      raw = readFileSync(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    return JSON.parse(Buffer.from(this.codec.decode(raw)).toString('utf8')) as LocalSnapshot;
  }

  /** Replaces the kept definitions with `snapshot`. @throws when the file cannot be written. */
  save(snapshot: LocalSnapshot): void {
    const tmp = `${this.path}.tmp`;
    writeFileSync(tmp, this.codec.encode(Buffer.from(JSON.stringify(snapshot), 'utf8')), { mode: 0o600 });
    renameSync(tmp, this.path);
  }
}
