/**
 * A client restart issues no new discovery tokens and leaks none (issue 27 scopes 4 and 6;
 * reference/integration.md §8.2): a client-only agent (a real process) runs a task with a
 * `consul` block and a service; killed with SIGKILL and started again on the same data
 * directory, it restarts the task with the same `secrets/consul_token` (still accepted by
 * `GET /v1/acl/token/self`) and registers the service with the same service token: the auth
 * method has issued exactly two tokens, both logged out once the job stops.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { MeshClient } from '../../src/sdk/index.js';
import { killTasksUnder, until, type ServerProcess } from '../processes.js';
import { startClientProcess } from './client-process.js';
import { call as meshCall, startAgent as startMeshAgent, type TestAgent as MeshTestAgent } from '../mesh/helpers.js';
import { allocWhen, shTask, freePort } from './client-helpers.js';
import { AUTH_METHOD, readOnlyClientToken, setUpWorkloadAuth } from './discovery-workloads.js';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';

const MESH_ROOT = '0e1d2c3b-4a59-4876-a5b4-c3d2e1f0a9b8';

describe('scheduler client: discovery tokens across a client restart', () => {
  const root = mkdtempSync(join(tmpdir(), 'cairn-disco-restart-'));
  let mesh: MeshTestAgent | undefined;
  let server: TestAgent | undefined;
  let admin: MeshClient | undefined;
  const procs: ServerProcess[] = [];
  after(async () => {
    for (const p of procs) await p.kill();
    killTasksUnder(root); // tasks of the agent killed with SIGKILL
    await admin?.close();
    await server?.stop();
    await mesh?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  /** Starts (or restarts, on the same data directory) the client-only agent. */
  async function client(meshToken: string): Promise<ServerProcess> {
    const consul = { address: mesh!.url, token: meshToken, task_auth_method: AUTH_METHOD };
    const p = await startClientProcess({ root, name: 'c', dir: 'client', serverUrl: server!.url, token: ROOT, consul });
    procs.push(p);
    return p;
  }

  /** The tokens the auth method issued that still exist. */
  const issued = async () =>
    (await meshCall(mesh!.url, 'GET', `/v1/acl/tokens?authmethod=${AUTH_METHOD}`, { token: MESH_ROOT })).json as {
      AccessorID: string;
      ServiceIdentities?: { ServiceName: string }[];
    }[];

  it('reuses the task token and the service token after a SIGKILL of the client, and logs both out at the end', { timeout: 120_000 }, async () => {
    mesh = await startMeshAgent({ initialManagement: MESH_ROOT }, { dataDir: join(root, 'mesh') }, { syncIntervalMs: 200 });
    admin = new MeshClient({ address: mesh.url, token: MESH_ROOT });
    const meshToken = await readOnlyClientToken(admin);
    server = await startAgent({ dataDir: join(root, 'server') });
    await setUpWorkloadAuth(admin, server.url);
    let c = await client(meshToken);
    await until('a ready node', 30_000, async () => {
      const r = await call(server!.url, 'GET', '/v1/nodes', { token: ROOT });
      return (r.json as { Status: string }[]).some((n) => n.Status === 'ready') ? true : undefined;
    });

    const port = await freePort();
    const task = shTask('t', 'sleep 300', { Services: [{ Name: 'kept', PortLabel: String(port) }] });
    const job = { ID: 'kept', Type: 'service', TaskGroups: [{ Name: 'g', Count: 1, Consul: {}, Tasks: [task] }] };
    assert.equal((await call(server.url, 'POST', '/v1/jobs', { token: ROOT, body: { Job: job } })).status, 200);
    const allocId = await until('the allocation', 15_000, async () => {
      const list = await call(server!.url, 'GET', '/v1/job/kept/allocations', { token: ROOT });
      return list.status === 200 && list.json.length > 0 ? (list.json[0].ID as string) : undefined;
    });
    await allocWhen(server, allocId, { what: 'the task running', ok: (a) => a.TaskStates?.t?.State === 'running', ms: 30_000 });
    const inCatalog = async () => ((await meshCall(mesh!.url, 'GET', '/v1/catalog/service/kept', { token: MESH_ROOT })).json as unknown[]).length === 1;
    await until('the service in the catalog', 15_000, async () => ((await inCatalog()) ? true : undefined));
    const tokenFile = join(root, 'client', 'data', 'alloc', allocId, 't', 'secrets', 'consul_token');
    const secret = readFileSync(tokenFile, 'utf8');
    const before = (await issued()).map((t) => t.AccessorID).sort();
    assert.equal(before.length, 2, 'one token for the task, one for its service');

    await c.kill();
    c = await client(meshToken);
    await allocWhen(server, allocId, {
      what: 'the task started again by the restarted client',
      ok: (a) => a.TaskStates?.t?.State === 'running' && a.TaskStates.t.Restarts >= 1,
      ms: 30_000,
    });
    await until('the service registered again', 15_000, async () => ((await inCatalog()) ? true : undefined));
    assert.equal(readFileSync(tokenFile, 'utf8'), secret, 'the task token is reused');
    assert.equal((await meshCall(mesh.url, 'GET', '/v1/acl/token/self', { token: secret })).status, 200);
    assert.deepEqual((await issued()).map((t) => t.AccessorID).sort(), before, 'no token issued or lost by the restart');

    assert.equal((await call(server.url, 'DELETE', '/v1/job/kept', { token: ROOT })).status, 200);
    await until('both tokens logged out', 30_000, async () => ((await issued()).length === 0 ? true : undefined));
  });
});
