/**
 * Service registration benchmark (issue 26 "Measure": "Register → 100 instances passing in
 * the discovery service on one client (median of 3); server CPU per registration"), one-off
 * `sched-service-register`. Three real processes, each the built `bin/cairn.js` as a user
 * starts it: a discovery agent (`cairn mesh agent`, SQLite, ACLs off, default sync and check
 * settings), a scheduler server and a client-only scheduler agent (`raw_exec` enabled,
 * `consul { address = <the discovery agent> }`), all with ACLs off.
 *
 * Per round a service job of one group with `Count = instances` is registered with
 * `POST /v1/jobs`: a dynamic port `http` (group `network`), one `raw_exec` task and a task
 * `service` on that port with an HTTP check (`GET /`, interval 1 s = the reference's minimum,
 * timeout 1 s). The task is {@link TASK_SCRIPT}: `python3 -S` (no site import) with a
 * socket loop answering `200 ok` on `${CAIRN_IP_http}:${CAIRN_PORT_http}` — ~8 MiB and
 * ~20 ms of CPU to start, where a `node` task would be ~45 MiB and ~60 ms (100 of them on the
 * 2-core machine would measure mostly node's start-up), and a real HTTP answer, not a TTL check.
 *
 * The clock runs from just before the register request; two blocking queries on the discovery
 * agent (`GET /v1/health/service/<name>` with and without `?passing`, `index`/`wait` as a user's
 * watch does, so the measuring costs no polling) note when all instances are registered and when
 * all pass. CPU: user + system time (/proc/<pid>/stat) of each of the three processes from just
 * before the register to all passing, divided by the instances (the client's and the server's
 * include placing and starting the tasks, not only registering them; the tasks are child
 * processes and not counted). Then, for `steadySeconds`, the CPU the three use per second while
 * the instances only stay registered (the client passes each instance's liveness TTL check every
 * 0.5 s; the agent runs the HTTP checks every second). The job is then purged, and the next
 * round waits until the catalog holds none of its instances.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MeshClient } from '../src/sdk/index.js';
import { startCairnProcess, stopGracefully, until, type ServerProcess } from '../test/processes.js';
import { schedApi } from './sched-api.js';
import { cpuSeconds } from './cpu.js';

/**
 * The task: an HTTP/1.0 responder in a Python socket loop (no `http.server`: its import alone
 * costs more than the rest), bound to the allocation's port from the task environment.
 */
const TASK_SCRIPT = [
  'import os, socket',
  's = socket.socket()',
  's.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)',
  "s.bind((os.environ['CAIRN_IP_http'], int(os.environ['CAIRN_PORT_http'])))",
  's.listen(64)',
  'while True:',
  '    c, _ = s.accept()',
  '    try:',
  '        c.recv(4096)',
  "        c.sendall(b'HTTP/1.0 200 OK\\r\\nContent-Length: 2\\r\\n\\r\\nok')",
  '    except OSError:',
  '        pass',
  '    c.close()',
].join('\n');

/** CPU seconds of the three processes (user + system). */
interface ProcessCpu {
  readonly mesh: number;
  readonly server: number;
  readonly client: number;
}

/** One round's figures: ms from the register request, CPU seconds over that time. */
interface RegisterRound {
  readonly firstRegisteredMs: number;
  readonly registeredMs: number;
  readonly firstPassingMs: number;
  readonly passingMs: number;
  readonly cpu: ProcessCpu;
}

/** What {@link measureServiceRegistration} reports. */
export interface RegisterResult {
  readonly instances: number;
  readonly rounds: readonly RegisterRound[];
  /** CPU seconds per second of each process with the last round's instances registered and passing. */
  readonly steady: ProcessCpu;
  readonly python: string;
}

/** The system Python, not a version manager's shim script (each task start would run a shell first). */
function pythonPath(): string {
  for (const p of ['/usr/bin/python3', '/usr/local/bin/python3']) if (existsSync(p)) return p;
  return 'python3';
}

/** The job of round `round`: `instances` allocations of the HTTP task, each with its service on a dynamic port. */
function job(id: string, service: string, instances: number, python: string): object {
  return {
    ID: id,
    Type: 'service',
    TaskGroups: [
      {
        Name: 'g',
        Count: instances,
        Networks: [{ Mode: 'host', DynamicPorts: [{ Label: 'http' }] }],
        Tasks: [
          {
            Name: 'web',
            Driver: 'raw_exec',
            Config: { command: python, args: ['-S', '-c', TASK_SCRIPT] },
            Resources: { CPU: 20, MemoryMB: 16 },
            Services: [{ Name: service, PortLabel: 'http', Checks: [{ Type: 'http', Path: '/', Interval: 1e9, Timeout: 1e9 }] }],
          },
        ],
      },
    ],
  };
}

/**
 * Watches `GET /v1/health/service/<service>` (blocking queries) until it lists `count`
 * instances (`passing`: whose every check passes); resolves with the ms since `t0`, and
 * calls `first` with the ms of the first reply listing any.
 */
async function watchHealth(
  mesh: MeshClient,
  service: string,
  o: { count: number; passing: boolean; t0: number; first?: (ms: number) => void },
): Promise<number> {
  let index = 0;
  let seen = false;
  for (;;) {
    const { items, index: next } = await mesh.health.service(service, { passing: o.passing, index, wait: '10s' });
    const ms = performance.now() - o.t0;
    if (!seen && items.length > 0) {
      seen = true;
      o.first?.(ms);
    }
    if (items.length >= o.count) return ms;
    // An index that went backwards (a reset) starts over, as the reference's watch does.
    index = next > index ? next : 0;
  }
}

