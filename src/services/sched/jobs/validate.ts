/**
 * The checks a decoded job passes before it is stored (the reference's `structs.Job.Validate`,
 * `TaskGroup.Validate`, `Task.Validate`, `RestartPolicy.Validate`, `ReschedulePolicy.Validate`,
 * `Constraint.Validate`, `Resources.Validate`, with its texts where known), plus Cairn's input
 * bounds (defaults.ts `LIMITS`), task names that the client's allocation directory cannot hold
 * (`.`, `..`, `alloc`), and the `command` of the `raw_exec` and `exec` drivers, which the
 * reference checks only on the client when the task starts.
 *
 * Every problem is collected; the error lists them as the reference's multierror does:
 * `2 errors occurred:\n\t* Missing job ID\n\t* Task group web validation failed: …\n\n`.
 *
 * @module
 */
import { schedBadRequest } from '../http.js';
import { CONSTRAINT_OPERANDS, LIMITS, MAX_PRIORITY, MIN_PRIORITY } from './defaults.js';
import { serviceErrors } from './services.js';
import { networkErrors } from './network.js';
import { templateErrors } from './templates.js';
import { vaultErrors } from './vault.js';
import { JOB_TYPES, type Constraint, type Job, type Task, type TaskGroup } from './types.js';
import { identityErrors } from './identity.js';
import { consulErrors } from './consul.js';
import { parameterizedErrors } from './parameterized.js';
import { periodicErrors } from './periodic.js';
import { preferenceErrors } from './preferences.js';
import { groupUpdateErrors } from './update.js';

/** The reference's `multierror` text of `errors`. */
function multiError(errors: readonly string[]): string {
  const head = errors.length === 1 ? '1 error occurred:' : `${errors.length} errors occurred:`;
  return `${head}\n${errors.map((e) => `\t* ${e}`).join('\n')}\n\n`;
}

function constraintErrors(cs: readonly Constraint[] | null): string[] {
  const out: string[] = [];
  if (cs && cs.length > LIMITS.constraints) out.push(`at most ${LIMITS.constraints} constraints are allowed, got ${cs.length}`);
  for (const c of cs ?? []) {
    if (!(CONSTRAINT_OPERANDS as readonly string[]).includes(c.Operand)) {
      out.push(`Constraint ${JSON.stringify(c.LTarget)} has unknown operand ${JSON.stringify(c.Operand)}: must be one of ${CONSTRAINT_OPERANDS.join(', ')}`);
      continue;
    }
    const needsL = !['distinct_hosts'].includes(c.Operand);
    if (needsL && c.LTarget === '') out.push(`No LTarget provided but is required by constraint (operand ${JSON.stringify(c.Operand)})`);
    if (c.Operand === 'regexp') {
      try {
        new RegExp(c.RTarget);
      } catch (err) {
        out.push(`Regular expression failed to compile: ${(err as Error).message}`);
      }
    }
  }
  return out;
}

function mapErrors(what: string, m: Readonly<Record<string, string>> | null): string[] {
  return m && Object.keys(m).length > LIMITS.mapEntries ? [`${what} has ${Object.keys(m).length} entries: at most ${LIMITS.mapEntries} are allowed`] : [];
}

