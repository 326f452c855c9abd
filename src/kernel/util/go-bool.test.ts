/** parseGoBool: exactly the twelve spellings of Go's `strconv.ParseBool`. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseGoBool } from './go-bool.js';

describe('parseGoBool', () => {
  it('accepts the spellings of Go and nothing else', () => {
    for (const s of ['1', 't', 'T', 'TRUE', 'true', 'True']) assert.equal(parseGoBool(s), true, s);
    for (const s of ['0', 'f', 'F', 'FALSE', 'false', 'False']) assert.equal(parseGoBool(s), false, s);
    for (const s of ['', 'yes', 'tRUE', ' true', 'toString', '__proto__', 'constructor']) assert.equal(parseGoBool(s), undefined, s);
  });
});
