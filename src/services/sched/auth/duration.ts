/**
 * Go `time.Duration` on the scheduler's wire (reference/sched.md §1.1, §2.2): auth methods
 * carry durations as strings like `"1h0m0s"` (`""` for 0) and accept a string or a number
 * of nanoseconds. Values are nanoseconds held in a `number` (exact up to ~104 days, far
 * beyond the 24 h `MaxTokenTTL` ceiling).
 *
 * @module
 */

const UNIT_NS: Readonly<Record<string, number>> = {
  ns: 1, us: 1e3, 'µs': 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9,
};

/** One second in nanoseconds. */
export const SECOND_NS = 1e9;
/** One minute in nanoseconds. */
export const MINUTE_NS = 60e9;
/** One hour in nanoseconds. */
export const HOUR_NS = 3600e9;

/**
 * Go's `time.ParseDuration`: `"90s"`, `"1h30m"`, `"1.5h"`, `"-2m"`, `"0"`.
 * @returns nanoseconds, or the Go error text (`time: invalid duration "x"`, `time: missing unit in duration "1"`,
 *   `time: unknown unit "d" in duration "1d"`).
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
  }
  return sign * Math.round(total);
}

/**
 * Go's `time.Duration.String()`: `0` → `"0s"`, 90 s → `"1m30s"`, 1 h → `"1h0m0s"`,
 * 1.5 s → `"1.5s"`, 250 ms → `"250ms"`.
 */
export function formatGoDuration(ns: number): string {
  if (ns === 0) return '0s';
  const neg = ns < 0;
  let u = BigInt(Math.round(Math.abs(ns)));
  let out: string;
  const frac = (v: bigint, prec: number): [string, bigint] => {
    const scale = 10n ** BigInt(prec);
    const f = prec === 0 ? '' : (v % scale).toString().padStart(prec, '0').replace(/0+$/, '');
    return [f === '' ? '' : `.${f}`, v / scale];
  };
  if (u < 1_000_000_000n) {
    const [prec, unit] = u < 1_000n ? [0, 'ns'] : u < 1_000_000n ? [3, 'µs'] : [6, 'ms'];
    const [f, whole] = frac(u, prec);
    out = `${whole}${f}${unit}`;
  } else {
    const [f, secs] = frac(u, 9);
    u = secs;
    out = `${u % 60n}${f}s`;
    u /= 60n;
    if (u > 0n) {
      out = `${u % 60n}m${out}`;
      u /= 60n;
      if (u > 0n) out = `${u}h${out}`;
    }
  }
  return neg ? `-${out}` : out;
}

/** The wire form of an auth-method duration field: `""` for 0, else {@link formatGoDuration} (sched.md §2.2). */
export function wireDuration(ns: number): string {
  return ns === 0 ? '' : formatGoDuration(ns);
}
