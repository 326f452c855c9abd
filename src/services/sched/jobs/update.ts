/**
 * A task group's update strategy (the reference's `structs.UpdateStrategy`, job `update`
 * block merged into each group's by `Job.Canonicalize`): what a deployment of the group
 * follows and what a client's health check of its allocations uses.
 *
 * @module
 */
import { DEFAULT_UPDATE } from './defaults.js';
import type { Job, TaskGroup, UpdateStrategy } from './types.js';

/**
 * The update strategy of group `tg` of `job`: the group's own when it has one, else the
 * job's (with the reference's defaults for fields it lacks) for a `service` job; null for
 * other job types and for a strategy with `MaxParallel` 0 (no deployment).
 */
export function groupUpdate(job: Pick<Job, 'Type' | 'Update'>, tg: Pick<TaskGroup, 'Update'>): UpdateStrategy | null {
  if (job.Type !== 'service') return null;
  const u = tg.Update !== undefined ? tg.Update : job.Update && ({ ...DEFAULT_UPDATE, ...job.Update } as unknown as UpdateStrategy);
  return u && u.MaxParallel > 0 ? u : null;
}
