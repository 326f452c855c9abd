// Unit tests of the shared input decoding: Go durations and RFC3339Nano times (reference/secrets.md §2.4–§2.8).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InputError, formatDuration, formatTime, parseDuration, parseTime } from './duration.js';

const NOW = new Date('2024-01-02T03:04:05.123Z');

/** Asserts `fn` throws an InputError whose message satisfies `match`. */
function throwsInput(fn: () => unknown, match: string | RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof InputError, `expected InputError, got ${String(e)}`);
    if (typeof match === 'string') assert.equal(e.message, match);
    else assert.match(e.message, match);
    return true;
  });
}

describe('formatTime / parseTime (§2.5)', () => {
  it('formats RFC3339Nano UTC with trailing fraction zeros trimmed', () => {
    assert.equal(formatTime(NOW), '2024-01-02T03:04:05.123Z');
    assert.equal(formatTime(new Date('2024-01-02T03:04:05.120Z')), '2024-01-02T03:04:05.12Z');
    assert.equal(formatTime(new Date('2024-01-02T03:04:05.100Z')), '2024-01-02T03:04:05.1Z');
    assert.equal(formatTime(new Date('2024-01-02T03:04:05.000Z')), '2024-01-02T03:04:05Z');
  });
  it('parses nanosecond fractions and offsets', () => {
    assert.equal(parseTime('2024-01-02T03:04:05.123456789Z'), NOW.getTime());
    assert.equal(parseTime(formatTime(NOW)), NOW.getTime());
    assert.equal(parseTime('2024-01-02T04:04:05.123+01:00'), NOW.getTime());
    assert.ok(Number.isNaN(parseTime('')));
    assert.ok(Number.isNaN(parseTime('yesterday')));
  });
});

describe('parseDuration / formatDuration (§2.4, §2.8)', () => {
  it('accepts integers, integer strings, day suffix and Go durations', () => {
    const cases: [unknown, number][] = [
      [10, 10],
      [0, 0],
      [-1, -1],
      ['10', 10],
      ['-1', -1],
      ['', 0],
      ['0', 0],
      ['10s', 10],
      ['-1s', -1],
      ['1h30m', 5400],
      ['1.5h', 5400],
      ['90m', 5400],
      ['1500ms', 1],
      ['-1500ms', -1],
      ['1h0m0s', 3600],
      ['+5s', 5],
      ['2d', 172800],
      ['.5m', 30],
      ['1µs', 0],
      ['1μs', 0],
      ['1us', 0],
      ['999999999ns', 0],
      ['9480h0m0s', 34128000],
      ['1m30s', 90],
    ];
    for (const [input, want] of cases) assert.equal(parseDuration(input, 'f'), want, `input ${String(input)}`);
  });
  it('rejects junk with a InputError naming the field', () => {
    for (const bad of ['abc', '1.5', 1.5, true, null, {}, [], '1x', 'h', '.s', '-', '1h-5m', 'x1d', '9999999999999999999s', 1e12]) {
      throwsInput(() => parseDuration(bad, 'delete_version_after'), /field "delete_version_after"/);
    }
    throwsInput(() => parseDuration('1q', 'x'), 'error converting input 1q for field "x": time: unknown unit "q" in duration "1q"');
    throwsInput(() => parseDuration('1.5', 'x'), 'error converting input 1.5 for field "x": time: missing unit in duration "1.5"');
  });
  it("formats like Go's Duration.String()", () => {
    const cases: [number, string][] = [
      [0, '0s'],
      [1, '1s'],
      [59, '59s'],
      [60, '1m0s'],
      [90, '1m30s'],
      [3600, '1h0m0s'],
      [3661, '1h1m1s'],
      [34128000, '9480h0m0s'],
      [-1, '-1s'],
      [-5400, '-1h30m0s'],
      [1.5, '1.5s'],
      [0.25, '250ms'],
      [0.0000015, '1.5µs'],
      [0.000000001, '1ns'],
    ];
    for (const [s, want] of cases) assert.equal(formatDuration(s), want, `seconds ${s}`);
  });
  it('round-trips', () => {
    for (const s of [0, 1, 59, 60, 61, 3599, 3600, 5400, 86400, 34128000, -1, -3600, 9223372036]) {
      assert.equal(parseDuration(formatDuration(s), 'f'), s);
    }
  });
});
