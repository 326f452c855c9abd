/**
 * The task drivers (reference/sched-workloads.md "Client agent"; issue 19 scope 3):
 *
 * - `raw_exec`: the task's `command` with `args` as a child process of the agent, as the
 *   agent's user, no isolation; disabled unless `plugin "raw_exec" { config { enabled = true } }`.
 * - `exec`: the same, with what Linux offers without root: the task in its own process group
 *   (every kill reaches its children), its working directory the task directory, and its
 *   memory capped by setrlimit through the shell's `ulimit -v` (address space, KiB: the
 *   task's `MemoryMaxMB`, else `MemoryMB`) and core dumps off (`ulimit -c 0`). The
 *   reference's chroot, namespaces and cgroups need root and are not done.
 *
 * Both start the task in its own process group (so a kill reaches its children) with cwd
 * the task directory, stdout and stderr piped to the caller.
 *
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import type { Task } from '../jobs/types.js';

/** How a running task ended: `exitCode` (or 128+signal when killed by one) and the signal number (0: none). */
export interface ExitResult {
  readonly exitCode: number;
  readonly signal: number;
}

/** A started task process. */
export interface TaskProcess {
  readonly pid: number;
  readonly child: ChildProcess;
  /** Resolves once the process exits and its output is drained. */
  readonly exited: Promise<ExitResult>;
}

/** What a driver needs to start a task. */
export interface StartSpec {
  readonly task: Task;
  readonly cwd: string;
  readonly env: Record<string, string>;
}

/** The signal number of `name` (`SIGTERM`, `TERM`), or undefined for an unknown name. */
export function signalNumber(name: string): number | undefined {
  const n = name.toUpperCase().startsWith('SIG') ? name.toUpperCase() : `SIG${name.toUpperCase()}`;
  return (constants.signals as Record<string, number>)[n];
}

/**
 * The task's `config.command` and `config.args`. @throws {Error} `missing command for
 * <driver> driver` / `args must be a list of strings` (a `Driver Failure` of the task).
 */
function commandOf(task: Task): { command: string; args: string[] } {
  const command = task.Config?.command;
  if (typeof command !== 'string' || command === '') throw new Error(`missing command for ${task.Driver} driver`);
  const args = task.Config?.args ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) throw new Error('args must be a list of strings');
  return { command, args: args as string[] };
}

/**
 * Starts `spec.task` with its driver. @throws {Error} for a driver other than `raw_exec`/`exec`,
 * a bad `config`; spawn errors (a missing command) come through `exited` as exit code 127
 * after an `error` is emitted on the child, which the caller reports.
 */
export function startTask(spec: StartSpec): TaskProcess {
  const { command, args } = commandOf(spec.task);
  let file = command;
  let argv = args;
  if (spec.task.Driver === 'exec') {
    const mb = spec.task.Resources?.MemoryMaxMB || spec.task.Resources?.MemoryMB || 0;
    const limits = mb > 0 ? `ulimit -v ${mb * 1024} || exit 125; ` : '';
    file = '/bin/sh';
    argv = ['-c', `${limits}ulimit -c 0; exec "$@"`, 'cairn-exec', command, ...args];
  } else if (spec.task.Driver !== 'raw_exec') {
    throw new Error(`driver "${spec.task.Driver}" is not supported`);
  }
  const child = spawn(file, argv, { cwd: spec.cwd, env: spec.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<ExitResult>((resolve) => {
    let spawnError = false;
    child.once('error', () => {
      spawnError = true;
      resolve({ exitCode: 127, signal: 0 });
    });
    child.once('close', (code, sig) => {
      if (spawnError) return;
      const signal = sig ? (signalNumber(sig) ?? 0) : 0;
      resolve({ exitCode: code ?? 128 + signal, signal });
    });
  });
  return { pid: child.pid ?? -1, child, exited };
}

/** Sends `signal` to the task's process group (its children too); ignores a group already gone. */
export function signalGroup(pid: number, signal: NodeJS.Signals | number): void {
  if (pid <= 0) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // Already exited.
  }
}
