/**
 * `cairn csi hostpath` in-process: it serves the plugin on the socket it prints (probed
 * with the CSI client over the real socket, capabilities as given), stops on the shutdown
 * signal with exit 0 and the socket removed, and refuses bad flags with exit 2.
 * (Kept beside the plugin it runs; the command is src/cli/commands/csi-hostpath.ts.)
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { main } from '../../../cli/main.js';
import { csiClient } from '../index.js';

describe('cairn csi hostpath', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-csi-cli-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('serves on the socket until stopped, then exits 0 and removes the socket', async () => {
    const socket = join(dir, 'csi.sock');
    const root = join(dir, 'root');
    const stop = new AbortController();
    let stdout = '';
    let stderr = '';
    const run = main(
      [
        'csi',
        'hostpath',
        `-socket=${socket}`,
        `-root=${root}`,
        '-node-id=cli-node',
        '-capabilities=CREATE_DELETE_VOLUME,LIST_VOLUMES',
        '-max-volumes-per-node=4',
        '-log-level=silent',
      ],
      {},
      { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), shutdown: stop.signal },
    );
    for (let i = 0; i < 200 && !stdout.includes('Socket:'); i++) await sleep(25);
    assert.equal(stdout, `==> Cairn CSI hostpath plugin started (node cli-node, root ${root}).\n    Socket: ${socket}\n`, stderr);

    const c = csiClient(socket);
    try {
      assert.equal(await c.probe(), true);
      assert.deepEqual(await c.controllerGetCapabilities(), ['CREATE_DELETE_VOLUME', 'LIST_VOLUMES']);
      assert.deepEqual(await c.nodeGetInfo(), { nodeId: 'cli-node', maxVolumesPerNode: 4, accessibleTopology: { 'topology.cairn.dev/node': 'cli-node' } });
      const v = await c.createVolume({
        name: 'from-cli',
        volumeCapabilities: [{ accessType: { mount: { fsType: '', mountFlags: [] } }, accessMode: 'SINGLE_NODE_WRITER' }],
      });
      assert.ok(existsSync(join(root, 'volumes', v.volumeId)));
    } finally {
      c.close();
    }

    stop.abort();
    assert.equal(await run, 0, stderr);
    assert.ok(stdout.endsWith('==> Cairn CSI hostpath plugin stopped.\n'));
    assert.ok(!existsSync(socket), 'the socket file is gone');
    assert.equal(stderr, '');
  });

  it('bad flags: exit 2 with a one-line reason', async () => {
    const cairn = async (...argv: string[]) => {
      let stderr = '';
      const code = await main(argv, {}, { stdout: () => undefined, stderr: (s) => (stderr += s) });
      return { code, stderr };
    };
    const socket = join(dir, 'bad.sock');
    const unknown = await cairn('csi', 'hostpath', `-socket=${socket}`, `-root=${dir}`, '-capabilities=LIST_VOLUMES,TIME_TRAVEL');
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^Error: unknown capability TIME_TRAVEL for -capabilities \(supported: CREATE_DELETE_VOLUME, /);
    const max = await cairn('csi', 'hostpath', `-socket=${socket}`, `-root=${dir}`, '-max-volumes-per-node=-3');
    assert.equal(max.code, 2);
    assert.match(max.stderr, /-max-volumes-per-node/);
    const missing = await cairn('csi', 'hostpath', `-root=${dir}`);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--socket <path>/);
    assert.ok(!existsSync(socket));
  });
});
