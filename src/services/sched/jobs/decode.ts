/**
 * A job from its JSON (reference/sched-workloads.md "The Job object"): the reference's
 * PascalCase fields decoded the way Go's `encoding/json` decodes into `api.Job` (names in
 * any case, unknown fields ignored, durations integer nanoseconds), then the reference's
 * register-time defaults (defaults.ts) applied. Checks are validate.ts.
 *
 * Errors are 400s naming the field: Go's decoder texts for a value of the wrong kind
 * (`json: cannot unmarshal string into Go struct field Job.TaskGroups.Count of type int64`).
 *
 * @module
 */
import { decodeGoStruct, fieldOf } from '../go-struct.js';
import { schedBadRequest } from '../http.js';
import { decodeVolumes } from '../alloc.js';
import { decodeNetworks } from './network.js';
import {
  DEFAULT_EPHEMERAL_DISK,
  DEFAULT_KILL_SIGNAL,
  DEFAULT_KILL_TIMEOUT,
  DEFAULT_LOG_CONFIG,
  DEFAULT_PRIORITY,
  DEFAULT_RESOURCES,
  DEFAULT_UPDATE,
  defaultReschedulePolicy,
  defaultRestartPolicy,
} from './defaults.js';
import type { Constraint, Job, LogConfig, ReschedulePolicy, Resources, RestartPolicy, Task, TaskGroup, VolumeMount } from './types.js';
import { isObject } from '../../../kernel/util/is-object.js';
import { decodeServices } from './services.js';
import { decodeTemplates } from './templates.js';
import { decodeDefaultIdentity, decodeNamedIdentities } from './identity.js';
import { decodeVault, withVaultConstraint, withVaultIdentity } from './vault.js';
import { decodeConsul } from './consul.js';
import { jsonKind } from '../../../kernel/util/go-struct.js';
import { decodeDispatchPayload, decodeParameterized } from './parameterized.js';
import { decodePeriodic } from './periodic.js';
import { decodeAffinities, decodeSpreads } from './preferences.js';
import { decodeGroupUpdate, decodeUpdateFields } from './update.js';

/** Where a decoded job lands when the body names none of these. */
export interface DecodeContext {
  /** `?namespace=` or `default`. */
  readonly namespace: string;
  /** This agent's region. */
  readonly region: string;
}

/** A JSON array field (absent or `null`: undefined). @throws 400 Go's text for a non-array. */
function arrayField(v: unknown, path: string, goType: string): unknown[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw schedBadRequest(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${path} of type ${goType}`);
  return v;
}

/** A `[]string` field. @throws 400 Go's text. */
function stringList(v: unknown, path: string): string[] | undefined {
  const list = arrayField(v, path, '[]string');
  if (!list) return undefined;
  return list.map((s) => {
    if (typeof s !== 'string') throw schedBadRequest(`json: cannot unmarshal ${jsonKind(s)} into Go struct field ${path} of type string`);
    return s;
  });
}

/** A `map[string]string` field; empty → null, as the reference keeps an empty map. */
function stringMap(v: unknown, path: string): Record<string, string> | null {
  if (v === undefined || v === null) return null;
  if (!isObject(v)) throw schedBadRequest(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${path} of type map[string]string`);
  for (const [k, s] of Object.entries(v)) {
    if (typeof s !== 'string') throw schedBadRequest(`json: cannot unmarshal ${jsonKind(s)} into Go struct field ${path}.${k} of type string`);
  }
  return Object.keys(v).length > 0 ? ({ ...v } as Record<string, string>) : null;
}

/** A number field with a default; `null`/absent → `def`. @throws 400 Go's text for a non-integer. */
function intOr(raw: Record<string, unknown>, name: string, def: number, path: string): number {
  const v = fieldOf(raw, name);
  if (v === undefined) return def;
  if (typeof v !== 'number') throw schedBadRequest(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${path}.${name} of type int64`);
  if (!Number.isSafeInteger(v)) throw schedBadRequest(`json: cannot unmarshal number ${v} into Go struct field ${path}.${name} of type int64`);
  return v;
}

function strOr(raw: Record<string, unknown>, name: string, def: string, path: string): string {
  const v = fieldOf(raw, name);
  if (v === undefined) return def;
  if (typeof v !== 'string') throw schedBadRequest(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${path}.${name} of type string`);
  return v === '' ? def : v;
}

function boolOr(raw: Record<string, unknown>, name: string, def: boolean, path: string): boolean {
  const v = fieldOf(raw, name);
  if (v === undefined) return def;
  if (typeof v !== 'boolean') throw schedBadRequest(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${path}.${name} of type bool`);
  return v;
}

/** An optional struct field: undefined when absent or `null`. @throws 400 Go's text for a non-object. */
function structField(raw: Record<string, unknown>, name: string, path: string, goType: string): Record<string, unknown> | undefined {
  const v = fieldOf(raw, name);
  if (v === undefined) return undefined;
  if (!isObject(v)) throw schedBadRequest(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${path}.${name} of type ${goType}`);
  return v;
}

