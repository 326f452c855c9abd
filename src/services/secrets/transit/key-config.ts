/**
 * The mutable settings of a key (`keys/:name/config`, reference/secrets-engines.md §6):
 * version bounds, deletion, the one-way `exportable` / `allow_plaintext_backup`, and
 * `auto_rotate_period` (0 or at least an hour, the reference's minimum).
 *
 * @module
 */
import { badRequest } from '../../../kernel/http/index.js';
import { parseDuration } from '../../../kernel/util/duration.js';
import type { TransitKey } from './policy.js';

/** The reference's minimum `auto_rotate_period`, seconds. */
const MIN_AUTO_ROTATE_S = 3600;

/** `auto_rotate_period` in seconds: 0 (off) or ≥ 1 h; 400 naming the field otherwise. */
export function autoRotatePeriod(v: unknown): number {
  const s = parseDuration(v, 'auto_rotate_period');
  if (s !== 0 && s < MIN_AUTO_ROTATE_S) throw badRequest('auto_rotate_period: auto rotate period must be 0 to disable or at least an hour');
  return s;
}

/** `key` with the settings of `data` applied, and any warnings. Throws 400 (changing nothing) for a bad value. */
export function applyKeyConfig(key: TransitKey, data: Readonly<Record<string, unknown>>): { key: TransitKey; warnings: string[] } {
  const warnings: string[] = [];
  let next: TransitKey = { ...key };
  if (data.min_decryption_version !== undefined) {
    let v = data.min_decryption_version as number;
    if (v === 0) {
      v = 1;
      warnings.push('since Vault 0.3, transit key numbering starts at 1; forcing minimum to 1');
    }
    if (v > key.latest_version)
      throw badRequest(`min_decryption_version: cannot set min decryption version of ${v}, latest key version is ${key.latest_version}`);
    if (v < key.min_available_version) {
      throw badRequest(`min_decryption_version: cannot set min decryption version of ${v}, min available version is ${key.min_available_version}`);
    }
    next = { ...next, min_decryption_version: v };
  }
  if (data.min_encryption_version !== undefined) {
    const v = data.min_encryption_version as number;
    if (v > key.latest_version)
      throw badRequest(`min_encryption_version: cannot set min encryption version of ${v}, latest key version is ${key.latest_version}`);
    if (v !== 0 && v < key.min_available_version) {
      throw badRequest(`min_encryption_version: cannot set min encryption version of ${v}, min available version is ${key.min_available_version}`);
    }
    next = { ...next, min_encryption_version: v };
  }
  if (next.min_encryption_version !== 0 && next.min_encryption_version < next.min_decryption_version) {
    throw badRequest('min_encryption_version: min encryption version should not be less than min decryption version');
  }
  if (data.deletion_allowed !== undefined) next = { ...next, deletion_allowed: data.deletion_allowed as boolean };
  if (data.exportable !== undefined) {
    if (key.exportable && data.exportable === false) throw badRequest('exportable: cannot disable exportability once enabled');
    next = { ...next, exportable: key.exportable || (data.exportable as boolean) };
  }
  if (data.allow_plaintext_backup !== undefined) {
    if (key.allow_plaintext_backup && data.allow_plaintext_backup === false) {
      throw badRequest('allow_plaintext_backup: cannot disable plaintext backup once enabled');
    }
    next = { ...next, allow_plaintext_backup: key.allow_plaintext_backup || (data.allow_plaintext_backup as boolean) };
  }
  if (data.auto_rotate_period !== undefined) next = { ...next, auto_rotate_period: autoRotatePeriod(data.auto_rotate_period) };
  return { key: next, warnings };
}
