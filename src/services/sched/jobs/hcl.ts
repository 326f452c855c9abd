/**
 * HCL job files (the reference's jobspec, reference/sched-workloads.md "The Job object") →
 * the job's JSON as the API takes it (PascalCase, durations in ns), for `POST
 * /v1/jobs/parse`. The file is checked with the kernel's config schema (kernel/config: the
 * HCL library with its size and depth bounds), so every problem names the line and key:
 * `input.hcl:7: unknown key "comand" in task "server"`.
 *
 * ```hcl
 * job "web" {
 *   type = "service"  datacenters = ["dc1"]  priority = 50  namespace = "default"
 *   constraint { attribute = "${attr.kernel.name}"  operator = "="  value = "linux" }
 *   meta { team = "a" }
 *   affinity { attribute = "${meta.rack}"  value = "r1"  weight = 50 }   # also on groups and tasks (preferences.ts)
 *   spread { attribute = "${node.datacenter}"  target "dc1" { percent = 70 } }   # also on groups
 *   parameterized { payload = "optional"  meta_required = ["input"] }   # dispatched children only (parameterized.ts)
 *   periodic { crons = ["0 9 * * 1-5"]  prohibit_overlap = true  time_zone = "UTC" }   # launched children only (periodic.ts)
 *   group "app" {
 *     count = 2
 *     restart    { attempts = 2  interval = "30m"  delay = "15s"  mode = "fail" }
 *     reschedule { delay = "30s"  delay_function = "exponential"  max_delay = "1h"  unlimited = true }
 *     ephemeral_disk { size = 300 }
 *     volume "data" { type = "csi"  source = "db"  access_mode = "single-node-writer"  attachment_mode = "file-system" }
 *     network { port "http" {}  port "admin" { static = 8080 } }   # jobs/network.ts
 *     task "server" {
 *       driver = "raw_exec"
 *       config { command = "/bin/sleep"  args = ["300"] }
 *       env { PORT = "8080" }
 *       resources { cpu = 200  memory = 256 }
 *       volume_mount { volume = "data"  destination = "/srv" }
 *       kill_timeout = "10s"
 *       logs { max_files = 5  max_file_size = 10 }
 *       service { name = "web"  port = 8080  check { type = "http"  path = "/"  interval = "10s"  timeout = "2s" } }
 *       template { data = "{{ key \"app/config\" }}"  destination = "local/app.conf" }   # templates-hcl.ts
 *       identity { env = true  file = true  ttl = "1h" }   # workload identities (identity-hcl.ts)
 *       vault { role = "cairn-workloads"  change_mode = "restart" }   # a secrets token for the task (vault-hcl.ts)
 *       dispatch_payload { file = "input.json" }   # a dispatched job's payload, under local/ (parameterized.ts)
 *       consul { namespace = "" }   # a discovery token for the task (consul.ts; also on the group)
 *     }
 *     shutdown_delay = "5s"
 *     service { name = "${JOB}-app" }   # group services too (services-hcl.ts)
 *   }
 * }
 * ```
 *
 * Only what the file sets is in the output; the defaults are the register's (decode.ts).
 * Durations are Go duration strings (`"1h30m"`, `"500ms"`).
 *
 * @module
 */
import { defined, duration, issue, type Body } from './hcl-values.js';
import { ConfigError, parseConfig, type ConfigOf } from '../../../kernel/config/index.js';
import { schedBadRequest } from '../http.js';
import { SERVICE_HCL_KEYS, servicesFromHcl } from './services-hcl.js';
import { hclNetworks, NETWORK_HCL_KEYS } from './network.js';
import { TEMPLATE_HCL_KEYS, templatesFromHcl } from './templates-hcl.js';
import { IDENTITY_HCL_KEYS, identitiesFromHcl } from './identity-hcl.js';
import { VAULT_HCL_KEYS, vaultFromHcl } from './vault-hcl.js';
import { CONSUL_HCL_KEYS, consulFromHcl } from './consul.js';

const constraint = {
  kind: 'block',
  repeated: true,
  keys: { attribute: { kind: 'string' }, operator: { kind: 'string' }, value: { kind: 'string' }, distinct_hosts: { kind: 'bool' } },
} as const;

/** `affinity { attribute operator value weight }` (job, group, task). */
const affinity = {
  kind: 'block',
  repeated: true,
  keys: { attribute: { kind: 'string' }, operator: { kind: 'string' }, value: { kind: 'string' }, weight: { kind: 'int' } },
} as const;

/** `spread { attribute weight target "<value>" { percent } }` (job, group). */
const spread = {
  kind: 'block',
  repeated: true,
  keys: {
    attribute: { kind: 'string' },
    weight: { kind: 'int' },
    target: { kind: 'block', labelled: true, repeated: true, keys: { percent: { kind: 'int' } } },
  },
} as const;

