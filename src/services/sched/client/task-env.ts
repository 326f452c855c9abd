/**
 * The environment of a task: the reference's `NOMAD_*` variables under Cairn's prefix
 * `CAIRN_` (reference/sched-workloads.md "Client agent"; docs/compatibility.md), then the
 * task's own `Env`, over the agent's `PATH` only (tasks do not inherit the agent's
 * environment, which may hold its secrets).
 *
 * | Cairn                  | reference             | value                                   |
 * |------------------------|-----------------------|-----------------------------------------|
 * | `CAIRN_ALLOC_DIR`      | `NOMAD_ALLOC_DIR`     | `<alloc>/alloc`                         |
 * | `CAIRN_TASK_DIR`       | `NOMAD_TASK_DIR`      | `<alloc>/<task>/local`                  |
 * | `CAIRN_SECRETS_DIR`    | `NOMAD_SECRETS_DIR`   | `<alloc>/<task>/secrets`                |
 * | `CAIRN_ALLOC_ID`       | `NOMAD_ALLOC_ID`      | allocation ID                           |
 * | `CAIRN_ALLOC_NAME`     | `NOMAD_ALLOC_NAME`    | `web.g[0]`                              |
 * | `CAIRN_ALLOC_INDEX`    | `NOMAD_ALLOC_INDEX`   | the `[N]` of the name                   |
 * | `CAIRN_JOB_ID`         | `NOMAD_JOB_ID`        | job ID                                  |
 * | `CAIRN_JOB_NAME`       | `NOMAD_JOB_NAME`      | job name                                |
 * | `CAIRN_GROUP_NAME`     | `NOMAD_GROUP_NAME`    | task group                              |
 * | `CAIRN_TASK_NAME`      | `NOMAD_TASK_NAME`     | task                                    |
 * | `CAIRN_NAMESPACE`      | `NOMAD_NAMESPACE`     | namespace                               |
 * | `CAIRN_REGION`         | `NOMAD_REGION`        | region                                  |
 * | `CAIRN_DC`             | `NOMAD_DC`            | the node's datacenter                   |
 * | `CAIRN_CPU_LIMIT`      | `NOMAD_CPU_LIMIT`     | MHz                                     |
 * | `CAIRN_MEMORY_LIMIT`   | `NOMAD_MEMORY_LIMIT`  | MiB                                     |
 * | `CAIRN_META_<key>`     | `NOMAD_META_<key>`    | job, group and task `Meta` (also upper case) |
 *
 * For each port of the group's `network` (reference/integration.md §1; the allocation's
 * `AllocatedResources.Shared.Ports`, alloc-ports.ts):
 *
 * | Cairn                      | reference                  | value                                          |
 * |----------------------------|----------------------------|------------------------------------------------|
 * | `CAIRN_IP_<label>`         | `NOMAD_IP_<label>`         | the address the port is on (`HostIP`)          |
 * | `CAIRN_PORT_<label>`       | `NOMAD_PORT_<label>`       | the port to bind: `To` when mapped, else host  |
 * | `CAIRN_ADDR_<label>`       | `NOMAD_ADDR_<label>`       | `<ip>:<port to bind>`                          |
 * | `CAIRN_HOST_PORT_<label>`  | `NOMAD_HOST_PORT_<label>`  | the host port (`Value`)                        |
 * | `CAIRN_HOST_IP_<label>`    | `NOMAD_HOST_IP_<label>`    | the host address                               |
 * | `CAIRN_HOST_ADDR_<label>`  | `NOMAD_HOST_ADDR_<label>`  | `<host ip>:<host port>`                        |
 *
 * The task's `Env` values are interpolated (interpolate.ts) with these variables and the
 * node's attributes and metadata: `PORT = "${CAIRN_PORT_http}"`.
 *
 * @module
 */
import { join } from 'node:path';
import { allocPort } from '../alloc-ports.js';
import type { PortMapping } from '../jobs/network.js';
import type { Job, Task, TaskGroup } from '../jobs/types.js';
import { interpolate, type NodeVars } from './interpolate.js';

/** The prefix of the variables Cairn sets (the reference's `NOMAD_`). */
const ENV_PREFIX = 'CAIRN_';

