/**
 * JSON-shape helpers and key-metadata writes of the KV v2 engine: custom_metadata
 * parsing and limits and `metadata/<key>` POST/PATCH (reference/secrets.md §2.8),
 * RFC 7386 merge patch (§2.5 patch, §2.8 patch) and the subkeys projection (§2.9).
 * Pure functions, no I/O. Import through `versions.ts`, which re-exports everything.
 *
 * @module
 */

import { InputError, fieldError, hasField, parseBoolField, parseDuration, parseIntField } from '../../../../kernel/util/duration.js';
import type { KeyMetadata, KvConfig } from './key-metadata.js';
import { isObject } from '../../../../kernel/util/is-object.js';

/** Sets an own enumerable property, safe for keys such as `__proto__`. */
function setOwn(obj: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(obj, k, { value: v, writable: true, enumerable: true, configurable: true });
}

/** Deep copy of a JSON value (reference/secrets.md §2.5 merge patch); safe for `__proto__` keys. */
export function cloneJson<T>(v: T): T {
  if (Array.isArray(v)) return v.map((x) => cloneJson(x)) as T;
  if (isObject(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) setOwn(out, k, cloneJson(x));
    return out as T;
  }
  return v;
}

const CUSTOM_METADATA_ERROR_PREFIX = 'custom_metadata validation failed';
const MAX_CUSTOM_METADATA_KEYS = 64;
const MAX_CUSTOM_METADATA_KEY_LENGTH = 128;
const MAX_CUSTOM_METADATA_VALUE_LENGTH = 512;

/** Go's `unicode.IsPrint` over a whole string: L, M, N, P, S and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]*$/u;

/** Go `%q`-like quoting for messages. */
const q = (s: string): string => JSON.stringify(s);

/** mapstructure weak decoding of one custom_metadata value to a string. */
function weakString(key: string, v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (v === null || v === undefined) return '';
  throw new InputError(
    `${CUSTOM_METADATA_ERROR_PREFIX}: value for key ${q(key)} must be a string, number or boolean, got ${Array.isArray(v) ? 'array' : typeof v}`,
  );
}

/**
 * Decodes a `custom_metadata` request value into string pairs (reference/secrets.md
 * §2.8: values weakly coerced to strings — booleans `"1"`/`"0"`, numbers as written,
 * `null` → `""`). With `keepNulls` (the PATCH variant) a `null` value stays `null`,
 * meaning "remove this key". Throws {@link InputError} when `raw` is not an object or
 * a value is an array/object.
 */
function decodeCustomMetadata(raw: unknown, keepNulls: boolean): Record<string, string | null> {
  if (!isObject(raw)) {
    throw new InputError(`${CUSTOM_METADATA_ERROR_PREFIX}: custom_metadata must be an object`);
  }
  const out: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(raw)) {
    setOwn(out, k, keepNulls && v === null ? null : weakString(k, v));
  }
  return out;
}

/**
 * The limit violations of a custom_metadata map (reference/secrets.md §2.8): at most 64
 * keys (checked alone, short-circuiting), key length 1–128 bytes, value length 1–512
 * bytes, printable characters only. Every message starts with
 * `custom_metadata validation failed: `. Empty array = valid.
 */
export function customMetadataErrors(cm: Readonly<Record<string, string>>): string[] {
  const p = CUSTOM_METADATA_ERROR_PREFIX;
  const keys = Object.keys(cm);
  if (keys.length > MAX_CUSTOM_METADATA_KEYS) {
    return [`${p}: payload must contain at most ${MAX_CUSTOM_METADATA_KEYS} keys, provided ${keys.length}`];
  }
  const errs: string[] = [];
  for (const key of keys) {
    const value = cm[key] as string;
    const kl = Buffer.byteLength(key, 'utf8');
    if (kl === 0 || kl > MAX_CUSTOM_METADATA_KEY_LENGTH) {
      errs.push(`${p}: length of key ${q(key)} is ${kl} but must be 0 < len(key) <= ${MAX_CUSTOM_METADATA_KEY_LENGTH}`);
    }
    const vl = Buffer.byteLength(value, 'utf8');
    if (vl === 0 || vl > MAX_CUSTOM_METADATA_VALUE_LENGTH) {
      errs.push(`${p}: length of value for key ${q(key)} is ${vl} but must be 0 < len(value) <= ${MAX_CUSTOM_METADATA_VALUE_LENGTH}`);
    }
    if (!PRINTABLE.test(key)) errs.push(`${p}: key ${q(key)} (${key}) contains unprintable characters`);
    if (!PRINTABLE.test(value)) errs.push(`${p}: value for key ${q(key)} contains unprintable characters`);
  }
  return errs;
}

/** Throws a {@link InputError} carrying every violation when `cm` breaks a limit of reference/secrets.md §2.8. */
function assertCustomMetadata(cm: Readonly<Record<string, string>>): void {
  const errs = customMetadataErrors(cm);
  if (errs.length > 0) throw new InputError(errs);
}

/**
 * RFC 7386 JSON merge patch (reference/secrets.md §2.5 PATCH, §2.8 PATCH): an object
 * patch is merged key by key into `target` (a non-object target counts as `{}`), a
 * `null` member removes the key, and any non-object patch replaces the target. Returns
 * a new value; neither argument is mutated.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return cloneJson(patch);
  const out: Record<string, unknown> = isObject(target) ? cloneJson(target) : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else setOwn(out, k, mergePatch(Object.hasOwn(out, k) ? out[k] : undefined, v));
  }
  return out;
}

/**
 * The structure of a secret without its values (reference/secrets.md §2.9): every leaf
 * (a non-object value, or an empty object) becomes `null`; objects nested deeper than
 * `depth` levels become `null` too (`depth` 0 = unlimited, 1 = top-level keys only).
 * Returns `null` when `data` is not an object. Throws {@link InputError} when `depth`
 * is not a non-negative integer.
 */