function affinities(list: readonly Body[]): unknown[] | undefined {
  if (list.length === 0) return undefined;
  return list.map((a) => defined({ LTarget: a.attribute, RTarget: a.value, Operand: a.operator, Weight: a.weight }));
}

function spreads(list: readonly Body[]): unknown[] | undefined {
  if (list.length === 0) return undefined;
  return list.map((s) => {
    const targets = s.target as { label: string; body: Body }[];
    return defined({
      Attribute: s.attribute,
      Weight: s.weight,
      SpreadTarget: targets.length ? targets.map((t) => defined({ Value: t.label, Percent: t.body.percent })) : undefined,
    });
  });
}

const TASK_KEYS = {
  driver: { kind: 'string' },
  user: { kind: 'string' },
  config: { kind: 'raw' },
  env: { kind: 'raw' },
  meta: { kind: 'raw' },
  constraint,
  resources: { kind: 'block', keys: { cpu: { kind: 'int' }, memory: { kind: 'int' }, memory_max: { kind: 'int' }, cores: { kind: 'int' } } },
  kill_timeout: { kind: 'raw' },
  kill_signal: { kind: 'string' },
  leader: { kind: 'bool' },
  logs: { kind: 'block', keys: { max_files: { kind: 'int' }, max_file_size: { kind: 'int' }, disabled: { kind: 'bool' } } },
  lifecycle: { kind: 'block', keys: { hook: { kind: 'string' }, sidecar: { kind: 'bool' } } },
  volume_mount: {
    kind: 'block',
    repeated: true,
    keys: { volume: { kind: 'string' }, destination: { kind: 'string' }, read_only: { kind: 'bool' }, propagation_mode: { kind: 'string' } },
  },
  service: SERVICE_HCL_KEYS,
  template: TEMPLATE_HCL_KEYS,
  shutdown_delay: { kind: 'raw' },
  identity: IDENTITY_HCL_KEYS,
  vault: VAULT_HCL_KEYS,
  consul: CONSUL_HCL_KEYS,
  dispatch_payload: { kind: 'block', keys: { file: { kind: 'string' } } },
  affinity,
} as const;

/** `update { … }` (job and group). */
const UPDATE_KEYS = {
  kind: 'block',
  keys: {
    max_parallel: { kind: 'int' },
    health_check: { kind: 'string' },
    min_healthy_time: { kind: 'raw' },
    healthy_deadline: { kind: 'raw' },
    progress_deadline: { kind: 'raw' },
    auto_revert: { kind: 'bool' },
    auto_promote: { kind: 'bool' },
    canary: { kind: 'int' },
    stagger: { kind: 'raw' },
  },
} as const;

/** An `update` block's API JSON (job or group). */
function updateFromHcl(update: Body | undefined): Record<string, unknown> | undefined {
  return (
    update &&
    defined({
      MaxParallel: update.max_parallel,
      HealthCheck: update.health_check,
      MinHealthyTime: duration(update, 'min_healthy_time'),
      HealthyDeadline: duration(update, 'healthy_deadline'),
      ProgressDeadline: duration(update, 'progress_deadline'),
      AutoRevert: update.auto_revert,
      AutoPromote: update.auto_promote,
      Canary: update.canary,
      Stagger: duration(update, 'stagger'),
    })
  );
}

const GROUP_KEYS = {
  count: { kind: 'int' },
  update: UPDATE_KEYS,
  constraint,
  affinity,
  spread,
  meta: { kind: 'raw' },
  restart: {
    kind: 'block',
    keys: { attempts: { kind: 'int' }, interval: { kind: 'raw' }, delay: { kind: 'raw' }, mode: { kind: 'string' }, render_templates: { kind: 'bool' } },
  },
  reschedule: {
    kind: 'block',
    keys: {
      attempts: { kind: 'int' },
      interval: { kind: 'raw' },
      delay: { kind: 'raw' },
      delay_function: { kind: 'string' },
      max_delay: { kind: 'raw' },
      unlimited: { kind: 'bool' },
    },
  },
  ephemeral_disk: { kind: 'block', keys: { size: { kind: 'int' }, sticky: { kind: 'bool' }, migrate: { kind: 'bool' } } },
  volume: {
    kind: 'block',
    labelled: true,
    repeated: true,
    keys: {
      type: { kind: 'string' },
      source: { kind: 'string' },
      read_only: { kind: 'bool' },
      access_mode: { kind: 'string' },
      attachment_mode: { kind: 'string' },
      per_alloc: { kind: 'bool' },
      mount_options: { kind: 'block', keys: { fs_type: { kind: 'string' }, mount_flags: { kind: 'list', of: 'string' } } },
    },
  },
  ...NETWORK_HCL_KEYS,
  task: { kind: 'block', labelled: true, repeated: true, required: true, keys: TASK_KEYS },
  service: SERVICE_HCL_KEYS,
  shutdown_delay: { kind: 'raw' },
  consul: CONSUL_HCL_KEYS,
} as const;

