/**
 * Input decoding shared by every service: the input error class, weak decoding of
 * request fields the way the reference's framework does it, Go-compatible duration
 * parsing/formatting (every reference product takes `"1h30m"`) and RFC3339Nano
 * timestamps (reference/secrets.md §2.4–§2.8, §2.10). Pure functions, no I/O.
 *
 * Durations are carried as whole seconds (what Vault's `TypeDurationSecond` /
 * `TypeSignedDurationSecond` fields store); parsing goes through nanoseconds as
 * `bigint` so Go's overflow rules and fractional units (`"1.5h"`) are exact.
 *
 * @module
 */
import { CairnError } from '../http/errors.js';
import { formatGoDuration } from './go-duration.js';
import { parseGoBool } from './go-bool.js';

/**
 * A client input error: a 400 whose messages name the field and the problem
 * (reference/secrets.md §1.4, §2.5–§2.8). `errors` holds every individual message when
 * a validation collected several (custom_metadata, §2.8); `message` joins them with `"; "`.
 */
export class InputError extends CairnError {
  readonly errors: readonly string[];
  constructor(message: string | readonly string[]) {
    super('bad_request', message);
    this.name = 'InputError';
    this.errors = this.messages;
  }
}

/** How Go's `%v` would show a decoded JSON input value in an error message (reference/secrets.md §1.4). */
function showInput(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** `error converting input <v> for field "<field>": <reason>` — Vault's field-data wording for a 400 (reference/secrets.md §1.4, §2.4, §2.8). */
export function fieldError(field: string, v: unknown, reason: string): InputError {
  return new InputError(`error converting input ${showInput(v)} for field "${field}": ${reason}`);
}

/**
 * Formats `d` as Go's `time.RFC3339Nano` in UTC (reference/secrets.md §2.5, §2.8):
 * `2024-01-02T03:04:05.123Z`; the fraction keeps at most nanosecond digits with
 * trailing zeros trimmed and is omitted entirely when zero (JS carries ms only).
 */
export function formatTime(d: Date): string {
  const ms = d.getTime();
  // Writes in the same millisecond (thousands a second under load) share the last text.
  if (ms === lastFormatted.ms) return lastFormatted.text;
  const iso = d.toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ (throws on an invalid date)
  const dot = iso.lastIndexOf('.');
  const frac = iso.slice(dot + 1, -1).replace(/0+$/, '');
  const text = `${iso.slice(0, dot)}${frac === '' ? '' : `.${frac}`}Z`;
  lastFormatted = { ms, text };
  return text;
}

let lastFormatted = { ms: Number.NaN, text: '' };

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * Parses an RFC3339 / RFC3339Nano timestamp (any number of fraction digits) as stored
 * in `created_time` / `deletion_time` (reference/secrets.md §2.5) into epoch
 * milliseconds (fraction truncated to ms); `NaN` when it is not one.
 */
export function parseTime(s: string): number {
  const m = RFC3339.exec(s);
  if (m === null) return Number.NaN;
  const ms = Number((m[7] ?? '').slice(0, 3).padEnd(3, '0'));
  let t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), ms);
  if (m[8] === undefined) {
    const off = (Number(m[10]) * 60 + Number(m[11])) * 60_000;
    t += m[9] === '-' ? off : -off;
  }
  return t;
}

const NS_PER_S = 1_000_000_000n;
const MAX_NS = (1n << 63n) - 1n;
/** Largest |seconds| a Go `time.Duration` can hold. */
const MAX_DURATION_SECONDS = Number(MAX_NS / NS_PER_S);

const UNITS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n, // U+00B5 micro sign
  μs: 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: NS_PER_S,
  m: 60n * NS_PER_S,
  h: 3600n * NS_PER_S,
};

