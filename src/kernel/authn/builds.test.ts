/** AuthnBuilds: one build per key and version, shared while pending; a failed build is retried. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AuthnBuilds } from './builds.js';

describe('AuthnBuilds', () => {
  it('shares a build per version, rebuilds on a new version, and forgets a failed build', async () => {
    const builds = new AuthnBuilds<string>();
    let n = 0;
    const ok = () => Promise.resolve(`v${++n}`);
    assert.equal(await builds.get('m', 1, ok), 'v1');
    assert.equal(await builds.get('m', 1, ok), 'v1');
    assert.equal(await builds.get('m', 2, ok), 'v2');
    await assert.rejects(
      builds.get('m', 3, () => Promise.reject(new Error('unreachable'))),
      /unreachable/,
    );
    await new Promise((r) => setImmediate(r));
    assert.equal(await builds.get('m', 3, ok), 'v3');
  });
});
