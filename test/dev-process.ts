/**
 * `cairn dev` as its own process for end-to-end tests: every listener on a free port, a
 * fixed root token, and what its banner printed (`    <Label>: <value>` lines, e.g.
 * `Secrets service`, `Gateway api`, `Gateway target`; the gateway login's auth method,
 * login name and password as `authMethod`, `loginName`, `password`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { CAIRN_BIN } from './bin.js';

/** A running `cairn dev`. */
export interface DevProcess {
  readonly child: ChildProcess;
  readonly dataDir: string;
  /** The banner's values by label. */
  readonly printed: Readonly<Record<string, string>>;
  /** Its log (standard error) so far, for failure messages. */
  readonly log: readonly string[];
  /** Kills it and removes its data directory. */
  close(): Promise<void>;
}

/** The listeners `cairn dev` opens, each given port 0. */
const LISTENERS = ['secrets', 'gateway-api', 'gateway-cluster', 'gateway-proxy', 'gateway-ops', 'mesh', 'mesh-dns', 'sched'];

/** Starts `cairn dev` with root token `rootToken`; resolves once its banner ends ("Press Ctrl-C"), rejects if it exits first. */
export function startDevProcess(rootToken: string): Promise<DevProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cairn-dev-e2e-'));
  const ports = LISTENERS.map((p) => `-${p}-address=127.0.0.1:0`);
  const child = spawn(process.execPath, [CAIRN_BIN, 'dev', `-data-dir=${dataDir}`, `-dev-root-token-id=${rootToken}`, ...ports], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => log.push(line));
  const printed: Record<string, string> = {};
  const close = async () => {
    const exited = new Promise((r) => child.once('exit', r));
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    else return rmSync(dataDir, { recursive: true, force: true });
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  return new Promise((resolve, reject) => {
    child.once('exit', (c) => reject(new Error(`cairn dev exited with ${c}:\n${log.join('\n')}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /^ {4}([A-Z][A-Za-z ]+): +(\S+)/.exec(line);
      if (m) printed[m[1]!] = m[2]!;
      const login = /^ {4}Gateway login: +auth method (\S+), login name "([^"]+)", password "([^"]+)"/.exec(line);
      if (login) [printed.authMethod, printed.loginName, printed.password] = login.slice(1) as [string, string, string];
      if (line.startsWith('Press Ctrl-C')) resolve({ child, dataDir, printed, log, close });
    });
  });
}
