/**
 * The scheduler with two servers sharing one state on PostgreSQL (throwaway cluster): only
 * the leader schedules, so a job is placed once (nodes registered through the follower,
 * which forwards to the leader); when the leader stops, the other server leads and
 * schedules the next job.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startPgTestServer, type PgTestServer } from '../../src/kernel/store/testdata/pg-cluster.js';
import type { SchedAgentConfig } from '../../src/services/sched/config.js';
import { startAgent, type TestAgent } from './helpers.js';
import { allocsOf, group, job, putJob, settled, simNode, until } from './workloads.js';

const work = mkdtempSync(join(tmpdir(), 'cairn-sched-sched-ha-'));
let pg: PgTestServer;
const agents: TestAgent[] = [];
before(async () => {
  pg = await startPgTestServer();
});
after(async () => {
  for (const a of agents) await a.stop();
  await pg?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('scheduler on shared PostgreSQL', () => {
  it('only the leader places; the next leader takes over', { timeout: 90_000 }, async () => {
    const table = `cairn_sched_${randomBytes(4).toString('hex')}`;
    const config = (name: string): Partial<SchedAgentConfig> => ({ dataDir: join(work, name), storage: { connectionUrl: pg.url, table, maxParallel: 2 } });
    mkdirSync(join(work, 'x'));
    const x = await startAgent(config('x'));
    agents.push(x);
    await until('x leads', () => x.leadership?.isLeader === true);
    mkdirSync(join(work, 'y'));
    copyFileSync(join(work, 'x', 'sched-state.key'), join(work, 'y', 'sched-state.key'));
    const y = await startAgent(config('y'), { root: null });
    agents.push(y);
    await until('y names the leader', () => y.leadership?.leaderAddress === new URL(x.url).host);

    await simNode(y.url, 'n1');
    await simNode(y.url, 'n2');
    const done = await settled(x, await putJob(x, job('web', [group('g', 4)])));
    assert.equal(done.Status, 'complete');
    const seenOnY = await until('the allocations on the follower', async () => {
      const all = await allocsOf(y.url, 'web');
      return all.length >= 4 ? all : undefined;
    });
    assert.deepEqual(seenOnY.map((a) => a.Name).sort(), ['web.g[0]', 'web.g[1]', 'web.g[2]', 'web.g[3]'], 'placed once');

    await x.stop();
    agents.shift();
    await until('y leads', () => y.leadership?.isLeader === true);
    const next = await settled(y, await putJob(y, job('api', [group('g', 2)])));
    assert.equal(next.Status, 'complete');
    assert.equal((await allocsOf(y.url, 'api')).length, 2);
  });
});
