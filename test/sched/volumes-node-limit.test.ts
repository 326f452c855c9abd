/**
 * The node plugin's `MaxVolumes` (NodeGetInfo `max_volumes_per_node`) limits the volumes of
 * that plugin claimed on one node, counting the other volumes of the same allocation too:
 * a plugin without PUBLISH_UNPUBLISH_VOLUME has no publish that would refuse the extra one,
 * so the scheduler's own check is the only one. Placement's feasibility check says so (the
 * evaluation's `FailedTGAllocs`), as the reference's CSI volume checker does.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { allocWith, createVolume, placeWith, refusedWith, report, startCsi, type CsiFixture } from './csi.js';
import { allocsOf, running, until } from './workloads.js';

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
  const full = new RegExp(`^volume "two": node "${'[0-9a-f-]{36}'}" has reached the maximum allowable number of attached volumes \\(1\\)$`);

  it('refuses to place an allocation whose own volumes exceed MaxVolumes on its node, claiming none', async () => {
    await createVolume(f, 'one', 'limited');
    await createVolume(f, 'two', 'limited');
    const refused = await refusedWith(f, { a: { Source: 'one' }, b: { Source: 'two' } });
    assert.equal(refused.length, 1, JSON.stringify(refused));
    assert.match(refused[0]!, full);
    assert.deepEqual([await claimed('one'), await claimed('two')], [0, 0]);
  });

  it('blocks a second allocation on the full node, and places it once the first is released', async () => {
    const first = await allocWith(f, { a: { Source: 'one' } });
    const second = await placeWith(f, { b: { Source: 'two' } }, { keep: true });
    assert.deepEqual(second.allocs, []);
    assert.equal(second.refused.length, 1, JSON.stringify(second.refused));
    assert.match(second.refused[0]!, full);
    assert.notEqual(second.evaluation.BlockedEval, '');
    assert.equal(await claimed('two'), 0);
    await report(f, first.ID, 'complete');
    const placed = await until('the blocked allocation to be placed', async () => running(await allocsOf(f.url, second.jobId))[0]);
    assert.equal(placed.NodeID, f.nodeId);
    assert.deepEqual([await claimed('one'), await claimed('two')], [0, 1]);
  });
});
