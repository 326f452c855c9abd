// Unit tests of bound claims (exact and glob, list claims, JSON Pointers) and bound subject.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkBoundClaims, checkBoundSubject, globMatch } from './index.js';

const claims = { sub: 'alice', project: 'infra/deploy', groups: ['dev', 'ops'], n: 42, nested: { env: 'prod' } };

describe('bound claims', () => {
  it('exact values: one or a list; list claims match on any item; numbers compare as text; JSON Pointers', () => {
    checkBoundClaims({ project: 'infra/deploy', groups: ['admins', 'ops'], n: '42', '/nested/env': 'prod' }, claims);
    assert.throws(() => checkBoundClaims({ project: 'infra/*' }, claims), {
      kind: 'claims',
      message: 'claim "project" does not match any associated bound claim values',
    });
    assert.throws(() => checkBoundClaims({ missing: 'x' }, claims), { kind: 'claims', message: 'claim "missing" is missing' });
  });

  it('globs: * matches any run of characters, other characters are literal', () => {
    checkBoundClaims({ project: 'infra/*', groups: 'o*' }, claims, 'glob');
    assert.throws(() => checkBoundClaims({ project: 'apps/*' }, claims, 'glob'), { kind: 'claims' });
    assert.equal(globMatch('a.b*', 'a.bc'), true);
    assert.equal(globMatch('a.b*', 'axbc'), false, '. is literal');
    assert.equal(globMatch('*', ''), true);
    assert.equal(globMatch('v*-rc', 'v1.2-rc'), true);
    assert.equal(globMatch('v*-rc', 'v1.2-rc1'), false, 'anchored');
  });

  it('bound subject: empty accepts any', () => {
    checkBoundSubject('', claims);
    checkBoundSubject('alice', claims);
    assert.throws(() => checkBoundSubject('bob', claims), { kind: 'token', message: 'invalid subject (sub) claim' });
  });
});
