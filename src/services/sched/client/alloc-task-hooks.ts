/**
 * The hooks each task of an allocation runs before and around its process, in the
 * reference's order (task-hooks.ts): the dispatch payload, the workload identities, the
 * secrets token (`vault`), the discovery token (`consul_default` identity), then the
 * templates, which read with the tokens the earlier hooks obtained. Only the hooks a task
 * asks for are made.
 *
 * @module
 */
import { join } from 'node:path';
import type { Logger } from '../../../kernel/log/logger.js';
import type { Job, Task } from '../jobs/types.js';
import { defaultDiscovery, DEFAULT_WORKLOADS_AUTH_METHOD } from './config.js';
import { DiscoveryToken } from './discovery-token.js';
import { dispatchPayloadHook } from './dispatch-payload.js';
import { TaskIdentities, type IdentitySigner } from './identities.js';
import type { NodeVars } from './interpolate.js';
import { SecretsTokenHook } from './secrets-token.js';
import type { DiscoverySettings } from './services/discovery.js';
import { TaskHookResources, type TaskHook } from './task-hooks.js';
import { hasTemplates, TemplateHook } from './templates/hook.js';
import type { RestartPermits } from './templates/restart-permit.js';
import type { TemplateSource } from './templates/source.js';
import type { WaitWindow } from './templates/task-template.js';
import type { VaultClientSettings } from './vault-config.js';

/** The client's part of the template hooks of an allocation's tasks. */
export interface AllocTemplateOptions {
  /**
   * A task's template source, reading with the tokens its earlier hooks put in `resources`;
   * `persistDir`: the task's `private/` directory, where it keeps leased secrets across client restarts.
   */
  readonly source: (resources: TaskHookResources, persistDir: string) => TemplateSource & { close(): void };
  /** The client's `template { wait }`. */
  readonly wait: WaitWindow;
  /** The job-wide restart permits of allocation `allocId` (templates/restart-permit.ts). */
  readonly permits?: (allocId: string) => RestartPermits;
}

/** What the hooks read of the allocation runner's options (alloc-runner.ts `AllocRunnerOptions`). */
export interface TaskHookOptions {
  readonly alloc: { readonly ID: string; readonly SignedIdentities?: Readonly<Record<string, string>> };
  /** The node's attributes, metadata and identity, for `${...}` in templates. */
  readonly node: NodeVars;
  readonly now: () => number;
  /** The discovery agent the tasks' discovery tokens log in to; absent: the default address. */
  readonly discovery?: { readonly registrar: { readonly settings?: DiscoverySettings } };
  /** Asks the servers to sign identities of an allocation (client/identities.ts); absent: tasks that expose identities fail to start. */
  readonly signIdentities?: (allocId: string, requests: Parameters<IdentitySigner>[0]) => ReturnType<IdentitySigner>;
  /** The client's `vault` block (vault-config.ts); absent: tasks with a `vault` block fail to start. */
  readonly vault?: VaultClientSettings;
  /** What the tasks' templates need (client/templates/hook.ts); absent: a task with templates fails to start. */
  readonly templates?: AllocTemplateOptions;
  readonly log: Logger;
}

/** One task of the allocation: its `config` already interpolated, its environment and directory. */
export interface HookedTask {
  readonly job: Job;
  readonly task: Task;
  readonly env: Readonly<Record<string, string>>;
  readonly taskDir: string;
}

/** What each hook of one task is made with. */
interface HookContext extends HookedTask {
  readonly o: TaskHookOptions;
  readonly sign: IdentitySigner;
  /** What the task's hooks obtain for the hooks after them (task-hooks.ts). */
  readonly resources: TaskHookResources;
}

/** The hooks of `t.task`, in the order they run: only those the task asks for. */
export function taskHooks(o: TaskHookOptions, t: HookedTask): TaskHook[] {
  const c: HookContext = { ...t, o, sign: identitySigner(o), resources: new TaskHookResources() };
  const { task, taskDir, sign, resources } = c;
  const hooks: (TaskHook | undefined)[] = [
    dispatchPayloadHook(t.job, task, taskDir),
    identities(c),
    task.Vault && new SecretsTokenHook({ task: { ...task, Vault: task.Vault }, taskDir, settings: o.vault, sign, resources, log: o.log }),
    discoveryToken(c),
    templates(c),
  ];
  return hooks.filter((h) => h !== undefined);
}

/** Signs identities of the allocation's tasks through the servers. @throws (rejects) when the client cannot ask them. */
export function identitySigner(o: Pick<TaskHookOptions, 'alloc' | 'signIdentities'>): IdentitySigner {
  return async (requests) => {
    if (!o.signIdentities) throw new Error('this client cannot ask the servers to sign identities');
    return o.signIdentities(o.alloc.ID, requests);
  };
}

/** The workload identities of `task` when it exposes any (client/identities.ts). */
function identities({ o, task, taskDir, sign }: HookContext): TaskIdentities | undefined {
  const ids = new TaskIdentities({ task, taskDir, planned: o.alloc.SignedIdentities?.[task.Name], sign, log: o.log, now: o.now });
  return ids.wanted ? ids : undefined;
}

/** The task's discovery token hook when it has the `consul_default` identity (client/discovery-token.ts). */
function discoveryToken({ o, task, taskDir, sign, resources }: HookContext): DiscoveryToken | undefined {
  if (!DiscoveryToken.wanted(task)) return undefined;
  const settings = o.discovery?.registrar.settings;
  return new DiscoveryToken({
    task,
    taskDir,
    address: settings?.address ?? defaultDiscovery().address,
    authMethod: settings?.taskAuthMethod ?? DEFAULT_WORKLOADS_AUTH_METHOD,
    sign,
    resources,
    log: o.log,
  });
}

/** The template hook of `task` when it has templates (client/templates/hook.ts), the last of its hooks. */
function templates({ o, task, env, taskDir, resources }: HookContext): TemplateHook | undefined {
  if (!hasTemplates(task)) return undefined;
  const t = o.templates;
  return new TemplateHook({
    task,
    taskDir,
    env,
    node: o.node,
    source: () => {
      if (!t) throw new Error('this client cannot render templates');
      return t.source(resources, join(taskDir, 'private'));
    },
    wait: t?.wait ?? { minMs: 0, maxMs: 0 },
    permits: t?.permits?.(o.alloc.ID),
    log: o.log,
    now: o.now,
  });
}
