/**
 * Runs one task of an allocation on its driver until it is done (reference/sched-workloads.md
 * "Client agent"; issue 19 scope 3): starts it, writes its output to rotated log files,
 * restarts it by the group's restart policy, kills it with `KillSignal` then SIGKILL after
 * `KillTimeout`, and records the task events and state the reference's task runner records:
 *
 * ```text
 * Received → Task Setup → Started → Terminated → Restarting → Started → … → Not Restarting (failed)
 *                                                  batch, exit 0 → dead (complete)
 * stop:     Killing → Terminated → Killed
 * ```
 *
 * @module
 */
import { formatGoDuration } from '../../../kernel/util/go-duration.js';
import type { Logger } from '../../../kernel/log/logger.js';
import type { RestartPolicy, Task, TaskState } from '../jobs/types.js';
import { signalGroup, signalNumber, startTask, type ExitResult, type TaskProcess } from './drivers.js';
import { LogRotator } from './log-rotator.js';
import type { TaskControl, TaskHook } from './task-hooks.js';
import { RestartTracker } from './restart-tracker.js';
import { appendTaskEvent, EVENT, initialTaskState, taskEvent, type LiveTaskState } from './task-event.js';

/** What a task runner is given. */
export interface TaskRunnerOptions {
  /** The task as registered (the jobs API applied the reference's defaults: jobs/defaults.ts). */
  readonly task: Task;
  readonly policy: RestartPolicy;
  /** Batch jobs: exit 0 completes the task. */
  readonly batch: boolean;
  /** `<alloc_dir>/<alloc id>/<task>`: the working directory. */
  readonly taskDir: string;
  /** `<alloc_dir>/<alloc id>/alloc/logs`. */
  readonly logsDir: string;
  readonly env: Record<string, string>;
  /** Whether this client offers the task's driver. */
  readonly driverEnabled: boolean;
  /** The state the servers kept (a client that restarted); absent: a new task. */
  readonly previous?: TaskState | null;
  readonly now: () => number;
  /** Called after every state or event change. */
  readonly onChange: () => void;
  /** Called with the process group's leader when a process starts, and undefined when it ends. */
  readonly onPid: (pid: number | undefined) => void;
  readonly log: Logger;
  /** The task's hooks in the order they run (client/task-hooks.ts): identity, secrets, discovery, template. */
  readonly hooks?: readonly TaskHook[];
}

/** One task's runner; {@link run} resolves when the task is dead. */
export class TaskRunner {
  readonly state: LiveTaskState;
  private proc: TaskProcess | undefined;
  private killing = false;
  /** The reason of a restart asked while the task runs (a user's, a refreshed identity's). */
  private restartAsked: string | undefined;
  /** An unhealthy check asked for a restart: it counts against the restart policy (check_restart). */
  private unhealthy = false;
  private wake: (() => void) | undefined;
  private done: Promise<void> | undefined;
  /** The agent stops (not the task): the hooks keep what they issued (task-hooks.ts `stop`). */
  private shutdown = false;
  /** Fires when the task is killed while its hooks prepare it. */
  private readonly abort = new AbortController();
  /** Process starts so far (TaskControl.starts). */
  private starts = 0;
  /** What the hooks see of the task (task-hooks.ts). */
  readonly control: TaskControl;

  constructor(private readonly o: TaskRunnerOptions) {
    this.state = initialTaskState(o.previous);
    const runner = this;
    this.control = {
      restart: (reason) => this.restart(reason),
      signal: (signal) => this.signal(signal),
      event: (type, message, details) => this.emit(taskEvent(type, this.o.now(), { Message: message, ...(details && { Details: { ...details } }) })),
      report: (part) => {
        Object.assign(this.state, part);
        this.o.onChange();
      },
      kill: (message) => {
        if (this.dead || this.killing) return;
        this.state.Failed = true;
        void this.kill(taskEvent(EVENT.killing, this.o.now(), { Message: message, FailsTask: true }));
      },
      get running() {
        return runner.proc !== undefined;
      },
      get starts() {
        return runner.starts;
      },
      get dead() {
        return runner.dead;
      },
    };
  }

