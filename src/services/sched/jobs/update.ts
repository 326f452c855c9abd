/**
 * A task group's update strategy (the reference's `structs.UpdateStrategy`, job `update`
 * block merged into each group's by `Job.Canonicalize`): what a deployment of the group
 * follows and what a client's health check of its allocations uses. Decoding fills each
 * group's `Update` (JSON `TaskGroups[].Update`, HCL `group { update { … } }`) with the job's
 * strategy and the group's own fields over it; validation has the reference's texts
 * (`UpdateStrategy.Validate`, `TaskGroup.Validate`).
 *
 * @module
 */
import { fieldOf } from '../go-struct.js';
import { schedBadRequest } from '../http.js';
import { jsonKind } from '../../../kernel/util/go-struct.js';
import { DEFAULT_UPDATE } from './defaults.js';
import type { Job, TaskGroup, UpdateStrategy } from './types.js';

/**
 * The update strategy of group `tg` of `job`: the group's own when it has one, else the
 * job's (with the reference's defaults for fields it lacks) for a `service` job; null for
 * other job types and for a strategy with `MaxParallel` 0 (no deployment).
 */
export function groupUpdate(job: Pick<Job, 'Type' | 'Update'>, tg: Pick<TaskGroup, 'Update'>): UpdateStrategy | null {
  if (job.Type !== 'service') return null;
  const u = tg.Update !== undefined ? tg.Update : jobLevelUpdate(job);
  return u && u.MaxParallel > 0 ? u : null;
}

/** A service job's own strategy with the reference's defaults for the fields it lacks; null for other job types or none. */
export function jobLevelUpdate(job: Pick<Job, 'Type' | 'Update'>): UpdateStrategy | null {
  if (job.Type !== 'service' || !job.Update) return null;
  return { ...DEFAULT_UPDATE, ...job.Update } as unknown as UpdateStrategy;
}

/**
 * Each field of an `Update` object `raw` at `path` (in any case) over `base`; Go's decoder
 * texts for a value of the wrong kind. @throws 400 `json: cannot unmarshal <kind> into Go
 * struct field <path>.<Field> of type <int64|bool|string>`.
 */
export function decodeUpdateFields(raw: Record<string, unknown> | undefined, base: Readonly<Record<string, unknown>>, path: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, def] of Object.entries(DEFAULT_UPDATE)) {
    const v = raw === undefined ? undefined : fieldOf(raw, name);
    if (v !== undefined && v !== null && typeof v !== typeof def)
      throw schedBadRequest(
        `json: cannot unmarshal ${jsonKind(v)} into Go struct field ${path}.${name} of type ${typeof def === 'number' ? 'int64' : typeof def === 'boolean' ? 'bool' : 'string'}`,
      );
    out[name] = v ?? base[name];
  }
  return out;
}

/**
 * Group `Update` of a decoded `service` job: the job's strategy, the group's own `raw` fields
 * over it (the reference's `TaskGroup.Canonicalize` merge). Other job types: the group's own
 * as given (validation refuses it for batch jobs), absent when none.
 */
export function decodeGroupUpdate(raw: Record<string, unknown> | undefined, job: Pick<Job, 'Type' | 'Update'>, path: string): UpdateStrategy | undefined {
  const own = raw === undefined ? undefined : fieldOf(raw, 'Update');
  if (own !== undefined && own !== null && (typeof own !== 'object' || Array.isArray(own)))
    throw schedBadRequest(`json: cannot unmarshal ${jsonKind(own)} into Go struct field ${path}.Update of type api.UpdateStrategy`);
  const ownFields = own === null ? undefined : (own as Record<string, unknown> | undefined);
  const base = jobLevelUpdate(job);
  if (base) return decodeUpdateFields(ownFields, base as unknown as Record<string, unknown>, `${path}.Update`) as unknown as UpdateStrategy;
  if (!ownFields) return undefined;
  return decodeUpdateFields(ownFields, DEFAULT_UPDATE, `${path}.Update`) as unknown as UpdateStrategy;
}

/** The reference's `UpdateStrategy.Validate` texts (durations printed in ns). */
function strategyErrors(u: UpdateStrategy): string[] {
  const out: string[] = [];
  if (!['checks', 'task_states', 'manual'].includes(u.HealthCheck)) out.push(`Invalid health check given: ${JSON.stringify(u.HealthCheck)}`);
  if (u.MaxParallel < 0) out.push(`Max parallel can not be less than zero: ${u.MaxParallel} < 0`);
  if (u.Canary < 0) out.push(`Canary count can not be less than zero: ${u.Canary} < 0`);
  if (u.Canary === 0 && u.AutoPromote) out.push('Auto Promote requires a Canary count greater than zero');
  if (u.MinHealthyTime < 0) out.push(`Minimum healthy time may not be less than zero: ${u.MinHealthyTime}ns`);
  if (u.HealthyDeadline <= 0) out.push(`Healthy deadline must be greater than zero: ${u.HealthyDeadline}ns`);
  if (u.ProgressDeadline < 0) out.push(`Progress deadline must be zero or greater: ${u.ProgressDeadline}ns`);
  if (u.MinHealthyTime >= u.HealthyDeadline)
    out.push(`Minimum healthy time must be less than healthy deadline: ${u.MinHealthyTime}ns > ${u.HealthyDeadline}ns`);
  if (u.ProgressDeadline !== 0 && u.HealthyDeadline >= u.ProgressDeadline)
    out.push(`Healthy deadline must be less than progress deadline: ${u.HealthyDeadline}ns > ${u.ProgressDeadline}ns`);
  return out;
}

/** The checks of group `g`'s strategy in `job` (the reference's `TaskGroup.Validate` on `Update`, and Cairn's canary-vs-count check). */
export function groupUpdateErrors(g: Pick<TaskGroup, 'Update' | 'Count'>, job: Pick<Job, 'Type'>): string[] {
  const u = g.Update;
  if (!u) return [];
  const out: string[] = [];
  if (job.Type !== 'service' && job.Type !== 'system') out.push(`Job type ${JSON.stringify(job.Type)} does not allow update block`);
  out.push(...strategyErrors(u));
  if (job.Type === 'service' && u.MaxParallel > 0 && u.Canary > g.Count)
    out.push(`Update.Canary (${u.Canary}) must not be greater than the task group's count (${g.Count})`);
  return out;
}
