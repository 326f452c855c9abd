// Go time.Duration on the scheduler's wire (reference/sched.md §1.1, §2.2) and the small
// helpers every write uses: go-multierror text, RFC3339 stamps, content hashes.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatGoDuration, parseGoDuration, wireDuration } from './duration.js';
import { AUTH_METHOD_NOT_FOUND, invalidRequest, multiError, notFoundError } from './errors.js';
import { contentHash, rfc3339 } from './stamp.js';

describe('Go durations', () => {
  it('parses like time.ParseDuration', () => {
    assert.equal(parseGoDuration('1h30m'), 5400e9);
    assert.equal(parseGoDuration('1.5h'), 5400e9);
    assert.equal(parseGoDuration('-2m'), -120e9);
    assert.equal(parseGoDuration('250ms'), 250e6);
    assert.equal(parseGoDuration('0'), 0);
    assert.equal(parseGoDuration(''), 'time: invalid duration ""');
    assert.equal(parseGoDuration('h'), 'time: invalid duration "h"');
    assert.equal(parseGoDuration('5'), 'time: missing unit in duration "5"');
    assert.equal(parseGoDuration('2d'), 'time: unknown unit "d" in duration "2d"');
  });
  it('formats like Duration.String(), and "" for 0 on the auth-method wire', () => {
    assert.equal(formatGoDuration(0), '0s');
    assert.equal(formatGoDuration(60e9), '1m0s');
    assert.equal(formatGoDuration(86400e9), '24h0m0s');
    assert.equal(formatGoDuration(90e9), '1m30s');
    assert.equal(formatGoDuration(1.5e9), '1.5s');
    assert.equal(formatGoDuration(250e6), '250ms');
    assert.equal(formatGoDuration(-1e9), '-1s');
    assert.equal(wireDuration(0), '');
    assert.equal(wireDuration(3600e9), '1h0m0s');
  });
});

describe('errors and stamps', () => {
  it('multiError writes go-multierror text', () => {
    assert.equal(multiError(['a']), '1 error occurred:\n\t* a\n\n');
    assert.equal(multiError(['a', 'b']), '2 errors occurred:\n\t* a\n\t* b\n\n');
  });
  it('validation errors are 400, missing objects 404 with the reference text', () => {
    assert.equal(invalidRequest('x').status, 400);
    const nf = notFoundError(AUTH_METHOD_NOT_FOUND);
    assert.equal(nf.status, 404);
    assert.equal(nf.message, 'ACL auth-method not found');
  });
  it('rfc3339 trims the fraction like Go RFC3339Nano', () => {
    assert.equal(rfc3339(new Date('2026-01-02T03:04:05.000Z')), '2026-01-02T03:04:05Z');
    assert.equal(rfc3339(new Date('2026-01-02T03:04:05.120Z')), '2026-01-02T03:04:05.12Z');
    assert.equal(rfc3339(new Date('2026-01-02T03:04:00.000Z')), '2026-01-02T03:04:00Z');
  });
  it('contentHash is a base64 blake2b-256 that follows the content', () => {
    assert.match(contentHash(['a']), /^[A-Za-z0-9+/]{43}=$/);
    assert.equal(contentHash(['a', 1]), contentHash(['a', 1]));
    assert.notEqual(contentHash(['a', 1]), contentHash(['a', 2]));
  });
});
