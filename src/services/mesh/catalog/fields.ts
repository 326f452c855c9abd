/**
 * Typed reads of request-body fields for the catalog and agent endpoints: each returns
 * the value, a default when the field is absent or null, or throws 400 naming the field
 * (`Service.Port must be a number`), so bad input changes nothing.
 *
 * @module
 */
import { badRequest } from '../../../kernel/http/index.js';
import { goDurationMs } from '../../../kernel/util/go-duration.js';

/** A JSON object from a body, field names as the client sent them. */
export type Input = Readonly<Record<string, unknown>>;

const absent = (v: unknown): boolean => v === undefined || v === null;

/** A string field, `fallback` when absent. @throws 400 `<field> must be a string`. */
export function str(v: unknown, field: string, fallback = ''): string {
  if (absent(v)) return fallback;
  if (typeof v !== 'string') throw badRequest(`${field} must be a string`);
  return v;
}

/** A boolean field, false when absent. @throws 400 `<field> must be a boolean`. */
export function bool(v: unknown, field: string): boolean {
  if (absent(v)) return false;
  if (typeof v !== 'boolean') throw badRequest(`${field} must be a boolean`);
  return v;
}

/** A whole-number field, `fallback` when absent. @throws 400 `<field> must be a number`. */
export function int(v: unknown, field: string, fallback = 0): number {
  if (absent(v)) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw badRequest(`${field} must be a number`);
  return v;
}

/** A list of strings, `[]` when absent. @throws 400 `<field> must be a list of strings`. */
export function strings(v: unknown, field: string): string[] {
  if (absent(v)) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw badRequest(`${field} must be a list of strings`);
  return v as string[];
}

/** A string → string map, undefined when absent. @throws 400 `<field> must be a map of strings`. */
export function stringMap(v: unknown, field: string): Record<string, string> | undefined {
  if (absent(v)) return undefined;
  if (typeof v !== 'object' || Array.isArray(v) || Object.values(v as object).some((x) => typeof x !== 'string')) {
    throw badRequest(`${field} must be a map of strings`);
  }
  return { ...(v as Record<string, string>) };
}

/** A nested object, undefined when absent. @throws 400 `<field> must be an object`. */
export function object(v: unknown, field: string): Input | undefined {
  if (absent(v)) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw badRequest(`${field} must be an object`);
  return v as Input;
}

/**
 * A Go duration field (`"10s"`; the reference's API also takes a number of nanoseconds)
 * in ms, 0 when absent. @throws 400 `<field>: time: invalid duration …`.
 */
export function duration(v: unknown, field: string): number {
  if (absent(v) || v === '') return 0;
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return v / 1e6;
  if (typeof v !== 'string') throw badRequest(`${field} must be a duration string`);
  const ms = goDurationMs(v);
  if (ms === undefined || ms < 0) throw badRequest(`${field}: time: invalid duration ${JSON.stringify(v)}`);
  return ms;
}