  /** The task as registered. */
  get task(): Task {
    return this.o.task;
  }

  /** The task's running process (its process group's ID too), or undefined between runs. */
  get pid(): number | undefined {
    return this.proc && this.proc.pid > 0 ? this.proc.pid : undefined;
  }

  /** Is the task dead (will not run again)? */
  get dead(): boolean {
    return this.state.State === 'dead';
  }

  /**
   * Starts the task's loop once; resolves when the task is dead and its hooks have stopped (at
   * once when it was killed or failed before it ran).
   */
  run(): Promise<void> {
    if (this.dead && !this.done) return this.stopHooks();
    this.done ??= this.loop()
      .catch((err: unknown) => {
        this.o.log.error({ err, task: this.o.task.Name }, 'task runner failed');
        this.finish(true);
      })
      .then(() => this.stopHooks());
    return this.done;
  }

  /** Stops every hook (task-hooks.ts `stop`: timers, watches, issued tokens); a hook's error is logged, never thrown. */
  private async stopHooks(): Promise<void> {
    await Promise.all(
      (this.o.hooks ?? []).map(async (h) => {
        try {
          await h.stop?.({ shutdown: this.shutdown });
        } catch (err) {
          this.o.log.warn({ task: this.o.task.Name, hook: h.name, err: (err as Error).message }, 'client: a task hook failed to stop');
        }
      }),
    );
  }

  /**
   * Stops the task for good: `Killing` with the task's `KillSignal` to its process group,
   * SIGKILL after `KillTimeout`; `event` (e.g. `Sibling Task Failed`) is recorded first.
   * Resolves when the task is dead.
   */
  async kill(event?: ReturnType<typeof taskEvent>): Promise<void> {
    if (this.killing || this.dead) return this.done;
    this.killing = true;
    this.abort.abort();
    if (event) this.emit(event);
    this.wake?.();
    if (this.proc) this.terminate(this.proc);
    if (!this.done) this.finish(false);
    await this.done;
  }

  /** The allocation's setup (its volume mounts) failed: the task never runs; a `Setup Failure` event, dead and failed. */
  failSetup(message: string): void {
    if (this.dead) return;
    this.emit(taskEvent(EVENT.setupFailure, this.o.now(), { Message: message, FailsTask: true }));
    this.finish(true);
  }

  /** The agent stops: SIGKILL to the process group at once, no `Killing` event (the task's state on the servers stays as it was); the hooks keep what they issued. */
  forceKill(): void {
    this.shutdown = true;
    this.killing = true;
    this.abort.abort();
    this.wake?.();
    if (this.proc) signalGroup(this.proc.pid, 'SIGKILL');
  }

  /**
   * A user's restart (`POST /v1/client/allocation/:id/restart`), or one a refreshed identity's
   * `change_mode` asks for (`reason`): kills the process, starts it again without counting
   * against the policy.
   */
  restart(reason = 'User requested restart'): void {
    if (this.dead || this.killing) return;
    this.emit(taskEvent(EVENT.restartSignaled, this.o.now(), { Message: reason, RestartReason: reason }));
    this.restartAsked = reason;
    this.wake?.();
    if (this.proc) this.terminate(this.proc);
  }

  /** A hook of the task failed without failing it (a service that cannot be registered): a `Task hook failed` event. */
  hookFailed(message: string): void {
    this.emit(taskEvent(EVENT.hookFailed, this.o.now(), { Message: message }));
  }

