/**
 * A `cairn dev` first start killed (`kill -9`) at any moment leaves a data directory that
 * starts again (issue 14 item 4). Before: the secrets service's initialisation was stored
 * before `dev-unseal-key` was written, so a kill in between left the directory refusing to
 * start for good (`…was initialised outside dev mode`); a kill while a state key file or the
 * dev node file was being written left it empty or cut.
 *
 * Each round starts `cairn dev` (a real process) on a new data directory and kills it a
 * different delay after `secrets.db` appears (0 ms to 1 s: the secrets initialisation, the
 * unseal key, then the discovery and scheduler state keys); then every directory is started
 * again, and must come up unsealed.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, it } from 'node:test';
import { CAIRN_BIN } from './bin.js';

const FREE_PORTS = ['secrets', 'gateway-api', 'gateway-cluster', 'gateway-proxy', 'gateway-ops', 'mesh', 'mesh-dns', 'sched'].map(
  (p) => `-${p}-address=127.0.0.1:0`,
);
/** Kill delays after `secrets.db` appears, in ms: one round each. */
const DELAYS_MS = [0, 10, 25, 50, 100, 175, 250, 400, 600, 1000];

const root = mkdtempSync(join(tmpdir(), 'cairn-dev-crash-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** `cairn dev` on `dataDir`: the process, its stderr so far, and a promise of its banner's SECRETS_ADDR (rejects with stderr when it exits first). */
function startDev(dataDir: string) {
  const child = spawn(process.execPath, [CAIRN_BIN, 'dev', `-data-dir=${dataDir}`, ...FREE_PORTS], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const ready = new Promise<string>((resolve, reject) => {
    let banner = '';
    void exited.then(() => reject(new Error(`cairn dev on ${dataDir} exited (${String(child.exitCode ?? child.signalCode)}):\n${stderr}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      banner += `${line}\n`;
      if (line.startsWith('Press Ctrl-C')) resolve(/SECRETS_ADDR='([^']+)'/.exec(banner)![1]!);
    });
  });
  ready.catch(() => undefined);
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  return { child, ready, kill, stderr: () => stderr };
}

it('a first start killed at any moment leaves a data directory that starts again, unsealed', { timeout: 300_000 }, async () => {
  const dirs: { dir: string; delay: number; files: string[] }[] = [];
  for (const delay of DELAYS_MS) {
    const dir = mkdtempSync(join(root, `d${delay}-`));
    const dev = startDev(dir);
    const deadline = Date.now() + 60_000;
    while (!existsSync(join(dir, 'secrets.db'))) {
      assert.ok(dev.child.exitCode === null && Date.now() < deadline, `cairn dev made secrets.db in ${dir}:\n${dev.stderr()}`);
      await new Promise((r) => setTimeout(r, 2));
    }
    await new Promise((r) => setTimeout(r, delay));
    assert.equal(dev.child.exitCode, null, `cairn dev was still running when killed:\n${dev.stderr()}`);
    await dev.kill();
    dirs.push({ dir, delay, files: readdirSync(dir).sort() });
  }
  // Two at a time: the machine running the suite has two cores, and other suites run beside this one.
  for (let i = 0; i < dirs.length; i += 2) {
    await Promise.all(
      dirs.slice(i, i + 2).map(async ({ dir, delay, files }) => {
        const dev = startDev(dir);
        try {
          const url = await dev.ready.catch((err: Error) =>
            assert.fail(
              `killed ${delay} ms after secrets.db appeared (files then: ${files.join(', ')}), the data directory does not start again: ${err.message}`,
            ),
          );
          const status = (await (await fetch(`${url}/v1/sys/seal-status`)).json()) as { initialized: boolean; sealed: boolean };
          assert.deepEqual([status.initialized, status.sealed], [true, false], `${dir} is initialised and unsealed`);
        } finally {
          await dev.kill();
        }
      }),
    );
  }
});
