// Tests of the permission-denied texts (reference/mesh.md §0.4, §8; acl/errors.go).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ANONYMOUS_TOKEN_ACCESSOR_ID } from './builtin.js';
import { PermissionDeniedError, permissionDenied, permissionDeniedBecause } from './errors.js';

describe('permissionDenied', () => {
  it('names the accessor, the resource:level and the segment', () => {
    const err = permissionDenied('6a1253d2-1785-24fd-91c2-f8e78c745511', 'service', 'write', 'web');
    assert.ok(err instanceof PermissionDeniedError);
    assert.equal(err.message, `Permission denied: token with AccessorID '6a1253d2-1785-24fd-91c2-f8e78c745511' lacks permission 'service:write' on "web"`);
  });

  it('leaves the segment out for global resources', () => {
    assert.equal(permissionDenied('abc', 'acl', 'read').message, `Permission denied: token with AccessorID 'abc' lacks permission 'acl:read'`);
    assert.equal(permissionDenied('abc', 'operator', 'write', '').message, `Permission denied: token with AccessorID 'abc' lacks permission 'operator:write'`);
  });

  it('uses the anonymous wording and hint for the anonymous token', () => {
    assert.equal(
      permissionDenied(ANONYMOUS_TOKEN_ACCESSOR_ID, 'acl', 'read').message,
      "Permission denied: anonymous token lacks permission 'acl:read'. The anonymous token is used implicitly when a request does not specify a token.",
    );
    assert.equal(
      permissionDenied(ANONYMOUS_TOKEN_ACCESSOR_ID, 'node', 'write', 'fenn').message,
      `Permission denied: anonymous token lacks permission 'node:write' on "fenn". The anonymous token is used implicitly when a request does not specify a token.`,
    );
  });

  it('says "provided token" when no accessor is known', () => {
    assert.equal(permissionDenied(undefined, 'key', 'list', 'app/').message, `Permission denied: provided token lacks permission 'key:list' on "app/"`);
  });
});

describe('permissionDeniedBecause', () => {
  it('gives the bare text or the text with a cause', () => {
    assert.equal(permissionDeniedBecause().message, 'Permission denied');
    assert.equal(permissionDeniedBecause('Cannot modify root ACL').message, 'Permission denied: Cannot modify root ACL');
  });
});