  /**
   * A restart for an unhealthy check (`check_restart`; reference/integration.md §2): a
   * `Restart Signaled` event with `reason`, then the kill signal; the exit goes through the
   * group's restart policy as a failure (restarted within its attempts, else the task fails).
   */
  checkRestart(reason: string): void {
    if (this.dead || this.killing || !this.proc) return;
    this.emit(taskEvent(EVENT.restartSignaled, this.o.now(), { Message: reason, RestartReason: reason }));
    this.unhealthy = true;
    this.terminate(this.proc);
  }

  /**
   * Sends `signal` (a name: `SIGHUP`, `HUP`) to the task's process group, with a `Signaling`
   * event. @throws {Error} `unknown signal "<s>"`, `task "<t>" is not running`.
   */
  signal(signal: string): void {
    const n = signalNumber(signal);
    if (n === undefined) throw new Error(`unknown signal "${signal}"`);
    if (!this.proc) throw new Error(`task "${this.o.task.Name}" is not running`);
    this.emit(taskEvent(EVENT.signaling, this.o.now(), { Message: 'Task being sent a signal', Signal: n, Details: { signal } }));
    signalGroup(this.proc.pid, n);
  }

  private emit(e: ReturnType<typeof taskEvent>, state?: Partial<LiveTaskState>): void {
    appendTaskEvent(this.state, e);
    if (state) Object.assign(this.state, state);
    this.o.onChange();
  }

  private finish(failed: boolean): void {
    this.state.State = 'dead';
    this.state.Failed ||= failed;
    this.state.FinishedAt = new Date(this.o.now()).toISOString();
    this.o.onChange();
  }

  /** The kill sequence on a running process: `Killing`, `KillSignal`, SIGKILL after `KillTimeout`. */
  private terminate(proc: TaskProcess): void {
    const t = this.o.task;
    const timeoutMs = t.KillTimeout / 1e6;
    if (this.killing) {
      this.emit(
        taskEvent(EVENT.killing, this.o.now(), {
          KillTimeout: t.KillTimeout,
          Message: `Sent interrupt. Waiting ${formatGoDuration(t.KillTimeout)} before force killing`,
        }),
      );
    }
    signalGroup(proc.pid, (signalNumber(t.KillSignal) ?? signalNumber('SIGINT'))!);
    const force = setTimeout(() => signalGroup(proc.pid, 'SIGKILL'), timeoutMs);
    void proc.exited.then(() => clearTimeout(force));
  }