/** What the environment is built from. */
export interface TaskEnvInput {
  readonly allocId: string;
  readonly allocName: string;
  readonly job: Pick<Job, 'ID' | 'Name' | 'Namespace' | 'Region' | 'Meta'>;
  readonly group: string;
  readonly task: Task;
  /** `<alloc_dir>/<alloc id>`. */
  readonly allocRoot: string;
  readonly datacenter: string;
  /** The task's group: its `network` names the ports. */
  readonly groupSpec: Pick<TaskGroup, 'Networks' | 'Meta'>;
  /** The allocation's ports (`AllocatedResources.Shared.Ports`; absent on allocations placed without them). */
  readonly ports: readonly PortMapping[] | undefined;
  /** The node, for `${attr.*}`, `${meta.*}`, `${node.*}` in `Env`. */
  readonly node: NodeVars;
}

/** `host:port`, with brackets around an IPv6 host (Go's `net.JoinHostPort`, as the reference's). */
const joinHostPort = (host: string, port: number) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

/** The port variables (module doc), without the prefix, for each port label of the group the allocation holds. */
function portVars(i: TaskEnvInput): Record<string, string> {
  const out: Record<string, string> = {};
  const alloc = { AllocatedResources: { Shared: { Ports: i.ports ?? null } } };
  for (const net of i.groupSpec.Networks ?? []) {
    for (const { Label } of [...(net.ReservedPorts ?? []), ...(net.DynamicPorts ?? [])]) {
      const p = allocPort(alloc, Label);
      if (!p) continue;
      const bind = p.to > 0 ? p.to : p.value;
      out[`IP_${Label}`] = p.hostIP;
      out[`PORT_${Label}`] = String(bind);
      out[`ADDR_${Label}`] = joinHostPort(p.hostIP, bind);
      out[`HOST_PORT_${Label}`] = String(p.value);
      out[`HOST_IP_${Label}`] = p.hostIP;
      out[`HOST_ADDR_${Label}`] = joinHostPort(p.hostIP, p.value);
    }
  }
  return out;
}

/**
 * `META_<key>` and `META_<KEY>` (upper case) for each key of the job's, group's and task's
 * `Meta`, the inner one winning (the reference's `NOMAD_META_*`, its `CombinedTaskMeta`): how a
 * dispatched job's task reads the dispatch's meta.
 */
function metaVars(i: TaskEnvInput): Record<string, string> {
  const meta = { ...(i.job.Meta ?? {}), ...(i.groupSpec.Meta ?? {}), ...(i.task.Meta ?? {}) };
  return Object.fromEntries(Object.entries(meta).flatMap(([k, v]) => [[`META_${k.toUpperCase()}`, v] as const, [`META_${k}`, v] as const]));
}

/** The task's environment (see the module doc); the task's `Env` (interpolated) wins over Cairn's variables. */
export function taskEnv(i: TaskEnvInput): Record<string, string> {
  const index = /\[(\d+)\]$/.exec(i.allocName)?.[1] ?? '0';
  const taskDir = join(i.allocRoot, i.task.Name);
  const ours: Record<string, string> = {
    ALLOC_DIR: join(i.allocRoot, 'alloc'),
    TASK_DIR: join(taskDir, 'local'),
    SECRETS_DIR: join(taskDir, 'secrets'),
    ALLOC_ID: i.allocId,
    ALLOC_NAME: i.allocName,
    ALLOC_INDEX: index,
    JOB_ID: i.job.ID,
    JOB_NAME: i.job.Name || i.job.ID,
    GROUP_NAME: i.group,
    TASK_NAME: i.task.Name,
    NAMESPACE: i.job.Namespace || 'default',
    REGION: i.job.Region || 'global',
    DC: i.datacenter,
    CPU_LIMIT: String(i.task.Resources?.CPU ?? 100),
    MEMORY_LIMIT: String(i.task.Resources?.MemoryMB ?? 300),
    ...portVars(i),
    ...metaVars(i),
  };
  const base: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: taskDir,
    TMPDIR: join(taskDir, 'tmp'),
    ...Object.fromEntries(Object.entries(ours).map(([k, v]) => [ENV_PREFIX + k, v])),
  };
  const own = Object.fromEntries(Object.entries(i.task.Env ?? {}).map(([k, v]) => [k, interpolate(v, base, i.node)]));
  return { ...base, ...own };
}
