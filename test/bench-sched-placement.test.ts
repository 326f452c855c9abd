// The scheduler placement bench's measurement at a tiny scale, so the bench keeps working as
// the APIs it drives change: it once broke unnoticed (its jobs went through a test helper
// holding a token the bench's server does not know: 403), and benches run only by hand.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { measurePlacement } from '../bench/sched-placement.js';
import { configureServers } from '../bench/servers.js';

it('sched-placement places a job on stand-in nodes and times evaluations', { timeout: 120_000 }, async () => {
  configureServers({ ...process.env, BENCH_SERVER_SOURCE: 'src' });
  const r = await measurePlacement({ nodes: 3, allocations: 12, evals: 4, concurrency: 2 });
  assert.deepEqual([r.nodes, r.allocations, r.evals], [3, 12, 4]);
  assert.ok(r.placeMs > 0 && Number.isFinite(r.placementsPerSec), JSON.stringify(r));
  assert.ok(r.evalP50Ms > 0 && r.evalP99Ms >= r.evalP50Ms, JSON.stringify(r));
});
