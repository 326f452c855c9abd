/**
 * Test helpers for the discovery service: an agent on a temp data dir and a free port,
 * a small HTTP caller that keeps status, headers and the raw and parsed body, and an agent
 * with SDK clients for the SDK suites.
 */
import { silentLogger } from '../../src/kernel/log/logger.js';
import { MeshClient } from '../../src/sdk/index.js';
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

/** An agent for the SDK suites and the {@link MeshClient}s made against it. */
export interface SdkAgent {
  readonly agent: TestAgent;
  /** A new client of the agent sending `token` (none: anonymous); `stop()` closes it. */
  client(token?: string): MeshClient;
  /** Closes every client made by {@link SdkAgent.client}, then stops the agent. */
  stop(): Promise<void>;
}

/** {@link startAgent} (same arguments) with a factory of SDK clients on it. */
export async function startSdkAgent(...args: Parameters<typeof startAgent>): Promise<SdkAgent> {
  const agent = await startAgent(...args);
  const clients: MeshClient[] = [];
  return {
    agent,
    client(token) {
      const c = new MeshClient({ address: agent.url, token });
      clients.push(c);
      return c;
    },
    async stop() {
      await Promise.all(clients.map((c) => c.close()));
      await agent.stop();
    },
  };
}
