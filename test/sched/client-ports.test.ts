/**
 * Group ports end to end with real processes (issue 26 scope 1 "Tests"): a server and a
 * client-only agent (`cairn sched agent`), the client with its own dynamic port range, reserved
 * ports and `network_interface = "lo"`. A job file of three `python3 -m http.server` tasks on
 * `${CAIRN_PORT_http}`, run with `cairn sched job run`, gets three distinct ports of the range,
 * each task serves on its own (fetched), its environment carries the `CAIRN_*_http` variables
 * and interpolated node values, and `cairn sched alloc status` prints the addresses. A second
 * job asking for a static port the first one holds is blocked with the reason.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { cliRunner } from '../cli-helpers.js';
import { startCairnProcess, stopGracefully, until, type ServerProcess } from '../processes.js';
import { call } from './helpers.js';

/** Three web servers on dynamic ports, and a static port `admin`; each task writes its environment, then serves its directory. */
const WEB_HCL = (adminPort: number) => `job "web" {
  group "web" {
    count = 3
    network {
      port "http" {}
      port "admin" {
        static = ${adminPort}
      }
    }
    task "server" {
      driver = "raw_exec"
      env {
        RACK      = "\${meta.rack}"
        KERNEL    = "\${attr.kernel.name}"
        MY_ADDR   = "\${CAIRN_ADDR_http}"
      }
      config {
        command = "/bin/sh"
        args    = ["-c", "env > local/env.txt; exec python3 -m http.server \\"$1\\" --bind \\"$2\\"", "sh", "\${CAIRN_PORT_http}", "\${CAIRN_IP_http}"]
      }
      resources {
        cpu    = 20
        memory = 32
      }
    }
  }
}
`;

