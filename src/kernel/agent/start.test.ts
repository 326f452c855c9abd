/**
 * startAgent on SQLite: the order of the start and close hooks, the leader's work run at
 * once when the state is not shared, and a start whose address cannot be bound undone.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { silentLogger } from '../log/logger.js';
import { ServiceMetrics } from '../metrics/index.js';
import { startAgent, type AgentService } from './start.js';

const dir = mkdtempSync(join(tmpdir(), 'cairn-agent-start-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const log = silentLogger();
let n = 0;

/** A service that writes each hook it sees into `seen`. */
function recording(seen: string[]): AgentService {
  const hook = (name: string) => async () => void seen.push(name);
  return {
    leader: { lead: hook('lead'), follow: hook('follow') },
    beforeListen: hook('beforeListen'),
    api: { handle: async () => ({ status: 200, body: 'ok' }), renderError: () => ({ status: 500, body: '' }) },
    metrics: new ServiceMetrics(),
    listening: () => void seen.push('listening'),
    started: hook('started'),
    closeFirst: hook('closeFirst'),
    closeBeside: hook('closeBeside'),
    closeLast: hook('closeLast'),
    abandon: hook('abandon'),
  };
}

const options = (address: string, seen: string[]) => {
  const dataDir = join(dir, `a${n++}`);
  return {
    log,
    dataDir,
    state: { sqlitePath: join(dataDir, 'state.db'), keyFile: join(dataDir, 'state.key'), keySetting: 'encrypt', tables: [], applicationName: 'cairn-test' },
    listen: { address },
    advertise: { initial: '', of: (url: string) => new URL(url).host },
    build: () => recording(seen),
  };
};

describe('startAgent', () => {
  it('runs the hooks in order, serves the API and advertises the bound address', async () => {
    const seen: string[] = [];
    const agent = await startAgent(options('127.0.0.1:0', seen));
    assert.deepEqual(seen, ['lead', 'beforeListen', 'listening', 'started']);
    assert.equal((await fetch(`${agent.url}/anything`)).status, 200);
    assert.equal(`http://${agent.base.advertised()}`, agent.url);
    assert.equal(agent.base.shutdown.aborted, false);
    await agent.close();
    assert.equal(agent.base.shutdown.aborted, true);
    assert.deepEqual(seen.slice(4), ['closeFirst', 'closeBeside', 'follow', 'closeLast']);
  });

  it('undoes a start whose address is taken: the build released, the leader work stopped', async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as { port: number }).port;
    const seen: string[] = [];
    await assert.rejects(startAgent(options(`127.0.0.1:${port}`, seen)));
    assert.deepEqual(seen, ['lead', 'beforeListen', 'abandon', 'follow']);
    taken.close();
  });
});
