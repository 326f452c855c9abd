/**
 * `cairn dev` runs a client beside its scheduler (issue 19 scope 3): the dev node the CSI
 * plugin serves is that client's node, it offers `raw_exec`, and a raw_exec task placed on
 * it runs to completion.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { silentLogger } from '../../src/kernel/log/logger.js';
import { startDev } from '../../src/services/dev.js';
import { until } from '../processes.js';
import { job, shTask } from './client-helpers.js';
import { call } from './helpers.js';

describe('cairn dev client', () => {
  it('registers the dev node as a client with raw_exec and runs a raw_exec task', { timeout: 120_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cairn-dev-client-'));
    const dev = await startDev({
      dataDir,
      secretsAddress: '127.0.0.1:0',
      rootTokenId: 'dev-client-root',
      gatewayAddresses: { api: '127.0.0.1:0', cluster: '127.0.0.1:0', proxy: '127.0.0.1:0', ops: '127.0.0.1:0' },
      meshAddress: '127.0.0.1:0',
      schedAddress: '127.0.0.1:0',
      log: silentLogger(),
    });
    try {
      const base = dev.sched.url;
      const token = 'dev-client-root';
      const node = await until('dev node offers raw_exec', 20_000, async () => {
        const r = await call(base, 'GET', `/v1/node/${dev.csi.nodeId}`, { token });
        return r.json?.Drivers?.raw_exec?.Healthy ? r.json : undefined;
      });
      assert.equal(node.Status, 'ready');
      assert.equal((await call(base, 'GET', '/v1/nodes', { token })).json.length, 1);
      const j = job('hello', [shTask('t', 'echo hello from dev')], { type: 'batch' });
      const created = await call(base, 'PUT', '/v1/allocation', { token, body: { Allocation: { NodeID: node.ID, JobID: 'hello', TaskGroup: 'g', Job: j } } });
      assert.equal(created.status, 200, created.text);
      const id = created.json.ID as string;
      await until('complete', 20_000, async () => ((await call(base, 'GET', `/v1/allocation/${id}`, { token })).json.ClientStatus === 'complete') || undefined);
      const log = await call(base, 'GET', `/v1/client/fs/logs/${id}?task=t&plain=true`, { token });
      assert.equal(log.text, 'hello from dev\n');
    } finally {
      await dev.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
