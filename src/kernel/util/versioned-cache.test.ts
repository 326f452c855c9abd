/** VersionedCache: reuse while the version holds, rebuild when it changes, bounded by recency. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VersionedCache } from './versioned-cache.js';

describe('VersionedCache', () => {
  it('builds once per version and drops the least recently used key when full', () => {
    const cache = new VersionedCache<string>(2);
    let builds = 0;
    const get = (key: string, version: number) => cache.get(key, version, () => `${key}@${version}#${++builds}`);
    assert.equal(get('a', 1), 'a@1#1');
    assert.equal(get('a', 1), 'a@1#1');
    assert.equal(get('a', 2), 'a@2#2');
    get('b', 1);
    get('a', 2); // a is now the most recent
    get('c', 1); // b goes
    assert.equal(get('a', 2), 'a@2#2');
    assert.equal(get('b', 1), 'b@1#5');
  });

  it('forgets a key only while it still holds the given value', () => {
    const cache = new VersionedCache<string>(4);
    const old = cache.get('k', 1, () => 'old');
    cache.get('k', 2, () => 'new');
    cache.forget('k', old);
    assert.equal(
      cache.get('k', 2, () => 'rebuilt'),
      'new',
    );
    cache.forget('k', 'new');
    assert.equal(
      cache.get('k', 2, () => 'rebuilt'),
      'rebuilt',
    );
  });
});
