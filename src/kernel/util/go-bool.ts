/**
 * Go's `strconv.ParseBool`, which the reference products use for query parameters,
 * options and config values.
 *
 * @module
 */

const GO_BOOL: Readonly<Record<string, boolean>> = {
  '1': true,
  t: true,
  T: true,
  TRUE: true,
  true: true,
  True: true,
  '0': false,
  f: false,
  F: false,
  FALSE: false,
  false: false,
  False: false,
};

/**
 * Go's `strconv.ParseBool`: `1 t T TRUE true True` → true, `0 f F FALSE false False` →
 * false, anything else (the empty string included) → undefined; callers word their own
 * error, as each reference endpoint does.
 */
export function parseGoBool(s: string): boolean | undefined {
  return Object.hasOwn(GO_BOOL, s) ? GO_BOOL[s] : undefined;
}
