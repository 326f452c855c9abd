/** isObject: a JSON object, not null and not an array. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isObject } from './is-object.js';

describe('isObject', () => {
  it('is true for objects only, not null or arrays', () => {
    assert.equal(isObject({}), true);
    assert.equal(isObject(null), false);
    assert.equal(isObject([]), false);
    assert.equal(isObject('x'), false);
  });
});