/** The keys of a job file (kernel/config schema; module doc). */
const JOBSPEC_KEYS = {
  job: {
    kind: 'block',
    labelled: true,
    required: true,
    keys: {
      name: { kind: 'string' },
      namespace: { kind: 'string' },
      region: { kind: 'string' },
      type: { kind: 'string' },
      priority: { kind: 'int' },
      all_at_once: { kind: 'bool' },
      datacenters: { kind: 'list', of: 'string' },
      node_pool: { kind: 'string' },
      meta: { kind: 'raw' },
      constraint,
      affinity,
      spread,
      update: UPDATE_KEYS,
      periodic: {
        kind: 'block',
        keys: {
          cron: { kind: 'string' },
          crons: { kind: 'list', of: 'string' },
          prohibit_overlap: { kind: 'bool' },
          time_zone: { kind: 'string' },
          enabled: { kind: 'bool' },
        },
      },
      parameterized: {
        kind: 'block',
        keys: { payload: { kind: 'string' }, meta_required: { kind: 'list', of: 'string' }, meta_optional: { kind: 'list', of: 'string' } },
      },
      group: { kind: 'block', labelled: true, repeated: true, required: true, keys: GROUP_KEYS },
    },
  },
} as const;

type Spec = ConfigOf<typeof JOBSPEC_KEYS>;

/** HCL1 wraps every block and object in a list: `[{…}]` (several `meta {}` blocks merge). */
function object(b: Body, key: string): Record<string, unknown> | undefined {
  const v = b[key];
  if (v === undefined || v === null) return undefined;
  const parts = Array.isArray(v) ? v : [v];
  const out: Record<string, unknown> = {};
  for (const p of parts) {
    if (typeof p !== 'object' || p === null || Array.isArray(p)) throw issue(b.$at, key, `"${key}" must be a block`);
    Object.assign(out, p);
  }
  return out;
}

/** A block of `name = "value"` pairs (numbers and booleans written as text, as the reference's jobspec). */
function stringMap(b: Body, key: string): Record<string, string> | undefined {
  const o = object(b, key);
  if (!o) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(o)) {
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') throw issue(b.$at, key, `"${key}": the value of "${k}" must be a string`);
    out[k] = String(v);
  }
  return out;
}

/** A driver's `config` block: one level of list wrapping removed from it and from its nested blocks. */
function unwrap(v: unknown): unknown {
  if (Array.isArray(v)) {
    if (v.length === 1 && typeof v[0] === 'object' && v[0] !== null && !Array.isArray(v[0])) return unwrap(v[0]);
    return v.map(unwrap);
  }
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, unwrap(x)]));
  return v;
}

function constraints(list: readonly Body[]): unknown[] | undefined {
  if (list.length === 0) return undefined;
  return list.map((c) =>
    c.distinct_hosts === true
      ? { LTarget: '', RTarget: 'true', Operand: 'distinct_hosts' }
      : { LTarget: c.attribute ?? '', RTarget: c.value ?? '', Operand: c.operator ?? '=' },
  );
}

function task(label: string, t: Body): Record<string, unknown> {
  const res = t.resources as Body | undefined;
  const logs = t.logs as Body | undefined;
  const life = t.lifecycle as Body | undefined;
  const mounts = t.volume_mount as Body[];
  const config = object(t, 'config');
  const dispatch = t.dispatch_payload as Body | undefined;
  return defined({
    Name: label,
    Driver: t.driver,
    User: t.user,
    Config: config ? unwrap(config) : undefined,
    Env: stringMap(t, 'env'),
    Meta: stringMap(t, 'meta'),
    Constraints: constraints(t.constraint as Body[]),
    Resources: res && defined({ CPU: res.cpu, MemoryMB: res.memory, MemoryMaxMB: res.memory_max, Cores: res.cores }),
    KillTimeout: duration(t, 'kill_timeout'),
    KillSignal: t.kill_signal,
    Leader: t.leader,
    LogConfig: logs && defined({ MaxFiles: logs.max_files, MaxFileSizeMB: logs.max_file_size, Disabled: logs.disabled }),
    Lifecycle: life && defined({ Hook: life.hook, Sidecar: life.sidecar }),
    VolumeMounts:
      mounts.length === 0
        ? undefined
        : mounts.map((m) => defined({ Volume: m.volume, Destination: m.destination, ReadOnly: m.read_only, PropagationMode: m.propagation_mode })),
    Services: servicesFromHcl(t.service as Body[]),
    Templates: templatesFromHcl(t.template as Body[]),
    ShutdownDelay: duration(t, 'shutdown_delay'),
    ...identitiesFromHcl(t.identity as Body[]),
    Vault: vaultFromHcl(t.vault as Body | undefined),
    Consul: consulFromHcl(t.consul as Body | undefined),
    DispatchPayload: dispatch && defined({ File: dispatch.file }),
    Affinities: affinities(t.affinity as Body[]),
  });
}

