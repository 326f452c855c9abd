/** Claims → identity (reference/mesh.md §3.5, §4.4). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { identityFromClaims } from './index.js';

describe('identityFromClaims', () => {
  const claims = {
    sub: 'Alice',
    admin: true,
    age: 42.9,
    groups: ['admins', '', 'dev'],
    team: 'core',
    'https://corp/groups': ['x'],
    nested: { 'a/b': { list: ['p', 'q'] }, '~t': 'tilde' },
    obj: { k: 1 },
    nothing: null,
  };

  it('stringifies mapped values and pre-populates projected vars with ""', () => {
    const id = identityFromClaims(claims, { sub: 'name', admin: 'admin', age: 'age', missing: 'gone' }, {});
    assert.deepEqual(id.selectable, { value: { name: 'Alice', admin: 'true', age: '42' }, list: {} });
    assert.deepEqual(id.projected, { 'value.name': 'Alice', 'value.admin': 'true', 'value.age': '42', 'value.gone': '' });
  });

  it('lists: drop empty strings, accept a scalar, are selectable but never projected', () => {
    const id = identityFromClaims(claims, {}, { groups: 'groups', team: 'teams', nothing: 'none' });
    assert.deepEqual(id.selectable, { value: {}, list: { groups: ['admins', 'dev'], teams: ['core'] } });
    assert.deepEqual(id.projected, {});
  });

  it('JSON Pointer keys, with ~1 and ~0 escapes and array indexes', () => {
    const id = identityFromClaims(claims, { '/nested/~0t': 'tilde', '/nested/a~1b/list/1': 'second' }, { '/https:~1~1corp~1groups': 'corp' });
    assert.deepEqual(id.selectable, { value: { tilde: 'tilde', second: 'q' }, list: { corp: ['x'] } });
    // a pointer that ends nowhere is an absent claim, not an error
    assert.deepEqual(identityFromClaims(claims, { '/nested/zzz/0': 'z' }).projected, { 'value.z': '' });
  });

  it('refuses values it cannot stringify, with the reference texts', () => {
    assert.throws(() => identityFromClaims(claims, { obj: 'o' }), {
      kind: 'claims',
      message: `error converting claim 'obj' to string from unknown type map[string]interface {}`,
    });
    assert.throws(() => identityFromClaims(claims, { groups: 'g' }), { message: `error converting claim 'groups' to string from unknown type []interface {}` });
    assert.throws(() => identityFromClaims(claims, {}, { obj: 'o' }), { message: '"obj" list claim could not be converted to string list' });
    assert.throws(() => identityFromClaims({ l: [['x']] }, {}, { l: 'l' }), {
      message: `error converting claim 'l' to string from unknown type []interface {}`,
    });
  });
});
