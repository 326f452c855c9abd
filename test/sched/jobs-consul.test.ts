/**
 * The `consul` block and the discovery identities a job gets at submit (issue 27 scope 4;
 * jobs/consul.ts, jobs/consul-identities.ts): the block in HCL and JSON on a group and a task,
 * its checks, `consul_default` for the tasks under a `consul` block (their own or their
 * group's) and none for the others, a service identity per consul service named as the
 * reference's (`consul-service_<task>-<service>-<port>` / `consul-service_<service>-<port>`),
 * an unchanged job planning as unchanged, and the servers' `task_identity` /
 * `service_identity { enabled = false }` turning them off.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { shTask } from './client-helpers.js';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';

const HCL = `job "disco" {
  group "g" {
    consul { namespace = "apps" }
    service {
      name = "api"
      port = "9090"
    }
    task "t" {
      driver = "raw_exec"
      config { command = "/bin/true" }
      service {
        name = "web"
        port = "8080"
      }
    }
  }
  group "plain" {
    task "p" {
      driver = "raw_exec"
      config { command = "/bin/true" }
      consul {}
    }
    task "q" {
      driver = "raw_exec"
      config { command = "/bin/true" }
    }
  }
}`;

type Identity = { Name: string; Audience: string[]; TTL: number; ServiceName?: string };
type Task = { Name: string; Identities?: Identity[] | null; Consul?: unknown; Services?: { Name: string; Identity?: Identity }[] | null };
type Group = { Name: string; Consul?: unknown; Tasks: Task[]; Services?: { Name: string; Identity?: Identity }[] | null };

describe('scheduler jobs: the consul block and the implicit discovery identities', () => {
  let a: TestAgent;
  before(async () => {
    a = await startAgent({ schedulerWorkers: 0 });
  });
  after(() => a.stop());

  const req = (method: string, path: string, body?: unknown) => call(a.url, method, path, { token: ROOT, body });

  async function registerHcl(agent: TestAgent, hcl: string): Promise<Group[]> {
    const parsed = await call(agent.url, 'POST', '/v1/jobs/parse', { token: ROOT, body: { JobHCL: hcl } });
    assert.equal(parsed.status, 200, parsed.text);
    const r = await call(agent.url, 'POST', '/v1/jobs', { token: ROOT, body: { Job: parsed.json } });
    assert.equal(r.status, 200, r.text);
    const stored = await call(agent.url, 'GET', `/v1/job/${String(parsed.json.ID)}`, { token: ROOT });
    return stored.json.TaskGroups as Group[];
  }

  it('keeps the block and adds consul_default to the tasks under one, and a service identity to each consul service', async () => {
    const groups = await registerHcl(a, HCL);
    const [g, plain] = groups;
    assert.deepEqual(g!.Consul, { Cluster: 'default', Namespace: 'apps', Partition: '' });
    const t = g!.Tasks[0]!;
    assert.deepEqual(
      t.Identities?.map((i) => [i.Name, i.Audience, i.TTL]),
      [['consul_default', ['cairn-discovery'], 3600e9]],
    );
    assert.deepEqual(t.Services?.[0]?.Identity, {
      Name: 'consul-service_t-web-8080',
      Audience: ['cairn-discovery'],
      ChangeMode: '',
      ChangeSignal: '',
      Env: false,
      File: false,
      Filepath: '',
      TTL: 3600e9,
      ServiceName: 'web',
    });
    assert.equal(g!.Services?.[0]?.Identity?.Name, 'consul-service_api-9090');
    assert.equal(g!.Services?.[0]?.Identity?.ServiceName, 'api');
    const [p, q] = plain!.Tasks;
    assert.deepEqual(
      p!.Identities?.map((i) => i.Name),
      ['consul_default'],
    );
    assert.equal(q!.Identities ?? null, null, 'a task under no consul block gets no discovery identity');
  });

  it('keeps a consul_default the task declares, and plans an unchanged job as unchanged', async () => {
    const own = { Name: 'consul_default', Audience: ['cairn-discovery'], TTL: 600e9 };
    const job = { ID: 'own', Type: 'batch', TaskGroups: [{ Name: 'g', Consul: {}, Tasks: [shTask('t', 'true', { Identities: [own] })] }] };
    assert.equal((await req('POST', '/v1/jobs', { Job: job })).status, 200);
    const stored = await req('GET', '/v1/job/own');
    assert.deepEqual(
      (stored.json.TaskGroups[0].Tasks[0].Identities as Identity[]).map((i) => [i.Name, i.TTL]),
      [['consul_default', 600e9]],
    );
    const plan = await req('POST', '/v1/job/own/plan', { Job: job, Diff: true });
    assert.equal(plan.status, 200, plan.text);
    assert.equal(plan.json.Diff.Type, 'None');
  });

  it('refuses a consul block naming another cluster or of the wrong kind, naming the field', async () => {
    const bad = (consul: unknown) => ({ ID: 'bad', Type: 'batch', TaskGroups: [{ Name: 'g', Tasks: [shTask('t', 'true', { Consul: consul })] }] });
    const other = await req('POST', '/v1/jobs', { Job: bad({ Cluster: 'eu' }) });
    assert.equal(other.status, 400);
    assert.match(other.text, /consul: cluster "eu" is not configured/);
    const wrong = await req('POST', '/v1/jobs', { Job: bad({ Cluster: 'bad name!' }) });
    assert.equal(wrong.status, 400);
    assert.match(wrong.text, /consul: invalid name "bad name!", must match regex/);
    const kind = await req('POST', '/v1/jobs', { Job: bad('x') });
    assert.equal(kind.status, 400);
    assert.match(kind.text, /json: cannot unmarshal string into Go struct field .*\.Consul of type api\.Consul/);
    assert.equal((await req('GET', '/v1/job/bad')).status, 404, 'nothing stored');
  });

  it('adds none when the servers turn them off', async () => {
    const off = await startAgent({ schedulerWorkers: 0, consulIdentities: { task: false, service: false } });
    try {
      const [g] = await registerHcl(off, HCL);
      assert.equal(g!.Tasks[0]!.Identities ?? null, null);
      assert.equal(g!.Tasks[0]!.Services?.[0]?.Identity ?? null, null);
      assert.equal(g!.Services?.[0]?.Identity ?? null, null);
    } finally {
      await off.stop();
    }
  });
});
