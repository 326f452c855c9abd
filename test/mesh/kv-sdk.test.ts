/**
 * `MeshClient.kv` against a real discovery agent on loopback: put/get with bytes and flags,
 * a missing key as `undefined` with its index, check-and-set, list and keys with the
 * ACL-filtered flag, a blocking get woken by a put, and deletes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { kvValue, MeshApiError, type MeshClient } from '../../src/sdk/index.js';
import { call, startSdkAgent, type SdkAgent } from './helpers.js';

describe('MeshClient.kv', () => {
  let s: SdkAgent;
  let mesh: MeshClient;

  before(async () => {
    s = await startSdkAgent();
    mesh = s.client((await call(s.agent.url, 'PUT', '/v1/acl/bootstrap')).json.SecretID);
  });
  after(() => s?.stop());

  it('put bytes with flags, get them back; a missing key is undefined with an index', async () => {
    const bytes = Buffer.from([0, 1, 2, 255]);
    assert.equal(await mesh.kv.put('sdk/bin', bytes, { flags: 3 }), true);
    const { entry, index } = await mesh.kv.get('sdk/bin');
    assert.ok(entry);
    assert.deepEqual(kvValue(entry), bytes);
    assert.equal(entry.Flags, 3);
    assert.equal(index, entry.ModifyIndex);
    const missing = await mesh.kv.get('sdk/none');
    assert.equal(missing.entry, undefined);
    assert.ok(missing.index >= 1);
    assert.equal(await mesh.kv.put('sdk/spaced key/ü', 'v'), true, 'keys are escaped per segment');
    assert.equal(kvValue((await mesh.kv.get('sdk/spaced key/ü')).entry!).toString(), 'v');
  });

  it('check-and-set and delete with cas', async () => {
    assert.equal(await mesh.kv.put('sdk/cas', 'a', { cas: 0 }), true);
    assert.equal(await mesh.kv.put('sdk/cas', 'b', { cas: 0 }), false);
    const { entry } = await mesh.kv.get('sdk/cas');
    assert.equal(await mesh.kv.delete('sdk/cas', { cas: entry!.ModifyIndex + 1 }), false);
    assert.equal(await mesh.kv.delete('sdk/cas', { cas: entry!.ModifyIndex }), true);
    assert.equal((await mesh.kv.get('sdk/cas')).entry, undefined);
  });

  it('list and keys, filtered by ACLs for a narrower token; refused writes reject with 403', async () => {
    for (const k of ['sdk/t/a', 'sdk/t/b/c', 'sdk/u/d']) await mesh.kv.put(k, k);
    assert.deepEqual((await mesh.kv.keys('sdk/', { separator: '/' })).items, ['sdk/bin', 'sdk/spaced key/', 'sdk/t/', 'sdk/u/']);
    const p = await mesh.policies.create({ Name: 'sdk-kv', Rules: 'key_prefix "sdk/t/" { policy = "read" }' });
    const narrow = s.client((await mesh.tokens.create({ Policies: [{ ID: p.ID }] })).SecretID);
    const listed = await narrow.kv.list('sdk/');
    assert.deepEqual(
      listed.items.map((e) => e.Key),
      ['sdk/t/a', 'sdk/t/b/c'],
    );
    assert.equal(listed.filtered, true);
    assert.equal((await mesh.kv.list('sdk/t/')).filtered, false);
    assert.deepEqual((await narrow.kv.list('nothing/')).items, []);
    const err = await narrow.kv.put('sdk/t/a', 'x').catch((e: unknown) => e);
    assert.ok(err instanceof MeshApiError);
    assert.equal(err.status, 403);
  });

  it('a blocking get returns when the key changes', async () => {
    await mesh.kv.put('sdk/watch', 'one');
    const { index } = await mesh.kv.get('sdk/watch');
    const blocked = mesh.kv.get('sdk/watch', { index, wait: '10s' });
    await new Promise((r) => setTimeout(r, 100));
    await mesh.kv.put('sdk/watch', 'two');
    const { entry, index: next } = await blocked;
    assert.equal(kvValue(entry!).toString(), 'two');
    assert.ok(next > index);
  });

  it('delete recurse', async () => {
    assert.equal(await mesh.kv.delete('sdk/', { recurse: true }), true);
    assert.deepEqual((await mesh.kv.list('sdk/')).items, []);
  });
});
