/**
 * The node plugin's `MaxVolumes` (NodeGetInfo `max_volumes_per_node`) limits the volumes of
 * that plugin claimed on one node, counting the other volumes of the same allocation too:
 * a plugin without PUBLISH_UNPUBLISH_VOLUME has no publish that would refuse the extra one,
 * so the scheduler's own check is the only one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { allocWith, createVolume, startCsi, type CsiFixture } from './csi.js';

describe('scheduler CSI node volume limit', () => {
  let f: CsiFixture;
  before(async () => {
    f = await startCsi([{ id: 'limited', capabilities: ['CREATE_DELETE_VOLUME'], maxVolumesPerNode: 1 }]);
  });
  after(() => f.stop());

  const claimed = async (id: string) => {
    const v = (await f.req('GET', `/v1/volume/csi/${id}`)).json;
    return Object.keys(v.WriteAllocs).length + Object.keys(v.ReadAllocs).length;
  };

  it('refuses an allocation whose own volumes exceed MaxVolumes on its node, claiming none', async () => {
    await createVolume(f, 'one', 'limited');
    await createVolume(f, 'two', 'limited');
    const both = await allocWith(f, { a: { Source: 'one' }, b: { Source: 'two' } });
    assert.equal(both.status, 409, both.text);
    assert.match(both.text, /failed to claim volume "two": node "[0-9a-f-]{36}" has reached the maximum allowable number of attached volumes \(1\)$/);
    assert.deepEqual([await claimed('one'), await claimed('two')], [0, 0]);
  });

  it('refuses a second allocation on the full node, and takes it once the first is released', async () => {
    const first = await allocWith(f, { a: { Source: 'one' } });
    assert.equal(first.status, 200, first.text);
    const second = await allocWith(f, { b: { Source: 'two' } });
    assert.equal(second.status, 409, second.text);
    const stop = await f.req('POST', `/v1/allocation/${first.json.ID}/desired-status`, { body: { DesiredStatus: 'stop' } });
    assert.equal(stop.status, 200, stop.text);
    const again = await allocWith(f, { b: { Source: 'two' } });
    assert.equal(again.status, 200, again.text);
  });
});
