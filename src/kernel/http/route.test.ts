/**
 * Route patterns (route.ts): captures, the period rule of spec 000 "Limits", custom verbs
 * after a colon, and their OpenAPI form.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openapiPattern } from './openapi.js';
import { compilePath, RouteTable, type PathSpec } from './route.js';

const spec = (pattern: string): PathSpec<unknown, unknown> => ({ pattern, synopsis: pattern, operations: {} });

describe('route patterns', () => {
  it('matches literals, one-segment and multi-segment captures; never a capture ending in "."', () => {
    const t = new RouteTable([spec('data/:path+'), spec('mounts/:path+/tune'), spec('mounts/:name'), spec('config')]);
    assert.deepEqual(t.match('data/a/b')?.params, { path: 'a/b' });
    assert.deepEqual(t.match('mounts/a/b/tune')?.params, { path: 'a/b' });
    assert.deepEqual(t.match('mounts/kv')?.params, { name: 'kv' });
    assert.equal(t.match('mounts/kv/x'), undefined);
    assert.equal(t.match('data/a.'), undefined);
    assert.equal(t.match('config')?.path.spec.pattern, 'config');
  });

  it('custom verbs: a literal segment and a capture may end in ":verb"; the first declaration wins', () => {
    const t = new RouteTable([spec('targets:authorize-session'), spec('sessions/:id:cancel'), spec('sessions/:id')]);
    assert.equal(t.match('targets:authorize-session')?.path.spec.pattern, 'targets:authorize-session');
    assert.equal(t.match('targets:other'), undefined);
    assert.deepEqual(t.match('sessions/s_1:cancel')?.params, { id: 's_1' });
    assert.equal(t.match('sessions/s_1:cancel')?.path.spec.pattern, 'sessions/:id:cancel');
    assert.deepEqual(t.match('sessions/s_1')?.params, { id: 's_1' });
    assert.equal(t.match('sessions/:cancel')?.path.spec.pattern, 'sessions/:id', 'no empty capture before a verb');
  });

  it('rejects malformed patterns at startup, naming them', () => {
    assert.throws(() => compilePath(spec('a/:rest*/b')), /route pattern "a\/:rest\*\/b": ":rest\*" must be last/);
    assert.throws(() => compilePath(spec('a/b c')), /bad segment "b c"/);
    assert.throws(() => compilePath(spec('a/:id:Cancel')), /bad segment ":id:Cancel"/);
  });

  it('OpenAPI paths: captures become {name}, verbs stay', () => {
    assert.equal(openapiPattern('data/:path+'), 'data/{path}');
    assert.equal(openapiPattern('sessions/:id:cancel'), 'sessions/{id}:cancel');
    assert.equal(openapiPattern(':name*'), '{name}');
    assert.equal(openapiPattern('targets:authorize-session'), 'targets:authorize-session');
  });
});
