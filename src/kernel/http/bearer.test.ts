/** bearerToken: each rule reads exactly the spellings its reference product reads. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bearerToken, type BearerRule } from './bearer.js';

const read = (authorization: string | undefined, rule: BearerRule) => bearerToken(authorization === undefined ? {} : { authorization }, rule);

describe('bearerToken', () => {
  it('exact-first-word: scheme exactly Bearer, one space, the first word', () => {
    assert.equal(read('Bearer abc def', 'exact-first-word'), 'abc');
    assert.equal(read('bearer abc', 'exact-first-word'), undefined);
    assert.equal(read('Bearer  abc', 'exact-first-word'), undefined);
    assert.equal(read('Bearer ', 'exact-first-word'), undefined);
    assert.equal(read(undefined, 'exact-first-word'), undefined);
  });

  it('any-case-first-word: scheme in any case up to the first space, the first word of the trimmed rest', () => {
    assert.equal(read('bEaReR  abc def', 'any-case-first-word'), 'abc');
    assert.equal(read('Bearer \tabc', 'any-case-first-word'), 'abc');
    assert.equal(read('Bearer    ', 'any-case-first-word'), undefined);
    assert.equal(read('Bearer\tabc', 'any-case-first-word'), undefined);
    assert.equal(read('Basic abc', 'any-case-first-word'), undefined);
  });

  it('exact-rest: the whole rest after `Bearer `, trimmed', () => {
    assert.equal(read('Bearer  abc def ', 'exact-rest'), 'abc def');
    assert.equal(read('bearer abc', 'exact-rest'), undefined);
    assert.equal(read('Bearer   ', 'exact-rest'), undefined);
  });

  it('any-case-one-word: one word and nothing after it', () => {
    assert.equal(read('bearer\t abc  ', 'any-case-one-word'), 'abc');
    assert.equal(read('Bearer abc def', 'any-case-one-word'), undefined);
    assert.equal(read('Bearerabc', 'any-case-one-word'), undefined);
  });
});
