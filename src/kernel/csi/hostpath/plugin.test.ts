/**
 * Starting and stopping the hostpath plugin: probe once serving, the socket file removed
 * on close, a restart on the same socket path and root keeps the volumes, a stale socket
 * left by a killed plugin is removed on start, a live one or a non-socket is refused, and
 * bad options are errors that name the option.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { csiClient, startHostpathPlugin, type ControllerCapability } from '../index.js';
import { RWO } from '../testdata/assert-csi.js';

describe('hostpath plugin lifecycle', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-csi-life-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('serves until closed; close removes the socket and is idempotent', async () => {
    const socket = join(dir, 'a.sock');
    const plugin = await startHostpathPlugin({ socket, root: join(dir, 'a'), nodeId: 'a' });
    assert.equal(plugin.socket, socket);
    assert.ok(lstatSync(socket).isSocket());
    const c = csiClient(socket);
    assert.equal(await c.probe(), true);
    c.close();
    await Promise.all([plugin.close(), plugin.close()]);
    await plugin.close();
    assert.ok(!existsSync(socket));
  });

  it('a restart on the same socket path and root serves the same volumes', async () => {
    const socket = join(dir, 'r.sock');
    const root = join(dir, 'r');
    const first = await startHostpathPlugin({ socket, root, nodeId: 'r' });
    const c1 = csiClient(socket);
    const v = await c1.createVolume({ name: 'survivor', volumeCapabilities: [RWO] });
    await c1.controllerPublishVolume({ volumeId: v.volumeId, nodeId: 'r', volumeCapability: RWO, readonly: false });
    c1.close();
    await first.close();

    const second = await startHostpathPlugin({ socket, root, nodeId: 'r' });
    const c2 = csiClient(socket);
    try {
      const { entries } = await c2.listVolumes({ maxEntries: 0 });
      assert.deepEqual(entries, [{ volume: v, publishedNodeIds: ['r'] }]);
      assert.equal((await c2.createVolume({ name: 'survivor', volumeCapabilities: [RWO] })).volumeId, v.volumeId);
    } finally {
      c2.close();
      await second.close();
    }
  });

  it('a stale socket file left by a killed plugin is removed on start', async () => {
    const socket = join(dir, 'stale.sock');
    // A process that binds the path and dies without cleaning up (SIGKILL).
    const r = spawnSync(process.execPath, [
      '-e',
      `require('net').createServer().listen(${JSON.stringify(socket)}, () => process.kill(process.pid, 'SIGKILL'))`,
    ]);
    assert.equal(r.signal, 'SIGKILL');
    assert.ok(lstatSync(socket).isSocket(), 'the stale socket is there');
    const plugin = await startHostpathPlugin({ socket, root: join(dir, 'stale'), nodeId: 's' });
    const c = csiClient(socket);
    try {
      assert.equal(await c.probe(), true);
    } finally {
      c.close();
      await plugin.close();
    }
  });

  it('refuses a socket another plugin serves on, and a path that is not a socket', async () => {
    const socket = join(dir, 'live.sock');
    const plugin = await startHostpathPlugin({ socket, root: join(dir, 'live'), nodeId: 'l' });
    try {
      await assert.rejects(startHostpathPlugin({ socket, root: join(dir, 'live2'), nodeId: 'l2' }), {
        message: `csi hostpath: another process is serving on ${socket}`,
      });
      const c = csiClient(socket);
      assert.equal(await c.probe(), true, 'the first plugin still serves');
      c.close();
    } finally {
      await plugin.close();
    }
    const file = join(dir, 'plain-file');
    writeFileSync(file, 'keep me');
    await assert.rejects(startHostpathPlugin({ socket: file, root: join(dir, 'pf'), nodeId: 'p' }), {
      message: `csi hostpath: ${file} exists and is not a unix socket; not removing it`,
    });
    assert.ok(existsSync(file));
  });

  it('bad options are errors naming the option', async () => {
    const base = { socket: join(dir, 'o.sock'), root: join(dir, 'o'), nodeId: 'o' };
    await assert.rejects(startHostpathPlugin({ ...base, nodeId: '' }), { message: 'csi hostpath: nodeId is required' });
    await assert.rejects(startHostpathPlugin({ ...base, socket: '' }), { message: 'csi hostpath: socket is required' });
    await assert.rejects(startHostpathPlugin({ ...base, root: '' }), { message: 'csi hostpath: root is required' });
    await assert.rejects(startHostpathPlugin({ ...base, capabilities: ['GET_VOLUME' as ControllerCapability] }), /capability GET_VOLUME is not supported/);
    await assert.rejects(startHostpathPlugin({ ...base, maxVolumesPerNode: -1 }), {
      message: 'csi hostpath: maxVolumesPerNode must be a non-negative integer, got -1',
    });
    await assert.rejects(startHostpathPlugin({ ...base, socket: join(dir, 'x'.repeat(120), 'csi.sock') }), /unix sockets allow 107/);
    assert.ok(!existsSync(base.socket));
  });
});
