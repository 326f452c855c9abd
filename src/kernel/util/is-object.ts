/**
 * The one test for "a JSON object" (not `null`, not an array) that decoders and
 * validators across the services share.
 *
 * @module
 */

/** True when `v` is a non-null, non-array object, e.g. a decoded JSON object. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
