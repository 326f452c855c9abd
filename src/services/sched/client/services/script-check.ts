/**
 * A script check run by the client (reference/integration.md §2: the reference's client runs
 * `script` checks in the task and pushes the result to the discovery agent's TTL check): the
 * command with its arguments (no shell) in the task's directory and environment, every
 * interval, killed after its timeout. Exit 0 is `passing`, 1 `warning`, anything else (a
 * signal, a timeout, a start failure) `critical` — the reference's script check rule; the
 * output is the first 4 KiB of stdout and stderr.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import type { MeshCheckStatus } from '../../../../sdk/index.js';

/** Output kept per run, in bytes (the discovery agent's limit too). */
const OUTPUT_MAX_BYTES = 4096;

/** What one run reports. */
export interface ScriptResult {
  readonly status: MeshCheckStatus;
  readonly output: string;
}

/** How a script check runs. */
export interface ScriptRun {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
}

/** Runs the script once. Never rejects: every failure is a `critical` result. */
function runScript(r: ScriptRun): Promise<ScriptResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const keep = (c: Buffer) => {
      if (size < OUTPUT_MAX_BYTES) chunks.push(c.subarray(0, OUTPUT_MAX_BYTES - size));
      size += c.length;
    };
    let child;
    try {
      child = spawn(r.command, [...r.args], { cwd: r.cwd, env: { ...r.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (err) {
      return resolve({ status: 'critical', output: `failed to run ${r.command}: ${(err as Error).message}` });
    }
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, r.timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      resolve({ status: 'critical', output: `failed to run ${r.command}: ${err.message}` });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      const output = Buffer.concat(chunks).toString('utf8');
      if (timedOut) return resolve({ status: 'critical', output: `${output}\ncheck timed out after ${r.timeoutMs}ms`.trim() });
      resolve({ status: code === 0 ? 'passing' : code === 1 ? 'warning' : 'critical', output });
    });
  });
}

/** Runs a script check every `intervalMs` (the first run at once) until stopped, reporting each result. */
export class ScriptCheckLoop {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly run: ScriptRun,
    private readonly intervalMs: number,
    private readonly report: (r: ScriptResult) => void,
  ) {
    this.schedule(0);
  }

  /** No run starts after this; a run in flight is not reported. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(async () => {
      const result = await runScript(this.run);
      if (this.stopped) return;
      this.report(result);
      this.schedule(this.intervalMs);
    }, ms);
    this.timer.unref();
  }
}
