/**
 * A template's `change_script` (reference/integration.md §3, the reference's `change_script {
 * command args timeout fail_on_error }`, run through the task driver's exec): the command
 * runs in the task directory with the task's environment, is killed (its whole process
 * group) after `timeout`, and its output is kept only up to {@link MAX_OUTPUT_BYTES} for the
 * log. The outcome is the reference's: an exit code, or an error.
 *
 * @module
 */
import { spawn } from 'node:child_process';

/** Output of a change script kept (the rest is dropped). */
const MAX_OUTPUT_BYTES = 4096;

/** What a change script did. */
export interface ScriptResult {
  /** The exit code; -1 when it did not exit by itself (killed at the timeout, a signal). */
  readonly exitCode: number;
  /** Why it failed to run or finish (`timeout after 5s`, `spawn … ENOENT`); absent when it exited. */
  readonly error?: string;
  /** Its stdout and stderr, truncated. */
  readonly output: string;
}

/** Runs `command args` in `cwd` with `env`, for at most `timeoutMs` (module doc). Never throws. */
export function runChangeScript(o: {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
}): Promise<ScriptResult> {
  return new Promise((done) => {
    let output = '';
    const keep = (c: Buffer) => {
      if (output.length < MAX_OUTPUT_BYTES) output += c.toString('utf8').slice(0, MAX_OUTPUT_BYTES - output.length);
    };
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(o.command, [...o.args], { cwd: o.cwd, env: { ...o.env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (err) {
      return done({ exitCode: -1, error: (err as Error).message, output });
    }
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    let error: string | undefined;
    const timer = setTimeout(() => {
      error = `timeout after ${o.timeoutMs}ms`;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }, o.timeoutMs);
    child.once('error', (err) => (error ??= err.message));
    child.once('close', (code) => {
      clearTimeout(timer);
      done({ exitCode: code ?? -1, ...(error !== undefined && { error }), output });
    });
  });
}
