/**
 * Test resources for the secrets HA suites (ha-postgres.test.ts, ha-perf-standby.test.ts):
 * real `cairn secrets server` processes from an HCL file, and polling with a deadline.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const BIN = join(import.meta.dirname, '..', '..', '..', 'src', 'cli', 'run.ts');

/** A running server process and its first listener's URL. */
export interface Running {
  readonly child: ChildProcess;
  readonly url: string;
  /** Settles when the process exits. */
  readonly exited: Promise<unknown>;
}

/** Starts a server and waits for its listener's URL in the log (rejects with the log when it exits first). */
export function startServer(config: string, env: Record<string, string>): Promise<Running> {
  const child = spawn(process.execPath, ['--import', 'tsx', BIN, 'secrets', 'server', `-config=${config}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...env },
  });
  let log = '';
  const exited = new Promise((r) => child.once('exit', r));
  return new Promise((resolve, reject) => {
    void exited.then((code) => reject(new Error(`server exited with ${String(code)}:\n${log}`)));
    createInterface({ input: child.stderr! }).on('line', (line) => {
      log += line + '\n';
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === 'secrets service listening' && entry.url) resolve({ child, url: entry.url, exited });
      } catch {
        // not a log line
      }
    });
  });
}

/** `kill -9` of every server still running, waiting for each to exit. */
export async function killAll(servers: readonly Running[]): Promise<void> {
  for (const s of servers) {
    if (s.child.exitCode === null && s.child.signalCode === null) {
      s.child.kill('SIGKILL');
      await s.exited;
    }
  }
}

/** Polls `check` every 50 ms until it returns a value or `ms` passed (then fails with the last state). */
export async function until<T>(what: string, ms: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) assert.fail(`${what} within ${ms} ms (last: ${String(last)})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The status of `GET sys/health` (with `query`, e.g. `?standbyok=true`). */
export const healthStatus = async (url: string, query = '') => (await fetch(`${url}/v1/sys/health${query}`)).status;
