/**
 * go-schema.ts: request bodies declared in TypeBox read by the Go-struct decoder: each
 * field's kind, nested structs and their type prefix, refused undeclared kinds.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import { Go, goStructOf } from './go-schema.js';

describe('goStructOf', () => {
  it("reads every field's Go kind and nested structs, once per schema", () => {
    const Sub = Go.struct('Sub', { K: Go.lenientMap() }, { typePrefix: 'structs.' });
    const Body = Go.struct('Body', {
      S: Go.string(),
      B: Go.bool(),
      I: Go.int(),
      L: Go.strings(),
      D: Go.duration(),
      M: Go.map(),
      O: Go.object(),
      A: Go.any(),
      Sub,
    });
    const struct = goStructOf(Body);
    assert.deepEqual(struct, {
      goType: 'Body',
      fields: {
        S: 'string',
        B: 'bool',
        I: 'int',
        L: 'strings',
        D: 'duration',
        M: 'map',
        O: 'object',
        A: 'any',
        Sub: { goType: 'Sub', fields: { K: 'lenient-map' }, typePrefix: 'structs.' },
      },
    });
    assert.equal(goStructOf(Body), struct);
    assert.equal(Body.properties.D.anyOf.length, 2, 'the OpenAPI schema of a duration: a string or nanoseconds');
  });

  it('refuses a body or a field not declared with Go, naming it', () => {
    assert.throws(() => goStructOf(Type.Object({})), /declared with Go\.struct/);
    assert.throws(() => goStructOf(Go.struct('T', { X: Type.String() })), /T\.X: a field of a Go body must be declared with Go\.\*/);
  });
});
