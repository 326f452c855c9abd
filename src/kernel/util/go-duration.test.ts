/** Go's time.Duration text (go-duration.ts): parse like time.ParseDuration, format like Duration.String(). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatGoDuration, goDurationMs, parseGoDuration } from './go-duration.js';

describe('Go durations', () => {
  it('parses like time.ParseDuration, with Go\'s error texts', () => {
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
