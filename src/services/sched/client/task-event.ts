/**
 * Task events and task states as the client records them (jobs/types.ts `TaskEvent`,
 * `TaskState`; reference `structs.TaskEvent` and the messages its task runner writes).
 *
 * @module
 */
import type { TaskEvent, TaskState } from '../jobs/types.js';

/** Task events kept per task (the reference keeps the newest 10). */
const MAX_TASK_EVENTS = 10;

/** Event types the client writes (reference `structs.Task*`). */
export const EVENT = {
  received: 'Received',
  setup: 'Task Setup',
  setupFailure: 'Setup Failure',
  started: 'Started',
  terminated: 'Terminated',
  restarting: 'Restarting',
  notRestarting: 'Not Restarting',
  killing: 'Killing',
  killed: 'Killed',
  driverFailure: 'Driver Failure',
  siblingFailed: 'Sibling Task Failed',
  restartSignaled: 'Restart Signaled',
  signaling: 'Signaling',
  hookFailed: 'Task hook failed',
  /** The allocation was found unhealthy in its deployment (client/deployment-health.ts; the reference's `Alloc Unhealthy` source). */
  allocUnhealthy: 'Alloc Unhealthy',
} as const;

/** A task event of `type` at `nowMs` (epoch ms; stored in ns) with `fields` over the zero values. */
export function taskEvent(type: string, nowMs: number, fields: Partial<TaskEvent> = {}): TaskEvent {
  const e: TaskEvent = {
    Type: type,
    Time: nowMs * 1e6,
    Message: '',
    DisplayMessage: '',
    Details: {},
    ExitCode: 0,
    Signal: 0,
    RestartReason: '',
    KillTimeout: 0,
    DriverError: '',
    FailsTask: false,
    ...fields,
  };
  return { ...e, DisplayMessage: e.DisplayMessage || e.Message };
}

/** A task's state while the client runs it (a mutable {@link TaskState}). */
export type LiveTaskState = { -readonly [K in keyof TaskState]: TaskState[K] };

/** A fresh task state (`pending`), or the one the servers kept when the client restarts. */
export function initialTaskState(previous?: TaskState | null): LiveTaskState {
  return previous
    ? { ...previous, Events: [...previous.Events] }
    : { State: 'pending', Failed: false, Restarts: 0, LastRestart: null, StartedAt: null, FinishedAt: null, Events: [] };
}

/** Appends `e` to `s`, keeping the newest {@link MAX_TASK_EVENTS}. */
export function appendTaskEvent(s: LiveTaskState, e: TaskEvent): void {
  s.Events = [...s.Events, e].slice(-MAX_TASK_EVENTS);
}
