/**
 * Register-to-running benchmark of a real client agent (issue 19: "time from register to all
 * running for 100 `raw_exec` tasks on one client"), one-off `sched-client-run`: two `cairn sched
 * agent` processes (the built `bin/cairn.js`) — a server (SQLite, ACLs off) and a client-only
 * agent (`client { servers = [...] }`, `raw_exec` enabled, 10,000 MHz / 16,384 MiB offered).
 *
 * Per round: a service job of `tasks` allocations, each one task `/bin/sleep 600` (20 MHz,
 * 16 MiB), is registered with `POST /v1/jobs`; the clock runs from just before that request
 * until `GET /v1/job/:id/allocations` (polled every 25 ms) shows every allocation
 * `ClientStatus: running` — the evaluation, the placement, the client's allocation watch
 * waking, 100 task directories and processes started, and each allocation's status report
 * written by the server. Also reported: when every allocation was placed (the first poll
 * that sees them all). The job is then purged and the next round waits until the client
 * has stopped its tasks.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCairnProcess, stopGracefully, until, type ServerProcess } from '../test/processes.js';
import { schedApi } from './sched-api.js';

/** One round's figures, in ms from the register request. */
export interface ClientRunSample {
  readonly placedMs: number;
  readonly runningMs: number;
}

type AllocStub = { ClientStatus: string; DesiredStatus: string };

/** See the module doc. @throws when an agent does not start or a round does not finish within 120 s. */
export async function measureClientRun(o: { tasks: number; rounds: number }): Promise<ClientRunSample[]> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-bench-client-run-'));
  const procs: ServerProcess[] = [];
  try {
    writeFileSync(join(dir, 'server.hcl'), `data_dir = "${dir}/server"\nports { http = 0 }\n`);
    const server = await startCairnProcess(['sched', 'agent', '--config', join(dir, 'server.hcl')], {}, 'scheduler service listening');
    procs.push(server);
    writeFileSync(
      join(dir, 'client.hcl'),
      `data_dir = "${dir}/client"\nname = "bench-client"\nports { http = 0 }\nclient {\n  enabled = true\n  servers = ["${new URL(server.url).host}"]\n  cpu_total_compute = 10000\n  memory_total_mb = 16384\n}\nplugin "raw_exec" {\n  config { enabled = true }\n}\n`,
    );
    procs.push(await startCairnProcess(['sched', 'agent', '--config', join(dir, 'client.hcl')], {}, 'scheduler client-only agent listening'));
    const base = server.url;
    await until('the client node ready', 30_000, async () =>
      (await schedApi<{ Status: string }[]>(base, 'GET', '/v1/nodes')).some((n) => n.Status === 'ready') ? true : undefined,
    );
    const samples: ClientRunSample[] = [];
    for (let round = 0; round < o.rounds; round++) {
      const id = `bench-run-${round}`;
      const job = {
        ID: id,
        Type: 'service',
        TaskGroups: [
          {
            Name: 'g',
            Count: o.tasks,
            Tasks: [{ Name: 't', Driver: 'raw_exec', Config: { command: '/bin/sleep', args: ['600'] }, Resources: { CPU: 20, MemoryMB: 16 } }],
          },
        ],
      };
      const t0 = performance.now();
      await schedApi(base, 'POST', '/v1/jobs', { body: { Job: job } });
      let placedMs = NaN;
      const runningMs = await until(`${o.tasks} allocations running`, 120_000, async () => {
        const allocs = (await schedApi<AllocStub[]>(base, 'GET', `/v1/job/${id}/allocations`)).filter((a) => a.DesiredStatus === 'run');
        const now = performance.now() - t0;
        if (Number.isNaN(placedMs) && allocs.length === o.tasks) placedMs = now;
        return allocs.length === o.tasks && allocs.every((a) => a.ClientStatus === 'running') ? now : undefined;
      });
      samples.push({ placedMs, runningMs });
      await schedApi(base, 'DELETE', `/v1/job/${id}?purge=true`);
      await until('the tasks stopped', 120_000, async () =>
        (await schedApi<AllocStub[]>(base, 'GET', '/v1/allocations')).every((a) => a.ClientStatus !== 'running') ? true : undefined,
      );
    }
    return samples;
  } finally {
    // The client first: it stops its tasks before the server goes.
    for (const p of procs.reverse()) await stopGracefully(p, 60_000);
    rmSync(dir, { recursive: true, force: true });
  }
}
