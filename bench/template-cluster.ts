/**
 * The processes of the template benchmarks (issue 27 "Measure", bench/template-rerender.ts and
 * bench/template-idle.ts): three real `cairn` processes as a user starts them (the built
 * `bin/cairn.js`) — a discovery agent (`cairn mesh agent`, SQLite, ACLs off), a scheduler server
 * and a client-only scheduler agent (`raw_exec` enabled, `consul { address = <the agent> }`,
 * `template { wait { min = "0s" max = "0s" } }` so no quiescence window delays a render; the
 * other template settings are the reference's defaults, `block_query_wait = "5m"` included).
 * ACLs are off everywhere: the templates read the discovery KV anonymously, so no login is
 * measured with them.
 *
 * Jobs are documents of `groups` task groups of `count` allocations, one `raw_exec` task `t`
 * (`/bin/sleep 600`, 20 MHz, 16 MiB) each, optionally with one template per task:
 * `{{ key "<key>" }}` → `local/v.txt`, `change_mode = "noop"`, `splay = "0s"`, `wait` 0/0.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCairnProcess, stopGracefully, until, type ServerProcess } from '../test/processes.js';
import { cpuSeconds } from './cpu.js';
import { schedApi } from './sched-api.js';

/** Where a rendered template lands in the task directory. */
const DEST = 'local/v.txt';

/** One group of a bench job: `count` allocations whose task renders `key` (none: no template). */
export interface TemplateGroup {
  readonly count: number;
  readonly key?: string;
}

/** The running processes and what the benchmarks do with them. */
export interface TemplateCluster {
  readonly client: ServerProcess;
  /** Writes `value` at discovery KV `key` (`PUT /v1/kv/<key>`); resolves at the reply. @throws on a status but 200. */
  putKey(key: string, value: string): Promise<void>;
  /** Registers job `id` of `groups`, waits until every allocation runs; resolves with the rendered files' paths (one per templated allocation). */
  runJob(id: string, groups: readonly TemplateGroup[]): Promise<{ files: string[] }>;
  /** Purges job `id` and waits until its tasks stopped. */
  purgeJob(id: string): Promise<void>;
  /** CPU seconds (user + system) of the client agent so far. @throws without /proc. */
  clientCpu(): number;
  close(): Promise<void>;
}

type AllocStub = { ID: string; TaskGroup: string; ClientStatus: string; DesiredStatus: string };

/** The job document (module doc). */
function jobDoc(id: string, groups: readonly TemplateGroup[]): object {
  return {
    ID: id,
    Type: 'service',
    TaskGroups: groups.map((g, i) => ({
      Name: `g${String(i).padStart(3, '0')}`,
      Count: g.count,
      Tasks: [
        {
          Name: 't',
          Driver: 'raw_exec',
          Config: { command: '/bin/sleep', args: ['600'] },
          Resources: { CPU: 20, MemoryMB: 16 },
          Templates:
            g.key === undefined ? [] : [{ EmbeddedTmpl: `{{ key "${g.key}" }}`, DestPath: DEST, ChangeMode: 'noop', Splay: 0, Wait: { Min: 0, Max: 0 } }],
        },
      ],
    })),
  };
}

/**
 * Starts the three processes (module doc); `meshMaxConnsPerClient` (bench setting `BENCH_TPL_MESH_MAX_CONNS`) sets the
 * discovery agent's `limits { http_max_conns_per_client }` (default: Consul's 200); `clientNodeOptions` (bench setting `BENCH_TPL_CLIENT_NODE_OPTIONS`) is the
 * client agent's `NODE_OPTIONS`, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it (written when it stops).
 * @throws when one does not start or the node is not ready within 30 s.
 */
