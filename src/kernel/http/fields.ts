/**
 * Field types shared by routes of every service.
 * @module
 */
import { Type, type TUnion, type TString, type TArray } from '@sinclair/typebox';

/**
 * A list given as a JSON array or a comma-separated string (the reference's
 * `TypeCommaStringSlice`). The string form comes first: with ajv's array coercion an
 * array-first union would wrap `"a,b"` into `["a,b"]`.
 */
export const CommaList = (description: string): TUnion<[TString, TArray<TString>]> => Type.Union([Type.String(), Type.Array(Type.String())], { description });

/** The items of a {@link CommaList} value: trimmed, empty ones dropped. */
export function commaList(v: unknown): string[] {
  const items = Array.isArray(v) ? v : typeof v === 'string' ? v.split(',') : [];
  return items.map((s) => String(s).trim()).filter(Boolean);
}
