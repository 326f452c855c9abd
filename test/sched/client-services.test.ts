/**
 * Services and checks of scheduled workloads registered in the discovery service (issue 26
 * scopes 2 and 3; reference/integration.md §2): a real discovery agent (ACLs on) and a
 * scheduler agent whose client names it in its `consul` block, running real tasks (small
 * Node HTTP servers on ports the test picked free). Three task services with HTTP checks are
 * passing instances in `/v1/health/service/web` under the reference's ID format; a task
 * stopped from outside (SIGSTOP) turns its check critical and `check_restart` restarts it
 * through the group's restart policy; `job stop` removes the instances within 2 s, before
 * the tasks get their kill signal (`shutdown_delay` keeps them running meanwhile). A group
 * service with an interpolated name and a script check run by the client in the task's
 * directory; bad service input is a 400 naming the field.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { until } from '../processes.js';
import { call as meshCall, startAgent as startMeshAgent, type TestAgent as MeshTestAgent } from '../mesh/helpers.js';
import { allocWhen, freePort, httpTask, runJob, stopJob } from './client-helpers.js';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';

const MESH_ROOT = '5d1c0a7e-9b2f-4c3d-8e4f-0a1b2c3d4e5f';

type Entry = {
  Service: { ID: string; Service: string; Port: number; Address: string; Meta: Record<string, string> };
  Checks: { CheckID: string; Name: string; Status: string }[];
};

describe('scheduler client: services and checks in the discovery service', () => {
  let mesh: MeshTestAgent;
  let sched: TestAgent;
  const dataDir = mkdtempSync(join(tmpdir(), 'cairn-client-svc-'));
  const health = async (name: string, passing = false): Promise<Entry[]> => {
    const r = await meshCall(mesh.url, 'GET', `/v1/health/service/${name}${passing ? '?passing' : ''}`, { token: MESH_ROOT });
    assert.equal(r.status, 200, r.text);
    return r.json as Entry[];
  };

  before(async () => {
    mesh = await startMeshAgent({ initialManagement: MESH_ROOT }, {}, { syncIntervalMs: 200 });
    sched = await startAgent({
      dataDir,
      client: {
        servers: [],
        stateDir: join(dataDir, 'client'),
        allocDir: join(dataDir, 'alloc'),
        nodeClass: '',
        nodePool: 'default',
        meta: {},
        token: ROOT,
        drivers: { raw_exec: true, exec: false },
        consul: { address: mesh.url, token: MESH_ROOT, deregisterCriticalServiceAfter: '1m' },
      },
    });
  });
  after(async () => {
    await sched?.stop();
    await mesh?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('three HTTP task services pass; an unhealthy task is restarted by check_restart; job stop removes them before the kill', { timeout: 90_000 }, async () => {
    const ports = [await freePort(), await freePort(), await freePort()];
    const service = (port: number) => ({
      Name: 'web',
      PortLabel: String(port),
      Tags: ['v1'],
      Meta: { team: 'a' },
      Checks: [{ Name: 'alive', Type: 'http', Path: '/', Interval: 1e9, Timeout: 1e9 }],
      CheckRestart: { Limit: 2, Grace: 1e9 },
    });
    const job = {
      ID: 'web',
      Type: 'service',
      TaskGroups: [
        {
          Name: 'g',
          ShutdownDelay: 1e9,
          RestartPolicy: { Attempts: 3, Interval: 600e9, Delay: 0.2e9, Mode: 'fail' },
          Tasks: ports.map((p, i) => httpTask(`t${i}`, p, { Services: [service(p)], KillTimeout: 1e9 })),
        },
      ],
    };
    const allocId = await runJob(sched, job);
    const nodeId = sched.client!.nodeId;
    const passing = await until('three passing instances of web', 20_000, async () => {
      const list = await health('web', true);
      return list.length === 3 ? list : undefined;
    });
    assert.deepEqual(passing.map((e) => e.Service.Port).sort(), [...ports].sort());
    for (const [i, p] of ports.entries()) {
      const e = passing.find((x) => x.Service.Port === p)!;
      // The reference's ID format under Cairn's prefix, owned by this allocation and client node.
      assert.equal(e.Service.ID, `_cairn-task-${allocId}-t${i}-web-${p}`);
      assert.equal(e.Service.Address, '127.0.0.1');
      assert.deepEqual(e.Service.Meta, { team: 'a', 'external-source': 'cairn', 'cairn-alloc-id': allocId, 'cairn-node-id': nodeId });
      assert.deepEqual(
        e.Checks.map((c) => [c.CheckID, c.Name, c.Status])
          .filter(([id]) => id !== 'serfHealth')
          .sort(([a], [b]) => b!.localeCompare(a!)),
        [
          [`${e.Service.ID}-check-0`, 'alive', 'passing'],
          [`${e.Service.ID}-alive`, 'Cairn client alive', 'passing'],
        ],
      );
    }

    // Task t1's server stops answering (SIGSTOP from outside): its check turns critical and check_restart restarts it.
    process.kill(Number(readFileSync(join(dataDir, 'alloc', allocId, 't1', 'local', 'pid'), 'utf8')), 'SIGSTOP');
    await until('t1 critical', 10_000, async () =>
      (await health('web')).find((e) => e.Service.Port === ports[1])?.Checks.some((c) => c.Status === 'critical') ? true : undefined,
    );
    const restarted = await allocWhen(sched, allocId, {
      what: 't1 restarted for its unhealthy check',
      ok: (a) => a.TaskStates.t1.Restarts >= 1 && a.TaskStates.t1.State === 'running',
      ms: 20_000,
    });
    const signaled = restarted.TaskStates.t1.Events.find((e: { Type: string }) => e.Type === 'Restart Signaled');
    assert.equal(signaled?.RestartReason, 'healthcheck: check "alive" unhealthy');
    assert.equal(restarted.TaskStates.t0.Restarts, 0);
    await until('three passing instances again', 20_000, async () => ((await health('web', true)).length === 3 ? true : undefined));

    // job stop: the instances leave the catalog within 2 s, while the tasks still run (shutdown_delay 1 s).
    await stopJob(sched, 'web');
    await until('web gone from the catalog', 2_000, async () => ((await health('web')).length === 0 ? true : undefined));
    const during = await call(sched.url, 'GET', `/v1/allocation/${allocId}`, { token: ROOT });
    assert.equal(during.json.TaskStates.t0.State, 'running', 'deregistered before the kill signal');
    await allocWhen(sched, allocId, {
      what: 'tasks dead',
      ok: (a) => Object.values(a.TaskStates as Record<string, { State: string }>).every((s) => s.State === 'dead'),
    });
    assert.deepEqual(Object.keys((await meshCall(mesh.url, 'GET', '/v1/agent/services', { token: MESH_ROOT })).json), []);
  });

  it('a group service with an interpolated name and a script check run in the task directory', { timeout: 60_000 }, async () => {
    const port = await freePort();
    const job = {
      ID: 'grp',
      Type: 'service',
      TaskGroups: [
        {
          Name: 'g',
          Services: [
            {
              Name: '${JOB}-${TASKGROUP}',
              PortLabel: String(port),
              Checks: [
                { Name: 'flag', Type: 'script', Command: '/bin/sh', Args: ['-c', 'test -f "$CAIRN_TASK_DIR/ready"'], Interval: 1e9, Timeout: 2e9 },
                { Name: 'tcp', Type: 'tcp', Interval: 1e9, Timeout: 1e9 },
              ],
            },
          ],
          Tasks: [httpTask('server', port)],
        },
      ],
    };
    const allocId = await runJob(sched, job);
    const id = `_cairn-task-${allocId}-group-g-grp-g-${port}`;
    const status = async () => Object.fromEntries(((await health('grp-g'))[0]?.Checks ?? []).map((c) => [c.Name, c.Status]));
    // The script exits 1 (warning) until the task's directory holds the file.
    await until('script warning, tcp passing', 15_000, async () => {
      const s = await status();
      return s.flag === 'warning' && s.tcp === 'passing' ? true : undefined;
    });
    assert.equal((await health('grp-g'))[0]!.Service.ID, id);
    writeFileSync(join(dataDir, 'alloc', allocId, 'server', 'local', 'ready'), '');
    await until('the group service passing', 15_000, async () => ((await health('grp-g', true)).length === 1 ? true : undefined));
    await stopJob(sched, 'grp');
    await until('grp-g gone', 5_000, async () => ((await health('grp-g')).length === 0 ? true : undefined));
  });

  it('bad service and check input is a 400 naming the problem; HCL blocks parse to the JSON shape', async () => {
    const bad = {
      ID: 'bad',
      TaskGroups: [
        {
          Name: 'g',
          Services: [
            { Name: 'no_underscores', PortLabel: '80', Provider: 'nomad', Checks: [{ Type: 'grpc', Interval: 1e9, Timeout: 1e9 }] },
            { Name: 'h', PortLabel: '80', Checks: [{ Type: 'http', Interval: 0.5e9, Timeout: 1e9 }], OnUpdate: 'ignore', CheckRestart: { Limit: 1 } },
          ],
          Tasks: [httpTask('t', 1)],
        },
      ],
    };
    const r = await call(sched.url, 'POST', '/v1/jobs', { token: ROOT, body: { Job: bad } });
    assert.equal(r.status, 400);
    for (const text of [
      'Service name must be valid per RFC 1123 and can contain only alphanumeric characters or dashes: "no_underscores"',
      'provider "nomad" is not supported',
      'invalid type ("grpc")',
      'interval (500ms) cannot be lower than 1s',
      'http type must have http path',
      'on_update value "ignore" is not compatible with check_restart',
    ])
      assert.ok(r.text.includes(text), `${text} in ${r.text}`);
    const kind = await call(sched.url, 'POST', '/v1/jobs', {
      token: ROOT,
      body: { Job: { ...bad, TaskGroups: [{ Name: 'g', Services: [{ Tags: 'x' }], Tasks: [httpTask('t', 1)] }] } },
    });
    assert.equal(kind.status, 400);
    assert.match(kind.text, /json: cannot unmarshal string into Go struct field Job\.TaskGroups\.Services\.Tags of type \[\]string/);
    assert.equal((await call(sched.url, 'GET', '/v1/job/bad', { token: ROOT })).status, 404, 'nothing stored');

    const hcl = `job "web" {
  group "g" {
    shutdown_delay = "5s"
    service {
      name = "\${JOB}-api"
      port = 8080
      tags = ["v1"]
      canary_tags = ["canary"]
      meta { team = "a" }
      canary_meta { team = "a-next" }
      check {
        type = "http"
        path = "/health"
        interval = "10s"
        timeout = "2s"
        header { X-Probe = ["cairn"] }
        check_restart { limit = 2 }
      }
      check_restart { limit = 3  grace = "30s" }
    }
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
      service { port = "9000" provider = "consul" }
    }
  }
}`;
    const parsed = await call(sched.url, 'POST', '/v1/jobs/parse', { token: ROOT, body: { JobHCL: hcl } });
    assert.equal(parsed.status, 200, parsed.text);
    const g = parsed.json.TaskGroups[0];
    assert.equal(g.ShutdownDelay, 5e9);
    assert.deepEqual(g.Services, [
      {
        Name: '${JOB}-api',
        PortLabel: '8080',
        Tags: ['v1'],
        CanaryTags: ['canary'],
        Meta: { team: 'a' },
        CanaryMeta: { team: 'a-next' },
        CheckRestart: { Limit: 3, Grace: 30e9 },
        Checks: [{ Type: 'http', Path: '/health', Interval: 10e9, Timeout: 2e9, Header: { 'X-Probe': ['cairn'] }, CheckRestart: { Limit: 2 } }],
      },
    ]);
    assert.deepEqual(g.Tasks[0].Services, [{ PortLabel: '9000', Provider: 'consul' }]);
    // Registered, the reference's defaults are applied: the check's check_restart merged over the service's.
    const reg = await call(sched.url, 'POST', '/v1/jobs', { token: ROOT, body: { Job: { ...parsed.json, TaskGroups: [{ ...g, Count: 0 }] } } });
    assert.equal(reg.status, 200, reg.text);
    const stored = (await call(sched.url, 'GET', '/v1/job/web', { token: ROOT })).json.TaskGroups[0];
    assert.deepEqual(stored.Services[0].Checks[0].CheckRestart, { Limit: 2, Grace: 30e9, IgnoreWarnings: false });
    assert.deepEqual(
      [stored.Services[0].Provider, stored.Services[0].AddressMode, stored.Services[0].OnUpdate, stored.Services[0].Checks[0].Protocol],
      ['consul', 'auto', 'require_healthy', 'http'],
    );
    assert.equal(stored.Tasks[0].Services[0].Name, 'web-g-t');
    assert.deepEqual([stored.Services[0].CanaryTags, stored.Services[0].CanaryMeta], [['canary'], { team: 'a-next' }]);
    assert.deepEqual([stored.Tasks[0].Services[0].CanaryTags, stored.Tasks[0].Services[0].CanaryMeta], [null, null]);
  });
});
