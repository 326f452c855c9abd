// The env template lines as the reference's parser (hashicorp/go-envparse) reads them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseEnvFile } from './env-file.js';

describe('parseEnvFile', () => {
  it('reads comments, export, spaces, quotes and JSON escapes', () => {
    const text = [
      '# a comment',
      '',
      'export A=1',
      'B = two words   # trailing comment',
      "C='single # kept \\n'",
      'D="tab\\there \\"q\\" \\u00e9"',
      `E=mixed 'part' "and\\npart"`,
      'F=',
      'A=later wins\r',
    ].join('\n');
    assert.deepEqual(parseEnvFile(text), {
      A: 'later wins',
      B: 'two words',
      C: 'single # kept \\n',
      D: 'tab\there "q" é',
      E: 'mixed part and\npart',
      F: '',
    });
  });

  for (const [text, error] of [
    ['NOEQUALS', 'line 1: expected KEY=value'],
    ['1BAD=x', 'line 1: invalid key "1BAD"'],
    ['A="open', 'line 1: missing closing double quote'],
    ["A='open", 'line 1: missing closing single quote'],
    ['\nA="\\q"', 'line 2: invalid escape "\\q"'],
    ['A="\\u12"', 'line 1: invalid unicode escape "\\u12""'],
  ] as const) {
    it(`refuses ${JSON.stringify(text)}: ${error}`, () => assert.throws(() => parseEnvFile(text), { message: error }));
  }

  it('is bounded', () => {
    assert.throws(() => parseEnvFile('A=' + 'x'.repeat(1024 * 1024)), /larger than/);
    assert.throws(() => parseEnvFile(Array.from({ length: 1025 }, (_, i) => `K${i}=v`).join('\n')), /more than 1024 variables/);
  });
});