/** Go's `time.ParseDuration`: nanoseconds, or an error message in Go's wording. */
function goParseDuration(orig: string): bigint | string {
  const quoted = JSON.stringify(orig);
  const invalid = `time: invalid duration ${quoted}`;
  let s = orig;
  let neg = false;
  if (s[0] === '-' || s[0] === '+') {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') return invalid;
  let total = 0n;
  while (s !== '') {
    const c = s[0];
    if (!(c === '.' || (c >= '0' && c <= '9'))) return invalid;
    const num = /^(\d*)(?:\.(\d*))?/.exec(s) as RegExpExecArray;
    const intPart = num[1];
    const fracPart = num[2] ?? '';
    if (intPart === '' && fracPart === '') return invalid; // "." or ".s"
    s = s.slice(num[0].length);
    const unitText = (/^[^.0-9]*/.exec(s) as RegExpExecArray)[0];
    if (unitText === '') return `time: missing unit in duration ${quoted}`;
    const unit = UNITS[unitText];
    if (unit === undefined) return `time: unknown unit ${JSON.stringify(unitText)} in duration ${quoted}`;
    s = s.slice(unitText.length);
    let v = BigInt(intPart === '' ? '0' : intPart) * unit;
    if (fracPart !== '') v += (BigInt(fracPart) * unit) / 10n ** BigInt(fracPart.length);
    total += v;
    if (total > MAX_NS + 1n) return invalid;
  }
  if (!neg && total > MAX_NS) return invalid;
  return neg ? -total : total;
}

function toSeconds(ns: bigint): number {
  const s = Number(ns / NS_PER_S); // truncates toward zero like int(d.Seconds())
  return s === 0 ? 0 : s; // no -0
}

/**
 * Parses a duration field the way Vault's `TypeDurationSecond` /
 * `TypeSignedDurationSecond` do (parseutil `ParseDurationSecond`;
 * reference/secrets.md §2.4, §2.8) and returns whole seconds (truncated toward zero):
 * - integer JSON numbers are seconds (`3600`);
 * - strings: `""` → 0; an integer string is seconds (`"3600"`, `"-1"`); `"<n>d"` is days;
 *   otherwise a Go duration (`"1h30m"`, `"1.5h"`, `"-1s"`, `"0"`, units ns us µs ms s m h).
 * Anything else (fractional numbers, `"1.5"`, booleans, objects, overflow) throws
 * {@link InputError} naming `field`. The sign is kept; callers decide what a negative
 * value means.
 */
export function parseDuration(v: unknown, field: string): number {
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) return parseDuration(String(v), field); // "1.5" → missing unit
    if (Math.abs(v) > MAX_DURATION_SECONDS) throw fieldError(field, v, 'duration out of range');
    return v === 0 ? 0 : v;
  }
  if (typeof v !== 'string') throw fieldError(field, v, 'could not parse duration from input');
  if (v === '') return 0;
  if (/^[+-]?\d+$/.test(v)) {
    const secs = BigInt(v);
    if (secs > BigInt(MAX_DURATION_SECONDS) || secs < -BigInt(MAX_DURATION_SECONDS)) {
      throw fieldError(field, v, 'duration out of range');
    }
    return toSeconds(secs * NS_PER_S);
  }
  if (v.endsWith('d')) {
    if (!/^[+-]?\d+d$/.test(v)) {
      throw fieldError(field, v, `strconv.ParseInt: parsing ${JSON.stringify(v.slice(0, -1))}: invalid syntax`);
    }
    const ns = BigInt(v.slice(0, -1)) * 86_400n * NS_PER_S;
    if (ns > MAX_NS || ns < -MAX_NS) throw fieldError(field, v, 'duration out of range');
    return toSeconds(ns);
  }
  const ns = goParseDuration(v);
  if (typeof ns === 'string') throw fieldError(field, v, ns);
  return toSeconds(ns);
}

/**
 * Formats a number of seconds as Go's `time.Duration.String()` — the wire form of
 * `delete_version_after` (reference/secrets.md §2.4, §2.8): `0` → `"0s"`, `90` →
 * `"1m30s"`, `3600` → `"1h0m0s"`, `34128000` → `"9480h0m0s"`, `-1` → `"-1s"`;
 * fractional seconds print like Go (`1.5` → `"1.5s"`, `0.25` → `"250ms"`).
 */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) throw new RangeError(`formatDuration: not a finite number: ${seconds}`);
  return formatGoDuration(Number.isInteger(seconds) ? BigInt(seconds) * NS_PER_S : BigInt(Math.round(seconds * 1e9)));
}

// ---------------------------------------------------------------------------
// Weak decoding of request fields (mapstructure WeaklyTypedInput, as Vault's framework does)

/** Go `strconv.ParseInt(s, 0, 64)` without underscores: decimal, 0x/0o/0b prefixes, leading-0 octal. */
function parseGoInt(s: string): bigint | undefined {
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|0[0-7]*|[1-9][0-9]*)$/.exec(s);
  if (m === null) return undefined;
  const body = m[2];
  const mag = /^0[0-7]+$/.test(body) ? BigInt(`0o${body.slice(1)}`) : BigInt(body);
  const n = m[1] === '-' ? -mag : mag;
  return n > MAX_NS || n < -MAX_NS - 1n ? undefined : n;
}

/**
 * Weak int decoding as Vault applies to `options.cas`, `versions` and int fields
 * (reference/secrets.md §2.6, §2.7): integer numbers, integer strings (Go base-0 syntax,
 * `""` → 0), booleans → 1/0, `null` → 0; `undefined` when undecodable.
 */
export function weakInt(v: unknown): bigint | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? BigInt(v) : undefined;
  if (typeof v === 'string') return parseGoInt(v === '' ? '0' : v);
  if (typeof v === 'boolean') return v ? 1n : 0n;
  if (v === null) return 0n;
  return undefined;
}

/**
 * Decodes an integer request field weakly (integer numbers, integer strings, booleans,
 * `null` → 0) — e.g. `version` / `depth` query parameters (reference/secrets.md §2.5,
 * §2.9) or `max_versions` (§2.4, §2.8). Throws {@link InputError} naming `field`
 * on anything else or outside `min..max`.
 */
export function parseIntField(v: unknown, field: string, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): number {
  const n = weakInt(v);
  if (n === undefined) throw fieldError(field, v, 'expected an integer');
  if (n < BigInt(min) || n > BigInt(max)) throw fieldError(field, v, `must be between ${min} and ${max}`);
  return Number(n);
}

/** Weak bool decoding of `cas_required` (reference/secrets.md §2.4, §2.8): Go `strconv.ParseBool` for strings and numbers, `""`/`null` → false. */
export function parseBoolField(v: unknown, field: string): boolean {
  if (typeof v === 'boolean') return v;
  if (v === null || v === '') return false;
  const s = typeof v === 'number' ? String(v) : v;
  const b = typeof s === 'string' ? parseGoBool(s) : undefined;
  if (b !== undefined) return b;
  throw fieldError(field, v, 'expected a boolean');
}

/** True when field `k` is present (own, not `undefined`) in a request body (reference/secrets.md §2.4, §2.8: only supplied fields apply). */
export const hasField = (o: Record<string, unknown>, k: string): boolean => Object.hasOwn(o, k) && o[k] !== undefined;
