// Tests of the position index: lines of values in parsed HCL1 and JSON documents, by
// the paths the validator walks.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lineAt, scanPositions } from './positions.js';

describe('lineAt (HCL)', () => {
  const text = [
    'a "x" "y" {', //        1
    '  k = 1', //            2
    '}', //                  3
    'm = { k = "v" }', //    4
    'm = {', //              5
    '  j = "w"', //          6
    '}', //                  7
    'l = [', //              8
    '  { a = 1 },', //       9
    '  { b = 2 },', //       10
    ']', //                  11
    's = 1', //              12
    's = 2', //              13
    'list = ["a",', //       14
    '  "b"]', //             15
  ].join('\n');
  const pos = scanPositions(text, 'hcl');
  const at = (...path: Array<string | number>) => lineAt(pos, path, 'hcl');

  it('walks several labels of one block', () => {
    assert.equal(at('a', 0, 'x', 0, 'y', 0, 'k'), 2);
    assert.equal(at('a', 0, 'x', 0, 'y', 0), 1);
  });

  it('maps the i-th element of an object attribute to its i-th occurrence', () => {
    assert.equal(at('m', 0, 'k'), 4);
    assert.equal(at('m', 1, 'j'), 6);
  });

  it('indexes lists of objects and list items', () => {
    assert.equal(at('l', 1, 'b'), 10);
    assert.equal(at('list', 1), 15);
  });

  it('gives a repeated attribute the line of its last occurrence (HCL1 keeps the last value)', () => {
    assert.equal(at('s'), 13);
  });

  it('falls back to the deepest matched line, or 1', () => {
    assert.equal(at('m', 0, 'nope'), 4);
    assert.equal(at('nope'), 1);
  });
});

describe('lineAt (JSON)', () => {
  it('mirrors the document', () => {
    const text = '{\n  "listener": [\n    {"tcp": {"a": 1}},\n    {"tcp": {\n      "b": 2\n    }}\n  ],\n  "s": "x"\n}';
    const pos = scanPositions(text, 'json');
    assert.equal(lineAt(pos, ['listener', 1, 'tcp', 'b'], 'json'), 5);
    assert.equal(lineAt(pos, ['listener', 0, 'tcp', 'a'], 'json'), 3);
    assert.equal(lineAt(pos, ['s'], 'json'), 8);
  });
});
