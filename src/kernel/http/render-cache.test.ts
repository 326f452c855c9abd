// Tests of RenderCache (render-cache.ts): a document is rendered and serialised once per
// stamp; another stamp or another document object renders again; json is the body's JSON.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RenderCache } from './render-cache.js';

describe('RenderCache', () => {
  it('renders a document once per stamp, again for a new stamp or a new object', () => {
    const cache = new RenderCache<{ name: string }>();
    let renders = 0;
    const render = (d: { name: string }) => ({ Name: d.name, n: ++renders });
    const doc = { name: 'a' };
    const first = cache.get(doc, 's1', render);
    assert.deepEqual(first, { body: { Name: 'a', n: 1 }, json: '{"Name":"a","n":1}' });
    assert.equal(cache.get(doc, 's1', render), first, 'same document, same stamp: kept');
    assert.equal(cache.get(doc, 's2', render).json, '{"Name":"a","n":2}', 'another stamp renders again');
    // A write stores a new object (kernel/store/state.ts): it is rendered on its own.
    const written = { name: 'b' };
    assert.equal(cache.get(written, 's2', render).json, '{"Name":"b","n":3}');
    assert.equal(cache.get(doc, 's2', render).json, '{"Name":"a","n":2}', 'the first document keeps its rendering');
  });
});
