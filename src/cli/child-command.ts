/**
 * The child commands `mesh lock` and `mesh watch` run (reference: Consul's
 * `agent.ExecScript` / `agent.ExecSubprocess` and the lock command's `killChild`): through
 * `$SHELL -c` (default `/bin/sh`) with the arguments joined by spaces, or the arguments as
 * they are; the child's output goes to the command's own output streams.
 *
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { CliIo } from './context.js';

/** How long a child gets between SIGTERM and SIGKILL, ms (the reference's `lockKillGracePeriod`). */
const KILL_GRACE_MS = 5000;

/** A started child. */
export interface RunningChild {
  readonly child: ChildProcess;
  /** Settles when it ended: its exit code (null when a signal ended it) or why it could not start. */
  readonly ended: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null; readonly error?: Error }>;
}

/** Options of {@link startChild}. */
export interface ChildOptions {
  /** True: `$SHELL -c "<args joined by spaces>"`; false: `args[0]` with the other arguments. */
  readonly shell: boolean;
  /** The whole environment of the child. */
  readonly env: Record<string, string | undefined>;
  /** `inherit`: the command's own standard input; `ignore`: none; bytes: these, then end of input. */
  readonly stdin: 'inherit' | 'ignore' | Buffer;
  /** Where the child's output goes. */
  readonly io: CliIo;
}

/** Starts `args` (at least one) as {@link ChildOptions} say. */
export function startChild(args: readonly string[], o: ChildOptions): RunningChild {
  const [file, ...rest] = o.shell ? [o.env.SHELL || '/bin/sh', '-c', args.join(' ')] : args;
  const child = spawn(file!, rest, { env: o.env, stdio: [Buffer.isBuffer(o.stdin) ? 'pipe' : o.stdin, 'pipe', 'pipe'] });
  if (Buffer.isBuffer(o.stdin)) {
    // A handler that does not read its input must not fail the write.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(o.stdin);
  }
  child.stdout?.on('data', (chunk: Buffer) => o.io.stdout(chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => o.io.stderr(chunk.toString('utf8')));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    child.once('error', (error) => resolve({ code: null, signal: null, error }));
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  return { child, ended };
}

/** Whether `r` ended with exit code 0. */
export function succeeded(r: Awaited<RunningChild['ended']>): boolean {
  return r.code === 0 && !r.error;
}

/** How `r` ended, as the reference's `exec.ExitError` says it (`exit status 3`, `signal: terminated`). */
export function endText(r: Awaited<RunningChild['ended']>): string {
  if (r.error) return r.error.message;
  return r.code !== null ? `exit status ${r.code}` : `signal: ${r.signal}`;
}

/** SIGTERM, then SIGKILL when the child has not ended after {@link KILL_GRACE_MS}; resolves once it ended. */
export async function killChild(r: RunningChild, graceMs = KILL_GRACE_MS): Promise<void> {
  if (r.child.exitCode !== null || r.child.signalCode !== null) return;
  r.child.kill('SIGTERM');
  const timer = setTimeout(() => r.child.kill('SIGKILL'), graceMs);
  await r.ended;
  clearTimeout(timer);
}
