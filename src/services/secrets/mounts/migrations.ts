/**
 * The records of mount migrations (`sys/remount`, the reference's mount migration
 * tracker): one JSON document per move at `core/remount/<migration id>`, behind the
 * barrier. Stored rather than kept in memory so that any server of an HA cluster answers
 * `sys/remount/status/:migration_id` (a performance standby reads it like any other
 * value, and the client's `X-Secrets-Index` makes it wait for the write). Records older
 * than {@link KEEP_MS} are deleted when the next move is recorded.
 *
 * @module
 */
import { json, type Backend } from '../../../kernel/store/index.js';

/** Where the records live, relative to the service's storage (not a namespace's: ids are UUIDs). */
const PREFIX = 'core/remount/';
/** How long a record is kept, ms: 24 hours. */
const KEEP_MS = 24 * 3600 * 1000;

/** `migration_info` of `sys/remount/status/:migration_id` (the reference's field names). */
export interface MigrationInfo {
  /** Namespace path and mount path, e.g. `team/kv/` (`kv/` in the root namespace). */
  readonly source_mount: string;
  readonly target_mount: string;
  /** `success`: Cairn moves before it answers (the reference also has `in-progress` and `failure`). */
  readonly status: 'success';
}

/** A stored record: the info and when it was made (ms since the epoch). */
interface MigrationRecord {
  readonly info: MigrationInfo;
  readonly time_ms: number;
}

/** Stores migration `id`'s info at time `nowMs`, deleting the records older than a day. */
export async function recordMigration(storage: Backend, id: string, info: MigrationInfo, nowMs: number): Promise<void> {
  const stale: string[] = [];
  for (const key of await storage.list(PREFIX)) {
    const r = json.decode<MigrationRecord>(await storage.get(PREFIX + key));
    if (!r || nowMs - r.time_ms > KEEP_MS) stale.push(PREFIX + key);
  }
  const record: MigrationRecord = { info, time_ms: nowMs };
  await storage.batch([...stale.map((key) => ({ key })), { key: PREFIX + id, value: json.encode(record) }]);
}

/** The info of migration `id` at time `nowMs`, or undefined when there is none (never made, or older than a day). */
export async function readMigration(storage: Backend, id: string, nowMs: number): Promise<MigrationInfo | undefined> {
  if (id.includes('/')) return undefined;
  const r = json.decode<MigrationRecord>(await storage.get(PREFIX + id));
  return r && nowMs - r.time_ms <= KEEP_MS ? r.info : undefined;
}
