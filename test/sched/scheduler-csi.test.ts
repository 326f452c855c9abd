/**
 * CSI volumes in placement: a group's CSI volume is claimable only on a node where the
 * volume's plugin runs healthy, within its access mode's claims; the scheduler's allocation
 * takes the claim in its write, a stop releases it, and a job blocked on the claim is placed
 * once it is free. Real hostpath plugin (csi.ts fixture).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Evaluation } from '../../src/services/sched/jobs/types.js';
import { T } from '../../src/services/sched/state.js';
import { ROOT } from './helpers.js';
import { createVolume, startCsi, type CsiFixture } from './csi.js';
import { allocsOf, group, job, putJob, running, settled, simNode, until } from './workloads.js';

const volume = {
  data: {
    Name: 'data',
    Type: 'csi',
    Source: 'data',
    ReadOnly: false,
    AccessMode: 'single-node-writer',
    AttachmentMode: 'file-system',
    MountOptions: null,
    PerAlloc: false,
  },
};

describe('scheduler: CSI volumes', () => {
  let f: CsiFixture;
  before(async () => {
    f = await startCsi([{ id: 'hp', capabilities: ['CREATE_DELETE_VOLUME'] }]);
    // The fixture's node, now ready with resources; a smaller node bin-packing would prefer has no plugin.
    const r = await f.req('PUT', '/v1/node/register', {
      body: {
        Node: {
          ID: f.nodeId,
          SecretID: 'node-secret',
          Datacenter: 'dc1',
          Name: 'csi-node',
          Status: 'ready',
          Attributes: { 'os.name': 'linux', 'driver.raw_exec': '1' },
          NodeResources: { Cpu: { CpuShares: 8000 }, Memory: { MemoryMB: 16384 } },
        },
      },
    });
    assert.equal(r.status, 200, r.text);
    await f.agent.plugins.probeNow();
    await simNode(f.url, 'no-plugin', { cpu: 1000, memory: 1024 });
    await createVolume(f, 'data', 'hp');
  });
  after(() => f.stop());

  it('places on the node with the plugin, claims the volume, blocks a second writer and places it once the claim is released', async () => {
    const first = job('writer', [group('g', 1, { cpu: 100, memory: 100, over: { Volumes: volume as never } })]);
    const e1 = await settled(f.agent, await putJob(f.agent, first));
    assert.equal(e1.FailedTGAllocs, null, JSON.stringify(e1.FailedTGAllocs));
    const [a1] = await allocsOf(f.url, 'writer');
    assert.equal(a1!.NodeID, f.nodeId);
    const vol = (await f.req('GET', '/v1/volume/csi/data')).json;
    assert.deepEqual(Object.keys(vol.WriteAllocs), [a1!.ID]);

    const e2 = await settled(f.agent, await putJob(f.agent, job('second', [group('g', 1, { cpu: 100, memory: 100, over: { Volumes: volume as never } })])));
    const failed = e2.FailedTGAllocs?.g;
    assert.ok(failed, 'the second writer cannot claim');
    assert.equal(failed.NodesFiltered, 2);
    assert.deepEqual(
      Object.values(failed.ConstraintFiltered ?? {}).reduce((s, n) => s + n, 0),
      2,
    );
    assert.ok(
      Object.keys(failed.ConstraintFiltered ?? {}).some((k) => k.includes('volume max claims reached')),
      JSON.stringify(failed.ConstraintFiltered),
    );
    assert.equal(f.agent.state.get<Evaluation>(T.evals, e2.BlockedEval)?.Status, 'blocked');

    await settled(f.agent, await putJob(f.agent, { ...first, Stop: true }));
    const placed = await until('the blocked writer to be placed', async () => {
      const all = running(await allocsOf(f.url, 'second'));
      return all.length === 1 ? all : undefined;
    });
    assert.equal(placed[0]!.NodeID, f.nodeId);
    const after = (await f.req('GET', '/v1/volume/csi/data', { token: ROOT })).json;
    assert.deepEqual(Object.keys(after.WriteAllocs), [placed[0]!.ID]);
  });
});