function decodeConstraints(v: unknown, path: string): Constraint[] | null {
  const list = arrayField(v, path, '[]*api.Constraint');
  if (!list || list.length === 0) return null;
  return list.flatMap((c) => {
    if (c === null) return [];
    const d = decodeGoStruct(c, path, { LTarget: 'string', RTarget: 'string', Operand: 'string' });
    return [{ LTarget: d.LTarget as string, RTarget: d.RTarget as string, Operand: (d.Operand as string) || '=' }];
  });
}

function decodeRestart(raw: Record<string, unknown> | undefined, jobType: string, path: string): RestartPolicy {
  const def = defaultRestartPolicy(jobType);
  if (!raw) return def;
  return {
    Attempts: intOr(raw, 'Attempts', def.Attempts, path),
    Interval: intOr(raw, 'Interval', def.Interval, path),
    Delay: intOr(raw, 'Delay', def.Delay, path),
    Mode: strOr(raw, 'Mode', def.Mode, path),
    RenderTemplates: boolOr(raw, 'RenderTemplates', def.RenderTemplates, path),
  };
}

function decodeReschedule(raw: Record<string, unknown> | undefined, jobType: string, path: string): ReschedulePolicy | null {
  const def = defaultReschedulePolicy(jobType);
  if (!def) return null;
  if (!raw) return def;
  return {
    Attempts: intOr(raw, 'Attempts', def.Attempts, path),
    Interval: intOr(raw, 'Interval', def.Interval, path),
    Delay: intOr(raw, 'Delay', def.Delay, path),
    DelayFunction: strOr(raw, 'DelayFunction', def.DelayFunction, path),
    MaxDelay: intOr(raw, 'MaxDelay', def.MaxDelay, path),
    Unlimited: boolOr(raw, 'Unlimited', def.Unlimited, path),
  };
}

function decodeResources(raw: Record<string, unknown> | undefined, path: string): Resources {
  if (!raw) return DEFAULT_RESOURCES;
  const disk = fieldOf(raw, 'DiskMB');
  return {
    CPU: intOr(raw, 'CPU', DEFAULT_RESOURCES.CPU, path),
    Cores: intOr(raw, 'Cores', 0, path),
    MemoryMB: intOr(raw, 'MemoryMB', DEFAULT_RESOURCES.MemoryMB, path),
    MemoryMaxMB: intOr(raw, 'MemoryMaxMB', 0, path),
    DiskMB: disk === undefined ? null : intOr(raw, 'DiskMB', 0, path),
  };
}

function decodeLogConfig(raw: Record<string, unknown> | undefined, path: string): LogConfig {
  if (!raw) return DEFAULT_LOG_CONFIG;
  return {
    MaxFiles: intOr(raw, 'MaxFiles', DEFAULT_LOG_CONFIG.MaxFiles, path),
    MaxFileSizeMB: intOr(raw, 'MaxFileSizeMB', DEFAULT_LOG_CONFIG.MaxFileSizeMB, path),
    Disabled: boolOr(raw, 'Disabled', false, path),
  };
}

function decodeVolumeMounts(v: unknown, path: string): VolumeMount[] | null {
  const list = arrayField(v, path, '[]*api.VolumeMount');
  if (!list || list.length === 0) return null;
  return list.flatMap((m) => {
    if (m === null) return [];
    const d = decodeGoStruct(m, path, { Volume: 'string', Destination: 'string', ReadOnly: 'bool', PropagationMode: 'string' });
    return [
      {
        Volume: d.Volume as string,
        Destination: d.Destination as string,
        ReadOnly: d.ReadOnly as boolean,
        PropagationMode: (d.PropagationMode as string) || 'private',
      },
    ];
  });
}

/** A `ShutdownDelay` (ns, or a Go duration string as Go reads `time.Duration`); absent → undefined. @throws 400 Go's text. */
function shutdownDelay(raw: Record<string, unknown>, path: string): number | undefined {
  const v = fieldOf(raw, 'ShutdownDelay');
  if (v === undefined) return undefined;
  return decodeGoStruct({ ShutdownDelay: v }, path, { ShutdownDelay: 'duration' }).ShutdownDelay as number;
}

