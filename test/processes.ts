/**
 * Real Cairn server processes for tests that kill them (`kill -9`) or run several at once:
 * `cairn <args>` (the built bin/cairn.js, test/bin.ts), its JSON log on stderr, ready once a given log line names its URL.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readlinkSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { CAIRN_BIN } from './bin.js';

/** A running server process. */
export interface ServerProcess {
  readonly child: ChildProcess;
  /** `http://host:port` from its ready log line. */
  readonly url: string;
  readonly exited: Promise<unknown>;
  /** The log lines so far (JSON strings). */
  readonly log: string[];
  /** SIGKILL, then waits for the exit. */
  kill(): Promise<void>;
}

/**
 * Starts `cairn ...args` and resolves once a log line with `msg === ready` and a `url`
 * appears. @throws (rejects) with the whole log when the process exits first.
 */
export function startCairnProcess(args: readonly string[], env: Record<string, string>, ready: string): Promise<ServerProcess> {
  const child = spawn(process.execPath, [CAIRN_BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  const log: string[] = [];
  const exited = new Promise((r) => child.once('exit', r));
  return new Promise((resolve, reject) => {
    void exited.then((code) => reject(new Error(`cairn ${args.join(' ')} exited with ${String(code)}:\n${log.join('\n')}`)));
    createInterface({ input: child.stderr! }).on('line', (line) => {
      log.push(line);
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === ready && entry.url) {
          resolve({
            child,
            url: entry.url,
            exited,
            log,
            kill: async () => {
              if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
              await exited;
            },
          });
        }
      } catch {
        // not a log line
      }
    });
  });
}

/**
 * Stops `p` as an operator does (SIGTERM: a client agent stops its tasks first), and with
 * SIGKILL after `ms` if it has not exited by then; for tests whose agents run tasks, which a
 * SIGKILL would leave running.
 */
export async function stopGracefully(p: ServerProcess, ms = 15_000): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill('SIGTERM');
  const timer = setTimeout(() => void p.kill(), ms);
  await p.exited;
  clearTimeout(timer);
}

/**
 * Kills (SIGKILL) every process whose working directory is under `dir` (Linux `/proc`): the
 * tasks a test's `kill -9` of a client agent left running, when the test failed before its
 * restarted agent stopped them. For `after` hooks, before `dir` is removed.
 */
export function killTasksUnder(dir: string): void {
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    let cwd: string;
    try {
      cwd = readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      continue; // gone, or not ours to read
    }
    if (cwd === dir || cwd.startsWith(`${dir}/`)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

/**
 * Polls `check` every `everyMs` (25 ms unless given) until it returns a value or `ms` passed
 * (then fails naming `what` and the last error). A costly check (many requests, a CLI process)
 * takes a longer `everyMs`, so that its polling does not take the CPU the awaited work needs.
 */
export async function until<T>(what: string, ms: number, check: () => Promise<T | undefined> | T | undefined, everyMs = 25): Promise<T> {
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
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A `cairn` client command running as its own process (see {@link spawnCairn}). */
export interface CairnRun {
  readonly child: ChildProcess;
  /** What it wrote so far. */
  readonly out: { stdout: string; stderr: string };
  /** Its exit code, or the signal that ended it. */
  readonly exited: Promise<number | NodeJS.Signals>;
}

/** Starts `cairn ...args` (built) with `env` over the test's environment, collecting its output. */
export function spawnCairn(args: readonly string[], env: Record<string, string>): CairnRun {
  const child = spawn(process.execPath, [CAIRN_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  const out = { stdout: '', stderr: '' };
  child.stdout!.on('data', (c: Buffer) => (out.stdout += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (out.stderr += c.toString('utf8')));
  const exited = new Promise<number | NodeJS.Signals>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal!)));
  return { child, out, exited };
}
