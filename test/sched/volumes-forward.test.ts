/**
 * CSI requests sent to another region with `?region=` (reference/sched.md §1.6): the
 * `X-Sched-CSI-Secrets` header travels with the forwarded request, so the plugin call in the
 * region that owns the volume gets the caller's secrets.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createVolume, startCsi, type CsiFixture } from './csi.js';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';

describe('CSI requests forwarded to another region', () => {
  let f: CsiFixture;
  let eu: TestAgent;
  before(async () => {
    f = await startCsi([{ id: 'hostpath' }]);
    eu = await startAgent({ region: 'europe', authoritativeRegion: 'global', regionAddresses: { global: new URL(f.url).host } }, { root: null });
  });
  after(async () => {
    await eu.stop();
    await f.stop();
  });

  it('passes X-Sched-CSI-Secrets on to the region of ?region= (volume delete, snapshot list)', async () => {
    await createVolume(f, 'fwd', 'hostpath', { over: { Secrets: { stored: 'kept' } } });
    const headers = { 'X-Sched-CSI-Secrets': 'token=from-header' };
    const list = await call(eu.url, 'GET', '/v1/volumes/snapshot?plugin_id=hostpath&per_page=10&region=global', { token: ROOT, headers });
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(f.sent.at(-1), { method: 'listSnapshots', secrets: { token: 'from-header' } });
    const del = await call(eu.url, 'DELETE', '/v1/volume/csi/fwd/delete?region=global', { token: ROOT, headers });
    assert.equal(del.status, 200, del.text);
    assert.deepEqual(f.sent.at(-1), { method: 'deleteVolume', secrets: { stored: 'kept', token: 'from-header' } });
  });
});