/** CPU seconds so far of the three processes. @throws when /proc cannot be read (not Linux). */
function cpuNow(p: { mesh: ServerProcess; server: ServerProcess; client: ServerProcess }): ProcessCpu {
  const of = (s: ServerProcess) => {
    const v = cpuSeconds(s.child.pid!);
    if (v === undefined) throw new Error(`no /proc/${s.child.pid}/stat: the CPU figures need Linux`);
    return v;
  };
  return { mesh: of(p.mesh), server: of(p.server), client: of(p.client) };
}

const cpuDelta = (a: ProcessCpu, b: ProcessCpu): ProcessCpu => ({ mesh: b.mesh - a.mesh, server: b.server - a.server, client: b.client - a.client });

/** See the module doc. @throws when an agent does not start or a round does not finish within 180 s. */
export async function measureServiceRegistration(o: { instances: number; rounds: number; steadySeconds: number }): Promise<RegisterResult> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-bench-svc-'));
  const procs: ServerProcess[] = [];
  const python = pythonPath();
  let mc: MeshClient | undefined;
  try {
    writeFileSync(join(dir, 'mesh.hcl'), `data_dir = "${dir}/mesh"\nports {\n  http = 0\n  dns = 0\n}\n`);
    const mesh = await startCairnProcess(['mesh', 'agent', '--config', join(dir, 'mesh.hcl')], {}, 'discovery service listening');
    procs.push(mesh);
    writeFileSync(join(dir, 'server.hcl'), `data_dir = "${dir}/server"\nports { http = 0 }\n`);
    const server = await startCairnProcess(['sched', 'agent', '--config', join(dir, 'server.hcl')], {}, 'scheduler service listening');
    procs.push(server);
    writeFileSync(
      join(dir, 'client.hcl'),
      `data_dir = "${dir}/client"\nname = "bench-client"\nports { http = 0 }\n` +
        `client {\n  enabled = true\n  servers = ["${new URL(server.url).host}"]\n  cpu_total_compute = 10000\n  memory_total_mb = 16384\n}\n` +
        `plugin "raw_exec" {\n  config { enabled = true }\n}\nconsul {\n  address = "${mesh.url}"\n}\n`,
    );
    const client = await startCairnProcess(['sched', 'agent', '--config', join(dir, 'client.hcl')], {}, 'scheduler client-only agent listening');
    procs.push(client);
    const p = { mesh, server, client };
    mc = new MeshClient({ address: mesh.url, timeoutMs: 30_000 });
    const base = server.url;
    await until('the client node ready', 30_000, async () =>
      (await schedApi<{ Status: string }[]>(base, 'GET', '/v1/nodes')).some((n) => n.Status === 'ready') ? true : undefined,
    );
    const rounds: RegisterRound[] = [];
    let steady: ProcessCpu = { mesh: NaN, server: NaN, client: NaN };
    for (let round = 0; round < o.rounds; round++) {
      const id = `bench-svc-${round}`;
      const service = `bench-web-${round}`;
      const before = cpuNow(p);
      const t0 = performance.now();
      let firstPassingMs = NaN;
      let firstRegisteredMs = NaN;
      const registered = watchHealth(mc, service, { count: o.instances, passing: false, t0, first: (ms) => (firstRegisteredMs = ms) });
      const passing = watchHealth(mc, service, { count: o.instances, passing: true, t0, first: (ms) => (firstPassingMs = ms) });
      await schedApi(base, 'POST', '/v1/jobs', { Job: job(id, service, o.instances, python) });
      const deadline = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${id}: not all passing within 180 s`)), 180_000).unref());
      const [registeredMs, passingMs] = await Promise.race([Promise.all([registered, passing]), deadline]);
      const cpu = cpuDelta(before, cpuNow(p));
      rounds.push({ firstRegisteredMs, registeredMs, firstPassingMs, passingMs, cpu });
      if (round === o.rounds - 1 && o.steadySeconds > 0) {
        const s0 = cpuNow(p);
        await new Promise((r) => setTimeout(r, o.steadySeconds * 1000));
        const d = cpuDelta(s0, cpuNow(p));
        steady = { mesh: d.mesh / o.steadySeconds, server: d.server / o.steadySeconds, client: d.client / o.steadySeconds };
        const still = await mc.health.service(service, { passing: true });
        if (still.items.length !== o.instances) throw new Error(`${id}: ${still.items.length} of ${o.instances} instances passing after the steady period`);
      }
      await schedApi(base, 'DELETE', `/v1/job/${id}?purge=true`);
      await until(`${id}'s instances gone from the catalog`, 120_000, async () => ((await mc!.health.service(service)).items.length === 0 ? true : undefined));
      await until(`${id}'s tasks stopped`, 120_000, async () =>
        (await schedApi<{ ClientStatus: string }[]>(base, 'GET', '/v1/allocations')).every((a) => a.ClientStatus !== 'running') ? true : undefined,
      );
    }
    return { instances: o.instances, rounds, steady, python };
  } finally {
    await mc?.close();
    // The client first: it deregisters and stops its tasks before the others go.
    for (const p of procs.reverse()) await stopGracefully(p, 60_000);
    rmSync(dir, { recursive: true, force: true });
  }
}
