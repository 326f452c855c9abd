// Durations on the scheduler's auth-method wire (reference/sched.md §2.2) and the small
// helpers every write uses: go-multierror text, content hashes.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { wireDuration } from './duration.js';
import { AUTH_METHOD_NOT_FOUND, invalidRequest, multiError, notFoundError } from './errors.js';
import { contentHash } from './stamp.js';

describe('auth-method durations', () => {
  it('are "" for 0 on the wire, else Duration.String()', () => {
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
  it('contentHash is a base64 blake2b-256 that follows the content', () => {
    assert.match(contentHash(['a']), /^[A-Za-z0-9+/]{43}=$/);
    assert.equal(contentHash(['a', 1]), contentHash(['a', 1]));
    assert.notEqual(contentHash(['a', 1]), contentHash(['a', 2]));
  });
});
