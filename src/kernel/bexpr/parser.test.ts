// The committed parser must be what the grammar compiles to (regenerated in memory).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { generateBexprParser, grammarPath, parserPath } from '../../../scripts/gen-bexpr.mjs';

test('parser.generated.ts is up to date with grammar.peggy (run `npm run gen:bexpr`)', () => {
  const expected = generateBexprParser(readFileSync(grammarPath, 'utf8'));
  assert.ok(readFileSync(parserPath, 'utf8') === expected, 'parser.generated.ts is stale: run `npm run gen:bexpr`');
});