function group(label: string, g: Body): Record<string, unknown> {
  const restart = g.restart as Body | undefined;
  const resched = g.reschedule as Body | undefined;
  const disk = g.ephemeral_disk as Body | undefined;
  const volumes = g.volume as { label: string; body: Body }[];
  const tasks = g.task as { label: string; body: Body }[];
  return defined({
    Name: label,
    Count: g.count,
    Constraints: constraints(g.constraint as Body[]),
    Affinities: affinities(g.affinity as Body[]),
    Spreads: spreads(g.spread as Body[]),
    Meta: stringMap(g, 'meta'),
    RestartPolicy:
      restart &&
      defined({
        Attempts: restart.attempts,
        Interval: duration(restart, 'interval'),
        Delay: duration(restart, 'delay'),
        Mode: restart.mode,
        RenderTemplates: restart.render_templates,
      }),
    ReschedulePolicy:
      resched &&
      defined({
        Attempts: resched.attempts,
        Interval: duration(resched, 'interval'),
        Delay: duration(resched, 'delay'),
        DelayFunction: resched.delay_function,
        MaxDelay: duration(resched, 'max_delay'),
        Unlimited: resched.unlimited,
      }),
    EphemeralDisk: disk && defined({ SizeMB: disk.size, Sticky: disk.sticky, Migrate: disk.migrate }),
    Volumes:
      volumes.length === 0
        ? undefined
        : Object.fromEntries(
            volumes.map(({ label: name, body: v }) => {
              const mo = v.mount_options as Body | undefined;
              return [
                name,
                defined({
                  Name: name,
                  Type: v.type,
                  Source: v.source,
                  ReadOnly: v.read_only,
                  AccessMode: v.access_mode,
                  AttachmentMode: v.attachment_mode,
                  PerAlloc: v.per_alloc,
                  MountOptions: mo && defined({ FsType: mo.fs_type, MountFlags: mo.mount_flags }),
                }),
              ];
            }),
          ),
    Networks: hclNetworks(g),
    Tasks: tasks.map((t) => task(t.label, t.body)),
    Services: servicesFromHcl(g.service as Body[]),
    ShutdownDelay: duration(g, 'shutdown_delay'),
    Consul: consulFromHcl(g.consul as Body | undefined),
    Update: updateFromHcl(g.update as Body | undefined),
  });
}

/**
 * Parses an HCL job file into the job's API JSON (module doc); `file` names it in errors.
 * @throws 400 `<file>:<line>: <problem>` (every problem, joined by `; `): syntax errors, unknown
 *   keys, values of the wrong kind, bad durations, a missing `job`, `group` or `task` block.
 */
export function parseJobHcl(text: string, file: string): Record<string, unknown> {
  try {
    const spec: Spec = parseConfig(text, file, JOBSPEC_KEYS);
    const { label: id, body } = spec.job;
    const j = body as unknown as Body;
    const parameterized = j.parameterized as Body | undefined;
    const periodic = j.periodic as Body | undefined;
    return defined({
      ID: id,
      Name: j.name ?? id,
      Namespace: j.namespace,
      Region: j.region,
      Type: j.type,
      Priority: j.priority,
      AllAtOnce: j.all_at_once,
      Datacenters: j.datacenters,
      NodePool: j.node_pool,
      Meta: stringMap(j, 'meta'),
      Constraints: constraints(j.constraint as Body[]),
      Affinities: affinities(j.affinity as Body[]),
      Spreads: spreads(j.spread as Body[]),
      Update: updateFromHcl(j.update as Body | undefined),
      Periodic:
        periodic &&
        defined({
          Spec: periodic.cron,
          Specs: periodic.crons,
          ProhibitOverlap: periodic.prohibit_overlap,
          TimeZone: periodic.time_zone,
          Enabled: periodic.enabled,
        }),
      ParameterizedJob:
        parameterized && defined({ Payload: parameterized.payload, MetaRequired: parameterized.meta_required, MetaOptional: parameterized.meta_optional }),
      TaskGroups: (j.group as { label: string; body: Body }[]).map((g) => group(g.label, g.body)),
    });
  } catch (err) {
    if (err instanceof ConfigError)
      throw schedBadRequest(err.issues.map((i) => (i.line === undefined ? `${i.file}: ${i.message}` : `${i.file}:${i.line}: ${i.message}`)).join('; '));
    throw err;
  }
}
