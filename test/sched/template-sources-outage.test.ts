/**
 * Template sources through a discovery service outage (issue 27 scope 6;
 * reference/integration.md §8.3: the reference gives up after its retries and stops the
 * task): the agent is stopped, every failed attempt is reported as `unavailable`, the pauses
 * between them grow (exponential backoff), the watch never gives up, and once the agent is
 * back on the same data and address the watch blocks again and a change arrives. And a source
 * closed leaves nothing behind: a process that used one exits by itself.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../src/kernel/log/logger.js';
import { createTemplateSource, TemplateSourceError } from '../../src/services/sched/client/templates/sources/index.js';
import { DEFAULT_TEMPLATE_SOURCE_SETTINGS } from '../../src/services/sched/client/templates/sources/settings.js';
import { call as meshCall, startAgent, type TestAgent } from '../mesh/helpers.js';
import { until } from '../processes.js';
import { recorder } from './template-sources-helpers.js';

const ROOT = '7f2e9d3c-4b5a-4c7d-9e8f-9a0b1c2d3e4f';
const BACKOFF_MS = 200;
const settings = { ...DEFAULT_TEMPLATE_SOURCE_SETTINGS, blockQueryWaitMs: 30_000, consulRetry: { backoffMs: BACKOFF_MS, maxBackoffMs: 3200 } };

describe('template sources: a discovery service outage', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cairn-tpl-outage-'));
  let address = '127.0.0.1:0';
  let mesh: TestAgent | undefined;
  const startMesh = async () => {
    mesh = await startAgent({ initialManagement: ROOT }, { dataDir, httpAddress: address });
    address = new URL(mesh.url).host;
  };
  const put = async (value: string) => assert.equal((await meshCall(mesh!.url, 'PUT', '/v1/kv/app/flag', { token: ROOT, raw: value })).status, 200);

  before(startMesh);
  after(async () => {
    await mesh?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('reports each failed attempt, backs off more each time, never gives up, and catches up after', { timeout: 90_000 }, async () => {
    await put('before');
    const source = createTemplateSource({ discovery: { address: `http://${address}`, token: () => ROOT }, settings, log: silentLogger() });
    try {
      const r = recorder();
      source.watch({ kind: 'kv.block', path: 'app/flag' }, r);
      await r.valueWhere('the value before the outage', (v) => v === 'before');

      await mesh!.stop();
      mesh = undefined;
      // From now on no attempt can succeed (one may have while the agent was stopping), so the failures only add up.
      const stoppedAt = Date.now();
      const down = () => r.errors.filter((e) => e.at >= stoppedAt);
      await until('five failed attempts', 30_000, () => (down().length >= 5 ? true : undefined));
      for (const { err } of r.errors) {
        assert.ok(err instanceof TemplateSourceError);
        assert.equal(err.failure, 'unavailable');
        assert.match(err.message, /^kv\.block\(app\/flag\): service unreachable: /);
      }
      // Each pause is at least 80 % (jitter) of backoff × 2^(n−1): 160, 320, 640, 1280 ms.
      const gaps = down()
        .slice(1, 5)
        .map((e, i) => e.at - down()[i]!.at);
      gaps.forEach((gap, i) => assert.ok(gap >= 0.8 * BACKOFF_MS * 2 ** i - 5, `pause ${i + 1} is ${gap} ms: ${gaps.join(', ')}`));
      // The last value stands (an answer the closing service still gave may repeat it: the source was back for a moment).
      assert.ok(
        r.values.every((v) => v === 'before'),
        `the last value stands during the outage: ${JSON.stringify(r.values)}`,
      );

      await startMesh();
      const errorsAtRestart = r.errors.length;
      await put('after');
      await r.valueWhere('the change after the outage', (v) => v === 'after', 30_000);
      // The first answer after the outage is told even when unchanged (how a template learns its source is back), then the change.
      assert.deepEqual(
        r.values.filter((v, i, all) => i === 0 || v !== all[i - 1]),
        ['before', 'after'],
      );
      assert.ok(r.errors.length <= errorsAtRestart + 1, 'no failure once the service is back (but the attempt in flight)');
    } finally {
      source.close();
    }
  });

  it('a closed source leaves no timer or connection: the process that used it exits by itself', { timeout: 60_000 }, async () => {
    if (!mesh) await startMesh();
    await put('x');
    const index = resolve('src/services/sched/client/templates/sources/index.ts');
    const logger = resolve('src/kernel/log/logger.ts');
    const script = `
      const { createTemplateSource } = await import(${JSON.stringify(index)});
      const { silentLogger } = await import(${JSON.stringify(logger)});
      const settings = { blockQueryWaitMs: 60000, secretPollIntervalMs: 60000, consulRetry: { backoffMs: 60000, maxBackoffMs: 60000 }, vaultRetry: { backoffMs: 60000, maxBackoffMs: 60000 } };
      const s = createTemplateSource({
        discovery: { address: ${JSON.stringify(mesh!.url)}, token: () => ${JSON.stringify(ROOT)} },
        secrets: { address: 'http://127.0.0.1:1', token: () => 't' },
        settings, log: silentLogger(),
      });
      let got = 0;
      const done = () => { if (++got === 2) { s.close(); console.log('closed'); } };
      s.watch({ kind: 'kv.block', path: 'app/flag' }, { value: done, error: () => {} });
      s.watch({ kind: 'secret.read', path: 'secret/data/x' }, { value: () => {}, error: done });
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    const code = await new Promise<number | null>((res) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.on('exit', (c) => {
        clearTimeout(timer);
        res(c);
      });
    });
    assert.equal(code, 0, `the process did not exit by itself after close(): ${out}`);
    assert.match(out, /closed/);
  });
});
