/** Go's time.Duration text (go-duration.ts): parse like time.ParseDuration, format like Duration.String(). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatGoDuration, goDurationMs, jsonGoDurationNs, MAX_GO_DURATION_NS, parseGoDuration } from './go-duration.js';

describe('Go durations', () => {
  it("parses like time.ParseDuration, with Go's error texts", () => {
    assert.equal(parseGoDuration('1h30m'), 5400e9);
    assert.equal(parseGoDuration('1.5h'), 5400e9);
    assert.equal(parseGoDuration('-2m'), -120e9);
    assert.equal(parseGoDuration('250ms'), 250e6);
    assert.equal(parseGoDuration('0'), 0);
    assert.equal(parseGoDuration(''), 'time: invalid duration ""');
    assert.equal(parseGoDuration('h'), 'time: invalid duration "h"');
    assert.equal(parseGoDuration('5'), 'time: missing unit in duration "5"');
    assert.equal(parseGoDuration('2d'), 'time: unknown unit "d" in duration "2d"');
    assert.equal(goDurationMs('1m30s'), 90_000);
    assert.equal(goDurationMs('10'), undefined, 'a bare number is no Go duration');
  });

  it('formats like Duration.String(), exactly past 2^53 ns with a bigint', () => {
    assert.equal(formatGoDuration(0), '0s');
    assert.equal(formatGoDuration(60e9), '1m0s');
    assert.equal(formatGoDuration(86400e9), '24h0m0s');
    assert.equal(formatGoDuration(90e9), '1m30s');
    assert.equal(formatGoDuration(1.5e9), '1.5s');
    assert.equal(formatGoDuration(250e6), '250ms');
    assert.equal(formatGoDuration(1500), '1.5µs');
    assert.equal(formatGoDuration(-1e9), '-1s');
    assert.equal(formatGoDuration(34_128_000n * 1_000_000_000n), '9480h0m0s');
  });
});

describe('durations past int64 nanoseconds (issue 14 item 2)', () => {
  it('parseGoDuration refuses them with Go’s text', () => {
    assert.equal(parseGoDuration('2562047h'), 2562047 * 3600e9);
    assert.equal(parseGoDuration('2562048h'), 'time: invalid duration "2562048h"');
    assert.equal(parseGoDuration('1e308h'), 'time: unknown unit "e" in duration "1e308h"');
    assert.equal(parseGoDuration(`${'9'.repeat(400)}s`), `time: invalid duration "${'9'.repeat(400)}s"`);
  });

  it('jsonGoDurationNs takes strings and numbers of nanoseconds, refusing numbers out of range', () => {
    assert.equal(jsonGoDurationNs('90s'), 90e9);
    assert.equal(jsonGoDurationNs(1.9e9), 1.9e9);
    assert.equal(jsonGoDurationNs(1.5), 1);
    assert.equal(jsonGoDurationNs(-MAX_GO_DURATION_NS), -MAX_GO_DURATION_NS);
    assert.equal(jsonGoDurationNs(1e308), 'number 1e+308 is out of range for a duration');
    assert.equal(jsonGoDurationNs(JSON.parse('1e400') as number), 'number Infinity is out of range for a duration');
    assert.equal(jsonGoDurationNs(-1e19), 'number -10000000000000000000 is out of range for a duration');
  });
});
