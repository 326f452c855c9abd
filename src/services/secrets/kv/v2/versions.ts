/**
 * Pure domain logic of the KV version 2 engine (reference/secrets.md §2.4–§2.10):
 * mount config, key metadata, check-and-set, version numbering and retention,
 * delete/undelete/destroy, metadata writes and the wire shapes. No HTTP, no storage:
 * callers load a {@link KeyMetadata}, call these functions, then persist the result
 * (and delete the data of versions the functions report as pruned/destroyed).
 *
 * Every function validates its whole input before mutating anything, so a thrown
 * {@link InputError} leaves the key untouched.
 *
 * @module
 */

import { MAX_VERSIONS_LIMIT, cloneJson } from './custom-metadata.js';
import type { KeyMetadata, KvConfig, VersionMeta } from './key-metadata.js';
import {
  InputError,
  fieldError,
  formatDuration,
  formatTime,
  hasField,
  parseBoolField,
  parseDuration,
  parseIntField,
  parseTime,
  weakInt,
} from '../../../../kernel/util/duration.js';

export * from './custom-metadata.js';
export * from './key-metadata.js';
export * from '../../../../kernel/util/duration.js';

/** The config of a mount that never wrote `config` (reference/secrets.md §2.4). */
export const DEFAULT_KV_CONFIG: Readonly<KvConfig> = Object.freeze({
  max_versions: 0,
  cas_required: false,
  delete_version_after_s: 0,
});

/** Versions kept when neither the key nor the mount sets `max_versions` (reference/secrets.md §2.10). */
const DEFAULT_MAX_VERSIONS = 10;

/** A fresh key: no versions, `current_version` 0, key-level settings unset (reference/secrets.md §2.8 write). */
export function newKeyMetadata(now: Date): KeyMetadata {
  const t = formatTime(now);
  return {
    cas_required: false,
    created_time: t,
    updated_time: t,
    current_version: 0,
    oldest_version: 0,
    max_versions: 0,
    delete_version_after_s: 0,
    custom_metadata: null,
    versions: {},
  };
}

// ---------------------------------------------------------------------------
// Effective settings (§2.10) and check-and-set (§2.6)

/** Effective version limit: max(key, mount) when either is > 0, else 10 — a lower key value has no effect (reference/secrets.md §2.10). */
export function effectiveMaxVersions(key: Pick<KeyMetadata, 'max_versions'> | undefined, config: KvConfig): number {
  const m = Math.max(key?.max_versions ?? 0, config.max_versions);
  return m > 0 ? m : DEFAULT_MAX_VERSIONS;
}

/** Effective `delete_version_after` seconds: the smaller non-zero of key and mount; 0 (off) when unset or the mount value is negative (reference/secrets.md §2.10). */
export function effectiveDeleteAfter(key: Pick<KeyMetadata, 'delete_version_after_s'> | undefined, config: KvConfig): number {
  if (config.delete_version_after_s < 0) return 0;
  const k = Math.max(key?.delete_version_after_s ?? 0, 0);
  const c = config.delete_version_after_s;
  if (k > 0 && c > 0) return Math.min(k, c);
  return k > 0 ? k : c;
}

/**
 * Check-and-set for data write/patch (reference/secrets.md §2.6). `cas` is the raw
 * `options.cas` (`undefined` when absent), decoded weakly (integers, integer strings,
 * booleans, `null` → 0). Must equal `current_version` (0 for an unknown key); when
 * absent and the mount or key requires CAS, the call is refused.
 */
export function checkCas(key: KeyMetadata | undefined, config: KvConfig, cas: unknown): void {
  if (cas !== undefined) {
    const n = weakInt(cas);
    if (n === undefined) throw new InputError('error parsing check-and-set parameter');
    if (n !== BigInt(key?.current_version ?? 0)) {
      throw new InputError('check-and-set parameter did not match the current version');
    }
  } else if (config.cas_required || key?.cas_required === true) {
    throw new InputError('check-and-set parameter required for this call');
  }
}

// ---------------------------------------------------------------------------
// Versions (§2.5, §2.7, §2.10)

