/**
 * The client's deployment health and canary tags with real components (issue 29 scope 1; the
 * contract's "Client" part): a discovery agent and a scheduler agent whose client names it in
 * its `consul` block, running real tasks (Node HTTP servers on the group's dynamic port).
 *
 * - `health_check = "checks"`: an allocation whose HTTP check passes is reported healthy (its
 *   `DeploymentStatus.Healthy` true on the servers, the deployment successful); one whose
 *   check never passes is reported unhealthy at its `healthy_deadline`, its task carrying an
 *   `Alloc Unhealthy` event naming the service, and the deployment fails.
 * - A canary allocation's instance is registered with the service's `canary_tags` and
 *   `canary_meta` beside the old version's instance with its `tags` and `meta`; once the
 *   deployment is promoted (`POST /v1/deployment/promote/:id`) the same instance carries
 *   the normal ones.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { JsonReply } from '../helpers.js';
import { until } from '../processes.js';
import { call as meshCall, startAgent as startMeshAgent, type TestAgent as MeshTestAgent } from '../mesh/helpers.js';
import { allocWhen, freePort, rawExecClient } from './client-helpers.js';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';

const MESH_ROOT = '7a3e2c9f-1d4b-4e5f-8a6b-2c3d4e5f6a7b';
const S = 1e9;

type Entry = { Service: { ID: string; Tags: string[]; Meta: Record<string, string> }; Checks: { CheckID: string; Status: string }[] };

/** A task serving HTTP 200 on the group's dynamic port `http`; `version` goes into its environment (a new version replaces it). */
function webTask(version: string, services: Record<string, unknown>[]): Record<string, unknown> {
  const serve = "require('http').createServer((q, s) => s.end('ok')).listen(Number(process.env.CAIRN_PORT_http), process.env.CAIRN_IP_http)";
  return {
    Name: 't',
    Driver: 'raw_exec',
    Config: { command: process.execPath, args: ['-e', serve] },
    Env: { VERSION: version },
    Resources: { CPU: 20, MemoryMB: 32 },
    KillTimeout: 1 * S,
    Services: services,
  };
}

/** A service job `id` of `count` allocations of {@link webTask} with group update strategy `update` (durations in ns). */
function webJob(
  id: string,
  o: { count?: number; version?: string; update?: Record<string, unknown>; services: Record<string, unknown>[] },
): Record<string, unknown> {
  return {
    ID: id,
    Type: 'service',
    TaskGroups: [
      {
        Name: 'g',
        Count: o.count ?? 1,
        Networks: [{ Mode: 'host', DynamicPorts: [{ Label: 'http', Value: 0, To: 0, HostNetwork: 'default' }] }],
        RestartPolicy: { Attempts: 0, Interval: 60 * S, Delay: 0, Mode: 'fail' },
        Update: { MaxParallel: 1, HealthCheck: 'checks', MinHealthyTime: 1 * S, HealthyDeadline: 20 * S, ProgressDeadline: 60 * S, ...o.update },
        Tasks: [webTask(o.version ?? 'v1', o.services)],
      },
    ],
  };
}

