/**
 * Issue 26 end to end as a user runs it, every step a real process: `cairn dev` (scheduler
 * with its dev client, discovery service and its DNS server, gateway controller and worker),
 * job files run and stopped with `cairn sched job run|stop`, tasks that are real
 * `python3 -m http.server ${CAIRN_PORT_http}` processes.
 *
 * - Three instances of a group service with an HTTP check: three distinct dynamic ports, the
 *   same as the allocations' `AllocatedResources.Shared.Ports`; three passing instances in
 *   `/v1/health/service/web`, tagged with the node's datacenter (`${node.datacenter}`);
 *   `dig … web.service.cairn SRV` answers with the same ports and A records with the address.
 *   A task killed from outside (`kill -9`) turns its check critical and is restarted (a new
 *   process on the same port, `Terminated`/`Restarting` events, passing again);
 *   `cairn sched job stop` removes every instance from the catalog within 2 s.
 * - The reference's discovery client libraries (the `consul` npm package and Debian's
 *   `python3-consul`, through the header-renaming proxy of test/mesh/reference-clients.test.ts)
 *   see the job's passing instances.
 * - A gateway target over a `consul` plugin host catalog whose service is a job's:
 *   `cairn gateway connect` reaches the job's HTTP server; after the job is moved by a drain
 *   of the dev node (`cairn sched node drain -enable`) to a second, client-only agent (a new
 *   allocation, another port), the next connect reaches the new allocation.
 */
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import Consul from 'consul';
import { CAIRN_BIN } from '../bin.js';
import { dig } from '../mesh/dig.js';
import { startHeaderProxy } from '../mesh/header-proxy.js';
import { spawnCairn, startCairnProcess, stopGracefully, until, type ServerProcess } from '../processes.js';

const ROOT = 'services-e2e-root-token';

/** A job of `count` python HTTP servers, each serving a page with its allocation ID, as group service `service` with an HTTP check. */
const jobFile = (job: string, service: string, count: number) => `job "${job}" {
  group "web" {
    count = ${count}
    restart {
      attempts = 3
      interval = "5m"
      delay    = "3s"
      mode     = "fail"
    }
    network {
      port "http" {}
    }
    service {
      name = "${service}"
      port = "http"
      tags = ["\${node.datacenter}"]
      check {
        type     = "http"
        path     = "/"
        interval = "1s"
        timeout  = "1s"
        check_restart {
          limit = 3
          grace = "5s"
        }
      }
    }
    task "server" {
      driver = "raw_exec"
      config {
        command = "/bin/sh"
        args    = ["-c", "echo \\"$CAIRN_ALLOC_ID\\" > \\"$CAIRN_TASK_DIR/index.html\\" && exec /usr/bin/python3 -m http.server \${CAIRN_PORT_http} --bind \${CAIRN_IP_http} --directory \\"$CAIRN_TASK_DIR\\""]
      }
      resources {
        cpu    = 50
        memory = 64
      }
    }
  }
}
`;

type HealthEntry = {
  Node: { Node: string };
  Service: { ID: string; Service: string; Address: string; Port: number; Tags: string[] };
  Checks: { Status: string }[];
};
type Alloc = {
  ID: string;
  ClientStatus: string;
  DesiredStatus: string;
  AllocatedResources: { Shared: { Ports: { Label: string; Value: number; HostIP: string }[] } };
  TaskStates?: Record<string, { State: string; Restarts: number; Events: { Type: string }[] }>;
};

/** `cairn <args>` as its own process: its exit code and output. */
async function cairn(args: string[], env: Record<string, string>): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const run = spawnCairn(args, env);
  const code = await run.exited;
  return { code, ...run.out };
}

/** The PIDs of the python servers listening on `port` (read from /proc, as `ps` does). */
function serverPids(port: number): number[] {
  const pids: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // gone meanwhile
    }
    if (argv[0] === '/usr/bin/python3' && argv.includes('http.server') && argv.includes(String(port))) pids.push(Number(d));
  }
  return pids;
}

