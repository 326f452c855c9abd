/**
 * Test helpers for the discovery service: an agent on a temp data dir and a free port,
 * and a small HTTP caller that keeps status, headers and the raw and parsed body.
 */
import { silentLogger } from '../../src/kernel/log/logger.js';
import { startMeshAgent, type MeshAgent, type MeshAgentOptions } from '../../src/services/mesh/agent.js';
import type { MeshAgentConfig } from '../../src/services/mesh/config.js';
import { apiCaller, type ApiCaller, stoppable, testDataDir } from '../helpers.js';

/** A running agent and its data dir; `stop()` closes it and removes the dir. */
export interface TestAgent extends MeshAgent {
  readonly dataDir: string;
  stop(): Promise<void>;
}

/** Starts an agent (ACLs on, default deny unless overridden) on a fresh temp dir and port 0. */
export async function startAgent(
  acl: Partial<MeshAgentConfig['acl']> = {},
  over: Partial<MeshAgentConfig> = {},
  agentOptions: Omit<MeshAgentOptions, 'config' | 'log'> = {},
): Promise<TestAgent> {
  const dir = testDataDir(over.dataDir, 'cairn-mesh-');
  const config: MeshAgentConfig = {
    dataDir: dir.path,
    datacenter: 'dc1',
    primaryDatacenter: 'dc1',
    nodeName: 'test',
    logLevel: 'info',
    httpAddress: '127.0.0.1:0',
    wanAddresses: {},
    ...over,
    acl: { enabled: true, defaultPolicy: 'deny', tokenReplication: false, ...acl },
  };
  const agent = await startMeshAgent({ config, log: silentLogger(), ...agentOptions });
  return stoppable(agent, dir);
}

export type { Reply } from '../helpers.js';

/** Calls `method path` on `base` with `token` in `X-Mesh-Token`, `body` as JSON (or `raw` text) and any extra `headers`. */
export const call: ApiCaller = apiCaller('X-Mesh-Token');
