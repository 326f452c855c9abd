/**
 * Discovery agents in this process sharing one state on PostgreSQL (issue 16 scope 3), for
 * the suites that run several agents on one table: the first leads, each later one gets
 * its state key (agents of one table share it) and follows.
 */
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MeshAgentOptions } from '../../src/services/mesh/agent.js';
import type { MeshAgentConfig } from '../../src/services/mesh/config.js';
import type { PgTestServer } from '../../src/kernel/store/testdata/pg-cluster.js';
import { until } from '../processes.js';
import { startAgent, type TestAgent } from './helpers.js';

/** Options of {@link startPgAgents}. */
export interface PgAgentsOptions {
  /** Node names, one agent each (at least one); the first leads. Each data dir is `<temp>/<node>`. */
  readonly nodes: readonly string[];
  /** ACL settings of every agent (as {@link startAgent} takes them). */
  readonly acl: Partial<MeshAgentConfig['acl']>;
  /** Agent options of every agent (sync and reap intervals, clock). */
  readonly agentOptions?: Omit<MeshAgentOptions, 'config' | 'log'>;
  /** `storage.max_parallel` of every agent (default 2). */
  readonly maxParallel?: number;
}

/** The agents, in the order of their nodes, and `stop()`, which closes them (last first) and removes their data dirs. */
export interface PgAgents {
  readonly agents: readonly TestAgent[];
  stop(): Promise<void>;
}

/**
 * Starts one agent per node on a fresh table of `pg`: the first, then (once it leads,
 * 10 s at most) the others with its state key, each checked to follow. @throws when the
 * first does not lead in time, or a later one leads; the agents started are closed then.
 */
export async function startPgAgents(pg: PgTestServer, o: PgAgentsOptions): Promise<PgAgents> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-mesh-pg-'));
  const storage = { connectionUrl: pg.url, table: `cairn_mesh_${randomBytes(4).toString('hex')}`, maxParallel: o.maxParallel ?? 2 };
  const agents: TestAgent[] = [];
  const stop = async () => {
    for (const a of [...agents].reverse()) await a.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const [i, nodeName] of o.nodes.entries()) {
      const dataDir = join(dir, nodeName);
      if (i > 0) {
        mkdirSync(dataDir);
        copyFileSync(join(agents[0]!.dataDir, 'mesh-state.key'), join(dataDir, 'mesh-state.key'));
      }
      const agent = await startAgent(o.acl, { dataDir, nodeName, storage }, o.agentOptions);
      agents.push(agent);
      if (i === 0) await until(`${nodeName} leads`, 10_000, () => (agent.leadership?.isLeader ? true : undefined));
      else if (agent.leadership?.isLeader !== false) throw new Error(`${nodeName} should follow ${o.nodes[0]}`);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { agents, stop };
}