/** `names`: the job's and group's names, for the default service names. */
function decodeTask(raw: unknown, path: string, names: string): Task {
  if (!isObject(raw)) throw schedBadRequest(`json: cannot unmarshal ${jsonKind(raw)} into Go struct field ${path} of type api.Task`);
  const config = structField(raw, 'Config', path, 'map[string]interface {}');
  const lifecycle = structField(raw, 'Lifecycle', path, 'api.TaskLifecycle');
  const templates = decodeTemplates(fieldOf(raw, 'Templates'), `${path}.Templates`);
  const vault = decodeVault(fieldOf(raw, 'Vault'), `${path}.Vault`);
  const dispatchPayload = decodeDispatchPayload(raw, path);
  const affinities = decodeAffinities(raw, path);
  return {
    Name: strOr(raw, 'Name', '', path),
    Driver: strOr(raw, 'Driver', '', path),
    User: strOr(raw, 'User', '', path),
    Config: config ?? {},
    Env: stringMap(fieldOf(raw, 'Env'), `${path}.Env`),
    Constraints: decodeConstraints(fieldOf(raw, 'Constraints'), `${path}.Constraints`),
    Resources: decodeResources(structField(raw, 'Resources', path, 'api.Resources'), `${path}.Resources`),
    Meta: stringMap(fieldOf(raw, 'Meta'), `${path}.Meta`),
    KillTimeout: intOr(raw, 'KillTimeout', DEFAULT_KILL_TIMEOUT, path),
    KillSignal: strOr(raw, 'KillSignal', DEFAULT_KILL_SIGNAL, path),
    LogConfig: decodeLogConfig(structField(raw, 'LogConfig', path, 'api.LogConfig'), `${path}.LogConfig`),
    VolumeMounts: decodeVolumeMounts(fieldOf(raw, 'VolumeMounts'), `${path}.VolumeMounts`),
    Leader: boolOr(raw, 'Leader', false, path),
    Lifecycle: lifecycle
      ? { Hook: strOr(lifecycle, 'Hook', '', `${path}.Lifecycle`), Sidecar: boolOr(lifecycle, 'Sidecar', false, `${path}.Lifecycle`) }
      : null,
    Services: decodeServices(fieldOf(raw, 'Services'), `${path}.Services`, `${names}-${strOr(raw, 'Name', '', path)}`),
    ShutdownDelay: shutdownDelay(raw, path) ?? 0,
    // Only when given: a job stored before templates existed compares equal to its re-registration.
    ...(templates && { Templates: templates }),
    Identity: decodeDefaultIdentity(raw, path),
    // A `vault` block brings the identity its login uses (jobs/vault.ts), as the reference's submit does.
    Identities: withVaultIdentity(vault, decodeNamedIdentities(raw, path)),
    ...(vault && { Vault: vault }),
    Consul: decodeConsul(raw, path),
    ...(dispatchPayload && { DispatchPayload: dispatchPayload }),
    ...(affinities && { Affinities: affinities }),
  };
}

function decodeGroup(raw: unknown, job: { type: string; name: string; update: Job['Update'] }, path: string): TaskGroup {
  const jobType = job.type;
  if (!isObject(raw)) throw schedBadRequest(`json: cannot unmarshal ${jsonKind(raw)} into Go struct field ${path} of type api.TaskGroup`);
  const disk = structField(raw, 'EphemeralDisk', path, 'api.EphemeralDisk');
  const volumes = structField(raw, 'Volumes', path, 'map[string]*api.VolumeRequest');
  const tasks = arrayField(fieldOf(raw, 'Tasks'), `${path}.Tasks`, '[]*api.Task') ?? [];
  const networks = decodeNetworks(raw, path);
  const affinities = decodeAffinities(raw, path);
  const spreads = decodeSpreads(raw, path);
  const update = decodeGroupUpdate(raw, { Type: jobType, Update: job.update }, path);
  const decodedTasks = tasks.filter((t) => t !== null).map((t) => decodeTask(t, `${path}.Tasks`, `${job.name}-${strOr(raw, 'Name', '', path)}`));
  return {
    Name: strOr(raw, 'Name', '', path),
    Count: intOr(raw, 'Count', 1, path),
    // Tasks with a `vault` block run only where a client has one (jobs/vault.ts).
    Constraints: withVaultConstraint(decodeConstraints(fieldOf(raw, 'Constraints'), `${path}.Constraints`), decodedTasks),
    RestartPolicy: decodeRestart(structField(raw, 'RestartPolicy', path, 'api.RestartPolicy'), jobType, `${path}.RestartPolicy`),
    ReschedulePolicy: decodeReschedule(structField(raw, 'ReschedulePolicy', path, 'api.ReschedulePolicy'), jobType, `${path}.ReschedulePolicy`),
    EphemeralDisk: disk
      ? {
          Sticky: boolOr(disk, 'Sticky', false, `${path}.EphemeralDisk`),
          SizeMB: intOr(disk, 'SizeMB', DEFAULT_EPHEMERAL_DISK.SizeMB, `${path}.EphemeralDisk`),
          Migrate: boolOr(disk, 'Migrate', false, `${path}.EphemeralDisk`),
        }
      : DEFAULT_EPHEMERAL_DISK,
    Volumes: volumes && Object.keys(volumes).length > 0 ? decodeVolumes(volumes) : null,
    Meta: stringMap(fieldOf(raw, 'Meta'), `${path}.Meta`),
    // Only when given: a job stored before groups had networks compares equal to its re-registration (no destructive update).
    ...(networks && { Networks: networks }),
    Tasks: decodedTasks,
    // Only when given: a job stored before preferences existed compares equal to its re-registration.
    ...(affinities && { Affinities: affinities }),
    ...(spreads && { Spreads: spreads }),
    Services: decodeServices(fieldOf(raw, 'Services'), `${path}.Services`, `${job.name}-${strOr(raw, 'Name', '', path)}`),
    ShutdownDelay: shutdownDelay(raw, path) ?? null,
    Consul: decodeConsul(raw, path),
    // The job's strategy merged with the group's (jobs/update.ts); absent for groups of other job types without one.
    ...(update && { Update: update }),
  };
}

