/**
 * decodeGoStruct: Go's `encoding/json` struct decoding with the decoder's error texts, as
 * the scheduler's request layer (no prefix) and its ACL objects (`structs.`) word them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeGoStruct, goField, type GoMismatch, type GoStruct } from './go-struct.js';

const error = (message: string) => new Error(message);
const decode = (body: unknown, schema: GoStruct, typePrefix = '') => decodeGoStruct(body, schema, { typePrefix, error });
const failsWith = (f: () => unknown, message: string) => assert.throws(f, (e: Error) => e.message === message);

describe('decodeGoStruct', () => {
  it('matches names in any case, the exact name first, a later key winning; zero values when absent or null', () => {
    const schema: GoStruct = { goType: 'T', fields: { Name: 'string', On: 'bool', N: 'int', D: 'duration', M: 'map', L: 'strings' } };
    assert.deepEqual(decode({ name: 'a', NAME: 'b', on: null, x: 1 }, schema), { Name: 'b', On: false, N: 0, D: 0, M: null, L: null });
    assert.deepEqual(decode({ Name: 'a', D: '1s', L: ['x', null] }, schema), { Name: 'a', On: false, N: 0, D: 1e9, M: null, L: ['x', ''] });
  });

  it('words errors with the type prefix for values and nested structs, the bare name for field paths', () => {
    const schema: GoStruct = { goType: 'ACLToken', fields: { Name: 'string', Sub: { goType: 'Sub', fields: { K: 'lenient-map' } } } };
    failsWith(() => decode([], schema, 'structs.'), 'json: cannot unmarshal array into Go value of type structs.ACLToken');
    failsWith(() => decode({ Name: 1 }, schema, 'structs.'), 'json: cannot unmarshal number into Go struct field ACLToken.Name of type string');
    failsWith(() => decode({ Sub: 'x' }, schema, 'structs.'), 'json: cannot unmarshal string into Go struct field ACLToken.Sub of type structs.Sub');
    failsWith(() => decode({ Sub: { K: { a: 1 } } }, schema, 'structs.'), 'json: cannot unmarshal number into Go struct field ACLToken.Sub.K of type string');
    assert.deepEqual(decode({ Sub: { K: { a: null } } }, schema, 'structs.').Sub, { K: { a: '' } });
  });

  it('map refuses a null value and names its key; int refuses a number out of range', () => {
    const schema: GoStruct = { goType: 'structs.Node', fields: { Meta: 'map', N: 'int' } };
    failsWith(() => decode({ Meta: { a: null } }, schema), 'json: cannot unmarshal null into Go struct field structs.Node.Meta.a of type string');
    failsWith(() => decode({ N: 2 ** 60 }, schema), `json: cannot unmarshal number ${2 ** 60} into Go struct field structs.Node.N of type int64`);
  });
});

describe('goField', () => {
  it('finds the last key equal ignoring case whose value is not null', () => {
    assert.equal(goField({ id: 'a', ID: 'b', Id: null }, 'Id'), 'b');
    assert.equal(goField('x', 'Id'), undefined);
  });
});

describe('decodeGoStruct options', () => {
  const schema: GoStruct = { goType: 'T', fields: { Name: 'string', L: 'strings', M: 'map' } };
  const describeIt = (m: GoMismatch) => `${m.path.join('.')} wants ${String(m.want)}${m.element ? ' elements' : ''}, got ${JSON.stringify(m.got)}`;

  it('exactNames ignores other cases; keepAbsent leaves absent and null fields out', () => {
    const o = { typePrefix: '', error, exactNames: true, keepAbsent: true };
    assert.deepEqual(decodeGoStruct({ name: 'x', Name: 'y', L: null }, schema, o), { Name: 'y' });
  });

  it('exactKeyFirst reads each field in declaration order from its exact key (even null), else the last key equal ignoring case', () => {
    const o = { typePrefix: '', error, exactKeyFirst: true, keepAbsent: true };
    assert.deepEqual(decodeGoStruct({ Name: 'exact', name: 'later' }, schema, o), { Name: 'exact' });
    assert.deepEqual(decodeGoStruct({ name: 'a', NAME: 'b' }, schema, o), { Name: 'b' });
    assert.deepEqual(decodeGoStruct({ Name: null, name: 'x' }, schema, o), {});
    failsWith(() => decodeGoStruct({ l: 1, name: 2 }, schema, o), 'json: cannot unmarshal number into Go struct field T.Name of type string');
  });

  it('describe words a mismatch from its field path, the declared kind and the value, element or not', () => {
    const o = { typePrefix: '', error, describe: describeIt };
    failsWith(() => decodeGoStruct({ Name: 1 }, schema, o), 'Name wants string, got 1');
    failsWith(() => decodeGoStruct({ L: ['a', 2] }, schema, o), 'L wants strings elements, got 2');
    failsWith(() => decodeGoStruct({ M: { k: true } }, schema, o), 'M wants map elements, got true');
  });

  it("a struct's own typePrefix names its package in a whole-value error", () => {
    failsWith(
      () => decodeGoStruct(1, { ...schema, typePrefix: 'structs.' }, { typePrefix: '', error }),
      'json: cannot unmarshal number into Go value of type structs.T',
    );
  });
});
