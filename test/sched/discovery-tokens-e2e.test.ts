/**
 * Discovery tokens for tasks and services (issue 27 scope 4; reference/integration.md §4):
 * a discovery agent with ACLs on, set up with the SDK as `cairn dev` sets it up (the JWT auth
 * method `cairn-workloads` trusting the scheduler's JWKS, a `service` and a `role` binding
 * rule, the role `cairn-tasks-default`), and a scheduler agent with a client whose own
 * discovery token may only read (so a registration that works was made with the service's
 * token):
 *
 * - a task of a group with a `consul` block gets `secrets/consul_token` (0600) and
 *   `CONSUL_TOKEN`; `GET /v1/acl/token/self` with it shows the role `cairn-tasks-default`;
 * - its service is registered with the token of its service identity, whose
 *   `ServiceIdentities` name the service, and is in the catalog;
 * - when the job stops, both tokens are logged out and the service is gone;
 * - a task in a namespace without a `cairn-tasks-<namespace>` role is refused (no binding
 *   takes effect) and fails its setup with a text naming the auth method.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MeshClient } from '../../src/sdk/index.js';
import { until } from '../processes.js';
import { call as meshCall, startAgent as startMeshAgent, type TestAgent as MeshTestAgent } from '../mesh/helpers.js';
import { allocWhen, freePort, readyNode, runJob, shTask, stopJob, rawExecClient } from './client-helpers.js';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';
import { AUTH_METHOD, readOnlyClientToken, setUpWorkloadAuth } from './discovery-workloads.js';

const MESH_ROOT = '5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a';

type Event = { Type: string; Message: string };

describe('scheduler client: discovery tokens for tasks and services', () => {
  const root = mkdtempSync(join(tmpdir(), 'cairn-disco-tokens-'));
  let mesh: MeshTestAgent;
  let sched: TestAgent;
  let admin: MeshClient;
  after(async () => {
    await admin?.close();
    await sched?.stop();
    await mesh?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  before(async () => {
    mesh = await startMeshAgent({ initialManagement: MESH_ROOT }, { dataDir: join(root, 'mesh') }, { syncIntervalMs: 200 });
    admin = new MeshClient({ address: mesh.url, token: MESH_ROOT });
    const clientToken = await readOnlyClientToken(admin);
    sched = await startAgent({
      dataDir: join(root, 'sched'),
      client: {
        ...rawExecClient(join(root, 'sched')),
        consul: { address: mesh.url, token: clientToken, deregisterCriticalServiceAfter: '1m' },
      },
    });
    await setUpWorkloadAuth(admin, sched.url);
    await readyNode(sched);
  });

  /** `GET /v1/acl/token/self` with `secret`: its status and body. */
  const tokenSelf = (secret: string) => meshCall(mesh.url, 'GET', '/v1/acl/token/self', { token: secret });

  it(
    'gives a task its token as a file and in its environment, registers its service with its own token, and logs both out at the end',
    { timeout: 90_000 },
    async () => {
      const port = await freePort();
      const task = shTask('t', 'printf %s "$CONSUL_TOKEN" > "$CAIRN_TASK_DIR/env_token"; sleep 300', {
        Services: [{ Name: 'web', PortLabel: String(port) }],
      });
      const job = { ID: 'disco', Type: 'service', TaskGroups: [{ Name: 'g', Count: 1, Consul: { Namespace: '' }, Tasks: [task] }] };
      const allocId = await runJob(sched, job);
      await allocWhen(sched, allocId, { what: 'the task running', ok: (a) => a.TaskStates?.t?.State === 'running', ms: 30_000 });
      const taskDir = join(root, 'sched', 'alloc', allocId, 't');
      const file = join(taskDir, 'secrets', 'consul_token');
      const secret = readFileSync(file, 'utf8');
      assert.equal(statSync(file).mode & 0o777, 0o600);
      const envToken = await until('the task wrote its environment', 10_000, async () => {
        try {
          const v = readFileSync(join(taskDir, 'local', 'env_token'), 'utf8');
          return v === '' ? undefined : v;
        } catch {
          return undefined;
        }
      });
      assert.equal(envToken, secret, 'CONSUL_TOKEN is the token in secrets/consul_token');
      const self = await tokenSelf(secret);
      assert.equal(self.status, 200, self.text);
      assert.deepEqual(
        (self.json.Roles as { Name: string }[]).map((r) => r.Name),
        ['cairn-tasks-default'],
      );
      assert.equal(self.json.AuthMethod, AUTH_METHOD);

      // The service: in the catalog, registered with a token of its own service identity.
      await until('the service in the catalog', 15_000, async () => {
        const r = await meshCall(mesh.url, 'GET', '/v1/catalog/service/web', { token: MESH_ROOT });
        return r.status === 200 && (r.json as unknown[]).length === 1 ? true : undefined;
      });
      const tokens = (await meshCall(mesh.url, 'GET', `/v1/acl/tokens?authmethod=${AUTH_METHOD}`, { token: MESH_ROOT })).json as {
        AccessorID: string;
        ServiceIdentities?: { ServiceName: string }[];
      }[];
      const serviceTokens = tokens.filter((t) => t.ServiceIdentities?.some((s) => s.ServiceName === 'web'));
      assert.equal(serviceTokens.length, 1, JSON.stringify(tokens));

      await stopJob(sched, 'disco');
      await allocWhen(sched, allocId, { what: 'the allocation stopped', ok: (a) => a.TaskStates?.t?.State === 'dead', ms: 30_000 });
      await until('the task token logged out', 15_000, async () => ((await tokenSelf(secret)).status === 403 ? true : undefined));
      await until('the service token logged out', 15_000, async () =>
        (await meshCall(mesh.url, 'GET', `/v1/acl/token/${serviceTokens[0]!.AccessorID}`, { token: MESH_ROOT })).status === 404 ? true : undefined,
      );
      const left = await meshCall(mesh.url, 'GET', '/v1/catalog/service/web', { token: MESH_ROOT });
      assert.deepEqual(left.json, []);
    },
  );

  it('fails the setup of a task whose login no binding rule admits, naming the auth method', { timeout: 60_000 }, async () => {
    assert.equal((await call(sched.url, 'PUT', '/v1/namespace/other', { token: ROOT, body: { Name: 'other' } })).status, 200);
    const job = { ID: 'stranger', Namespace: 'other', Type: 'batch', TaskGroups: [{ Name: 'g', Count: 1, Tasks: [shTask('t', 'exit 0', { Consul: {} })] }] };
    const r = await call(sched.url, 'POST', '/v1/jobs?namespace=other', { token: ROOT, body: { Job: job } });
    assert.equal(r.status, 200, r.text);
    const allocId = await until('an allocation', 15_000, async () => {
      const list = await call(sched.url, 'GET', '/v1/job/stranger/allocations?namespace=other', { token: ROOT });
      return list.status === 200 && list.json.length > 0 ? (list.json[0].ID as string) : undefined;
    });
    const alloc = await allocWhen(sched, allocId, { what: 'the task failed', ok: (a) => a.TaskStates?.t?.State === 'dead', ms: 30_000 });
    assert.equal(alloc.TaskStates.t.Failed, true);
    const failure = (alloc.TaskStates.t.Events as Event[]).find((e) => e.Type === 'Setup Failure');
    assert.ok(failure, JSON.stringify(alloc.TaskStates.t.Events));
    assert.match(
      failure.Message,
      /^failed to set up the task: consul: failed to derive Consul token for task t: auth method "cairn-workloads": .*Permission denied/,
    );
  });
});
