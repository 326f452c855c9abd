// Tests of FieldValidator's copy of the input (issue 15 replaced structuredClone by a JSON
// copy): coercion and defaults change the validated data, never the caller's input, and a
// `__proto__` key stays data.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import { FieldValidator } from './validate.js';

const fields = {
  data: Type.Record(Type.String(), Type.Unknown()),
  options: Type.Object({ cas: Type.Optional(Type.Integer()), mode: Type.String({ default: 'x' }) }),
  list: Type.Array(Type.Integer()),
};

describe('FieldValidator', () => {
  it('coerces and fills defaults in its own copy: the input is unchanged', () => {
    const input = JSON.parse('{"data":{"a":{"b":[1,"2"]}},"options":{"cas":"5"},"list":["1",2],"extra":1}') as Record<string, unknown>;
    const before = JSON.stringify(input);
    const { data, ignored } = new FieldValidator(fields, [], 'test').validate(input);
    assert.deepEqual(data, { data: { a: { b: [1, '2'] } }, options: { cas: 5, mode: 'x' }, list: [1, 2] });
    assert.deepEqual(ignored, ['extra']);
    assert.equal(JSON.stringify(input), before);
    assert.notEqual(data.data, input.data, 'nested objects are copies');
  });

  it('keeps a "__proto__" key as data, without touching any prototype', () => {
    const input = JSON.parse('{"data":{"__proto__":{"polluted":true},"k":"v"}}') as Record<string, unknown>;
    const { data } = new FieldValidator(fields, [], 'test').validate(input);
    const copy = data.data as Record<string, unknown>;
    assert.deepEqual(Object.keys(copy), ['__proto__', 'k']);
    assert.equal(Object.getPrototypeOf(copy), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value, { polluted: true });
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});
