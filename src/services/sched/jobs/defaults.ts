/**
 * The reference's register-time defaults of a job (reference/sched-workloads.md "The Job
 * object"; Nomad `api/jobs.go` `Canonicalize`, `api/tasks.go`, `nomad/structs`
 * `DefaultUpdateStrategy`, `NewRestartPolicy`, `NewReschedulePolicy`,
 * `DefaultEphemeralDisk`, `DefaultLogConfig`, `DefaultResources`). Durations in ns.
 *
 * @module
 */
import type { LogConfig, ReschedulePolicy, Resources, RestartPolicy } from './types.js';
import { NS_PER_SECOND } from './types.js';

const S = NS_PER_SECOND;
const M = 60 * S;
const H = 60 * M;

/** Job priority when none is given, and its bounds (reference `JobDefaultPriority`, `JobMinPriority`, `JobMaxPriority`). */
export const DEFAULT_PRIORITY = 50;
export const MIN_PRIORITY = 1;
export const MAX_PRIORITY = 100;

/** A service job's update strategy (reference `DefaultUpdateStrategy`). */
export const DEFAULT_UPDATE: Readonly<Record<string, unknown>> = {
  Stagger: 30 * S,
  MaxParallel: 1,
  HealthCheck: 'checks',
  MinHealthyTime: 10 * S,
  HealthyDeadline: 5 * M,
  ProgressDeadline: 10 * M,
  AutoRevert: false,
  AutoPromote: false,
  Canary: 0,
};

/** The restart policy of a group by job type (reference `NewRestartPolicy`): service and system 2 in 30 m, batch 3 in 24 h, 15 s apart, mode `fail`. */
export function defaultRestartPolicy(jobType: string): RestartPolicy {
  const batch = jobType === 'batch' || jobType === 'sysbatch';
  return { Attempts: batch ? 3 : 2, Interval: batch ? 24 * H : 30 * M, Delay: 15 * S, Mode: 'fail', RenderTemplates: false };
}

/**
 * The reschedule policy of a group by job type (reference `NewReschedulePolicy`): service
 * unlimited, 30 s exponential up to 1 h; batch one attempt in 24 h after 5 s; system and
 * sysbatch none (their allocations are never rescheduled).
 */
export function defaultReschedulePolicy(jobType: string): ReschedulePolicy | null {
  if (jobType === 'service') return { Attempts: 0, Interval: 0, Delay: 30 * S, DelayFunction: 'exponential', MaxDelay: 1 * H, Unlimited: true };
  if (jobType === 'batch') return { Attempts: 1, Interval: 24 * H, Delay: 5 * S, DelayFunction: 'constant', MaxDelay: 0, Unlimited: false };
  return null;
}

/** A task's resources when none are given: 100 MHz, 300 MiB (reference `DefaultResources`). */
export const DEFAULT_RESOURCES: Resources = { CPU: 100, Cores: 0, MemoryMB: 300, MemoryMaxMB: 0, DiskMB: null };
/** A group's ephemeral disk (reference `DefaultEphemeralDisk`): 300 MiB. */
export const DEFAULT_EPHEMERAL_DISK = { Sticky: false, SizeMB: 300, Migrate: false } as const;
/** A task's log rotation (reference `DefaultLogConfig`): 10 files of 10 MiB. */
export const DEFAULT_LOG_CONFIG: LogConfig = { MaxFiles: 10, MaxFileSizeMB: 10, Disabled: false };
/** A task's kill timeout: 5 s (reference `DefaultKillTimeout`). */
export const DEFAULT_KILL_TIMEOUT = 5 * S;
/** The signal a task gets first on stop when it names none (the reference's drivers send SIGINT). */
export const DEFAULT_KILL_SIGNAL = 'SIGINT';
/** Job versions kept per job (reference `JobTrackedVersions`). */
export const TRACKED_VERSIONS = 6;

/** Constraint operands the reference accepts (`structs.Constraint.Validate`). */
export const CONSTRAINT_OPERANDS = [
  '=',
  '==',
  'is',
  '!=',
  'not',
  '<',
  '<=',
  '>',
  '>=',
  'distinct_hosts',
  'distinct_property',
  'regexp',
  'version',
  'semver',
  'set_contains',
  'set_contains_all',
  'set_contains_any',
  'is_set',
  'is_not_set',
] as const;

/** Input bounds: a job this large is a mistake or an attack, not a workload (no reference limit; Cairn's own). */
export const LIMITS = {
  /** Characters of a job, group or task name. */
  name: 128,
  groups: 100,
  tasksPerGroup: 100,
  /** Instances of one group. */
  count: 50_000,
  constraints: 64,
  /** Entries of a `Meta` or `Env` map. */
  mapEntries: 1024,
} as const;
