/**
 * goJsonView: field reads match keys as Go's `encoding/json` does (any case, the exact key
 * first, else the last case-insensitive one), at every depth and inside arrays, while the
 * listed keys (maps) stay as sent.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { goJsonView } from './go-json.js';

describe('goJsonView', () => {
  it('reads a field whatever the case of its key, at every depth and in arrays', () => {
    const v = goJsonView<Record<string, unknown> & { Node?: string; Service?: { ID: string; Tags: string[] }; Checks?: { CheckID: string }[] }>({
      node: 'n1',
      service: { id: 's1', TAGS: ['a'] },
      checks: [{ checkid: 'c1' }],
    });
    assert.equal(v.Node, 'n1');
    assert.equal(v.Service!.ID, 's1');
    assert.deepEqual(v.Service!.Tags, ['a']);
    assert.equal(v.Checks![0].CheckID, 'c1');
    assert.equal(v.Missing, undefined);
  });

  it('prefers the exact key, else the last key equal ignoring case', () => {
    assert.equal(goJsonView<Record<string, unknown>>({ Name: 'exact', name: 'other' }).Name, 'exact');
    assert.equal(goJsonView<Record<string, unknown>>({ name: 'first', NAME: 'last' }).Name, 'last');
  });

  it('keeps the keys of maps as sent', () => {
    const v = goJsonView<Record<string, unknown> & { Meta?: Record<string, string> }>({ meta: { Env: 'prod', env: 'dev' } });
    assert.deepEqual({ ...v.Meta }, { Env: 'prod', env: 'dev' });
    assert.deepEqual(Object.entries(v.Meta!), [
      ['Env', 'prod'],
      ['env', 'dev'],
    ]);
    assert.equal(JSON.stringify(v), '{"meta":{"Env":"prod","env":"dev"}}');
  });
});
