/**
 * CSI volumes on client-only agents (issue 19 scope 4), end to end with real processes: a
 * server agent drives the hostpath plugin's controller; client-only agent `a` runs the
 * hostpath plugin as a node plugin on its own socket (sharing the plugin's root, one
 * machine) and reports it in its node registration (`CSINodePlugins`); client-only agent
 * `b` has no node plugin. The plugin shows node `a` (`NodesHealthy` 1); a batch job claiming
 * the volume is placed on `a` (staged and published through `a`'s own socket, the volume read
 * from the servers with the node secret) and writes a file; a second job reads it; the
 * targets are unpublished when they end; a volume job held to `b` is not placed. Every wait
 * is on a condition.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { killTasksUnder, spawnCairn, startCairnProcess, until, type CairnRun, type ServerProcess } from '../processes.js';
import { job, shTask } from './client-helpers.js';
import { volumeBody } from './csi.js';
import { call } from './helpers.js';

describe('CSI volumes on client-only agents', () => {
  const root = mkdtempSync(join(tmpdir(), 'cairn-csi-client-'));
  const procs: ServerProcess[] = [];
  const plugins: CairnRun[] = [];
  after(async () => {
    for (const p of procs) await p.kill();
    for (const p of plugins) {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
      await p.exited;
    }
    killTasksUnder(root); // tasks of agents killed with SIGKILL
    rmSync(root, { recursive: true, force: true });
  });

  /** Starts `cairn csi hostpath` on `socket` over the shared volume root, as plugin node `nodeId`; resolves once its socket exists. */
  async function hostpath(socket: string, nodeId: string): Promise<void> {
    const p = spawnCairn(['csi', 'hostpath', `--socket=${socket}`, `--root=${join(root, 'volumes')}`, `--node-id=${nodeId}`], {});
    plugins.push(p);
    await until(`hostpath plugin on ${socket}`, 20_000, () => existsSync(socket) || undefined);
  }

  /** Writes `name.hcl` and starts `cairn sched agent` on it. */
  async function agent(name: string, hcl: string, ready: string): Promise<ServerProcess> {
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'agent.hcl'), `data_dir = "${dir}/data"\nname = "${name}"\nports { http = 0 }\n${hcl}`);
    const p = await startCairnProcess(['sched', 'agent', '--config', join(dir, 'agent.hcl')], {}, ready);
    procs.push(p);
    return p;
  }

  it('mounts through the client-only node plugin, shows the node on the plugin, never places on a node without it', { timeout: 150_000 }, async () => {
    const ctrlSock = join(root, 'ctrl.sock');
    const nodeSock = join(root, 'node-a.sock');
    await Promise.all([hostpath(ctrlSock, 'server-host'), hostpath(nodeSock, 'plugin-node-a')]);
    const server = await agent(
      'server',
      `acl { enabled = true }\nplugin "hostpath" {\n  type = "controller"\n  socket = "${ctrlSock}"\n}`,
      'scheduler service listening',
    );
    const base = server.url;
    const boot = await call(base, 'POST', '/v1/acl/bootstrap');
    assert.equal(boot.status, 200, boot.text);
    const token = boot.json.SecretID as string;
    const clientHcl = (extra: string) =>
      `client {\n  enabled = true\n  servers = ["${new URL(base).host}"]\n  token = "${token}"\n}\nplugin "raw_exec" {\n  config { enabled = true }\n}\n${extra}`;
    await Promise.all([
      agent('a', clientHcl(`plugin "hostpath" {\n  type = "node"\n  socket = "${nodeSock}"\n}`), 'scheduler client-only agent listening'),
      agent('b', clientHcl(''), 'scheduler client-only agent listening'),
    ]);
    const nodes = await until('two ready nodes', 30_000, async () => {
      const ready = ((await call(base, 'GET', '/v1/nodes', { token })).json as { Status: string; Name: string; ID: string }[]).filter(
        (n) => n.Status === 'ready',
      );
      return ready.length === 2 ? Object.fromEntries(ready.map((n) => [n.Name, n.ID])) : undefined;
    });

    // The node's registration carried its node plugin; the servers put it on the plugin.
    const node = (await call(base, 'GET', `/v1/node/${nodes.a}`, { token })).json;
    assert.equal(node.CSINodePlugins.hostpath.Healthy, true, JSON.stringify(node.CSINodePlugins));
    assert.equal(node.CSINodePlugins.hostpath.NodeInfo.ID, 'plugin-node-a');
    assert.equal((await call(base, 'GET', `/v1/node/${nodes.b}`, { token })).json.CSINodePlugins, null);
    const plugin = await until('the plugin with its controller and node a', 30_000, async () => {
      const p = (await call(base, 'GET', '/v1/plugin/csi/hostpath', { token })).json;
      return p.ControllersHealthy === 1 && p.NodesHealthy === 1 ? p : undefined;
    });
    assert.deepEqual(Object.keys(plugin.Nodes), [nodes.a]);
    assert.equal(plugin.Nodes[nodes.a].NodeInfo.RequiresNodeStageVolume, true);

    const vol = await call(base, 'PUT', '/v1/volume/csi/shared/create', { token, body: volumeBody('shared', 'hostpath') });
    assert.equal(vol.status, 200, vol.text);
    // The node-facing volume read takes only a node's own secret.
    assert.equal((await call(base, 'GET', `/v1/node/${nodes.a}/volume/csi/shared`, { token })).status, 403);

    const claimer = (id: string, script: string, constraint?: Record<string, unknown>) => {
      const j = job(id, [shTask('t', script, { VolumeMounts: [{ Volume: 'data', Destination: '/srv/data', ReadOnly: false }] })], { type: 'batch' }) as {
        TaskGroups: Record<string, unknown>[];
      };
      j.TaskGroups[0]!.Volumes = { data: { Name: 'data', Type: 'csi', Source: 'shared', AccessMode: 'single-node-writer', AttachmentMode: 'file-system' } };
      if (constraint) j.TaskGroups[0]!.Constraints = [constraint];
      return j;
    };
    type Alloc = { ID: string; NodeID: string; ClientStatus: string; TaskStates: unknown };
    const run = async (id: string, script: string): Promise<{ alloc: Alloc; log: string }> => {
      const r = await call(base, 'POST', '/v1/jobs', { token, body: { Job: claimer(id, script) } });
      assert.equal(r.status, 200, r.text);
      const alloc = await until(`${id} finished`, 60_000, async () => {
        const list = (await call(base, 'GET', `/v1/job/${id}/allocations`, { token })).json as Alloc[];
        return list.find((a) => a.ClientStatus === 'complete' || a.ClientStatus === 'failed');
      });
      assert.equal(alloc.ClientStatus, 'complete', JSON.stringify(alloc.TaskStates));
      const log = (await call(base, 'GET', `/v1/client/fs/logs/${alloc.ID}?task=t&plain=true`, { token })).text;
      return { alloc, log };
    };
    const writer = await run('writer', 'echo "written by $CAIRN_ALLOC_ID" > srv/data/note.txt && echo ok');
    assert.equal(writer.alloc.NodeID, nodes.a);
    const reader = await run('reader', 'cat srv/data/note.txt');
    assert.equal(reader.alloc.NodeID, nodes.a);
    assert.equal(reader.log, `written by ${writer.alloc.ID}\n`);
    // Unpublished when the allocations ended: the plugin removed their targets on a's side.
    const perAlloc = join(root, 'a', 'data', 'client', 'csi', 'hostpath', 'per-alloc');
    await until('targets unpublished', 20_000, () => readdirSync(perAlloc).every((a) => readdirSync(join(perAlloc, a, 'shared')).length === 0) || undefined);

    // Held to b, which has no node plugin: never placed; the evaluation says why.
    const held = await call(base, 'POST', '/v1/jobs', {
      token,
      body: { Job: claimer('on-b', 'true', { LTarget: '${node.unique.name}', RTarget: 'b', Operand: '=' }) },
    });
    assert.equal(held.status, 200, held.text);
    const evaluation = await until('the on-b evaluation done', 30_000, async () => {
      const evals = (await call(base, 'GET', '/v1/job/on-b/evaluations', { token })).json as {
        Status: string;
        FailedTGAllocs: Record<string, unknown> | null;
      }[];
      return evals.find((e) => e.Status === 'complete' && e.FailedTGAllocs);
    });
    assert.ok(evaluation.FailedTGAllocs!.g, JSON.stringify(evaluation));
    assert.deepEqual((await call(base, 'GET', '/v1/job/on-b/allocations', { token })).json, []);
  });
});