/**
 * Decodes `raw` (the `Job` of a register body) with the reference's defaults: `Name` = `ID`,
 * `Namespace` the request's, `Region` this agent's, `Type` `service`, `Priority` 50,
 * `Datacenters` `["*"]`, `NodePool` `default`, a service job's `Update`, each group's
 * `Count` 1, restart and reschedule policies by job type, ephemeral disk, each task's
 * resources, kill timeout and signal, log config. Status and index fields are zero; the
 * register write sets them. Not checked beyond the JSON kinds: see validate.ts.
 * @throws 400 Go's decoder texts naming the field.
 */
export function decodeJob(raw: unknown, ctx: DecodeContext): Job {
  if (!isObject(raw)) throw schedBadRequest(`json: cannot unmarshal ${jsonKind(raw)} into Go value of type api.Job`);
  const path = 'Job';
  const id = strOr(raw, 'ID', '', path);
  const type = strOr(raw, 'Type', 'service', path);
  const update = structField(raw, 'Update', path, 'api.UpdateStrategy');
  const groups = arrayField(fieldOf(raw, 'TaskGroups'), 'Job.TaskGroups', '[]*api.TaskGroup') ?? [];
  const datacenters = stringList(fieldOf(raw, 'Datacenters'), 'Job.Datacenters');
  const parameterized = decodeParameterized(raw);
  const periodic = decodePeriodic(raw);
  const affinities = decodeAffinities(raw, path);
  const spreads = decodeSpreads(raw, path);
  const payload = fieldOf(raw, 'Payload');
  const jobUpdate = type === 'service' ? decodeUpdateFields(update, DEFAULT_UPDATE, 'Job.Update') : (update ?? null);
  return {
    ID: id,
    ParentID: strOr(raw, 'ParentID', '', path),
    Name: strOr(raw, 'Name', id, path),
    Namespace: strOr(raw, 'Namespace', ctx.namespace, path),
    Region: strOr(raw, 'Region', ctx.region, path),
    Type: type,
    Priority: intOr(raw, 'Priority', DEFAULT_PRIORITY, path),
    AllAtOnce: boolOr(raw, 'AllAtOnce', false, path),
    Datacenters: datacenters && datacenters.length > 0 ? datacenters : ['*'],
    NodePool: strOr(raw, 'NodePool', 'default', path),
    Constraints: decodeConstraints(fieldOf(raw, 'Constraints'), 'Job.Constraints'),
    Meta: stringMap(fieldOf(raw, 'Meta'), 'Job.Meta'),
    Update: jobUpdate,
    TaskGroups: groups.filter((g) => g !== null).map((g) => decodeGroup(g, { type, name: strOr(raw, 'Name', id, path), update: jobUpdate }, 'Job.TaskGroups')),
    // Only when given: a job stored before parameterized jobs existed compares equal to its re-registration.
    ...(parameterized && { ParameterizedJob: parameterized }),
    ...(periodic && { Periodic: periodic }),
    ...(affinities && { Affinities: affinities }),
    ...(spreads && { Spreads: spreads }),
    // Kept to be refused by validate.ts (a payload comes with a dispatch only).
    ...(typeof payload === 'string' && payload !== '' && { Payload: payload }),
    Stop: boolOr(raw, 'Stop', false, path),
    Status: '',
    StatusDescription: '',
    Stable: false,
    Version: 0,
    SubmitTime: 0,
    CreateIndex: 0,
    ModifyIndex: 0,
    JobModifyIndex: 0,
  };
}