/** `GET /` through a local port, as raw HTTP/1.0; the whole reply. */
async function getThrough(port: number): Promise<string> {
  const sock = net.connect(port, '127.0.0.1');
  sock.write('GET / HTTP/1.0\r\n\r\n');
  return new Promise<string>((resolve, reject) => {
    let got = '';
    sock.on('data', (d) => (got += String(d)));
    sock.once('close', () => resolve(got));
    sock.once('error', reject);
  });
}

describe('scheduled workloads found through discovery, DNS and the gateway (cairn dev, real processes)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cairn-svc-e2e-'));
  const printed: Record<string, string> = {};
  let dev: ChildProcess;
  let sched: Record<string, string>;

  /** GET on the discovery service as the root token. */
  const meshGet = async <T>(path: string): Promise<T> => {
    const r = await fetch(`${printed.Discovery}/v1/${path}`, { headers: { 'X-Mesh-Token': ROOT } });
    assert.equal(r.status, 200, `${path}: ${r.status}`);
    return (await r.json()) as T;
  };
  /** GET on the scheduler as the root token. */
  const schedGet = async <T>(path: string): Promise<T> => {
    const r = await fetch(`${printed.Scheduler}/v1/${path}`, { headers: { 'X-Sched-Token': ROOT } });
    assert.equal(r.status, 200, `${path}: ${r.status}`);
    return (await r.json()) as T;
  };
  /** Writes the job file and runs it with the CLI (which follows the evaluation). */
  const runJob = async (job: string, service: string, count: number) => {
    const file = join(dataDir, `${job}.hcl`);
    writeFileSync(file, jobFile(job, service, count));
    const r = await cairn(['sched', 'job', 'run', file], sched);
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  };
  /** The job's running allocations once there are `count` of them. */
  const runningAllocs = (job: string, count: number) =>
    until(`${count} running allocations of ${job}`, 60_000, async () => {
      const stubs = await schedGet<{ ID: string; ClientStatus: string; DesiredStatus: string }[]>(`job/${job}/allocations`);
      const live = stubs.filter((a) => a.DesiredStatus === 'run' && a.ClientStatus === 'running');
      return live.length === count ? Promise.all(live.map((a) => schedGet<Alloc>(`allocation/${a.ID}`))) : undefined;
    });
  const passing = (service: string) => meshGet<HealthEntry[]>(`health/service/${service}?passing`);
  /** A client-only agent `mover` joining the dev scheduler, registering through the dev discovery agent, dynamic ports 25300–25399. */
  const moverAgent = (): Promise<ServerProcess> => {
    const dir = join(dataDir, 'mover');
    mkdirSync(dir, { recursive: true });
    const hcl = [
      `data_dir = "${dir}/data"`,
      'name = "mover"',
      'ports { http = 0 }',
      'client {',
      '  enabled = true',
      `  servers = ["${new URL(printed.Scheduler!).host}"]`,
      `  token = "${ROOT}"`,
      '  network_interface = "lo"',
      '  min_dynamic_port = 25300',
      '  max_dynamic_port = 25399',
      '}',
      'plugin "raw_exec" {\n  config { enabled = true }\n}',
      `consul {\n  address = "${printed.Discovery}"\n  token = "${ROOT}"\n}`,
    ].join('\n');
    writeFileSync(join(dir, 'agent.hcl'), hcl);
    return startCairnProcess(['sched', 'agent', '--config', join(dir, 'agent.hcl')], {}, 'scheduler client-only agent listening');
  };
  const dnsPort = () => Number(printed['Discovery DNS']!.split(':')[1]);

  before(async () => {
    const ports = ['secrets', 'gateway-api', 'gateway-cluster', 'gateway-proxy', 'gateway-ops', 'mesh', 'mesh-dns', 'sched'].map(
      (p) => `-${p}-address=127.0.0.1:0`,
    );
    dev = spawn(process.execPath, [CAIRN_BIN, 'dev', `-data-dir=${dataDir}`, `-dev-root-token-id=${ROOT}`, ...ports], { stdio: ['ignore', 'pipe', 'ignore'] });
    await new Promise<void>((resolve, reject) => {
      dev.once('exit', (c) => reject(new Error(`cairn dev exited with ${c}`)));
      createInterface({ input: dev.stdout! }).on('line', (line) => {
        const m = /^ {4}(Discovery|Discovery DNS|Scheduler|Gateway api|Gateway token|Gateway target): +(\S+)/.exec(line);
        if (m) printed[m[1]!] = m[2]!;
        if (line.startsWith('Press Ctrl-C')) resolve();
      });
    });
    sched = { SCHED_ADDR: printed.Scheduler!, SCHED_TOKEN: ROOT };
  });
  after(() => {
    // SIGTERM: the dev server stops its client, which kills the tasks it runs.
    dev?.kill('SIGTERM');
    return new Promise<void>((resolve) => {
      if (!dev || dev.exitCode !== null || dev.signalCode !== null) return resolve();
      const force = setTimeout(() => dev.kill('SIGKILL'), 20_000);
      dev.once('exit', () => {
        clearTimeout(force);
        rmSync(dataDir, { recursive: true, force: true });
        resolve();
      });
    });
  });

  it(
    'three python servers: distinct ports in health and DNS SRV; a task killed from outside restarts; job stop empties the catalog within 2 s',
    { timeout: 240_000 },
    async () => {
      await runJob('web', 'web', 3);
      const allocs = await runningAllocs('web', 3);
      const ports = allocs.map((a) => a.AllocatedResources.Shared.Ports.find((p) => p.Label === 'http')!);
      assert.equal(new Set(ports.map((p) => p.Value)).size, 3, `three distinct ports: ${JSON.stringify(ports)}`);
      const want = ports.map((p) => p.Value).sort();
      const address = ports[0]!.HostIP;

      const instances = await until('three passing instances of web', 60_000, async () => {
        const h = await passing('web');
        return h.length === 3 ? h : undefined;
      });
      assert.deepEqual(instances.map((e) => e.Service.Port).sort(), want, "the instances' ports are the allocations' dynamic ports");
      assert.deepEqual(
        instances.map((e) => [e.Service.Address, e.Service.Tags]),
        instances.map(() => [address, ['dc1']]),
        "the address is the port's, the tag the node's datacenter (${node.datacenter})",
      );
      // Each instance is its own allocation's server (it serves a page holding its allocation ID).
      for (const [i, p] of ports.entries()) assert.equal((await (await fetch(`http://${p.HostIP}:${p.Value}/`)).text()).trim(), allocs[i]!.ID);

      // DNS: SRV answers with the same three ports, the A records of their targets carry the address.
      const srv = await until('three SRV records for web', 10_000, async () => {
        const r = await dig(dnsPort(), 'web.service.cairn', 'SRV');
        return r.answer.length === 3 ? r : undefined;
      });
      assert.deepEqual(srv.answer.map((x) => Number(x.data.split(' ')[2])).sort(), want, srv.text);
      assert.ok(
        srv.additional.some((x) => x.type === 'A' && x.data === address),
        srv.text,
      );
      const a = await dig(dnsPort(), 'web.service.cairn', 'A');
      assert.deepEqual([...new Set(a.answer.map((x) => x.data))], [address], a.text);

      // A task killed from outside: its check turns critical, the task is restarted on its port.
      const victim = allocs[0]!;
      const port = victim.AllocatedResources.Shared.Ports[0]!.Value;
      const [pid] = await until('the python server of the first allocation', 10_000, () => {
        const p = serverPids(port);
        return p.length === 1 ? p : undefined;
      });
      process.kill(pid!, 'SIGKILL');
      await until("the killed instance's check critical", 10_000, async () => {
        const all = await meshGet<HealthEntry[]>('health/service/web');
        const mine = all.find((e) => e.Service.Port === port);
        return mine?.Checks.some((c) => c.Status === 'critical') ? true : undefined;
      });
      const [newPid] = await until('a new python server on the same port', 30_000, () => {
        const p = serverPids(port);
        return p.length === 1 && p[0] !== pid ? p : undefined;
      });
      assert.notEqual(newPid, pid);
      const restarted = await until('the task restarted once, running', 30_000, async () => {
        const s = (await schedGet<Alloc>(`allocation/${victim.ID}`)).TaskStates?.server;
        return s && s.Restarts >= 1 && s.State === 'running' ? s : undefined;
      });
      const types = restarted.Events.map((e) => e.Type);
      assert.ok(types.indexOf('Terminated') < types.lastIndexOf('Restarting') && types.lastIndexOf('Restarting') < types.lastIndexOf('Started'), types.join());
      await until('three passing instances again', 30_000, async () => ((await passing('web')).length === 3 ? true : undefined));

      // job stop: every instance leaves the catalog within 2 s of the stop being accepted.
      const stop = await cairn(['sched', 'job', 'stop', '-detach', 'web'], sched);
      assert.equal(stop.code, 0, stop.stderr);
      await until('no instance of web in the catalog', 2_000, async () => ((await meshGet<unknown[]>('health/service/web')).length === 0 ? true : undefined));
      const gone = await until('no SRV record for web', 5_000, async () => {
        const r = await dig(dnsPort(), 'web.service.cairn', 'SRV');
        return r.answer.length === 0 ? r : undefined;
      });
      assert.equal(gone.status, 'NXDOMAIN', gone.text);
    },
  );

  it("the README tour's job file runs as written and dig finds its two instances", { timeout: 180_000 }, async () => {
    const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
    const hcl = /cat > hello\.hcl <<'EOF2'\n([^]*?)\nEOF2\n/.exec(readme)?.[1];
    assert.ok(hcl, 'the README writes hello.hcl');
    const file = join(dataDir, 'hello.hcl');
    writeFileSync(file, hcl);
    const run = await cairn(['sched', 'job', 'run', file], sched);
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    const allocs = await runningAllocs('hello', 2);
    const want = allocs.map((a) => a.AllocatedResources.Shared.Ports[0]!.Value).sort();
    // The instances' address is the port's (the client's network address, not the dev node's
    // 127.0.0.1), so the SRV target is the reference's `<address in hex>.addr.<dc>.<domain>.`.
    const address = allocs[0]!.AllocatedResources.Shared.Ports[0]!.HostIP;
    const target = `${address
      .split('.')
      .map((n) => Number(n).toString(16).padStart(2, '0'))
      .join('')}.addr.dc1.cairn.`;
    const srv = await until('two SRV records for hello', 60_000, async () => {
      const r = await dig(dnsPort(), 'hello.service.cairn', 'SRV');
      return r.answer.length === 2 ? r : undefined;
    });
    assert.deepEqual(
      srv.answer
        .map((x) => x.data.split(' '))
        .map(([prio, weight, port, target]) => [prio, weight, Number(port), target])
        .sort((x, y) => Number(x[2]) - Number(y[2])),
      want.map((p) => ['1', '1', p, target]),
      srv.text,
    );
    // One A record per instance (the reference repeats it for each instance of one address).
    assert.deepEqual(
      srv.additional.map((x) => [x.name, x.type, x.data]),
      want.map(() => [target, 'A', address]),
      srv.text,
    );
    const stop = await cairn(['sched', 'job', 'stop', 'hello'], sched);
    assert.equal(stop.code, 0, stop.stderr);
    await until('hello gone from DNS', 10_000, async () => ((await dig(dnsPort(), 'hello.service.cairn', 'SRV')).answer.length === 0 ? true : undefined));
  });

  it("the reference's client libraries (consul npm, python3-consul) see the job's passing instances", { timeout: 180_000 }, async (t) => {
    await runJob('api', 'api', 2);
    const allocs = await runningAllocs('api', 2);
    const want = allocs.map((a) => a.AllocatedResources.Shared.Ports[0]!.Value).sort();
    await until('two passing instances of api', 60_000, async () => ((await passing('api')).length === 2 ? true : undefined));
    const proxy = await startHeaderProxy(printed.Discovery!);
    const consul = new Consul({ host: '127.0.0.1', port: proxy.port, defaults: { token: ROOT } });
    t.after(async () => {
      consul.destroy();
      await proxy.close();
    });

    const npm = (await consul.health.service({ service: 'api', passing: true })) as unknown as HealthEntry[];
    assert.deepEqual(npm.map((e) => e.Service.Port).sort(), want);
    assert.ok(npm.every((e) => e.Service.ID.startsWith('_cairn-task-') && e.Checks.every((c) => c.Status === 'passing')));
    const services = (await consul.catalog.service.list()) as unknown as Record<string, string[]>;
    assert.deepEqual(services.api, ['dc1']);

    const script = [
      'import json, os, consul',
      'c = consul.Consul(host="127.0.0.1", port=int(os.environ["PROXY_PORT"]), token=os.environ["MESH_TOKEN"])',
      '_, nodes = c.health.service("api", passing=True)',
      'print(json.dumps(sorted([n["Service"]["Port"], n["Service"]["Meta"]["cairn-alloc-id"]] for n in nodes)))',
    ].join('\n');
    const { stdout } = await promisify(execFile)('/usr/bin/python3', ['-c', script], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PROXY_PORT: String(proxy.port), MESH_TOKEN: ROOT },
      timeout: 60_000,
    });
    const py = JSON.parse(stdout) as [number, string][];
    assert.deepEqual(
      py,
      allocs.map((a) => [a.AllocatedResources.Shared.Ports[0]!.Value, a.ID]).sort((x, y) => Number(x[0]) - Number(y[0])),
    );

    const stop = await cairn(['sched', 'job', 'stop', 'api'], sched);
    assert.equal(stop.code, 0, stop.stderr);
    await until('api gone for the npm client', 10_000, async () =>
      ((await consul.health.service({ service: 'api' })) as unknown[]).length === 0 ? true : undefined,
    );
  });

  it('a gateway target over a discovery host catalog reaches the job, and its new allocation after the job moves', { timeout: 300_000 }, async (t) => {
    const env = { GATEWAY_ADDR: printed['Gateway api']!, GATEWAY_TOKEN: printed['Gateway token']! };
    const api = async (method: string, path: string, body?: unknown) => {
      const r = await fetch(`${env.GATEWAY_ADDR}/v1/${path}`, {
        method,
        headers: { Authorization: `Bearer ${env.GATEWAY_TOKEN}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await r.text();
      assert.equal(r.status, 200, `${method} ${path}: ${text}`);
      return JSON.parse(text) as { id: string; version: number; scope_id: string; host_ids?: string[] };
    };
    /** The set's hosts' ports once they are `want`. */
    const setPorts = (set: string, want: number[]) =>
      until(`the host set holds ports ${want.join()}`, 30_000, async () => {
        const ids = (await api('GET', `host-sets/${set}`)).host_ids ?? [];
        const hosts = await Promise.all(ids.map((id) => api('GET', `hosts/${id}`) as Promise<unknown> as Promise<{ attributes: { port: number } }>));
        return hosts.map((h) => h.attributes.port).join() === want.join() ? true : undefined;
      });
    /** `cairn gateway connect` to the target: the body one HTTP request through it gets. */
    const connectAndGet = async (target: string) => {
      const run = spawnCairn(['gateway', 'connect', `-target-id=${target}`, '-listen-port=0'], env);
      t.after(() => run.child.kill('SIGKILL'));
      const info = await until('connect prints its listener', 60_000, () => (/Port: +\d+/.test(run.out.stdout) ? run.out.stdout : undefined)).catch(
        (err: Error) => {
          throw new Error(`${err.message}\nstdout: ${run.out.stdout}\nstderr: ${run.out.stderr}`);
        },
      );
      const reply = await getThrough(Number(/Port: +(\d+)/.exec(info)![1]));
      run.child.kill('SIGINT');
      assert.equal(await run.exited, 0, run.out.stderr);
      assert.match(reply, /^HTTP\/1\.0 200 /, reply);
      return reply.split('\r\n\r\n')[1]!.trim();
    };
    /** Runs the job and waits for its one instance passing; its allocation and port. */
    const place = async () => {
      await runJob('shop', 'shop', 1);
      const [alloc] = await runningAllocs('shop', 1);
      const port = alloc!.AllocatedResources.Shared.Ports[0]!.Value;
      await until('shop passing', 60_000, async () => ((await passing('shop')).map((e) => e.Service.Port).join() === String(port) ? true : undefined));
      return { alloc: alloc!, port };
    };

    const first = await place();
    const { scope_id: project } = await api('GET', `targets/${printed['Gateway target']}`);
    const catalog = await api('POST', 'host-catalogs', {
      scope_id: project,
      type: 'plugin',
      plugin_name: 'consul',
      name: 'jobs',
      attributes: { address: printed.Discovery },
      secrets: { token: ROOT },
    });
    const set = await api('POST', 'host-sets', { host_catalog_id: catalog.id, name: 'shop', attributes: { service_name: 'shop' } });
    const target = await api('POST', 'targets', { scope_id: project, type: 'tcp', name: 'shop', attributes: { default_port: 1 } });
    await api('POST', `targets/${target.id}:add-host-sources`, { version: target.version, host_source_ids: [set.id] });
    await setPorts(set.id, [first.port]);
    assert.equal(await connectAndGet(target.id), first.alloc.ID, "the job's server answers with its allocation's ID");

    // The job moves: a second client joins (a client-only agent registering through the dev
    // discovery agent, its own port range) and the dev node is drained.
    const mover = await moverAgent();
    t.after(() => stopGracefully(mover));
    const nodes = await until('two ready nodes', 60_000, async () => {
      const list = await schedGet<{ ID: string; Name: string; Status: string }[]>('nodes');
      return list.filter((n) => n.Status === 'ready').length === 2 ? list : undefined;
    });
    const devNode = nodes.find((n) => n.Name !== 'mover')!;
    const drain = await cairn(['sched', 'node', 'drain', '-enable', devNode.ID], sched);
    assert.equal(drain.code, 0, `${drain.stdout}\n${drain.stderr}`);
    const [moved] = await until('the allocation moved to the second client', 120_000, async () => {
      const [a] = await runningAllocs('shop', 1);
      return a!.ID !== first.alloc.ID ? [a!] : undefined;
    });
    const second = { alloc: moved!, port: moved!.AllocatedResources.Shared.Ports[0]!.Value };
    assert.ok(second.port >= 25300 && second.port <= 25399, `the second client's port: ${second.port}`);
    assert.equal((await schedGet<{ NodeID: string }>(`allocation/${second.alloc.ID}`)).NodeID, nodes.find((n) => n.Name === 'mover')!.ID);
    await until('the moved instance alone passing', 60_000, async () =>
      (await passing('shop')).map((e) => e.Service.Port).join() === String(second.port) ? true : undefined,
    );
    await setPorts(set.id, [second.port]);
    assert.equal(await connectAndGet(target.id), second.alloc.ID, 'the next connect reaches the new allocation');
  });
});
