/**
 * Nothing left behind when a lost allocation is replaced (issue 26 scope 3; reference/integration.md
 * §8.1) with real processes: a discovery agent, a scheduler server that marks a silent node
 * down within seconds, and two client-only `cairn sched agent` processes sharing that agent
 * (each its own port range). A job's allocation runs on client a; client b runs a job of its
 * own. `kill -9` of a: its node goes down, its allocation is lost and replaced on b, and b
 * removes the lost allocation's instance once it starts the replacement — long before the
 * agent's `deregister_critical_service_after` (1 m) — while the replacement passes and b's
 * other instance is untouched. a, restarted, stops the task its killed run left and registers
 * nothing of the lost allocation again.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { killTasksUnder, stopGracefully, until, type ServerProcess } from '../processes.js';
import { startClientProcess } from './client-process.js';
import { call as meshCall, startAgent as startMeshAgent, type TestAgent as MeshTestAgent } from '../mesh/helpers.js';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';

const MESH_ROOT = '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b';

type Entry = { Service: { ID: string; Port: number; Meta: Record<string, string> }; Checks: { CheckID: string; Status: string }[] };

describe('scheduler client: the registrations of a lost allocation', () => {
  const root = mkdtempSync(join(tmpdir(), 'cairn-svc-replaced-'));
  const procs: ServerProcess[] = [];
  let mesh: MeshTestAgent | undefined;
  let server: TestAgent | undefined;
  after(async () => {
    // Gracefully: a client agent stops its tasks.
    for (const p of [...procs].reverse()) await stopGracefully(p);
    await server?.stop();
    await mesh?.stop();
    // The killed agent's task, should the test have failed before the restarted agent stopped it.
    killTasksUnder(root);
    rmSync(root, { recursive: true, force: true });
  });

  /** Starts (or restarts, on the same data directory) client-only agent `name`, its dynamic ports from `ports` (`[min, max]`). */
  async function client(name: string, ports: [number, number]): Promise<ServerProcess> {
    const p = await startClientProcess({ root, name, serverUrl: server!.url, token: ROOT, ports, consul: { address: mesh!.url, token: MESH_ROOT } });
    procs.push(p);
    return p;
  }

  const health = async (service: string): Promise<Entry[]> =>
    (await meshCall(mesh!.url, 'GET', `/v1/health/service/${service}`, { token: MESH_ROOT })).json as Entry[];
  const passing = (e: Entry) => e.Checks.every((c) => c.Status === 'passing');
  const allocOf = (e: Entry) => e.Service.Meta['cairn-alloc-id'];
  const readyNodes = async () =>
    ((await call(server!.url, 'GET', '/v1/nodes', { token: ROOT })).json as { Name: string; Status: string }[])
      .filter((n) => n.Status === 'ready')
      .map((n) => n.Name);

  /** Job `id` (a constraint on the node name when `node` is given): one task serving HTTP on its dynamic port `http`, with an HTTP check. */
  async function httpJob(id: string, node?: string): Promise<void> {
    const serve = "require('http').createServer((q, s) => s.end('ok')).listen(Number(process.env.CAIRN_PORT_http), process.env.CAIRN_IP_http)";
    const job = {
      ID: id,
      Type: 'service',
      ...(node && { Constraints: [{ LTarget: '${node.unique.name}', RTarget: node, Operand: '=' }] }),
      TaskGroups: [
        {
          Name: 'g',
          Networks: [{ Mode: 'host', DynamicPorts: [{ Label: 'http', Value: 0, To: 0, HostNetwork: 'default' }] }],
          Tasks: [
            {
              Name: 't',
              Driver: 'raw_exec',
              Config: { command: process.execPath, args: ['-e', serve] },
              Resources: { CPU: 20, MemoryMB: 32 },
              Services: [{ Name: id, PortLabel: 'http', Checks: [{ Type: 'http', Path: '/', Interval: 1e9, Timeout: 1e9 }] }],
            },
          ],
        },
      ],
    };
    const r = await call(server!.url, 'POST', '/v1/jobs', { token: ROOT, body: { Job: job } });
    assert.equal(r.status, 200, r.text);
  }

  it(
    "a killed client's instance is removed once its allocation's replacement starts on another client; the other client's stay",
    { timeout: 150_000 },
    async () => {
      mesh = await startMeshAgent({ initialManagement: MESH_ROOT }, {}, { syncIntervalMs: 200 });
      // A node silent for 2 s + 1 s is down: its allocations are lost and replaced.
      server = await startAgent({ heartbeatTtlMs: 2_000, heartbeatGraceMs: 1_000 });
      const a = await client('a', [25100, 25199]);
      await until('node a ready', 30_000, async () => ((await readyNodes()).includes('a') ? true : undefined));
      await httpJob('moving');
      const [old] = await until('the instance on a passing', 30_000, async () => {
        const es = await health('moving');
        return es.length === 1 && passing(es[0]!) ? es : undefined;
      });
      const oldPort = old!.Service.Port;
      assert.ok(oldPort >= 25100 && oldPort <= 25199, `a's port: ${oldPort}`);

      await client('b', [25200, 25299]);
      await until('node b ready', 30_000, async () => ((await readyNodes()).includes('b') ? true : undefined));
      await httpJob('stays', 'b');
      await until("b's own instance passing", 30_000, async () => {
        const es = await health('stays');
        return es.length === 1 && passing(es[0]!) ? true : undefined;
      });

      // kill -9: a's task keeps serving (nothing stops it), but its client is gone.
      await a.kill();
      const [replacement] = await until('the replacement on b passing, the lost instance gone', 45_000, async () => {
        const es = await health('moving');
        return es.length === 1 && allocOf(es[0]!) !== allocOf(old!) && passing(es[0]!) ? es : undefined;
      });
      assert.ok(replacement!.Service.Port >= 25200 && replacement!.Service.Port <= 25299, `b's port: ${replacement!.Service.Port}`);
      const lost = (await call(server.url, 'GET', `/v1/allocation/${allocOf(old!)}`, { token: ROOT })).json;
      assert.equal(lost.ClientStatus, 'lost');
      assert.equal(lost.NextAllocation, allocOf(replacement!));
      // The removal came from b, not from the agent's reaper (1 m after the instance turned critical).
      const stays = await health('stays');
      assert.equal(stays.length, 1);
      assert.ok(passing(stays[0]!), JSON.stringify(stays));

      // a restarted stops the task its killed run left and registers nothing of the lost allocation.
      await client('a', [25100, 25199]);
      await until('node a ready again', 30_000, async () => ((await readyNodes()).includes('a') ? true : undefined));
      await until('the lost task stopped', 15_000, async () => {
        const r = await fetch(`http://127.0.0.1:${oldPort}/`).catch(() => undefined);
        return r === undefined ? true : undefined;
      });
      assert.deepEqual((await health('moving')).map(allocOf), [allocOf(replacement!)]);
    },
  );
});
