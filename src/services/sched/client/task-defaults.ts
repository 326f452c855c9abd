/**
 * The reference's register-time defaults for what a client reads from a task group and its
 * tasks (reference/sched-workloads.md "The Job object"). The jobs API applies them on
 * register; the client applies them again because an allocation written directly (the
 * Cairn-only `PUT /v1/allocation` with a `Job`) may carry a job without them.
 *
 * @module
 */
import { NS_PER_SECOND, type LogConfig, type Resources, type RestartPolicy, type Task, type TaskGroup } from '../jobs/types.js';

const MINUTE = 60 * NS_PER_SECOND;

/** The restart policy of a `service` (or `system`) job: 2 attempts in 30 m, 15 s apart, then fail. */
export const SERVICE_RESTART: RestartPolicy = { Attempts: 2, Interval: 30 * MINUTE, Delay: 15 * NS_PER_SECOND, Mode: 'fail', RenderTemplates: false };
/** The restart policy of a `batch` job: 3 attempts in 24 h, 15 s apart, then fail. */
export const BATCH_RESTART: RestartPolicy = { Attempts: 3, Interval: 24 * 60 * MINUTE, Delay: 15 * NS_PER_SECOND, Mode: 'fail', RenderTemplates: false };
/** Log rotation: 10 files of 10 MiB. */
export const DEFAULT_LOG_CONFIG: LogConfig = { MaxFiles: 10, MaxFileSizeMB: 10, Disabled: false };
/** 5 s in ns. */
export const DEFAULT_KILL_TIMEOUT = 5 * NS_PER_SECOND;

/** The group's restart policy, each missing field from the job type's default. */
export function restartPolicyOf(group: TaskGroup, jobType: string): RestartPolicy {
  const base = jobType === 'batch' || jobType === 'sysbatch' ? BATCH_RESTART : SERVICE_RESTART;
  return { ...base, ...(group.RestartPolicy ?? {}) };
}

/** The task with `KillTimeout`, `KillSignal`, `LogConfig` and `Resources` filled in. */
export function taskWithDefaults(t: Task): Task {
  return {
    ...t,
    KillTimeout: t.KillTimeout || DEFAULT_KILL_TIMEOUT,
    KillSignal: t.KillSignal || 'SIGINT',
    LogConfig: { ...DEFAULT_LOG_CONFIG, ...(t.LogConfig ?? {}) },
    Resources: { CPU: 100, Cores: 0, MemoryMB: 300, MemoryMaxMB: 0, DiskMB: null, ...(t.Resources as Partial<Resources> | undefined) },
  };
}