/**
 * Records a new version on `key` (mutates it; reference/secrets.md §2.5, §2.10): number
 * `current_version + 1`, `created_time`/`updated_time` = now, `deletion_time` pre-set to
 * now + effective `delete_version_after` when that applies. When `current - oldest >=
 * max` the versions `oldest … current-max` leave the map and `oldest_version` becomes
 * `current-max+1`; `pruned` lists those (ascending) so the caller deletes their data.
 */
export function addVersion(key: KeyMetadata, config: KvConfig, now: Date): { version: number; pruned: number[] } {
  const created = formatTime(now);
  const dva = effectiveDeleteAfter(key, config);
  const version = key.current_version + 1;
  key.current_version = version;
  key.versions[String(version)] = {
    created_time: created,
    deletion_time: dva > 0 ? formatTime(new Date(now.getTime() + dva * 1000)) : '',
    destroyed: false,
  };
  key.updated_time = created;
  if (key.created_time === '') key.created_time = created;

  const max = effectiveMaxVersions(key, config);
  const pruned: number[] = [];
  if (version - key.oldest_version >= max) {
    const toDelete = version - max;
    for (const k of Object.keys(key.versions)) {
      const n = Number(k);
      if (n >= key.oldest_version && n <= toDelete) {
        delete key.versions[k];
        pruned.push(n);
      }
    }
    key.oldest_version = toDelete + 1;
  }
  return { version, pruned: pruned.sort((a, b) => a - b) };
}

/** Read state of a version (reference/secrets.md §2.5): destroyed, deleted (deletion_time in the past), else live — a future deletion_time is still live. */
export function versionState(meta: VersionMeta, now: Date): 'live' | 'deleted' | 'destroyed' {
  if (meta.destroyed) return 'destroyed';
  if (meta.deletion_time !== '') {
    const t = parseTime(meta.deletion_time);
    if (!Number.isNaN(t) && t < now.getTime()) return 'deleted';
  }
  return 'live';
}

/**
 * Decodes a `versions` field (reference/secrets.md §2.7, Vault `TypeCommaIntSlice`): a
 * JSON array, a `"1,2"` string or a single value; elements are integers or integer
 * strings (weakly decoded). Absent/`null`/`""` → `[]`. Throws {@link InputError} on junk.
 */
export function parseVersions(v: unknown): number[] {
  if (v === undefined || v === null || v === '') return [];
  const items: unknown[] = Array.isArray(v) ? v : typeof v === 'string' ? v.split(',') : [v];
  return items.map((x) => {
    const n = weakInt(x);
    if (n === undefined || n > BigInt(Number.MAX_SAFE_INTEGER) || n < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw fieldError('versions', v, `invalid version number ${JSON.stringify(x) ?? String(x)}`);
    }
    return Number(n);
  });
}

/** Refuses an empty version list with the operation's exact Vault message (reference/secrets.md §2.7). */
export function requireVersions(versions: readonly number[], op: 'delete' | 'undelete' | 'destroy'): void {
  if (versions.length === 0) {
    throw new InputError(op === 'destroy' ? 'no version number provided' : 'No version number provided');
  }
}

function lookup(key: KeyMetadata, v: number): VersionMeta | undefined {
  const k = String(v);
  return Object.hasOwn(key.versions, k) ? key.versions[k] : undefined;
}

/**
 * `delete/<key>` (reference/secrets.md §2.7): sets `deletion_time` = now on each listed
 * version that exists, isn't destroyed and isn't already deleted (a future
 * deletion_time is moved to now). Returns the versions changed.
 */
export function softDeleteVersions(key: KeyMetadata, versions: readonly number[], now: Date): number[] {
  requireVersions(versions, 'delete');
  const changed: number[] = [];
  for (const v of new Set(versions)) {
    const m = lookup(key, v);
    if (m === undefined || versionState(m, now) !== 'live') continue;
    m.deletion_time = formatTime(now);
    changed.push(v);
  }
  return changed;
}

/** `DELETE data/<key>` (reference/secrets.md §2.5): soft-deletes the current version only; false (no-op) when it is missing, destroyed or already deleted. */
export function softDeleteCurrent(key: KeyMetadata, now: Date): boolean {
  return softDeleteVersions(key, [key.current_version], now).length > 0;
}

/**
 * `undelete/<key>` (reference/secrets.md §2.7): on each listed non-destroyed version,
 * clears `deletion_time`, or re-arms it to now + effective `delete_version_after` when
 * that applies. Returns the versions touched.
 */