function taskErrors(t: Task, g: TaskGroup): string[] {
  const out: string[] = [];
  if (t.Name === '') out.push('Missing task name');
  else if (t.Name.length > LIMITS.name) out.push(`Task name is longer than ${LIMITS.name} characters`);
  if (t.Name.includes('/')) out.push('Task name cannot include slashes');
  if (t.Name.includes('\0')) out.push('Task name cannot include null characters');
  // Cairn's own: the client makes the task's directory `<allocation directory>/<task name>`
  // beside the shared `alloc` directory, so these names would leave it or take `alloc`.
  if (t.Name === '.' || t.Name === '..') out.push('Task name cannot be "." or ".."');
  if (t.Name === 'alloc') out.push('Task name "alloc" is reserved for the allocation\'s shared directory');
  if (t.Driver === '') out.push('Missing task driver');
  if (t.KillTimeout < 0) out.push('KillTimeout must be a positive value');
  if (t.Resources.CPU < 1) out.push(`minimum CPU value is 1; got ${t.Resources.CPU}`);
  if (t.Resources.MemoryMB < 10) out.push(`minimum MemoryMB value is 10; got ${t.Resources.MemoryMB}`);
  if (t.Resources.MemoryMaxMB !== 0 && t.Resources.MemoryMaxMB < t.Resources.MemoryMB) {
    out.push(`MemoryMaxMB value (${t.Resources.MemoryMaxMB}) should be larger than MemoryMB value (${t.Resources.MemoryMB})`);
  }
  if (t.LogConfig.MaxFiles < 1) out.push(`minimum number of files is 1; got ${t.LogConfig.MaxFiles}`);
  if (t.LogConfig.MaxFileSizeMB < 1) out.push(`minimum file size is 1MB; got ${t.LogConfig.MaxFileSizeMB}`);
  if (t.Lifecycle && !['prestart', 'poststart', 'poststop'].includes(t.Lifecycle.Hook)) out.push(`invalid hook: ${t.Lifecycle.Hook}`);
  if (t.Driver === 'raw_exec' || t.Driver === 'exec') {
    const { command, args } = t.Config as { command?: unknown; args?: unknown };
    if (typeof command !== 'string' || command === '') out.push(`config: missing required "command" for the ${t.Driver} driver (a string)`);
    if (args !== undefined && args !== null && !(Array.isArray(args) && args.every((a) => typeof a === 'string'))) {
      out.push(`config: "args" must be a list of strings`);
    }
  }
  out.push(...constraintErrors(t.Constraints), ...mapErrors('Env', t.Env), ...mapErrors('Meta', t.Meta), ...serviceErrors(t.Services ?? null));
  if ((t.ShutdownDelay ?? 0) < 0) out.push('ShutdownDelay must be a positive value');
  out.push(...templateErrors(t.Templates));
  out.push(...identityErrors(t));
  out.push(...vaultErrors(t.Vault));
  out.push(...consulErrors(t.Consul));
  for (const [i, m] of (t.VolumeMounts ?? []).entries()) {
    if (m.Volume === '') out.push(`Volume Mount (${i}) references an empty volume`);
    else if (!g.Volumes?.[m.Volume]) out.push(`Volume Mount (${i}) references undefined volume ${m.Volume}`);
    if (m.Destination === '') out.push(`Volume Mount (${i}) has an empty destination`);
  }
  return out;
}

function groupErrors(g: TaskGroup, job: Job): string[] {
  const out: string[] = [];
  if (g.Count < 0) out.push("Task group count can't be negative");
  if (g.Count > LIMITS.count) out.push(`Task group count ${g.Count} is more than ${LIMITS.count}`);
  if (g.Tasks.length === 0) out.push('Missing tasks for task group');
  if (g.Tasks.length > LIMITS.tasksPerGroup) out.push(`Task group has ${g.Tasks.length} tasks: at most ${LIMITS.tasksPerGroup} are allowed`);
  const r = g.RestartPolicy;
  if (r.Mode !== 'delay' && r.Mode !== 'fail') out.push(`Restart policy: Unsupported restart mode: ${JSON.stringify(r.Mode)}`);
  if (r.Attempts < 0) out.push(`Restart policy: Attempts must be greater than or equal to zero: ${r.Attempts}`);
  if (r.Interval < 5e9 && r.Interval !== 0) out.push(`Restart policy: Interval can not be less than 5s (got ${r.Interval / 1e6}ms)`);
  if (r.Mode === 'fail' && r.Attempts > 0 && r.Delay * r.Attempts > r.Interval) {
    out.push(`Restart policy: Nomad can't restart the TaskGroup ${r.Attempts} times in an interval of ${r.Interval}ns with a delay of ${r.Delay}ns`);
  }
  const s = g.ReschedulePolicy;
  if (s) {
    if (!['constant', 'exponential', 'fibonacci'].includes(s.DelayFunction)) {
      out.push(`Reschedule policy: Invalid delay function ${JSON.stringify(s.DelayFunction)}, must be one of ["constant" "exponential" "fibonacci"]`);
    }
    if (s.Delay < 5e9 && (s.Attempts > 0 || s.Unlimited)) out.push('Reschedule policy: Delay cannot be less than 5s');
    if (s.DelayFunction !== 'constant' && s.MaxDelay !== 0 && s.MaxDelay < s.Delay)
      out.push(`Reschedule policy: Max Delay cannot be less than Delay ${s.Delay}ns (got ${s.MaxDelay}ns)`);
  }
  for (const [name, v] of Object.entries(g.Volumes ?? {})) {
    if (v.Type === 'csi' && g.Count > 1 && !v.PerAlloc && v.AccessMode.startsWith('single-node') && !v.ReadOnly) {
      out.push(`volume "${name}": volume with ${v.AccessMode} access mode allows only one writer: set per_alloc or count = 1`);
    }
  }
  out.push(
    ...constraintErrors(g.Constraints),
    ...mapErrors('Meta', g.Meta),
    ...networkErrors(g.Networks),
    ...serviceErrors(
      g.Services ?? null,
      g.Tasks.map((t) => t.Name),
    ),
  );
  if ((g.ShutdownDelay ?? 0) < 0) out.push('ShutdownDelay must be a positive value');
  out.push(...preferenceErrors([...(g.Affinities ?? []), ...g.Tasks.flatMap((t) => t.Affinities ?? [])], g.Spreads));
  out.push(...consulErrors(g.Consul));
  out.push(...groupUpdateErrors(g, job));
  const seen = new Map<string, number>();
  for (const [i, t] of g.Tasks.entries()) {
    const prev = seen.get(t.Name);
    if (t.Name !== '' && prev !== undefined) out.push(`Task ${i + 1} redefines '${t.Name}' from task ${prev + 1}`);
    seen.set(t.Name, i);
    const errs = taskErrors(t, g);
    if (errs.length > 0) out.push(`Task ${t.Name || i + 1} validation failed: ${errs.join('; ')}`);
  }
  if (job.Type === 'system' || job.Type === 'sysbatch') {
    if (g.Count > 1) out.push(`Job task group ${g.Name} has count ${g.Count}. Count cannot exceed 1 with ${job.Type} scheduler`);
  }
  return out;
}

