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
 * | `CAIRN_ALLOC_PORT_*`   | —                     | not set: Cairn allocates no ports       |
 *
 * @module
 */
import { join } from 'node:path';
import type { Job, Task } from '../jobs/types.js';

/** The prefix of the variables Cairn sets (the reference's `NOMAD_`). */
const ENV_PREFIX = 'CAIRN_';

/** What the environment is built from. */
export interface TaskEnvInput {
  readonly allocId: string;
  readonly allocName: string;
  readonly job: Pick<Job, 'ID' | 'Name' | 'Namespace' | 'Region'>;
  readonly group: string;
  readonly task: Task;
  /** `<alloc_dir>/<alloc id>`. */
  readonly allocRoot: string;
  readonly datacenter: string;
}

/** The task's environment (see the module doc); the task's `Env` wins over Cairn's variables. */
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
  };
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: taskDir,
    TMPDIR: join(taskDir, 'tmp'),
    ...Object.fromEntries(Object.entries(ours).map(([k, v]) => [ENV_PREFIX + k, v])),
    ...(i.task.Env ?? {}),
  };
}