describe('scheduler ports end to end: a server and a client-only agent', () => {
  const root = mkdtempSync(join(tmpdir(), 'cairn-ports-'));
  const procs: ServerProcess[] = [];
  let base = '';
  const { ok, cairn } = cliRunner({ env: () => ({ SCHED_ADDR: base }), rootEnv: () => ({}) });
  after(async () => {
    // The client first and gracefully: it stops its tasks (a SIGKILL would leave the three servers running).
    for (const p of [...procs].reverse()) await stopGracefully(p);
    rmSync(root, { recursive: true, force: true });
  });

  async function agent(name: string, hcl: string, ready: string): Promise<ServerProcess> {
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'agent.hcl'), `data_dir = "${dir}/data"\nname = "${name}"\nports { http = 0 }\n${hcl}`);
    const p = await startCairnProcess(['sched', 'agent', '--config', join(dir, 'agent.hcl')], {}, ready);
    procs.push(p);
    return p;
  }

  it('gives three tasks distinct ports they serve on, prints them, and blocks a second taker of a static port', { timeout: 120_000 }, async () => {
    const server = await agent('server', '', 'scheduler service listening');
    base = server.url;
    await agent(
      'client',
      [
        'client {',
        '  enabled = true',
        `  servers = ["${new URL(base).host}"]`,
        '  network_interface = "lo"',
        '  min_dynamic_port = 24000',
        '  max_dynamic_port = 24999',
        '  reserved {',
        '    reserved_ports = "24000-24009"',
        '  }',
        '  meta {',
        '    rack = "r7"',
        '  }',
        '}',
        'plugin "raw_exec" {',
        '  config { enabled = true }',
        '}',
      ].join('\n'),
      'scheduler client-only agent listening',
    );
    const node = await until('the node ready', 30_000, async () => {
      const list = (await call(base, 'GET', '/v1/nodes')).json as { ID: string; Status: string }[];
      return list.find((n) => n.Status === 'ready');
    });
    const full = (await call(base, 'GET', `/v1/node/${node.ID}`)).json;
    assert.deepEqual([full.NodeResources.MinDynamicPort, full.NodeResources.MaxDynamicPort], [24000, 24999]);
    assert.equal(full.NodeResources.NodeNetworks[0].Addresses[0].Address, '127.0.0.1');
    assert.equal(full.ReservedResources.Networks.ReservedHostPorts, '24000-24009');

    const file = join(root, 'web.hcl');
    writeFileSync(file, WEB_HCL(24500));
    const run = await cairn({}, ['sched', 'job', 'run', '-detach', file]);
    assert.equal(run.code, 0, run.stderr);
    // count = 3 with one static port on a one-node cluster: only one fits, the other two wait on the port.
    type Alloc = {
      ID: string;
      ClientStatus: string;
      DesiredStatus: string;
      AllocatedResources: { Shared: { Ports: { Label: string; Value: number; HostIP: string }[] } };
    };
    const [first] = await until('one web allocation running', 30_000, async () => {
      const l = ((await call(base, 'GET', '/v1/job/web/allocations')).json as { ID: string; ClientStatus: string }[]).filter(
        (a) => a.ClientStatus === 'running',
      );
      return l.length === 1 ? l : undefined;
    });
    const evals = (await call(base, 'GET', '/v1/job/web/evaluations')).json as {
      FailedTGAllocs: Record<string, { DimensionExhausted: Record<string, number> }> | null;
    }[];
    const failed = evals.find((e) => e.FailedTGAllocs)?.FailedTGAllocs?.web;
    assert.deepEqual(failed?.DimensionExhausted, { 'network: reserved port collision admin=24500': 1 });
    assert.equal((await call(base, 'GET', `/v1/allocation/${first!.ID}`)).json.AllocatedResources.Shared.Ports[0].Value, 24500);

    // Without the static port all three run, each on its own port of the range.
    writeFileSync(file, WEB_HCL(24500).replace(/ {6}port "admin" \{\n {8}static = 24500\n {6}\}\n/, ''));
    assert.equal((await cairn({}, ['sched', 'job', 'run', '-detach', file])).code, 0);
    const allocs = await until('three web allocations running', 60_000, async () => {
      const stubs = (await call(base, 'GET', '/v1/job/web/allocations')).json as { ID: string; ClientStatus: string; DesiredStatus: string }[];
      const live = stubs.filter((a) => a.DesiredStatus === 'run' && a.ClientStatus === 'running');
      if (live.length !== 3) return undefined;
      return Promise.all(live.map(async (a) => (await call(base, 'GET', `/v1/allocation/${a.ID}`)).json as Alloc));
    });
    const ports = allocs.map((a) => a.AllocatedResources.Shared.Ports[0]!);
    assert.deepEqual(
      ports.map((p) => [p.Label, p.HostIP]),
      [
        ['http', '127.0.0.1'],
        ['http', '127.0.0.1'],
        ['http', '127.0.0.1'],
      ],
    );
    assert.equal(new Set(ports.map((p) => p.Value)).size, 3, 'three distinct ports');
    for (const p of ports) assert.ok(p.Value >= 24010 && p.Value <= 24999, `${p.Value} in the range, not reserved`);

    // Each task serves on its port; the file it serves is the environment it was given.
    for (const p of ports) {
      const env = await until(`the server on ${p.Value}`, 30_000, async () => {
        const r = await fetch(`http://127.0.0.1:${p.Value}/local/env.txt`).catch(() => undefined);
        return r?.status === 200 ? r.text() : undefined;
      });
      const vars = Object.fromEntries(env.split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
      assert.equal(vars.CAIRN_PORT_http, String(p.Value));
      assert.equal(vars.CAIRN_HOST_PORT_http, String(p.Value));
      assert.equal(vars.CAIRN_IP_http, '127.0.0.1');
      assert.equal(vars.CAIRN_ADDR_http, `127.0.0.1:${p.Value}`);
      assert.equal(vars.MY_ADDR, `127.0.0.1:${p.Value}`);
      assert.equal(vars.RACK, 'r7');
      assert.equal(vars.KERNEL, 'linux');
    }

    // alloc status prints the reference's address table.
    const status = await ok('sched', 'alloc', 'status', allocs[0]!.ID);
    assert.match(status, /^Allocation Addresses:\nLabel +Dynamic +Address\nhttp +yes +127\.0\.0\.1:(\d+)$/m);
    assert.equal(Number(/127\.0\.0\.1:(\d+)$/m.exec(status)![1]), ports[0]!.Value);
  });
});