/**
 * Checks `job` (module doc); `region` is this agent's. @throws 400 with every problem in the
 * reference's multierror form, e.g. `1 error occurred:\n\t* Missing job ID\n\n`,
 * `… Task group web validation failed: Task server validation failed: Missing task driver`.
 */
export function validateJob(job: Job, region: string): void {
  const out: string[] = [];
  if (job.Region === '') out.push('Missing job region');
  else if (job.Region !== region)
    out.push(`Job region "${job.Region}" is not this server's region "${region}" (submit it to a server of that region, or with ?region=)`);
  if (job.ID === '') out.push('Missing job ID');
  else if (job.ID.length > LIMITS.name) out.push(`Job ID is longer than ${LIMITS.name} characters`);
  else if (/\s/.test(job.ID)) out.push('Job ID contains a space');
  if (job.ID.includes('\0')) out.push('Job ID contains a null character');
  if (job.Name === '') out.push('Missing job name');
  else if (job.Name.includes('\0')) out.push('Job Name contains a null character');
  if (job.Namespace === '') out.push('Job must be in a namespace');
  if (!(JOB_TYPES as readonly string[]).includes(job.Type)) out.push(`Invalid job type: ${JSON.stringify(job.Type)}: must be one of ${JOB_TYPES.join(', ')}`);
  if (job.Priority < MIN_PRIORITY || job.Priority > MAX_PRIORITY) out.push(`Job priority must be between [${MIN_PRIORITY}, ${MAX_PRIORITY}]`);
  if (job.Datacenters.some((d) => d === '')) out.push('Job datacenter must be non-empty string');
  if (job.TaskGroups.length === 0) out.push('Missing job task groups');
  if (job.TaskGroups.length > LIMITS.groups) out.push(`Job has ${job.TaskGroups.length} task groups: at most ${LIMITS.groups} are allowed`);
  out.push(
    ...constraintErrors(job.Constraints),
    ...mapErrors('Meta', job.Meta),
    ...parameterizedErrors(job),
    ...periodicErrors(job),
    ...preferenceErrors(job.Affinities, job.Spreads),
  );
  if (job.Payload) out.push("job can't be submitted with a payload, only dispatched");
  const seen = new Map<string, number>();
  for (const [i, g] of job.TaskGroups.entries()) {
    if (g.Name === '') out.push(`Job task group ${i + 1} missing name`);
    else if (g.Name.length > LIMITS.name) out.push(`Job task group ${i + 1} name is longer than ${LIMITS.name} characters`);
    const prev = seen.get(g.Name);
    if (g.Name !== '' && prev !== undefined) out.push(`Job task group ${i + 1} redefines '${g.Name}' from group ${prev + 1}`);
    seen.set(g.Name, i);
    const errs = groupErrors(g, job);
    if (errs.length > 0) out.push(`Task group ${g.Name || i + 1} validation failed: ${errs.join('; ')}`);
  }
  if (out.length > 0) throw schedBadRequest(multiError(out));
}