export function undeleteVersions(key: KeyMetadata, versions: readonly number[], config: KvConfig, now: Date): number[] {
  requireVersions(versions, 'undelete');
  const dva = effectiveDeleteAfter(key, config);
  const touched: number[] = [];
  for (const v of new Set(versions)) {
    const m = lookup(key, v);
    if (m === undefined || m.destroyed) continue;
    m.deletion_time = dva > 0 ? formatTime(new Date(now.getTime() + dva * 1000)) : '';
    touched.push(v);
  }
  return touched;
}

/**
 * `destroy/<key>` (reference/secrets.md §2.7): marks each listed known version
 * `destroyed: true`. Returns every listed version present in the map (newly or already
 * destroyed) — the caller deletes their data (idempotent).
 */
export function destroyVersions(key: KeyMetadata, versions: readonly number[]): number[] {
  requireVersions(versions, 'destroy');
  const out: number[] = [];
  for (const v of new Set(versions)) {
    const m = lookup(key, v);
    if (m === undefined) continue;
    m.destroyed = true;
    out.push(v);
  }
  return out;
}

// ---------------------------------------------------------------------------
// Config writes (§2.4); key metadata writes live in custom-metadata.ts (§2.8)

/**
 * `POST <mount>/config` (reference/secrets.md §2.4): returns a new config with the
 * supplied `max_versions`, `cas_required`, `delete_version_after` applied (a negative
 * duration disables auto-delete and is stored as -1, 0 clears). `applied` is false when
 * no recognised field was given (204 no-op).
 */
export function applyConfigUpdate(config: KvConfig, input: Record<string, unknown>): { config: KvConfig; applied: boolean } {
  const next: KvConfig = { ...config };
  let applied = false;
  if (hasField(input, 'max_versions')) {
    next.max_versions = parseIntField(input.max_versions, 'max_versions', 0, MAX_VERSIONS_LIMIT);
    applied = true;
  }
  if (hasField(input, 'cas_required')) {
    next.cas_required = parseBoolField(input.cas_required, 'cas_required');
    applied = true;
  }
  if (hasField(input, 'delete_version_after') && input.delete_version_after !== null) {
    const s = parseDuration(input.delete_version_after, 'delete_version_after');
    next.delete_version_after_s = s < 0 ? -1 : s;
    applied = true;
  }
  return { config: next, applied };
}

// ---------------------------------------------------------------------------
// Wire shapes (§2.4, §2.5, §2.8)

/** The `data` of `GET metadata/<key>` (reference/secrets.md §2.8): key-level settings as stored (not effective), `delete_version_after` as a Go duration string. */
export function renderMetadata(key: KeyMetadata): Record<string, unknown> {
  const versions: Record<string, VersionMeta> = {};
  for (const [k, m] of Object.entries(key.versions)) {
    versions[k] = { created_time: m.created_time, deletion_time: m.deletion_time, destroyed: m.destroyed };
  }
  return {
    cas_required: key.cas_required,
    created_time: key.created_time,
    current_version: key.current_version,
    custom_metadata: key.custom_metadata === null ? null : cloneJson(key.custom_metadata),
    delete_version_after: formatDuration(key.delete_version_after_s),
    max_versions: key.max_versions,
    oldest_version: key.oldest_version,
    updated_time: key.updated_time,
    versions,
  };
}

/** The version-metadata object of data write/read/patch responses (reference/secrets.md §2.5); `undefined` when the version is not in the map. */
export function renderVersionMeta(
  key: KeyMetadata,
  version: number,
): { created_time: string; custom_metadata: Record<string, string> | null; deletion_time: string; destroyed: boolean; version: number } | undefined {
  const m = lookup(key, version);
  if (m === undefined) return undefined;
  return {
    created_time: m.created_time,
    custom_metadata: key.custom_metadata === null ? null : cloneJson(key.custom_metadata),
    deletion_time: m.deletion_time,
    destroyed: m.destroyed,
    version,
  };
}

/** The `data` of `GET <mount>/config` (reference/secrets.md §2.4). */
export function renderConfig(config: KvConfig): { max_versions: number; cas_required: boolean; delete_version_after: string } {
  return {
    max_versions: config.max_versions,
    cas_required: config.cas_required,
    delete_version_after: formatDuration(config.delete_version_after_s),
  };
}
