// Tests of parseJsonBody (json-body.ts): the nesting limit, brackets inside strings and
// escapes not counted, malformed JSON left to JSON.parse's message.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JSON_TOO_DEEP, MAX_JSON_DEPTH, parseJsonBody } from './json-body.js';

const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);

describe('parseJsonBody', () => {
  it('accepts exactly the limit and refuses one level more, arrays and objects alike', () => {
    assert.deepEqual(parseJsonBody(Buffer.from(nested(MAX_JSON_DEPTH))), JSON.parse(nested(MAX_JSON_DEPTH)));
    assert.throws(() => parseJsonBody(Buffer.from(nested(MAX_JSON_DEPTH + 1))), { name: 'SyntaxError', message: JSON_TOO_DEEP });
    const objects = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
    assert.doesNotThrow(() => parseJsonBody(objects(MAX_JSON_DEPTH)));
    assert.throws(() => parseJsonBody(objects(MAX_JSON_DEPTH + 1)), { message: 'JSON input exceeds allowed nesting depth (128)' });
    assert.throws(() => parseJsonBody(`{"key":${nested(100_000)}}`), { message: JSON_TOO_DEEP });
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const s = `x\\"${'['.repeat(500)}\\\\`;
    assert.deepEqual(parseJsonBody(`{"a":"${s}","b":[1]}`), { a: `x"${'['.repeat(500)}\\`, b: [1] });
  });

  it('leaves malformed JSON to JSON.parse', () => {
    assert.throws(() => parseJsonBody('{"a":'), { name: 'SyntaxError', message: /JSON/ });
    assert.deepEqual(parseJsonBody('123'), 123);
  });
});