export function subkeys(data: unknown, depth: number): Record<string, unknown> | null {
  if (!Number.isSafeInteger(depth) || depth < 0) {
    throw new InputError(`depth must be a non-negative integer, got ${String(depth)}`);
  }
  if (!isObject(data)) return null;
  const walk = (obj: Record<string, unknown>, level: number): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(obj)) {
      const descend = isObject(v) && Object.keys(v).length > 0 && (depth === 0 || level + 1 <= depth);
      setOwn(out, k, descend ? walk(v as Record<string, unknown>, level + 1) : null);
    }
    return out;
  };
  return walk(data, 1);
}

// ---------------------------------------------------------------------------
// Key metadata writes (§2.8)

export const CAS_REQUIRED_WARNING = '"cas_required" set to false, but is mandated by backend config. This value will be ignored.';
export const MAX_VERSIONS_LIMIT = 4294967295; // uint32 in Vault

/** True when `input` carries a field a metadata write acts on (reference/secrets.md §2.8: none → 204 no-op, key not created). A `null` delete_version_after counts as absent. */
export function hasMetadataFields(input: Record<string, unknown>): boolean {
  return (
    hasField(input, 'max_versions') ||
    hasField(input, 'cas_required') ||
    hasField(input, 'custom_metadata') ||
    (hasField(input, 'delete_version_after') && input.delete_version_after !== null)
  );
}

interface ParsedMetadata {
  max_versions?: number;
  cas_required?: boolean;
  delete_version_after_s?: number;
}

function parseMetadataScalars(input: Record<string, unknown>): ParsedMetadata {
  const p: ParsedMetadata = {};
  if (hasField(input, 'max_versions')) p.max_versions = parseIntField(input.max_versions, 'max_versions', 0, MAX_VERSIONS_LIMIT);
  if (hasField(input, 'cas_required')) p.cas_required = parseBoolField(input.cas_required, 'cas_required');
  if (hasField(input, 'delete_version_after') && input.delete_version_after !== null) {
    const s = parseDuration(input.delete_version_after, 'delete_version_after');
    if (s < 0) throw fieldError('delete_version_after', input.delete_version_after, `cannot provide negative value '${s}'`);
    p.delete_version_after_s = s;
  }
  return p;
}

function commitMetadata(key: KeyMetadata, p: ParsedMetadata, config: KvConfig): string[] {
  if (p.max_versions !== undefined) key.max_versions = p.max_versions;
  if (p.cas_required !== undefined) key.cas_required = p.cas_required;
  if (p.delete_version_after_s !== undefined) key.delete_version_after_s = p.delete_version_after_s;
  return p.cas_required === false && config.cas_required ? [CAS_REQUIRED_WARNING] : [];
}

const nonEmpty = (cm: Record<string, string>): Record<string, string> | null => (Object.keys(cm).length > 0 ? cm : null);

/**
 * `POST metadata/<key>` (reference/secrets.md §2.8): sets only the supplied
 * `max_versions`, `cas_required`, `delete_version_after` (non-negative duration) and
 * `custom_metadata` (replaced wholesale; `null`/`{}` clears it; values coerced to
 * strings; §2.8 limits). Returns the cas_required warning when the mount mandates CAS,
 * and whether any field applied. Metadata writes do not touch `updated_time`; `now` is
 * accepted for symmetry with the other mutators.
 */
export function applyMetadataUpdate(key: KeyMetadata, input: Record<string, unknown>, config: KvConfig, now?: Date): { warnings: string[]; applied: boolean } {
  void now;
  if (!hasMetadataFields(input)) return { warnings: [], applied: false };
  let cm: Record<string, string> | undefined;
  if (hasField(input, 'custom_metadata')) {
    cm = input.custom_metadata === null ? {} : (decodeCustomMetadata(input.custom_metadata, false) as Record<string, string>);
    assertCustomMetadata(cm);
  }
  const p = parseMetadataScalars(input);
  const warnings = commitMetadata(key, p, config);
  if (cm !== undefined) key.custom_metadata = nonEmpty(cm);
  return { warnings, applied: true };
}

/**
 * `PATCH metadata/<key>` (reference/secrets.md §2.8): like {@link applyMetadataUpdate}
 * but `custom_metadata` is JSON-merge-patched into the existing map (a `null` member
 * removes that key, `custom_metadata: null` clears all); the merged result must meet
 * the §2.8 limits. The key must already exist (unknown key → 404 is the caller's job).
 */
export function applyMetadataPatch(key: KeyMetadata, input: Record<string, unknown>, config: KvConfig, now?: Date): { warnings: string[]; applied: boolean } {
  void now;
  if (!hasMetadataFields(input)) return { warnings: [], applied: false };
  let cm: Record<string, string> | undefined;
  if (hasField(input, 'custom_metadata')) {
    if (input.custom_metadata === null) cm = {};
    else {
      const patch = decodeCustomMetadata(input.custom_metadata, true);
      const merged: Record<string, string> = cloneJson(key.custom_metadata ?? {});
      for (const [k, v] of Object.entries(patch)) {
        if (v === null) delete merged[k];
        else Object.defineProperty(merged, k, { value: v, writable: true, enumerable: true, configurable: true });
      }
      assertCustomMetadata(merged);
      cm = merged;
    }
  }
  const p = parseMetadataScalars(input);
  const warnings = commitMetadata(key, p, config);
  if (cm !== undefined) key.custom_metadata = nonEmpty(cm);
  return { warnings, applied: true };
}
