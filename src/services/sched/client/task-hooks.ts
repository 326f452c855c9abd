/**
 * Task hooks: what runs around a task's process besides the driver (the reference's task
 * runner hooks, in its order: identity → secrets (`vault`) → discovery (`consul`) →
 * template). Each hook may prepare something before the first start (a workload identity
 * file, a secrets token, a first render), add variables to the environment of every start,
 * act on the running task through {@link TaskControl} (a restart or a signal when what it
 * delivered changed), and clean up when the task is dead (revoke a token).
 *
 * Hooks hand what they obtain to the hooks after them through {@link TaskHookResources}: the
 * secrets hook's token is what the template hook reads secrets with.
 *
 * @module
 */
import type { TaskTemplateState, TaskIdentityState } from '../jobs/types.js';

/** What a hook can do to its task (implemented by the task runner, task-runner.ts). */
export interface TaskControl {
  /** Restarts the process without counting against the restart policy, with a `Restart Signaled` event naming `reason`. */
  restart(reason: string): void;
  /** Sends `signal` (`SIGHUP`) to the process group. @throws {Error} unknown signal; the task is not running. */
  signal(signal: string): void;
  /** Records a task event of `type` (`Template`, `Task hook failed`, …) with `message` as its message and display message. */
  event(type: string, message: string, details?: Readonly<Record<string, string>>): void;
  /** Publishes a hook's part of the task state the servers keep (Cairn's extension of `TaskState`: `Templates`, `Identities`). */
  report(state: { readonly Templates?: readonly TaskTemplateState[]; readonly Identities?: readonly TaskIdentityState[] }): void;
  /**
   * Kills the task for good and fails it (a `Killing` event with `message`, `FailsTask`): what
   * the reference's hooks do on an error they cannot recover from (a template that fails to
   * render after the start, a change script with `fail_on_error`).
   */
  kill(message: string): void;
  /** Is the process running now? */
  readonly running: boolean;
  /** How many times the process started (a hook sees a restart it asked for complete). */
  readonly starts: number;
  /** Is the task dead (will not run again)? */
  readonly dead: boolean;
}

/** What hooks of one task obtained for the hooks after them (the reference's `TaskHookResources`). */
export class TaskHookResources {
  /** The task's secrets service token (the `vault` hook's), read by the template hook's `secret` functions. */
  secretsToken: string | undefined;
  /** The task's discovery token (the `consul` hook's), read by the template hook's `key`/`service` functions. */
  discoveryToken: string | undefined;
}

/** One task hook (module doc). Every method is optional. */
export interface TaskHook {
  /** Named in the task's `Setup Failure` event when its {@link prestart} throws. */
  readonly name: string;
  /**
   * Runs once before the first start, after the hooks before it; may wait (a template waits for
   * its data). `abort` fires when the task is killed meanwhile: the hook then returns at once.
   * @throws anything: the task fails with `Setup Failure` `failed to set up the task: <name>: <message>`.
   */
  prestart?(control: TaskControl, abort: AbortSignal): Promise<void>;
  /** Variables added to the environment at each start of the process (later hooks win). */
  env?(): Readonly<Record<string, string>>;
  /**
   * The task is dead, or the client agent stops (`shutdown`: its tasks start again when it comes
   * back, so what was issued stays valid): stop timers and watches, and revoke what was issued
   * unless `shutdown`. Never throws.
   */
  stop?(o: { readonly shutdown: boolean }): Promise<void>;
}
