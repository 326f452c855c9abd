/**
 * The cost of one periodic reconcile of a scheduler client holding 1,000 registrations (issue
 * 26 "Measure"), one-off `sched-service-reconcile`. A real discovery agent (`cairn mesh agent`,
 * its own process, SQLite, ACLs off); the client side is the client's own
 * `ServiceRegistrar` (src/services/sched/client/services/discovery.ts) run in this process,
 * so that one `reconcile()` pass can be timed alone: the subclass here only leaves out the
 * registrar's loops (the 30 s reconcile timer, the 0.5 s liveness passes and the check watch),
 * which would otherwise run beside the measured pass.
 *
 * Setup: `registrations` allocations of one task each, their service built as the client
 * builds it (`buildRegistration`: the reference's ID format, owner `Meta`, an HTTP check and
 * the liveness TTL check), registered through the registrar (`PUT /v1/agent/service/register`,
 * 8 at a time, timed too). The HTTP checks point at one HTTP server in this process and have a
 * 1 h interval, so the agent runs each once at registration and is idle during the passes; the
 * liveness checks expire 2 s after registration (nothing passes them here) and the setup waits
 * until they all have and the agent has synced that, so that no catalog write runs beside a
 * pass. `deregister_critical_service_after` is 1 h, so the agent's reaper removes nothing.
 *
 * Three kinds of pass, each timed from the call to its end, with the CPU of this process
 * (`process.cpuUsage`, the client's share) and of the agent (/proc/<pid>/stat; one tick is
 * 10 ms, so the agent's figure for the in-sync pass is the total over all passes divided by
 * their number):
 * - in sync (the periodic case): the agent holds exactly the client's registrations: one
 *   `GET /v1/agent/services` (all 1,000) and the comparison, no write;
 * - the agent lost them (restarted on an empty data dir): 1,000 registrations again, 8 at a time;
 * - the client runs none of them (restarted after its allocations were stopped): 1,000
 *   deregistrations, one at a time, as the registrar removes stale ones.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../src/kernel/log/logger.js';
import { decodeServices } from '../src/services/sched/jobs/services.js';
import { ServiceRegistrar } from '../src/services/sched/client/services/discovery.js';
import { buildRegistration, type Registration } from '../src/services/sched/client/services/registration.js';
import { MeshClient } from '../src/sdk/index.js';
import { startCairnProcess, until, type ServerProcess } from '../test/processes.js';
import { cpuSeconds } from './cpu.js';
import { parallel } from './harness.js';

/** One kind of pass: wall ms of each, the client's CPU ms of each, the agent's CPU ms per pass. */
export interface PassFigures {
  readonly wallMs: readonly number[];
  readonly clientCpuMs: readonly number[];
  readonly agentCpuMsPerPass: number;
}

/** What {@link measureReconcile} reports. */
export interface ReconcileResult {
  readonly registrations: number;
  /** Registering them all through the registrar (8 at a time), ms. */
  readonly registerMs: number;
  readonly inSync: PassFigures;
  readonly reRegister: PassFigures;
  readonly removeStale: PassFigures;
}

/** The registrar without its loops: only what a test calls runs (module doc). */
class LooplessRegistrar extends ServiceRegistrar {
  override start(): void {}
}

/** The registration of allocation `allocId`'s service `bench-rec`, as the client builds it, on the HTTP server at `port`. */
function registrationOf(allocId: string, nodeId: string, port: number): Registration {
  const [service] = decodeServices(
    [{ Name: 'bench-rec', PortLabel: 'http', Checks: [{ Type: 'http', Path: '/', Interval: 3600e9, Timeout: 1e9 }] }],
    'Services',
    'bench-rec',
  )!;
  const ctx = {
    allocId,
    alloc: { AllocatedResources: { Shared: { Ports: [{ Label: 'http', Value: port, To: 0, HostIP: '127.0.0.1' }] } } },
    jobName: 'bench',
    group: 'g',
    nodeId,
    nodeAddress: '127.0.0.1',
    deregisterAfter: '1h',
    node: { attributes: {}, meta: {}, node: { 'unique.id': nodeId } },
  };
  return buildRegistration(ctx, service!, { task: 'web', env: {}, scriptTask: 'web' });
}

/** Times `pass`: wall ms and this process's CPU ms, and adds the agent's CPU seconds to `agent.total`. */
async function timed(pass: () => Promise<void>, agentPid: number, agent: { total: number }): Promise<{ wallMs: number; clientCpuMs: number }> {
  const a0 = cpuSeconds(agentPid) ?? NaN;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await pass();
  const wallMs = performance.now() - t0;
  const c = process.cpuUsage(c0);
  agent.total += (cpuSeconds(agentPid) ?? NaN) - a0;
  return { wallMs, clientCpuMs: (c.user + c.system) / 1000 };
}

