/**
 * Deployments end to end (issue 29 "Tests", scope 1) with real processes: a discovery agent, a
 * scheduler server, and a client-only `cairn sched agent` process whose `consul` block names
 * the discovery agent; tasks are Node HTTP servers on dynamic ports with an HTTP check, the
 * client deciding each allocation's health from it (client/deployment-health.ts).
 *
 * - A service job of 5 allocations with `max_parallel = 2` and `auto_revert`, updated to a
 *   version whose check fails: at most 2 of the old allocations are ever replaced (the
 *   allocations are watched the whole time), the deployment fails at the new allocations'
 *   `healthy_deadline` and rolls back to version 0, and all 5 run the old version again (5
 *   passing instances, the job at a new version equal to version 0).
 * - One canary beside 3 old allocations: nothing old is replaced until it is promoted
 *   (`POST /v1/deployment/promote/:id`), then the rest roll and the deployment is successful.
 * - Each step is on `/v1/event/stream` (topic `Deployment`): the status updates, the
 *   allocations' health and the promotion.
 *
 * Durations are short (min_healthy_time 1 s; the failing version's healthy_deadline 3 s, the
 * good versions' 20 s, room for a busy machine to start their tasks) so the run takes well
 * under a minute.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { JsonReply } from '../helpers.js';
import { killTasksUnder, stopGracefully, until, type ServerProcess } from '../processes.js';
import { startClientProcess } from './client-process.js';
import { call as meshCall, startAgent as startMeshAgent, type TestAgent as MeshTestAgent } from '../mesh/helpers.js';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';
import { Stream, type Ev } from './stream.js';

const MESH_ROOT = '8b4f3d0a-2e5c-4f6a-9b7c-3d4e5f6a7b8c';
const S = 1e9;

type Entry = { Service: { Meta: Record<string, string> }; Checks: { CheckID: string; Status: string }[] };

/**
 * A service job `id` of `count` allocations of one task serving HTTP on its dynamic port: 200
 * on `/health`, or 500 when `broken`; `version` in its environment makes each version a new
 * one (a destructive update). Its service `id` has an HTTP check of `/health`.
 */
function job(id: string, o: { count: number; version: string; broken?: boolean; update: Record<string, unknown> }): Record<string, unknown> {
  const serve = `require('http').createServer((q, s) => { s.statusCode = ${o.broken ? 500 : 200}; s.end('${o.version}'); }).listen(Number(process.env.CAIRN_PORT_http), process.env.CAIRN_IP_http)`;
  return {
    ID: id,
    Type: 'service',
    TaskGroups: [
      {
        Name: 'g',
        Count: o.count,
        Networks: [{ Mode: 'host', DynamicPorts: [{ Label: 'http', Value: 0, To: 0, HostNetwork: 'default' }] }],
        Update: { HealthCheck: 'checks', MinHealthyTime: 1 * S, HealthyDeadline: 20 * S, ProgressDeadline: 40 * S, ...o.update },
        Tasks: [
          {
            Name: 't',
            Driver: 'raw_exec',
            Config: { command: process.execPath, args: ['-e', serve] },
            Env: { VERSION: o.version },
            Resources: { CPU: 20, MemoryMB: 32 },
            KillTimeout: 1 * S,
            Services: [{ Name: id, PortLabel: 'http', Checks: [{ Name: 'health', Type: 'http', Path: '/health', Interval: 1 * S, Timeout: 1 * S }] }],
          },
        ],
      },
    ],
  };
}

