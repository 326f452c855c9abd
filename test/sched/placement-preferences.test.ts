/**
 * Placement preferences (issue 29 item 5; the reference's `spread` and `affinity` blocks)
 * through the jobs API and the scheduler on simulated nodes (two in dc1, one in dc2): an
 * even `spread` over the datacenter puts a group half and half over the datacenters (job
 * anti-affinity alone spreads it over the nodes, two thirds in dc1);
 * a spread with targets follows the percentages; an `affinity` prefers the matching node
 * and a negative one keeps the group off it; each allocation's `Metrics.ScoreMetaData`
 * shows the scores by the reference's names; bad preferences are refused with its texts; the
 * HCL blocks.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';
import { minimalJob } from './jobs-helpers.js';
import { settled, simNode } from './workloads.js';

describe('placement preferences: spread and affinity', () => {
  let a: TestAgent;
  const nodes: Record<string, string> = {};
  const req = (method: string, path: string, body?: unknown) => call(a.url, method, path, { token: ROOT, body });
  /** Registers `job`, waits for its evaluation, and counts its allocations per node name. */
  const place = async (job: Record<string, unknown>) => {
    const r = await req('POST', '/v1/jobs', { Job: job });
    assert.equal(r.status, 200, r.text);
    await settled(a, r.json.EvalID);
    const allocs = (await req('GET', `/v1/job/${String(job.ID)}/allocations`)).json as { ID: string; Name: string; NodeName: string }[];
    const perNode: Record<string, number> = {};
    for (const al of allocs) perNode[al.NodeName] = (perNode[al.NodeName] ?? 0) + 1;
    return { perNode, allocs };
  };
  const group = (count: number, over: Record<string, unknown> = {}) => [
    { Name: 'app', Count: count, Tasks: [{ Name: 't', Driver: 'raw_exec', Config: { command: '/bin/true' }, Resources: { CPU: 10, MemoryMB: 10 } }], ...over },
  ];

  before(async () => {
    a = await startAgent();
    // Two nodes in dc1 (rack r1) and one in dc2 (rack r2).
    nodes.east1 = await simNode(a.url, 'east1', { over: { Datacenter: 'dc1', Meta: { rack: 'r1' } } });
    nodes.east2 = await simNode(a.url, 'east2', { over: { Datacenter: 'dc1', Meta: { rack: 'r1' } } });
    nodes.west = await simNode(a.url, 'west', { over: { Datacenter: 'dc2', Meta: { rack: 'r2' } } });
  });
  after(() => a.stop());

  /** Allocations per datacenter of `perNode`. */
  const perDc = (perNode: Record<string, number>) => ({ dc1: (perNode.east1 ?? 0) + (perNode.east2 ?? 0), dc2: perNode.west ?? 0 });

  it('without a spread, anti-affinity spreads over nodes: dc1 gets two thirds', async () => {
    const { perNode } = await place(minimalJob('plain', { TaskGroups: group(6) }));
    assert.deepEqual(perNode, { east1: 2, east2: 2, west: 2 });
  });

  it('an even spread over the datacenter puts the group half and half over the datacenters', async () => {
    const { perNode, allocs } = await place(minimalJob('even', { Spreads: [{ Attribute: '${node.datacenter}' }], TaskGroups: group(6) }));
    assert.deepEqual(perDc(perNode), { dc1: 3, dc2: 3 }, JSON.stringify(perNode));
    // The last one placed: the first has no spread score (nothing placed yet, the reference records none).
    const last = allocs.find((x) => x.Name === 'even.app[5]')!;
    const al = (await req('GET', `/v1/allocation/${last.ID}`)).json;
    const meta = al.Metrics.ScoreMetaData as { NodeID: string; Scores: Record<string, number>; NormScore: number }[];
    assert.equal(meta.length, 3, 'every feasible node is scored (at most five kept)');
    assert.ok(
      meta.every((m) => typeof m.Scores.binpack === 'number' && typeof m.NormScore === 'number'),
      JSON.stringify(meta),
    );
    assert.ok(
      meta.some((m) => typeof m.Scores['allocation-spread'] === 'number'),
      'the spread is scored by its reference name',
    );
  });

  it('a spread with targets follows the percentages', async () => {
    const spread = {
      Attribute: '${node.datacenter}',
      Weight: 100,
      SpreadTarget: [
        { Value: 'dc1', Percent: 75 },
        { Value: 'dc2', Percent: 25 },
      ],
    };
    const { perNode } = await place(minimalJob('targeted', { TaskGroups: group(4, { Spreads: [spread] }) }));
    assert.deepEqual(perDc(perNode), { dc1: 3, dc2: 1 }, JSON.stringify(perNode));
  });

  it('an affinity prefers the matching node; a negative one keeps the group off it', async () => {
    const liked = await place(
      minimalJob('liked', { Affinities: [{ LTarget: '${meta.rack}', RTarget: 'r2', Operand: '=', Weight: 100 }], TaskGroups: group(1) }),
    );
    assert.deepEqual(liked.perNode, { west: 1 });
    const al = (await req('GET', `/v1/allocation/${liked.allocs[0]!.ID}`)).json;
    const scored = al.Metrics.ScoreMetaData as { NodeID: string; Scores: Record<string, number> }[];
    assert.equal(scored[0]?.NodeID, nodes.west, 'the best score first');
    assert.equal(scored[0]?.Scores['node-affinity'], 1);
    assert.ok(
      scored.slice(1).every((m) => m.Scores['node-affinity'] === undefined),
      'no affinity score where it does not match',
    );
    const avoided = await place(
      minimalJob('avoided', { TaskGroups: group(2, { Affinities: [{ LTarget: '${node.datacenter}', RTarget: 'dc2', Operand: '=', Weight: -100 }] }) }),
    );
    assert.deepEqual(perDc(avoided.perNode), { dc1: 2, dc2: 0 }, JSON.stringify(avoided.perNode));
  });

  it("refuses bad preferences with the reference's texts; the HCL blocks", async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ Affinities: [{ LTarget: '${meta.rack}', RTarget: 'r1', Weight: 0 }] }, /Affinity weight cannot be zero/],
      [{ Affinities: [{ LTarget: '${meta.rack}', RTarget: 'r1', Weight: 101 }] }, /Affinity weight must be within the range \[-100,100\]/],
      [{ Spreads: [{ Attribute: '' }] }, /Missing spread attribute/],
      [
        {
          Spreads: [
            {
              Attribute: '${node.datacenter}',
              SpreadTarget: [
                { Value: 'dc1', Percent: 80 },
                { Value: 'dc2', Percent: 30 },
              ],
            },
          ],
        },
        /Sum of spread target percentages must not be greater than 100%/,
      ],
    ];
    for (const [over, text] of cases) {
      const r = await req('POST', '/v1/jobs', { Job: minimalJob('bad', over) });
      assert.equal(r.status, 400, JSON.stringify(over));
      assert.match(r.text, text);
    }
    const hcl = `job "prefs" {
  affinity {
    attribute = "\${meta.rack}"
    value     = "r2"
    weight    = 80
  }
  spread {
    attribute = "\${node.datacenter}"
    weight    = 60
    target "dc1" {
      percent = 50
    }
  }
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/true"
      }
    }
  }
}`;
    const parsed = await req('POST', '/v1/jobs/parse', { JobHCL: hcl });
    assert.equal(parsed.status, 200, parsed.text);
    assert.deepEqual(parsed.json.Affinities, [{ LTarget: '${meta.rack}', RTarget: 'r2', Weight: 80 }]);
    assert.deepEqual(parsed.json.Spreads, [{ Attribute: '${node.datacenter}', Weight: 60, SpreadTarget: [{ Value: 'dc1', Percent: 50 }] }]);
  });
});