/** See the module doc. @throws when the agent does not start or a pass leaves the agent other than expected. */
export async function measureReconcile(o: { registrations: number; inSyncPasses: number; writePasses: number }): Promise<ReconcileResult> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-bench-reconcile-'));
  let agent: ServerProcess | undefined;
  let target: Server | undefined;
  const registrars: ServiceRegistrar[] = [];
  const mesh = { client: undefined as MeshClient | undefined };
  try {
    target = createServer((_, res) => res.end('ok'));
    await new Promise<void>((r) => target!.listen(0, '127.0.0.1', r));
    const port = (target.address() as { port: number }).port;
    writeFileSync(join(dir, 'mesh.hcl'), `data_dir = "${dir}/mesh"\nports {\n  http = 0\n  dns = 0\n}\n`);
    agent = await startCairnProcess(['mesh', 'agent', '--config', join(dir, 'mesh.hcl')], {}, 'discovery service listening');
    const pid = agent.child.pid!;
    const mc = (mesh.client = new MeshClient({ address: agent.url }));
    const settings = { address: agent.url, deregisterCriticalServiceAfter: '1h' };
    const nodeId = randomUUID();
    const client = new LooplessRegistrar({ settings, nodeId, log: silentLogger() });
    registrars.push(client);
    const regs = Array.from({ length: o.registrations }, () => registrationOf(randomUUID(), nodeId, port));

    /** Until the agent holds `count` registrations, every liveness check has expired and the catalog has them all. */
    const settled = async (count: number) => {
      await until(`${count} registrations settled`, 60_000, async () => {
        const checks = Object.values(await mc.agent.checks());
        const alive = checks.filter((c) => c.CheckID.endsWith('-alive'));
        if (alive.length !== count || alive.some((c) => c.Status !== 'critical')) return undefined;
        const catalog = (await mc.health.service('bench-rec')).items;
        return catalog.length === count && catalog.every((e) => e.Checks.some((c) => c.CheckID.endsWith('-alive') && c.Status === 'critical'))
          ? true
          : undefined;
      });
      // The agent's sync of the last change may still be writing: one more quiet second.
      await new Promise((r) => setTimeout(r, 1000));
    };
    const held = async () => Object.keys(await mc.agent.services()).length;

    const t0 = performance.now();
    await parallel(regs.length, 8, (i) => client.register(regs[i]!));
    const registerMs = performance.now() - t0;
    await settled(o.registrations);

    const inSyncAgent = { total: 0 };
    const inSync: { wallMs: number; clientCpuMs: number }[] = [];
    for (let i = 0; i < o.inSyncPasses; i++) inSync.push(await timed(() => client.reconcile(), pid, inSyncAgent));
    if ((await held()) !== o.registrations) throw new Error(`in-sync passes changed the agent: ${await held()} registrations`);

    const reAgent = { total: 0 };
    const removeAgent = { total: 0 };
    const re: { wallMs: number; clientCpuMs: number }[] = [];
    const remove: { wallMs: number; clientCpuMs: number }[] = [];
    for (let i = 0; i < o.writePasses; i++) {
      // A restarted client of the same node that runs none of the allocations removes them all.
      const restarted = new LooplessRegistrar({ settings, nodeId, log: silentLogger() });
      registrars.push(restarted);
      remove.push(await timed(() => restarted.reconcile(), pid, removeAgent));
      if ((await held()) !== 0) throw new Error(`the restarted client's pass left ${await held()} registrations`);
      await settled(0);
      // The agent "lost" them (the state of an agent restarted on an empty data dir): the client registers them again.
      re.push(await timed(() => client.reconcile(), pid, reAgent));
      if ((await held()) !== o.registrations) throw new Error(`the re-registering pass left ${await held()} registrations`);
      await settled(o.registrations);
    }
    const figures = (xs: { wallMs: number; clientCpuMs: number }[], agentTotal: number): PassFigures => ({
      wallMs: xs.map((x) => x.wallMs),
      clientCpuMs: xs.map((x) => x.clientCpuMs),
      agentCpuMsPerPass: (agentTotal * 1000) / xs.length,
    });
    return {
      registrations: o.registrations,
      registerMs,
      inSync: figures(inSync, inSyncAgent.total),
      reRegister: figures(re, reAgent.total),
      removeStale: figures(remove, removeAgent.total),
    };
  } finally {
    for (const r of registrars) await r.close().catch(() => undefined);
    await mesh.client?.close();
    if (agent && agent.child.exitCode === null && agent.child.signalCode === null) agent.child.kill('SIGTERM');
    await agent?.exited;
    target?.closeAllConnections();
    target?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
