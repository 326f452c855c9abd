/**
 * Request checks of the hostpath plugin, per the CSI spec's field rules ("Field
 * Requirements": a REQUIRED field, list or map must be set and non-empty) and error
 * scheme: a missing field is INVALID_ARGUMENT `<field> is required`, with the field's
 * proto name and index (`volume_capabilities[1].access_mode is required`).
 *
 * @module
 */
import { isAbsolute } from 'node:path';
import type { ControllerCapability, CsiAccessMode, VolumeCapability } from '../types.js';
import { fromWireCapability, type WireCapability, type WireCapacityRange } from '../wire.js';
import { invalid, missing } from './rpc.js';

/** Characters the spec bans in volume and snapshot names (control characters other than common whitespace). */
const BANNED = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;

/** Access modes that allow one node at a time. */
export const SINGLE_NODE_MODES: ReadonlySet<CsiAccessMode> = new Set([
  'SINGLE_NODE_WRITER',
  'SINGLE_NODE_READER_ONLY',
  'SINGLE_NODE_SINGLE_WRITER',
  'SINGLE_NODE_MULTI_WRITER',
]);

/** @throws {RpcFailure} INVALID_ARGUMENT when `value` is empty. */
export function requireField(value: string | undefined, field: string): string {
  if (!value) throw missing(field);
  return value;
}

/** A volume or snapshot name. @throws {RpcFailure} INVALID_ARGUMENT when empty or holding a banned character. */
export function requireName(name: string | undefined, field = 'name'): string {
  const n = requireField(name, field);
  if (BANNED.test(n)) throw invalid(`${field} contains a control character`);
  return n;
}

/** An absolute path. @throws {RpcFailure} INVALID_ARGUMENT when empty or relative. */
export function requirePath(path: string | undefined, field: string): string {
  const p = requireField(path, field);
  if (!isAbsolute(p)) throw invalid(`${field} must be an absolute path, got "${p}"`);
  return p;
}

/**
 * One wire capability, checked.
 * @throws {RpcFailure} INVALID_ARGUMENT naming `field`, `field.access_mode` or `field.access_type`.
 */
export function requireCapability(w: WireCapability | null | undefined, field: string): VolumeCapability {
  if (!w) throw missing(field);
  if (!w.access_mode || !w.access_mode.mode || w.access_mode.mode === 'UNKNOWN') throw missing(`${field}.access_mode`);
  if (typeof w.access_mode.mode !== 'string') throw invalid(`${field}.access_mode has an unknown mode ${w.access_mode.mode}`);
  if (!w.block && !w.mount) throw missing(`${field}.access_type`);
  return fromWireCapability(w) as VolumeCapability;
}

/** A non-empty capability list, each checked. @throws {RpcFailure} INVALID_ARGUMENT naming the field. */
export function requireCapabilities(list: readonly WireCapability[] | undefined, field = 'volume_capabilities'): VolumeCapability[] {
  if (!list || list.length === 0) throw missing(field);
  return list.map((w, i) => requireCapability(w, `${field}[${i}]`));
}

/**
 * Why the hostpath plugin cannot serve capability `c`, or undefined when it can: it
 * serves mounts only (a directory is no block device), and the single-node single/multi
 * writer modes only with the SINGLE_NODE_MULTI_WRITER controller capability.
 */
export function unsupported(c: VolumeCapability, caps: ReadonlySet<ControllerCapability>): string | undefined {
  if ('block' in c.accessType) return 'block access is not supported by the hostpath plugin (volumes are directories)';
  if ((c.accessMode === 'SINGLE_NODE_SINGLE_WRITER' || c.accessMode === 'SINGLE_NODE_MULTI_WRITER') && !caps.has('SINGLE_NODE_MULTI_WRITER'))
    return `access mode ${c.accessMode} needs the SINGLE_NODE_MULTI_WRITER capability`;
  return undefined;
}

/**
 * Checks every capability is served. @throws {RpcFailure} INVALID_ARGUMENT naming the first one that is not.
 */
export function requireSupported(list: readonly VolumeCapability[], caps: ReadonlySet<ControllerCapability>, field = 'volume_capabilities'): void {
  list.forEach((c, i) => {
    const why = unsupported(c, caps);
    if (why) throw invalid(`${field}[${i}]: ${why}`);
  });
}

/**
 * A capacity range in bytes (0 = not given).
 * @throws {RpcFailure} INVALID_ARGUMENT for a negative bound or `required_bytes` above `limit_bytes`.
 */
export function capacityRange(r: WireCapacityRange | null | undefined, field = 'capacity_range'): { required: number; limit: number } {
  const required = r?.required_bytes ?? 0;
  const limit = r?.limit_bytes ?? 0;
  if (required < 0) throw invalid(`${field}.required_bytes must not be negative`);
  if (limit < 0) throw invalid(`${field}.limit_bytes must not be negative`);
  if (limit > 0 && required > limit) throw invalid(`${field}.required_bytes (${required}) exceeds limit_bytes (${limit})`);
  return { required, limit };
}

/** `max_entries` of a list request; 0 = no limit. @throws {RpcFailure} INVALID_ARGUMENT when negative. */
export function maxEntries(n: number | undefined): number {
  if ((n ?? 0) < 0) throw invalid(`max_entries must not be negative, got ${n}`);
  return n ?? 0;
}

/** Whether two string maps hold the same pairs. */
export function sameMap(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
}