describe('scheduler client: deployment health and canary tags', () => {
  let mesh: MeshTestAgent;
  let sched: TestAgent;
  const dataDir = mkdtempSync(join(tmpdir(), 'cairn-client-deploy-'));

  const register = async (job: Record<string, unknown>) => {
    const r = await call(sched.url, 'POST', '/v1/jobs', { token: ROOT, body: { Job: job } });
    assert.equal(r.status, 200, r.text);
  };
  const allocs = async (job: string): Promise<JsonReply[]> => (await call(sched.url, 'GET', `/v1/job/${job}/allocations`, { token: ROOT })).json as JsonReply[];
  const latestDeployment = async (job: string): Promise<JsonReply> => (await call(sched.url, 'GET', `/v1/job/${job}/deployment`, { token: ROOT })).json;
  const deploymentWhen = (job: string, status: string, ms = 30_000) =>
    until(`${job}'s deployment ${status}`, ms, async () => {
      const d = await latestDeployment(job);
      return d?.Status === status ? d : undefined;
    });
  const instances = async (name: string): Promise<Entry[]> => {
    const r = await meshCall(mesh.url, 'GET', `/v1/health/service/${name}`, { token: MESH_ROOT });
    assert.equal(r.status, 200, r.text);
    return r.json as Entry[];
  };

  before(async () => {
    mesh = await startMeshAgent({ initialManagement: MESH_ROOT }, {}, { syncIntervalMs: 200 });
    sched = await startAgent({
      dataDir,
      client: { ...rawExecClient(dataDir), consul: { address: mesh.url, token: MESH_ROOT, deregisterCriticalServiceAfter: '1m' } },
    });
  });
  after(async () => {
    await sched?.stop();
    await mesh?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('checks: a passing check makes the allocation healthy; a check that never passes, unhealthy at healthy_deadline', { timeout: 90_000 }, async () => {
    const nobody = await freePort();
    const httpCheck = { Name: 'http', Type: 'http', Path: '/', Interval: 1 * S, Timeout: 1 * S };
    await register(webJob('good', { services: [{ Name: 'good', PortLabel: 'http', Checks: [httpCheck] }] }));
    // Its check probes a port nothing listens on: critical for ever.
    await register(
      webJob('bad', {
        update: { HealthyDeadline: 4 * S },
        services: [{ Name: 'bad', PortLabel: 'http', Checks: [{ Name: 'nobody', Type: 'tcp', PortLabel: String(nobody), Interval: 1 * S, Timeout: 1 * S }] }],
      }),
    );

    const [good] = await until('an allocation of good', 15_000, async () => ((await allocs('good')).length > 0 ? allocs('good') : undefined));
    const healthy = await allocWhen(sched, good!.ID, { what: 'good healthy', ok: (a) => a.DeploymentStatus?.Healthy === true, ms: 30_000 });
    assert.equal(healthy.DeploymentID, (await latestDeployment('good')).ID, "placed by the job's deployment");
    assert.equal(healthy.DeploymentStatus.Canary, false);
    assert.ok(!Number.isNaN(Date.parse(healthy.DeploymentStatus.Timestamp)));
    // Healthy no sooner than min_healthy_time after its check first passed, which is after the task started.
    const started = Date.parse(healthy.TaskStates.t.StartedAt);
    assert.ok(Date.parse(healthy.DeploymentStatus.Timestamp) >= started + 1_000, `${healthy.DeploymentStatus.Timestamp} vs ${healthy.TaskStates.t.StartedAt}`);
    assert.equal((await instances('good'))[0]?.Checks.find((c) => c.CheckID.endsWith('-check-0'))?.Status, 'passing');
    const ok = await deploymentWhen('good', 'successful');
    assert.equal(ok.TaskGroups.g.HealthyAllocs, 1);

    const [bad] = await allocs('bad');
    const unhealthy = await allocWhen(sched, bad!.ID, { what: 'bad unhealthy', ok: (a) => a.DeploymentStatus?.Healthy === false, ms: 30_000 });
    const event = unhealthy.TaskStates.t.Events.find((e: { Type: string }) => e.Type === 'Alloc Unhealthy');
    assert.equal(event?.Message, 'Services not healthy by deadline: bad');
    // Not before its healthy_deadline (4 s from the start of tracking, which is before the task started).
    assert.ok(Date.parse(unhealthy.DeploymentStatus.Timestamp) >= Date.parse(unhealthy.TaskStates.t.StartedAt) + 3_000);
    assert.equal(unhealthy.TaskStates.t.State, 'running', 'unhealthy in its deployment; the task itself still runs');
    const failed = await deploymentWhen('bad', 'failed');
    assert.equal(failed.TaskGroups.g.UnhealthyAllocs, 1);

    // Reported once: the decision stays as it was through later reports.
    const again = (await call(sched.url, 'GET', `/v1/allocation/${good!.ID}`, { token: ROOT })).json;
    assert.equal(again.DeploymentStatus.Timestamp, healthy.DeploymentStatus.Timestamp);
  });

  it("a canary's instance carries canary_tags and canary_meta beside the old one; promoted, the normal ones", { timeout: 90_000 }, async () => {
    const service = (tag: string) => ({
      Name: 'shop',
      PortLabel: 'http',
      Tags: [tag],
      Meta: { version: tag },
      CanaryTags: ['canary', '${TASK}'],
      CanaryMeta: { version: `${tag}-canary` },
      Checks: [{ Name: 'http', Type: 'http', Path: '/', Interval: 1 * S, Timeout: 1 * S }],
    });
    const update = { Canary: 1, MaxParallel: 1, MinHealthyTime: 1 * S };
    await register(webJob('shop', { update, services: [service('v1')] }));
    const first = await deploymentWhen('shop', 'successful');
    const [old] = await allocs('shop');
    // The first version's allocation is no canary: its normal tags.
    await until('v1 registered with its tags', 15_000, async () => {
      const es = await instances('shop');
      return es.length === 1 && es[0]!.Service.Tags.join() === 'v1' ? true : undefined;
    });

    await register(webJob('shop', { version: 'v2', update, services: [service('v2')] }));
    const d = await until('the new deployment', 15_000, async () => {
      const x = await latestDeployment('shop');
      return x && x.ID !== first.ID ? x : undefined;
    });
    const canary = await until('the canary placed', 15_000, async () =>
      (await allocs('shop')).find((a) => a.JobVersion === 1 && a.DeploymentStatus?.Canary === true),
    );
    const byAlloc = (es: Entry[]) => Object.fromEntries(es.map((e) => [e.Service.Meta['cairn-alloc-id'], e.Service]));
    const both = await until('the canary and the old instance', 20_000, async () => {
      const m = byAlloc(await instances('shop'));
      return m[canary.ID] && m[old!.ID] ? m : undefined;
    });
    assert.deepEqual(both[canary.ID]!.Tags, ['canary', 't'], 'canary_tags, interpolated');
    assert.equal(both[canary.ID]!.Meta.version, 'v2-canary');
    assert.deepEqual(both[old!.ID]!.Tags, ['v1'], 'the old version keeps its tags');
    assert.equal(both[old!.ID]!.Meta.version, 'v1');

    await allocWhen(sched, canary.ID, { what: 'the canary healthy', ok: (a) => a.DeploymentStatus?.Healthy === true, ms: 30_000 });
    // Promoted once the deployment counts it (as a user reads it from the deployment).
    await until('the deployment counting the healthy canary', 15_000, async () =>
      (await latestDeployment('shop')).TaskGroups.g.HealthyAllocs === 1 ? true : undefined,
    );
    const promoted = await call(sched.url, 'POST', `/v1/deployment/promote/${d.ID}`, { token: ROOT, body: { DeploymentID: d.ID, All: true } });
    assert.equal(promoted.status, 200, promoted.text);
    const normal = await until('the promoted canary with the normal tags', 20_000, async () => {
      const s = byAlloc(await instances('shop'))[canary.ID];
      return s && s.Tags.join() === 'v2' ? s : undefined;
    });
    assert.equal(normal.Meta.version, 'v2');
    assert.equal(normal.ID, both[canary.ID]!.ID, 'the same instance, registered again');
    await deploymentWhen('shop', 'successful');
  });
});
