/**
 * Go's `time.Duration` text, as the reference products put it on the wire: parsing like
 * `time.ParseDuration` (query waits, token TTLs, auth-method `MaxTokenTTL`) and formatting
 * like `Duration.String()`. Values are nanoseconds. Config and KV fields, which also take
 * days and bare seconds, go through `parseDuration` of duration.ts instead.
 *
 * @module
 */

/**
 * The longest Go `time.Duration`, in nanoseconds: int64's maximum, 2562047h47m16.854775807s
 * (about 292 years). A value past it has no Go form; before this bound, one reached
 * `new Date(…)` (`Invalid time value`) or `BigInt(Infinity)` and answered 500.
 */
export const MAX_GO_DURATION_NS = 2 ** 63 - 1;

const UNIT_NS: Readonly<Record<string, number>> = {
  ns: 1,
  us: 1e3,
  µs: 1e3,
  μs: 1e3,
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

/**
 * Go's `time.ParseDuration`: `"90s"`, `"1h30m"`, `"1.5h"`, `"-2m"`, `"0"`.
 * @returns nanoseconds (a `number`: exact up to ~104 days), or Go's error text
 *   (`time: invalid duration "x"`, also past {@link MAX_GO_DURATION_NS} as in Go,
 *   `time: missing unit in duration "1"`, `time: unknown unit "d" in duration "1d"`).
 */
export function parseGoDuration(text: string): number | string {
  const quoted = JSON.stringify(text);
  let s = text;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    sign = s.startsWith('-') ? -1 : 1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') return `time: invalid duration ${quoted}`;
  let total = 0;
  while (s !== '') {
    const num = /^(\d*)(?:\.(\d*))?/.exec(s) as RegExpExecArray;
    if (num[0] === '' || num[0] === '.') return `time: invalid duration ${quoted}`;
    s = s.slice(num[0].length);
    const unit = (/^[^.0-9]*/.exec(s) as RegExpExecArray)[0];
    if (unit === '') return `time: missing unit in duration ${quoted}`;
    const scale = UNIT_NS[unit];
    if (scale === undefined) return `time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}`;
    s = s.slice(unit.length);
    total += Number(`${num[1] || '0'}.${num[2] ?? ''}0`) * scale;
    if (!(total <= MAX_GO_DURATION_NS)) return `time: invalid duration ${quoted}`;
  }
  return sign * Math.round(total);
}

/** Go's `fmtFrac`: the trimmed `.ddd` fraction of `v` at `prec` digits, and `v / 10^prec`. */
function fmtFrac(v: bigint, prec: number): [string, bigint] {
  const scale = 10n ** BigInt(prec);
  const frac = prec === 0 ? '' : (v % scale).toString().padStart(prec, '0').replace(/0+$/, '');
  return [frac === '' ? '' : `.${frac}`, v / scale];
}

/**
 * Go's `time.Duration.String()` of `ns` nanoseconds (a `bigint` keeps durations past
 * 2^53 ns exact): `0` → `"0s"`, 90 s → `"1m30s"`, 1 h → `"1h0m0s"`, 1.5 s → `"1.5s"`,
 * 250 ms → `"250ms"`, −1 s → `"-1s"`.
 */
export function formatGoDuration(ns: number | bigint): string {
  const d = typeof ns === 'bigint' ? ns : BigInt(Math.round(ns));
  if (d === 0n) return '0s';
  const neg = d < 0n;
  let u = neg ? -d : d;
  let out: string;
  if (u < 1_000_000_000n) {
    const [prec, unit] = u < 1_000n ? [0, 'ns'] : u < 1_000_000n ? [3, 'µs'] : [6, 'ms'];
    const [frac, whole] = fmtFrac(u, prec);
    out = `${whole}${frac}${unit}`;
  } else {
    const [frac, secs] = fmtFrac(u, 9);
    u = secs;
    out = `${u % 60n}${frac}s`;
    u /= 60n;
    if (u > 0n) {
      out = `${u % 60n}m${out}`;
      u /= 60n;
      if (u > 0n) out = `${u}h${out}`;
    }
  }
  return neg ? `-${out}` : out;
}

/**
 * A `time.Duration` as a JSON body gives it: a duration string ({@link parseGoDuration}) or
 * a number of nanoseconds (truncated to an integer, as the reference products' decoders
 * read it).
 * @returns nanoseconds, or a text naming the problem: Go's for a bad string, `number <v>
 *   is out of range for a duration` past ±{@link MAX_GO_DURATION_NS} (`1e400` is
 *   `Infinity` once parsed).
 */
export function jsonGoDurationNs(value: number | string): number | string {
  if (typeof value === 'string') return parseGoDuration(value);
  if (!(Math.abs(value) <= MAX_GO_DURATION_NS)) return `number ${value} is out of range for a duration`;
  return Math.trunc(value);
}

/** {@link parseGoDuration} in milliseconds; undefined when `text` is not a Go duration. */
export function goDurationMs(text: string): number | undefined {
  const ns = parseGoDuration(text);
  return typeof ns === 'number' ? ns / 1e6 : undefined;
}
