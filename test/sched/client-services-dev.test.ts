/**
 * `cairn dev` wires its scheduler client to its own discovery service (issue 26 scope 2): a
 * job with a service and an HTTP check, run on the dev node, is a passing instance in the
 * dev discovery service (the root token is the management token of both), and leaves it
 * when the job stops.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { silentLogger } from '../../src/kernel/log/logger.js';
import { startDev } from '../../src/services/dev.js';
import { call as meshCall } from '../mesh/helpers.js';
import { until } from '../processes.js';
import { freePort, httpTask, runJob, stopJob } from './client-helpers.js';

describe('cairn dev: services of jobs', () => {
  it('registers a job service in the dev discovery service', { timeout: 120_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cairn-dev-svc-'));
    const token = 'dev-services-root';
    const dev = await startDev({
      dataDir,
      secretsAddress: '127.0.0.1:0',
      rootTokenId: token,
      gatewayAddresses: { api: '127.0.0.1:0', cluster: '127.0.0.1:0', proxy: '127.0.0.1:0', ops: '127.0.0.1:0' },
      meshAddress: '127.0.0.1:0',
      schedAddress: '127.0.0.1:0',
      log: silentLogger(),
    });
    try {
      const port = await freePort();
      const service = { Name: 'hello', PortLabel: String(port), Checks: [{ Type: 'http', Path: '/', Interval: 1e9, Timeout: 1e9 }] };
      const job = { ID: 'hello', Type: 'service', TaskGroups: [{ Name: 'g', Tasks: [httpTask('web', port, { Services: [service] })] }] };
      const allocId = await runJob(dev.sched, job, token);
      const entry = await until('hello passing in the dev discovery service', 30_000, async () => {
        const r = await meshCall(dev.mesh.url, 'GET', '/v1/health/service/hello?passing', { token });
        return r.status === 200 && r.json.length === 1 ? r.json[0] : undefined;
      });
      assert.equal(entry.Service.ID, `_cairn-task-${allocId}-web-hello-${port}`);
      assert.equal(entry.Service.Port, port);
      await stopJob(dev.sched, 'hello', token);
      await until('hello gone', 10_000, async () =>
        (await meshCall(dev.mesh.url, 'GET', '/v1/health/service/hello', { token })).json.length === 0 ? true : undefined,
      );
    } finally {
      await dev.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