describe('deployments end to end: rolling update with auto-revert, and a canary promoted', () => {
  const root = mkdtempSync(join(tmpdir(), 'cairn-deploy-e2e-'));
  const procs: ServerProcess[] = [];
  let mesh: MeshTestAgent | undefined;
  let server: TestAgent | undefined;
  let stream: Stream | undefined;
  after(async () => {
    stream?.close();
    // Gracefully: the client agent stops its tasks.
    for (const p of [...procs].reverse()) await stopGracefully(p);
    await server?.stop();
    await mesh?.stop();
    killTasksUnder(root);
    rmSync(root, { recursive: true, force: true });
  });

  const sched = async (method: string, path: string, body?: unknown) => {
    const r = await call(server!.url, method, path, { token: ROOT, ...(body !== undefined && { body }) });
    assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
    return r.json;
  };
  const allocs = async (id: string): Promise<JsonReply[]> => (await sched('GET', `/v1/job/${id}/allocations`)) as JsonReply[];
  const live = (as: JsonReply[]) => as.filter((a) => a.DesiredStatus === 'run' && a.ClientStatus === 'running');
  const latest = async (id: string): Promise<JsonReply> => sched('GET', `/v1/job/${id}/deployment`);
  const deploymentWhen = (id: string, ok: (d: JsonReply) => boolean, what: string, ms = 40_000) =>
    until(what, ms, async () => {
      const d = await latest(id);
      return d && ok(d) ? d : undefined;
    });
  const passing = async (service: string): Promise<Entry[]> => {
    const es = (await meshCall(mesh!.url, 'GET', `/v1/health/service/${service}?passing`, { token: MESH_ROOT })).json as Entry[];
    return es;
  };

  /** Starts the client-only agent: dynamic ports of its own, the discovery agent in its `consul` block. */
  async function client(): Promise<ServerProcess> {
    const consul = { address: mesh!.url, token: MESH_ROOT };
    const p = await startClientProcess({ root, name: 'c1', dir: 'client', serverUrl: server!.url, token: ROOT, ports: [25400, 25499], consul });
    procs.push(p);
    return p;
  }

  /** Reads the stream's event frames in the background into `into` until it ends. */
  async function collect(s: Stream, into: Ev[]): Promise<void> {
    for (;;) {
      const f = await s.frame(600_000).catch(() => undefined);
      if (!f?.Events) return;
      into.push(...f.Events);
    }
  }

  it('a failing version rolls back by itself; a canary is promoted and the rest roll', { timeout: 180_000 }, async () => {
    mesh = await startMeshAgent({ initialManagement: MESH_ROOT }, {}, { syncIntervalMs: 200 });
    server = await startAgent({});
    await client();
    await until('the client node ready', 30_000, async () => {
      const nodes = (await sched('GET', '/v1/nodes')) as { Status: string }[];
      return nodes.some((n) => n.Status === 'ready') ? true : undefined;
    });
    stream = await Stream.open(server.url, 'topic=Deployment');
    const events: Ev[] = [];
    const reading = collect(stream, events);

    // Version 0: 5 healthy allocations, its deployment successful (version 0 becomes stable).
    const update = { MaxParallel: 2, AutoRevert: true };
    await sched('POST', '/v1/jobs', { Job: job('web', { count: 5, version: 'v0', update }) });
    const d0 = await deploymentWhen('web', (d) => d.Status === 'successful', 'version 0 deployed');
    assert.equal(d0.JobVersion, 0);
    await until('5 passing instances of version 0', 30_000, async () => ((await passing('web')).length === 5 ? true : undefined));
    const v0 = new Set(live(await allocs('web')).map((a) => a.ID as string));
    assert.equal(v0.size, 5);

    // Version 1 fails its check. The allocations are watched until the rollback is done: never more than 2 old ones replaced.
    await sched('POST', '/v1/jobs', { Job: job('web', { count: 5, version: 'v1', broken: true, update: { ...update, HealthyDeadline: 3 * S } }) });
    const replaced = new Set<string>();
    const v1Placed = new Set<string>();
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        for (const a of await allocs('web')) {
          if (v0.has(a.ID) && a.DesiredStatus !== 'run') replaced.add(a.ID);
          if (a.JobVersion === 1) v1Placed.add(a.ID);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const d1 = await until('the deployment of version 1 failed', 40_000, async () => {
      const d = ((await sched('GET', '/v1/job/web/deployments')) as JsonReply[]).find((x) => x.JobVersion === 1);
      return d?.Status === 'failed' ? d : undefined;
    });
    assert.equal(d1.StatusDescription, 'Failed due to unhealthy allocations - rolling back to job version 0');
    assert.equal(d1.TaskGroups.g.UnhealthyAllocs >= 1, true);
    // Each new allocation was found unhealthy by the client.
    for (const id of v1Placed) {
      const a = await sched('GET', `/v1/allocation/${id}`);
      assert.equal(a.DeploymentStatus?.Healthy, false, `${id}: ${JSON.stringify(a.DeploymentStatus)}`);
    }

    // auto_revert registered version 0 again (as version 2); its deployment brings all 5 back on the old spec.
    const d2 = await deploymentWhen('web', (d) => d.JobVersion === 2 && d.Status === 'successful', 'the rollback deployed');
    assert.notEqual(d2.ID, d1.ID);
    const job2 = await sched('GET', '/v1/job/web');
    assert.equal(job2.Version, 2);
    assert.equal(job2.TaskGroups[0].Tasks[0].Env.VERSION, 'v0');
    await until('5 passing instances again', 30_000, async () => ((await passing('web')).length === 5 ? true : undefined));
    assert.equal(live(await allocs('web')).length, 5);
    watching = false;
    await watcher;
    assert.ok(replaced.size >= 1 && replaced.size <= 2, `old allocations ever replaced: ${replaced.size}`);
    assert.ok(v1Placed.size >= 1 && v1Placed.size <= 2, `allocations of version 1 ever placed: ${v1Placed.size}`);
    const versions = (await sched('GET', '/v1/job/web/versions')).Versions as { Version: number; Stable: boolean }[];
    assert.deepEqual(
      versions.map((v) => [v.Version, v.Stable]).sort(([a], [b]) => Number(a) - Number(b)),
      [
        [0, true],
        [1, false],
        [2, true],
      ],
    );

    // One canary beside 3 old allocations: nothing old replaced before the promotion.
    const canaryUpdate = { MaxParallel: 1, Canary: 1 };
    await sched('POST', '/v1/jobs', { Job: job('shop', { count: 3, version: 'v0', update: canaryUpdate }) });
    await deploymentWhen('shop', (d) => d.Status === 'successful', 'shop version 0 deployed');
    const old = new Set(live(await allocs('shop')).map((a) => a.ID as string));
    assert.equal(old.size, 3);
    await sched('POST', '/v1/jobs', { Job: job('shop', { count: 3, version: 'v1', update: canaryUpdate }) });
    const waiting = await deploymentWhen(
      'shop',
      (d) => d.JobVersion === 1 && d.TaskGroups.g.HealthyAllocs === 1,
      'the canary healthy, the deployment waiting for its promotion',
    );
    assert.equal(waiting.Status, 'running');
    assert.equal(waiting.StatusDescription, 'Deployment is running but requires manual promotion');
    assert.equal(waiting.TaskGroups.g.PlacedCanaries.length, 1);
    const canaryId = waiting.TaskGroups.g.PlacedCanaries[0] as string;
    const now = await allocs('shop');
    assert.deepEqual(
      now.filter((a) => old.has(a.ID)).map((a) => [a.DesiredStatus, a.ClientStatus]),
      [
        ['run', 'running'],
        ['run', 'running'],
        ['run', 'running'],
      ],
      'the 3 old allocations run beside the canary',
    );
    assert.equal(now.find((a) => a.ID === canaryId)?.DeploymentStatus?.Canary, true);

    const promoted = await sched('POST', `/v1/deployment/promote/${waiting.ID}`, { DeploymentID: waiting.ID, All: true });
    assert.ok(promoted.Index > 0);
    const done = await deploymentWhen('shop', (d) => d.ID === waiting.ID && d.Status === 'successful', 'shop version 1 rolled out');
    assert.equal(done.StatusDescription, 'Deployment completed successfully');
    assert.equal(done.TaskGroups.g.Promoted, true);
    assert.equal(done.TaskGroups.g.HealthyAllocs, 3);
    const rolled = live(await allocs('shop'));
    assert.equal(rolled.length, 3);
    assert.ok(
      rolled.every((a) => a.JobVersion === 1 && !old.has(a.ID)),
      'every allocation of the new version',
    );
    assert.ok(
      rolled.some((a) => a.ID === canaryId),
      'the promoted canary stays',
    );

    // Every step on the event stream.
    await until('the events of the last deployment', 10_000, () =>
      events.some((e) => e.Type === 'DeploymentStatusUpdate' && e.Payload.Deployment.ID === done.ID && e.Payload.Deployment.Status === 'successful')
        ? true
        : undefined,
    );
    const of = (id: string, type: string) => events.filter((e) => e.Topic === 'Deployment' && e.Key === id && e.Type === type);
    // The failure, with the unhealthy allocations it counted (the count and the failure may be one write).
    const failure = of(d1.ID, 'DeploymentStatusUpdate').find((e) => e.Payload.Deployment.Status === 'failed');
    assert.ok(failure, 'the failure');
    assert.ok(failure.Payload.Deployment.TaskGroups.g.UnhealthyAllocs >= 1);
    assert.ok(
      of(d2.ID, 'DeploymentStatusUpdate').some((e) => e.Payload.Deployment.Status === 'successful'),
      'the rollback succeeded',
    );
    // The canary's health alone moved its deployment's counts.
    assert.ok(
      of(waiting.ID, 'DeploymentAllocHealth').some((e) => e.Payload.Deployment.TaskGroups.g.HealthyAllocs === 1),
      "the canary's health",
    );
    assert.equal(of(waiting.ID, 'DeploymentPromotion').length, 1, 'the promotion');
    assert.ok(
      events.every((e) => e.Payload.Deployment.JobID === (e.FilterKeys ?? [])[0]),
      'filter keys name the job',
    );
    stream.close();
    await reading;
  });
});