export async function startTemplateCluster(o: { clientNodeOptions?: string; meshMaxConnsPerClient?: number } = {}): Promise<TemplateCluster> {
  const { clientNodeOptions, meshMaxConnsPerClient } = o;
  const dir = mkdtempSync(join(tmpdir(), 'cairn-bench-tpl-'));
  const procs: ServerProcess[] = [];
  const close = async () => {
    // The client first: it stops its tasks before the others go.
    for (const p of [...procs].reverse()) await stopGracefully(p, 60_000);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const limits = meshMaxConnsPerClient === undefined ? '' : `limits {\n  http_max_conns_per_client = ${meshMaxConnsPerClient}\n}\n`;
    writeFileSync(join(dir, 'mesh.hcl'), `data_dir = "${dir}/mesh"\nports {\n  http = 0\n  dns = 0\n}\n${limits}`);
    const mesh = await startCairnProcess(['mesh', 'agent', '--config', join(dir, 'mesh.hcl')], {}, 'discovery service listening');
    procs.push(mesh);
    writeFileSync(join(dir, 'server.hcl'), `data_dir = "${dir}/server"\nports { http = 0 }\n`);
    const server = await startCairnProcess(['sched', 'agent', '--config', join(dir, 'server.hcl')], {}, 'scheduler service listening');
    procs.push(server);
    writeFileSync(
      join(dir, 'client.hcl'),
      `data_dir = "${dir}/client"\nname = "bench-client"\nports { http = 0 }\n` +
        `client {\n  enabled = true\n  servers = ["${new URL(server.url).host}"]\n  cpu_total_compute = 10000\n  memory_total_mb = 16384\n` +
        `  template {\n    wait {\n      min = "0s"\n      max = "0s"\n    }\n  }\n}\n` +
        `plugin "raw_exec" {\n  config { enabled = true }\n}\nconsul {\n  address = "${mesh.url}"\n}\n`,
    );
    const client = await startCairnProcess(
      ['sched', 'agent', '--config', join(dir, 'client.hcl')],
      clientNodeOptions ? { NODE_OPTIONS: clientNodeOptions } : {},
      'scheduler client-only agent listening',
    );
    procs.push(client);
    const base = server.url;
    await until('the client node ready', 30_000, async () =>
      (await schedApi<{ Status: string }[]>(base, 'GET', '/v1/nodes')).some((n) => n.Status === 'ready') ? true : undefined,
    );
    const allocRoot = join(dir, 'client', 'alloc');
    return {
      client,
      async putKey(key, value) {
        const r = await fetch(`${mesh.url}/v1/kv/${key}`, { method: 'PUT', body: value });
        const text = await r.text();
        if (r.status !== 200) throw new Error(`PUT /v1/kv/${key}: ${r.status} ${text}`);
      },
      async runJob(id, groups) {
        await schedApi(base, 'POST', '/v1/jobs', { Job: jobDoc(id, groups) });
        const total = groups.reduce((a, g) => a + g.count, 0);
        const allocs = await until(`${id}: ${total} allocations running`, 180_000, async () => {
          const all = (await schedApi<AllocStub[]>(base, 'GET', `/v1/job/${id}/allocations`)).filter((a) => a.DesiredStatus === 'run');
          return all.length === total && all.every((a) => a.ClientStatus === 'running') ? all : undefined;
        });
        const templated = new Set(groups.flatMap((g, i) => (g.key === undefined ? [] : [`g${String(i).padStart(3, '0')}`])));
        const files = allocs.filter((a) => templated.has(a.TaskGroup)).map((a) => join(allocRoot, a.ID, 't', DEST));
        if (files.length > 0 && !existsSync(join(allocRoot, allocs[0]!.ID))) throw new Error(`no allocation directory under ${allocRoot}`);
        return { files };
      },
      async purgeJob(id) {
        await schedApi(base, 'DELETE', `/v1/job/${id}?purge=true`);
        await until(`${id}'s tasks stopped`, 120_000, async () =>
          (await schedApi<AllocStub[]>(base, 'GET', '/v1/allocations')).every((a) => a.ClientStatus !== 'running') ? true : undefined,
        );
      },
      clientCpu() {
        const v = cpuSeconds(client.child.pid!);
        if (v === undefined) throw new Error(`no /proc/${client.child.pid}/stat: the CPU figures need Linux`);
        return v;
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** The content of `file`, or undefined while it is not there. */
export function readRendered(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
