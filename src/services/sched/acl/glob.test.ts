// go-glob semantics and the reference's closest-glob rule (acl/acl.go
// findClosestMatchingGlob), including its tie-break.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { closestGlob, globMatch } from './glob.js';

describe('globMatch', () => {
  const cases: [string, string, boolean][] = [
    ['*', 'anything', true],
    ['*', '', true],
    ['', '', true],
    ['', 'a', false],
    ['prod', 'prod', true],
    ['prod', 'prod-1', false],
    ['prod-*', 'prod-api', true],
    ['prod-*', 'prod-', true],
    ['prod-*', 'dev-prod-api', false],
    ['*-api', 'prod-api', true],
    ['*-api', 'prod-api-2', false],
    ['*-api-*', 'prod-api-2', true],
    ['p*d', 'prod', true],
    ['p*d', 'pd', true],
    ['p*d', 'prods', false],
    ['a*b*c', 'axxbyyc', true],
    ['a*b*c', 'acb', false],
    ['**', 'x', true],
  ];
  for (const [pattern, subject, expected] of cases) {
    it(`${JSON.stringify(pattern)} vs ${JSON.stringify(subject)} → ${expected}`, () => assert.equal(globMatch(pattern, subject), expected));
  }
});

describe('closestGlob', () => {
  it('takes the smallest difference (length − pattern length + stars)', () => {
    const globs = new Map([
      ['*', 'all'],
      ['prod-*', 'prod'],
      ['*-api', 'api'],
    ]);
    assert.equal(closestGlob(globs, 'prod-api'), 'prod');
    assert.equal(closestGlob(globs, 'dev-api'), 'api');
    assert.equal(closestGlob(globs, 'dev'), 'all');
  });

  it('breaks ties for the pattern sorting last by bytes, whatever the insertion order', () => {
    // "ab" against "a*" and "*b": both differ by 1; "a*" sorts after "*b".
    assert.equal(
      closestGlob(
        new Map([
          ['a*', 'A'],
          ['*b', 'B'],
        ]),
        'ab',
      ),
      'A',
    );
    assert.equal(
      closestGlob(
        new Map([
          ['*b', 'B'],
          ['a*', 'A'],
        ]),
        'ab',
      ),
      'A',
    );
  });

  it('returns undefined when nothing matches', () => {
    assert.equal(closestGlob(new Map([['prod-*', 1]]), 'dev'), undefined);
  });
});
