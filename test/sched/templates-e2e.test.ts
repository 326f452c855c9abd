/**
 * Templates end to end (issue 27 scopes 5 and 6) with real components: a discovery agent, a
 * scheduler agent whose client renders discovery KV templates into real task directories,
 * tasks that are real processes, and the servers' restart permits. A template waits for a
 * missing key (the task does not start, its events say `Missing: kv.block(…)`), starts once
 * the key is written, re-renders and restarts on a change; an agent outage leaves the task
 * running on its last render (`stale`), and it catches up when the agent is back; 50
 * allocations watching one key all re-render on one change, never more than `max_parallel`
 * restarting at once; a client restart rewrites nothing whose bytes did not change.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ClientConfig } from '../../src/services/sched/client/config.js';
import { cliRunner } from '../cli-helpers.js';
import { until } from '../processes.js';
import { call as meshCall, startAgent as startMeshAgent, type TestAgent as MeshTestAgent } from '../mesh/helpers.js';
import { allocWhen, runJob, shTask, rawExecClient } from './client-helpers.js';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';

const MESH_ROOT = '3f1e2d4c-5b6a-4798-8a9b-0c1d2e3f4a5b';

type Event = { Type: string; Message: string; Time: number };

describe('templates end to end', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cairn-tpl-e2e-'));
  const meshDir = join(dataDir, 'mesh');
  let meshAddress = '127.0.0.1:0';
  let mesh: MeshTestAgent | undefined;
  let sched: TestAgent | undefined;
  const startMesh = async () => {
    mesh = await startMeshAgent({ initialManagement: MESH_ROOT }, { dataDir: meshDir, httpAddress: meshAddress });
    meshAddress = new URL(mesh.url).host;
  };
  const client = (): ClientConfig => ({
    ...rawExecClient(dataDir),
    consul: { address: `http://${meshAddress}`, token: MESH_ROOT, deregisterCriticalServiceAfter: '1m' },
    // Renders at once; short blocking queries and retries so an outage is seen and left quickly.
    template: {
      wait: { minMs: 0, maxMs: 0 },
      blockQueryWaitMs: 2_000,
      secretPollIntervalMs: 300_000,
      consulRetry: { backoffMs: 100, maxBackoffMs: 500 },
      vaultRetry: { backoffMs: 100, maxBackoffMs: 500 },
    },
  });
  const startSched = async () => {
    sched = await startAgent({ dataDir, client: client() });
  };
  const putKey = async (key: string, value: string) => {
    const r = await meshCall(mesh!.url, 'PUT', `/v1/kv/${key}`, { token: MESH_ROOT, raw: value });
    assert.equal(r.status, 200, r.text);
  };
  const taskFile = (allocId: string, path: string) => join(dataDir, 'alloc', allocId, 't', path);
  const read = (p: string) => {
    try {
      return readFileSync(p, 'utf8');
    } catch {
      return undefined;
    }
  };
  const eventsOf = (alloc: { TaskStates: Record<string, { Events: Event[] }> }) => alloc.TaskStates.t!.Events;
  const tpl = (key: string, over: Record<string, unknown> = {}) => ({
    EmbeddedTmpl: `value={{ key "${key}" }}\n`,
    DestPath: 'local/app.conf',
    Splay: 0,
    ...over,
  });
  const small = { Resources: { CPU: 20, MemoryMB: 16 } };
  const { ok: cli } = cliRunner({ env: () => ({ SCHED_ADDR: sched!.url }), rootEnv: () => ({ SCHED_TOKEN: ROOT }) });

  before(async () => {
    await startMesh();
    await startSched();
  });
  after(async () => {
    await sched?.stop();
    await mesh?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('waits for a missing key, starts once it is written, and re-renders with a restart on a change', { timeout: 60_000 }, async () => {
    const allocId = await runJob(sched!, {
      ID: 'kv',
      Type: 'service',
      TaskGroups: [{ Name: 'g', Tasks: [shTask('t', 'exec sleep 300', { ...small, Templates: [tpl('kv/config')] })] }],
    });
    const waiting = await allocWhen(sched!, allocId, {
      what: 'the Missing: event',
      ok: (a) => eventsOf(a).some((e) => e.Type === 'Template' && e.Message === 'Missing: kv.block(kv/config)'),
    });
    assert.equal(waiting.TaskStates.t.State, 'pending', 'not started while its template waits');
    assert.deepEqual(waiting.TaskStates.t.Templates, [{ DestPath: 'local/app.conf', State: 'waiting', Missing: ['kv.block(kv/config)'], LastRendered: null }]);
    assert.equal(read(taskFile(allocId, 'local/app.conf')), undefined);
    // `alloc status` shows what the template waits for.
    assert.match(
      await cli('sched', 'alloc', 'status', allocId),
      /^Templates:\nDestination +State +Waiting On +Last Rendered\nlocal\/app\.conf +waiting +kv\.block\(kv\/config\) +never$/m,
    );

    await putKey('kv/config', 'one');
    const running = await allocWhen(sched!, allocId, { what: 'running', ok: (a) => a.TaskStates.t.State === 'running' });
    assert.equal(read(taskFile(allocId, 'local/app.conf')), 'value=one\n');
    assert.equal(running.TaskStates.t.Templates[0].State, 'rendered');
    assert.match(await cli('sched', 'alloc', 'status', allocId), /^local\/app\.conf +rendered +- +\d{4}-\d\d-\d\dT[\d:.]+Z$/m);

    await putKey('kv/config', 'two');
    const restarted = await allocWhen(sched!, allocId, {
      what: 'restarted for the change',
      ok: (a) => a.TaskStates.t.Restarts === 1 && a.TaskStates.t.State === 'running',
    });
    assert.equal(read(taskFile(allocId, 'local/app.conf')), 'value=two\n');
    assert.ok(eventsOf(restarted).some((e) => e.Type === 'Restart Signaled' && e.Message === 'Template with change_mode restart re-rendered'));
  });

  it('keeps the task running through a discovery agent outage (stale, one event) and catches up after', { timeout: 90_000 }, async () => {
    await putKey('out/config', 'one');
    const allocId = await runJob(sched!, {
      ID: 'out',
      Type: 'service',
      TaskGroups: [{ Name: 'g', Tasks: [shTask('t', 'exec sleep 300', { ...small, Templates: [tpl('out/config', { ChangeMode: 'noop' })] })] }],
    });
    await allocWhen(sched!, allocId, { what: 'running', ok: (a) => a.TaskStates.t.State === 'running' });
    await mesh!.close();
    const stale = await allocWhen(sched!, allocId, { what: 'stale', ok: (a) => a.TaskStates.t.Templates?.[0]?.State === 'stale', ms: 20_000 });
    assert.match(stale.TaskStates.t.Templates[0].Error, /^kv\.block\(out\/config\): /);
    const down = Date.now();
    await until('ten seconds of outage', 15_000, () => (Date.now() - down >= 10_000 ? true : undefined));
    const during = await allocWhen(sched!, allocId, { what: 'read', ok: () => true });
    assert.equal(during.TaskStates.t.State, 'running');
    assert.equal(during.TaskStates.t.Restarts, 0);
    assert.equal(
      eventsOf(during).filter((e) => e.Type === 'Template' && e.Message.startsWith('Source unavailable')).length,
      1,
      eventsOf(during)
        .map((e) => `${e.Type}: ${e.Message}`)
        .join('\n'),
    );
    assert.equal(read(taskFile(allocId, 'local/app.conf')), 'value=one\n');

    await startMesh();
    // Back with the same value: the template is fresh again (one event), its file untouched.
    const back = await allocWhen(sched!, allocId, {
      what: 'rendered again',
      ok: (a) => a.TaskStates.t.Templates?.[0]?.State === 'rendered' && eventsOf(a).some((e) => e.Message === 'Source available again: kv.block(out/config)'),
      ms: 30_000,
    });
    assert.equal(back.TaskStates.t.State, 'running');
    assert.equal(back.TaskStates.t.Restarts, 0);
    await putKey('out/config', 'two');
    await until('caught up', 30_000, () => (read(taskFile(allocId, 'local/app.conf')) === 'value=two\n' ? true : undefined));
  });

  it('re-renders 50 allocations on one change and never restarts more than max_parallel of them at once', { timeout: 240_000 }, async () => {
    await putKey('many/config', 'one');
    // The task takes a second to stop, so restarts that were not limited would overlap.
    const script = "trap 'sleep 1; exit 0' INT TERM; while :; do sleep 0.2; done";
    const r = await call(sched!.url, 'POST', '/v1/jobs', {
      token: ROOT,
      body: {
        Job: {
          ID: 'many',
          Type: 'service',
          Update: { MaxParallel: 5 },
          TaskGroups: [{ Name: 'g', Count: 50, Tasks: [shTask('t', script, { ...small, KillTimeout: 5e9, Templates: [tpl('many/config')] })] }],
        },
      },
    });
    assert.equal(r.status, 200, r.text);
    type Alloc = { ID: string; ClientStatus: string };
    const list = async () => (await call(sched!.url, 'GET', '/v1/job/many/allocations', { token: ROOT })).json as Alloc[];
    await until(
      '50 allocations running',
      120_000,
      async () => {
        const l = await list();
        return l.length === 50 && l.every((a) => a.ClientStatus === 'running') ? true : undefined;
      },
      250,
    );
    const ids = (await list()).map((a) => a.ID);
    await putKey('many/config', 'two');
    // 50 reads a round: polled every 250 ms, not 25, to leave the agent its CPU for the restarts.
    const allocs = await until(
      'all 50 restarted for the change',
      200_000,
      async () => {
        const all = await Promise.all(ids.map(async (id) => (await call(sched!.url, 'GET', `/v1/allocation/${id}`, { token: ROOT })).json));
        return all.every((a) => a.TaskStates.t.Restarts === 1 && a.TaskStates.t.State === 'running') ? all : undefined;
      },
      250,
    );
    for (const id of ids) assert.equal(read(taskFile(id, 'local/app.conf')), 'value=two\n');
    // Each allocation is restarting from its restart signal to its next start.
    const windows = allocs.map((a) => {
      const ev = eventsOf(a);
      const signaled = ev.findIndex((e) => e.Type === 'Restart Signaled');
      assert.ok(signaled >= 0, JSON.stringify(ev));
      const started = ev.slice(signaled).find((e) => e.Type === 'Started');
      assert.ok(started, JSON.stringify(ev));
      return [ev[signaled]!.Time, started.Time] as const;
    });
    const edges = windows.flatMap(([s, e]) => [[s, 1] as const, [e, -1] as const]).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    let now = 0;
    let most = 0;
    for (const [, d] of edges) most = Math.max(most, (now += d));
    assert.ok(most <= 5, `at most 5 restarting at once, saw ${most}`);
    assert.ok(most >= 2, `restarts overlapped up to the limit (saw ${most}): the limit, not the machine, spread them`);
    const stop = await call(sched!.url, 'DELETE', '/v1/job/many', { token: ROOT });
    assert.equal(stop.status, 200);
  });

  it('a client restart re-renders nothing whose bytes did not change', { timeout: 90_000 }, async () => {
    await putKey('cr/config', 'one');
    const allocId = await runJob(sched!, {
      ID: 'cr',
      Type: 'service',
      TaskGroups: [{ Name: 'g', Tasks: [shTask('t', 'exec sleep 300', { ...small, Templates: [tpl('cr/config', { DestPath: 'secrets/app.conf' })] })] }],
    });
    await allocWhen(sched!, allocId, { what: 'running', ok: (a) => a.TaskStates.t.State === 'running' });
    const file = taskFile(allocId, 'secrets/app.conf');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const mtime = statSync(file).mtimeMs;
    const restartedAt = Date.now() * 1e6;
    await sched!.close();
    await startSched();
    const back = await allocWhen(sched!, allocId, {
      what: 'running after the client restart',
      ok: (a) => a.TaskStates.t.State === 'running' && eventsOf(a).some((e) => e.Time >= restartedAt && e.Type === 'Started'),
      ms: 30_000,
    });
    assert.equal(statSync(file).mtimeMs, mtime, 'the file was not rewritten');
    assert.equal(back.TaskStates.t.Templates[0].LastRendered, statSync(file).mtime.toISOString(), 'last rendered when the file was written');
    assert.equal(read(file), 'value=one\n');
    const after = eventsOf(back).filter((e) => e.Time >= restartedAt);
    assert.deepEqual(
      after.filter((e) => e.Type === 'Template' || e.Type === 'Restart Signaled'),
      [],
      after.map((e) => `${e.Type}: ${e.Message}`).join('\n'),
    );
  });
});
