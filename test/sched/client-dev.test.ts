/**
 * `cairn dev` runs a client beside its scheduler (issue 19 scope 3): the dev node the CSI
 * plugin serves is that client's node, it offers `raw_exec`, a registered job's raw_exec
 * task the scheduler places on it runs to completion, and jobs claiming a volume of the dev
 * hostpath plugin see it mounted at their `volume_mount`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { silentLogger } from '../../src/kernel/log/logger.js';
import { startDev } from '../../src/services/dev.js';
import { until } from '../processes.js';
import { job, runJob, shTask } from './client-helpers.js';
import { volumeBody } from './csi.js';
import { call } from './helpers.js';

describe('cairn dev client', () => {
  it('registers the dev node as a client with raw_exec, runs a raw_exec task, and mounts a hostpath CSI volume into tasks', { timeout: 120_000 }, async () => {
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
      const id = await runJob(dev.sched, job('hello', [shTask('t', 'echo hello from dev')], { type: 'batch' }), token);
      const hello = await until('complete', 20_000, async () => {
        const a = (await call(base, 'GET', `/v1/allocation/${id}`, { token })).json;
        return a.ClientStatus === 'complete' ? a : undefined;
      });
      assert.equal(hello.NodeID, node.ID);
      const log = await call(base, 'GET', `/v1/client/fs/logs/${id}?task=t&plain=true`, { token });
      assert.equal(log.text, 'hello from dev\n');

      // CSI: a volume of the dev hostpath plugin, staged and published for each allocation
      // that claims it and linked at the task's volume_mount destination.
      const vol = await call(base, 'PUT', '/v1/volume/csi/shared/create', { token, body: volumeBody('shared', dev.csi.pluginId) });
      assert.equal(vol.status, 200, vol.text);
      const volumes = { data: { Name: 'data', Type: 'csi', Source: 'shared', AccessMode: 'single-node-writer', AttachmentMode: 'file-system' } };
      const claimer = (name: string, script: string) =>
        job(name, [shTask('t', script, { VolumeMounts: [{ Volume: 'data', Destination: '/srv/data', ReadOnly: false }] })], { type: 'batch', volumes });
      const run = async (name: string, script: string) => {
        const allocId = await runJob(dev.sched, claimer(name, script), token);
        const done = await until(`${name} done`, 20_000, async () => {
          const a = (await call(base, 'GET', `/v1/allocation/${allocId}`, { token })).json;
          return a.ClientStatus === 'complete' || a.ClientStatus === 'failed' ? a : undefined;
        });
        assert.equal(done.ClientStatus, 'complete', JSON.stringify(done.TaskStates));
        return (await call(base, 'GET', `/v1/client/fs/logs/${allocId}?task=t&plain=true`, { token })).text;
      };
      await run('writer', 'echo "written by $CAIRN_ALLOC_ID" > srv/data/note.txt && echo ok');
      const seen = await run('reader', 'cat srv/data/note.txt');
      assert.match(seen, /^written by [0-9a-f-]{36}\n$/);
      // Unpublished when the allocations stopped: the hostpath plugin removed their targets.
      const perAlloc = join(dataDir, 'sched', 'client', 'csi', dev.csi.pluginId, 'per-alloc');
      await until('targets unpublished', 10_000, () => readdirSync(perAlloc).every((a) => readdirSync(join(perAlloc, a, 'shared')).length === 0) || undefined);
    } finally {
      await dev.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