  private async loop(): Promise<void> {
    const { task, now } = this.o;
    if (this.o.previous?.State === 'running') {
      this.emit(
        taskEvent(EVENT.restarting, now(), {
          RestartReason: 'Client agent restarted',
          Message: 'The client agent restarted; its task processes were stopped and start again',
        }),
        {
          Restarts: this.state.Restarts + 1,
          LastRestart: new Date(now()).toISOString(),
          State: 'pending',
        },
      );
    } else if (!this.o.previous) {
      this.emit(taskEvent(EVENT.received, now(), { Message: 'Task received by client' }));
    }
    this.emit(taskEvent(EVENT.setup, now(), { Message: 'Building Task Directory' }));
    if (!this.o.driverEnabled) {
      const why = `driver "${task.Driver}" is not available on this node`;
      this.emit(taskEvent(EVENT.driverFailure, now(), { Message: why, DriverError: why, FailsTask: true }));
      return this.finish(true);
    }
    for (const hook of this.o.hooks ?? []) {
      if (this.killing) break;
      try {
        await hook.prestart?.(this.control, this.abort.signal);
      } catch (err) {
        if (this.killing) break;
        const why = `failed to set up the task: ${hook.name}: ${(err as Error).message}`;
        this.emit(taskEvent(EVENT.setupFailure, now(), { Message: why, FailsTask: true }));
        return this.finish(true);
      }
    }
    const tracker = new RestartTracker(this.o.policy, this.o.batch, now());
    for (;;) {
      if (this.killing) return this.finish(false);
      const result = await this.runOnce();
      if (this.killing) {
        this.emit(taskEvent(EVENT.killed, now(), { Message: 'Task successfully killed' }));
        return this.finish(false);
      }
      if (result === 'config') return this.finish(true);
      let delayMs = 0;
      if (this.restartAsked !== undefined) {
        const reason = this.restartAsked;
        this.restartAsked = undefined;
        this.emit(taskEvent(EVENT.restarting, now(), { RestartReason: reason, Message: 'Task restarting in 0s' }), { State: 'pending' });
      } else {
        // An unhealthy check's restart counts as a failed run whatever the exit code the kill signal gave.
        const d = tracker.onExit(this.unhealthy ? 1 : result.exitCode, now());
        this.unhealthy = false;
        if (!d.restart) {
          if (d.failed) this.emit(taskEvent(EVENT.notRestarting, now(), { RestartReason: d.reason, Message: d.reason, FailsTask: true }));
          return this.finish(d.failed);
        }
        delayMs = d.delayMs;
        this.emit(
          taskEvent(EVENT.restarting, now(), {
            RestartReason: d.reason,
            Message: `Task restarting in ${formatGoDuration(delayMs * 1e6)}`,
            Details: { start_delay: String(delayMs * 1e6) },
          }),
          { State: 'pending' },
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delayMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
      if (this.killing) {
        this.emit(taskEvent(EVENT.killed, now(), { Message: 'Task successfully killed' }));
        return this.finish(false);
      }
      this.state.Restarts += 1;
      this.state.LastRestart = new Date(now()).toISOString();
    }
  }

  /** Starts the process once and waits for it: its exit, or `config` when the task's config cannot start (not restartable). */
  private async runOnce(): Promise<ExitResult | 'config'> {
    const { task, now } = this.o;
    const lc = task.LogConfig;
    let proc: TaskProcess;
    try {
      proc = startTask({ task, cwd: this.o.taskDir, env: Object.assign({}, this.o.env, ...(this.o.hooks ?? []).map((h) => h.env?.() ?? {})) });
    } catch (err) {
      const why = (err as Error).message;
      this.emit(taskEvent(EVENT.driverFailure, now(), { Message: why, DriverError: why, FailsTask: true }));
      return 'config';
    }
    const maxBytes = Math.max(1, Math.floor(lc.MaxFileSizeMB * 1024 * 1024));
    const out = new LogRotator(this.o.logsDir, `${task.Name}.stdout`, maxBytes, Math.max(1, lc.MaxFiles));
    const err = new LogRotator(this.o.logsDir, `${task.Name}.stderr`, maxBytes, Math.max(1, lc.MaxFiles));
    proc.child.stdout?.on('data', (c: Buffer) => out.write(c));
    proc.child.stderr?.on('data', (c: Buffer) => err.write(c));
    let spawnError: Error | undefined;
    proc.child.once('error', (e) => (spawnError = e));
    this.proc = proc;
    this.starts += 1;
    this.o.onPid(proc.pid > 0 ? proc.pid : undefined);
    if (proc.pid > 0) {
      this.emit(taskEvent(EVENT.started, now(), { Message: 'Task started by client' }), {
        State: 'running',
        StartedAt: this.state.StartedAt ?? new Date(now()).toISOString(),
      });
    }
    // A user restart asked while the process was starting.
    if (this.restartAsked !== undefined || this.killing) this.terminate(proc);
    const result = await proc.exited;
    this.proc = undefined;
    this.o.onPid(undefined);
    out.close();
    err.close();
    if (spawnError) {
      const why = `failed to launch command: ${spawnError.message}`;
      this.emit(taskEvent(EVENT.driverFailure, now(), { Message: why, DriverError: why }));
    } else {
      const msg = `Exit Code: ${result.exitCode}${result.signal ? `, Signal: ${result.signal}` : ''}`;
      this.emit(taskEvent(EVENT.terminated, now(), { Message: msg, ExitCode: result.exitCode, Signal: result.signal }));
    }
    return result;
  }
}
