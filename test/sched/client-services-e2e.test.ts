/**
 * Nothing left behind (issue 26 scope 3; reference/integration.md §8.1) with real client
 * processes: a discovery agent and a scheduler server, and two client-only `cairn sched
 * agent` processes that share that one discovery agent (`consul { address, token }`), each
 * running a job pinned to it whose task serves HTTP with a check. `kill -9` of client a:
 * its instance turns critical within a couple of seconds (its liveness TTL check) while b's
 * stays passing; the job of a is stopped while a is down; a restarted reconciles the agent
 * and removes the stale registration, and never b's.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { killTasksUnder, stopGracefully, until, type ServerProcess } from '../processes.js';
import { startClientProcess } from './client-process.js';
import { call as meshCall, startAgent as startMeshAgent, type TestAgent as MeshTestAgent } from '../mesh/helpers.js';
import { freePort, httpTask } from './client-helpers.js';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';

const MESH_ROOT = '6e2d1b8f-0c3a-4d4e-9f50-1b2c3d4e5f60';

type Entry = { Service: { ID: string; Meta: Record<string, string> }; Checks: { CheckID: string; Status: string }[] };

describe('scheduler client: registrations of a killed client', () => {
  const root = mkdtempSync(join(tmpdir(), 'cairn-svc-e2e-'));
  const procs: ServerProcess[] = [];
  let mesh: MeshTestAgent | undefined;
  let server: TestAgent | undefined;
  after(async () => {
    // Gracefully: a client agent stops its tasks (a SIGKILL would leave b's task running).
    for (const p of [...procs].reverse()) await stopGracefully(p);
    await server?.stop();
    await mesh?.stop();
    killTasksUnder(root); // tasks of agents killed with SIGKILL
    rmSync(root, { recursive: true, force: true });
  });

  /** Starts (or restarts, on the same data directory) client-only agent `name`. */
  async function client(name: string): Promise<ServerProcess> {
    const p = await startClientProcess({ root, name, serverUrl: server!.url, token: ROOT, consul: { address: mesh!.url, token: MESH_ROOT } });
    procs.push(p);
    return p;
  }

  const health = async (service: string): Promise<Entry[]> =>
    (await meshCall(mesh!.url, 'GET', `/v1/health/service/${service}`, { token: MESH_ROOT })).json as Entry[];
  const statuses = (e: Entry | undefined) =>
    Object.fromEntries((e?.Checks ?? []).filter((c) => c.CheckID !== 'serfHealth').map((c) => [c.CheckID.replace(/^.*-(alive|check-0)$/, '$1'), c.Status]));

  /** A job `id` pinned to node `node` whose task serves HTTP on a free port with an HTTP check. */
  async function pinnedJob(id: string, node: string): Promise<void> {
    const port = await freePort();
    const job = {
      ID: id,
      Type: 'service',
      Constraints: [{ LTarget: '${node.unique.name}', RTarget: node, Operand: '=' }],
      TaskGroups: [
        {
          Name: 'g',
          Tasks: [
            httpTask('t', port, { Services: [{ Name: id, PortLabel: String(port), Checks: [{ Type: 'http', Path: '/', Interval: 1e9, Timeout: 1e9 }] }] }),
          ],
        },
      ],
    };
    const r = await call(server!.url, 'POST', '/v1/jobs', { token: ROOT, body: { Job: job } });
    assert.equal(r.status, 200, r.text);
  }

  it(
    'a killed client turns its instances critical; restarted, it removes what it no longer runs and leaves the other client alone',
    { timeout: 120_000 },
    async () => {
      mesh = await startMeshAgent({ initialManagement: MESH_ROOT }, {}, { syncIntervalMs: 200 });
      server = await startAgent({});
      let a = await client('a');
      await client('b');
      await until('two ready nodes', 30_000, async () => {
        const r = await call(server!.url, 'GET', '/v1/nodes', { token: ROOT });
        return (r.json as { Status: string }[]).filter((n) => n.Status === 'ready').length === 2 ? true : undefined;
      });
      await pinnedJob('wa', 'a');
      await pinnedJob('wb', 'b');
      for (const id of ['wa', 'wb'])
        await until(`${id} passing`, 30_000, async () => {
          const s = statuses((await health(id))[0]);
          return s.alive === 'passing' && s['check-0'] === 'passing' ? true : undefined;
        });
      const nodeOf = async (id: string) => (await health(id))[0]!.Service.Meta['cairn-node-id'];
      assert.notEqual(await nodeOf('wa'), await nodeOf('wb'), 'each registration names its own client node');

      // kill -9: a's liveness check expires (TTL 2 s) while its task may still answer; b is untouched.
      await a.kill();
      await until("wa's instance critical", 5_000, async () => (statuses((await health('wa'))[0]).alive === 'critical' ? true : undefined));
      assert.deepEqual(statuses((await health('wb'))[0]), { alive: 'passing', 'check-0': 'passing' });

      // The job is stopped while a is down; a comes back and removes the stale registration at start.
      assert.equal((await call(server.url, 'DELETE', '/v1/job/wa', { token: ROOT })).status, 200);
      a = await client('a');
      await until('wa removed by the restarted client', 15_000, async () => ((await health('wa')).length === 0 ? true : undefined));
      // b's registration was never a's to remove.
      assert.deepEqual(statuses((await health('wb'))[0]), { alive: 'passing', 'check-0': 'passing' });
    },
  );
});
