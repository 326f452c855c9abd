/**
 * Deep freezing, for decoded values that caches hand to many callers (issue 15: a read
 * decodes nothing when its value is cached; sharing one object is safe only if no caller
 * can change it).
 *
 * @module
 */

/** A value whose objects and arrays, at every depth, are read-only. */
export type Frozen<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends ReadonlyArray<infer U>
    ? ReadonlyArray<Frozen<U>>
    : T extends object
      ? { readonly [K in keyof T]: Frozen<T[K]> }
      : T;

/**
 * Freezes `value` and every object and array reachable from it (own enumerable
 * properties; already frozen sub-objects are skipped, so shared frozen parts cost
 * nothing). Returns `value`. Meant for plain data such as decoded JSON; in strict-mode
 * code (every ES module) a later write to it throws a TypeError.
 */
export function deepFreeze<T>(value: T): Frozen<T> {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value as Frozen<T>;
}
