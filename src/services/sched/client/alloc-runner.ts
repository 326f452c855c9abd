/**
 * Runs one allocation on the client: builds its directory, runs each task of its task group
 * (task-runner.ts), stops them when the allocation's `DesiredStatus` becomes `stop` or
 * `evict`, mounts its CSI volumes (csi-mounter.ts), kills the siblings of a task that failed, and reports the allocation's
 * `ClientStatus`, `ClientDescription` and `TaskStates` to the servers as they change (the
 * reference's alloc runner and `Node.UpdateAlloc`). An allocation of a deployment gets its
 * health decided (deployment-health.ts) and reported once as its `DeploymentStatus`; a
 * canary's services carry their canary tags until it is promoted.
 *
 * @module
 */
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AllocDeploymentStatus, Job, TaskGroup, TaskState } from '../jobs/types.js';
import { DeploymentHealth, healthStrategy, type HealthDecision } from './deployment-health.js';
import { allocDir, buildAllocDir, taskDirNameOk, type AllocDir } from './alloc-dir.js';
import type { VolumeMounter } from './csi-mounter.js';
import { AllocServices } from './services/alloc-services.js';
import { ServiceTokens } from './services/service-tokens.js';
import type { ServiceRegistrar } from './services/discovery.js';
import { EVENT, taskEvent } from './task-event.js';
import type { PortMapping } from '../jobs/network.js';
import { interpolateConfig, type NodeVars } from './interpolate.js';
import { taskEnv } from './task-env.js';
import { TaskRunner } from './task-runner.js';
import { identitySigner, taskHooks, type TaskHookOptions } from './alloc-task-hooks.js';
import { DEFAULT_WORKLOADS_AUTH_METHOD } from './config.js';

/** The fields of a full allocation (`GET /v1/node/:id/allocations`) the client reads. */
export interface ClientAlloc {
  readonly ID: string;
  readonly Name: string;
  readonly Namespace: string;
  readonly JobID: string;
  readonly TaskGroup: string;
  readonly Job: Job | null;
  readonly DesiredStatus: string;
  readonly ClientStatus: string;
  readonly TaskStates: Readonly<Record<string, TaskState>> | null;
  /** The volume requests the allocation claims (name → request; the servers' claims use them). */
  readonly Volumes?: Readonly<Record<string, unknown>> | null;
  /** The ports the scheduler gave it (`Shared.Ports`, scheduler/ports.ts); absent or null on allocations without. */
  readonly AllocatedResources?: { readonly Shared?: { readonly Ports?: readonly PortMapping[] } | null } | null;
  readonly AllocModifyIndex?: number;
  /** Task → its default identity's JWT, signed with the plan (shown to this node only). */
  readonly SignedIdentities?: Readonly<Record<string, string>>;
  /** The allocation this one replaces (`''` or absent: none). */
  readonly PreviousAllocation?: string;
  /** The deployment that placed it (`''` or absent: none). */
  readonly DeploymentID?: string;
  /** Its health in that deployment and whether it is a canary (null or absent: nothing yet). */
  readonly DeploymentStatus?: AllocDeploymentStatus | null;
}

/** The report of an allocation's state (the body of `POST /v1/allocation/:id/client-status`). */
export interface AllocReport {
  readonly ClientStatus: string;
  readonly ClientDescription: string;
  readonly TaskStates: Record<string, TaskState>;
  /** The allocation's health in its deployment, in the one report after the client decided it (deployment-health.ts). */
  readonly DeploymentStatus?: { readonly Healthy: boolean; readonly Timestamp: string };
}

/** What an allocation runner is given. */
/** The allocation runner's options; the task hooks' (signing, `vault`, templates) are in {@link TaskHookOptions}. */
export interface AllocRunnerOptions extends TaskHookOptions {
  readonly alloc: ClientAlloc;
  /** `client.alloc_dir`. */
  readonly allocRoot: string;
  readonly datacenter: string;
  /** The node's attributes, metadata and identity, for `${...}` in the tasks' `env` and `config` and in service fields (interpolate.ts). */
  readonly node: NodeVars;
  readonly drivers: Readonly<Record<string, boolean>>;
  /** Whether the tasks ran before this client restarted (their server-kept states carry over). */
  readonly resumed: boolean;
  /** Sends the report (coalesced by the caller). */
  readonly report: (allocId: string, r: AllocReport) => void;
  /** Records a task's process group (or its end) so a restarted client can stop it. */
  readonly onPid: (allocId: string, task: string, pid: number | undefined) => void;
  /** Stages and publishes the allocation's CSI volumes (csi-mounter.ts); absent: the allocation's CSI volumes are not mounted. */
  readonly mounter?: VolumeMounter;
  /** Registers the allocation's services in the discovery agent (services/); absent: they are not registered. */
  readonly discovery?: {
    readonly registrar: ServiceRegistrar;
    readonly nodeId: string;
    /** The address services with a port number are advertised at. */
    readonly nodeAddress: string;
  };
}

/** Waits `ms` (nothing for 0). */
function sleepMs(ms: number): Promise<void> {
  return ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve();
}

/**
 * The reference's `getClientStatus`: any task failed → `failed` (`Failed tasks`); else any
 * running → `running` (`Tasks are running`); any pending → `pending` (`No tasks have
 * started`); all dead → `complete` (`All tasks have completed`).
 */
function clientStatusOf(states: readonly Pick<TaskState, 'State' | 'Failed'>[]): { status: string; description: string } {
  if (states.some((s) => s.State === 'dead' && s.Failed)) return { status: 'failed', description: 'Failed tasks' };
  if (states.some((s) => s.State === 'running')) return { status: 'running', description: 'Tasks are running' };
  if (states.some((s) => s.State === 'pending')) return { status: 'pending', description: 'No tasks have started' };
  return { status: 'complete', description: 'All tasks have completed' };
}

/** One allocation's runner. */
export class AllocRunner {
  readonly dir: AllocDir;
  readonly tasks = new Map<string, TaskRunner>();
  private alloc: ClientAlloc;
  private stopping = false;
  private readonly group: TaskGroup | undefined;
  /** The allocation's services in the discovery agent; undefined when it has none or the client registers none. */
  private services: AllocServices | undefined;
  private stopped: Promise<void> | undefined;
  /** The allocation's deployment health tracker (deployment-health.ts); undefined when there is nothing to decide. */
  private health: DeploymentHealth | undefined;
  /** The decided health not yet handed to a report: it is reported once. */
  private unsentHealth: AllocReport['DeploymentStatus'];
  /** Resolves when every task is dead. */
  readonly done: Promise<void>;

  constructor(private readonly o: AllocRunnerOptions) {
    this.alloc = o.alloc;
    this.dir = allocDir(o.allocRoot, o.alloc.ID);
    const job = o.alloc.Job;
    this.group = job?.TaskGroups.find((g) => g.Name === o.alloc.TaskGroup);
    // Nothing to run: every placed allocation carries its job, so this is a damaged document,
    // or a job stored before the jobs API refused task names that leave the allocation directory.
    const badName = this.group?.Tasks.map((t) => t.Name).find((n) => !taskDirNameOk(n));
    if (!job || !this.group || badName !== undefined) {
      this.done = Promise.resolve();
      const why =
        badName !== undefined
          ? `task name "${badName}" cannot be a directory of the allocation`
          : `allocation has no job or no task group "${o.alloc.TaskGroup}"`;
      o.report(o.alloc.ID, { ClientStatus: 'failed', ClientDescription: why, TaskStates: {} });
      return;
    }
    buildAllocDir(
      this.dir,
      this.group.Tasks.map((t) => t.Name),
    );
    // The job as registered: the jobs API applied the reference's defaults (jobs/defaults.ts).
    const policy = this.group.RestartPolicy;
    const group = this.group;
    const envs = new Map(
      group.Tasks.map((spec) => [
        spec.Name,
        taskEnv({
          allocId: o.alloc.ID,
          allocName: o.alloc.Name,
          job,
          group: group.Name,
          groupSpec: group,
          task: spec,
          allocRoot: this.dir.root,
          datacenter: o.datacenter,
          ports: o.alloc.AllocatedResources?.Shared?.Ports,
          node: o.node,
        }),
      ]),
    );
    this.services = this.servicesOf(job, group, envs);
    for (const spec of group.Tasks) {
      const env = envs.get(spec.Name)!;
      // The driver runs the config with `${...}` resolved (`args = ["${CAIRN_PORT_http}"]`).
      const task = { ...spec, Config: interpolateConfig(spec.Config, env, o.node) as Record<string, unknown> };
      // What the task's hooks obtain for the hooks after them (task-hooks.ts), in the reference's order.
      const hooks = taskHooks(o, { job, task, env, taskDir: this.dir.taskDir(task.Name) });
      const runner: TaskRunner = new TaskRunner({
        task,
        policy,
        batch: job.Type === 'batch' || job.Type === 'sysbatch',
        taskDir: this.dir.taskDir(task.Name),
        logsDir: this.dir.logs,
        env,
        driverEnabled: o.drivers[task.Driver] === true,
        previous: o.resumed ? o.alloc.TaskStates?.[task.Name] : undefined,
        now: o.now,
        onChange: () => this.changed(task.Name),
        onPid: (pid) => {
          o.onPid(o.alloc.ID, task.Name, pid);
          if (pid !== undefined) this.services?.taskStarted(task.Name);
          else this.services?.taskExited(task.Name);
        },
        log: o.log,
        hooks,
      });
      this.tasks.set(task.Name, runner);
    }
    this.trackHealth();
    this.done = this.runAll(this.group);
    if (this.terminalDesired(o.alloc)) void this.stop();
  }

  /** The allocation's services hook, when it has services and the client registers them. */
  private servicesOf(job: Job, group: TaskGroup, envs: ReadonlyMap<string, Record<string, string>>): AllocServices | undefined {
    const d = this.o.discovery;
    if (!d || !AllocServices.wanted(group)) return undefined;
    const alloc = this.o.alloc;
    return new AllocServices({
      registrar: d.registrar,
      ctx: {
        allocId: alloc.ID,
        alloc: { AllocatedResources: alloc.AllocatedResources },
        jobName: job.Name || job.ID,
        group: group.Name,
        nodeId: d.nodeId,
        nodeAddress: d.nodeAddress,
        deregisterAfter: d.registrar.settings.deregisterCriticalServiceAfter,
        node: this.o.node,
        canary: alloc.DeploymentStatus?.Canary === true,
      },
      group,
      envs,
      taskDir: (task) => this.dir.taskDir(task),
      restartTask: (task, reason) => this.tasks.get(task)?.checkRestart(reason),
      tokens: new ServiceTokens({
        allocRoot: this.dir.root,
        address: d.registrar.settings.address,
        authMethod: d.registrar.settings.serviceAuthMethod ?? DEFAULT_WORKLOADS_AUTH_METHOD,
        sign: identitySigner(this.o),
        log: this.o.log,
      }),
      onError: (task, message) => {
        this.o.log.warn({ alloc: alloc.ID, task, err: message }, 'client: a service cannot be registered');
        for (const [name, t] of this.tasks) if (task === undefined || task === name) t.hookFailed(`services: ${message}`);
      },
      log: this.o.log,
      now: this.o.now,
    });
  }

  /**
   * Mounts the allocation's CSI volumes and links them at each task's volume mount
   * destinations, runs the tasks, then unmounts. A failed mount fails every task (`Setup Failure`).
   */
  private async runAll(group: TaskGroup): Promise<void> {
    const { mounter, alloc } = this.o;
    if (mounter) {
      let paths: Record<string, string>;
      try {
        paths = await mounter.mount({ ID: alloc.ID, Namespace: alloc.Namespace, Name: alloc.Name, Volumes: alloc.Volumes ?? group.Volumes ?? null });
      } catch (err) {
        for (const t of this.tasks.values()) t.failSetup(`failed to setup alloc: ${(err as Error).message}`);
        await mounter.unmount(alloc.ID);
        return;
      }
      for (const task of group.Tasks) {
        for (const vm of task.VolumeMounts ?? []) {
          const source = paths[vm.Volume];
          if (!source) continue;
          const at = join(this.dir.taskDir(task.Name), vm.Destination.replace(/^\/+/, ''));
          mkdirSync(dirname(at), { recursive: true });
          if (!existsSync(at)) symlinkSync(source, at);
        }
      }
    }
    // The reference registers a group's services before any of its tasks starts.
    if (!this.stopping) await this.services?.groupStarted();
    await Promise.all([...this.tasks.values()].map((t) => t.run()));
    this.health?.stop();
    await this.services?.deregisterAll();
    await mounter?.unmount(alloc.ID);
  }

  /** Whether the allocation's services are registered in the discovery agent (it has some, and the client registers them). */
  get registersServices(): boolean {
    return this.services !== undefined;
  }

  /** The allocation as last seen from the servers. */
  get current(): ClientAlloc {
    return this.alloc;
  }

  /** Every task is dead. */
  get finished(): boolean {
    return [...this.tasks.values()].every((t) => t.dead);
  }

  /**
   * A newer version of the allocation: a desired `stop`/`evict` stops its tasks; a canary
   * that is no longer one (promoted) registers its services with their normal tags; a new
   * `DeploymentID` (an in-place update into another deployment) starts deciding its health
   * anew, and a health the servers have already (set by hand) ends deciding it, as the
   * reference's health hook does.
   */
  update(alloc: ClientAlloc): void {
    const before = this.alloc;
    this.alloc = alloc;
    if (this.terminalDesired(alloc)) {
      void this.stop();
      return;
    }
    this.services?.setCanary(alloc.DeploymentStatus?.Canary === true);
    if ((alloc.DeploymentID ?? '') !== (before.DeploymentID ?? '')) {
      this.unsentHealth = undefined;
      this.trackHealth();
    } else if (typeof alloc.DeploymentStatus?.Healthy === 'boolean') {
      // Decided on the servers (`allocation-health`): nothing left to decide here.
      this.health?.stop();
      this.services?.followChecks(undefined);
    }
  }

  /** The client agent stops: no health is decided from the tasks it kills; SIGKILL to every task's process group (TaskRunner.forceKill). */
  forceKill(): void {
    this.health?.stop();
    for (const t of this.tasks.values()) t.forceKill();
  }

  /**
   * Starts deciding the allocation's deployment health when there is one to decide
   * (deployment-health.ts `healthStrategy`), following its services' checks for `checks`.
   */
  private trackHealth(): void {
    this.health?.stop();
    this.services?.followChecks(undefined);
    const strategy = healthStrategy(this.alloc);
    if (!strategy || this.tasks.size === 0) {
      this.health = undefined;
      return;
    }
    this.health = new DeploymentHealth({ strategy, now: this.o.now, decided: (d) => this.healthDecided(d) });
    if (strategy.HealthCheck === 'checks') this.services?.followChecks(() => this.observeHealth());
    this.observeHealth();
  }

  /** Shows the tracker the tasks' states and the checks' statuses now. */
  private observeHealth(): void {
    if (!this.health || this.health.finished) return;
    const tasks = Object.fromEntries([...this.tasks].map(([name, t]) => [name, t.state]));
    this.health.observe({ tasks, checks: this.services?.checks() ?? [] });
  }

  /** The health is decided: an `Alloc Unhealthy` event on each task that made it unhealthy (the reference's), and the report that carries it. */
  private healthDecided(d: HealthDecision): void {
    this.services?.followChecks(undefined);
    this.unsentHealth = { Healthy: d.healthy, Timestamp: new Date(d.atMs).toISOString() };
    this.o.log.info({ alloc: this.alloc.ID, healthy: d.healthy, reasons: d.reasons }, 'client: allocation health decided for its deployment');
    for (const [task, why] of Object.entries(d.reasons)) this.tasks.get(task)?.control.event(EVENT.allocUnhealthy, why);
    this.sendReport();
  }

  /**
   * Stops the allocation in the reference's order: its services are deregistered first, then
   * the group's `shutdown_delay` and each task's own pass (while a task still runs), then each
   * task is killed (`Killing` … `Killed`). Resolves when all are dead.
   */
  stop(): Promise<void> {
    this.stopping = true;
    // A stopped allocation gets no health (the reference's tracker: `AllocStoppedCh`).
    this.health?.stop();
    this.stopped ??= (async () => {
      await this.services?.deregisterAll();
      const alive = () => [...this.tasks.values()].some((t) => !t.dead);
      await sleepMs(alive() ? (this.group?.ShutdownDelay ?? 0) / 1e6 : 0);
      await Promise.all(
        [...this.tasks.values()].map(async (t) => {
          await sleepMs(t.dead ? 0 : (t.task.ShutdownDelay ?? 0) / 1e6);
          await t.kill();
        }),
      );
    })();
    return this.stopped;
  }

  /** The current report. */
  report(): AllocReport {
    const states: Record<string, TaskState> = {};
    for (const [name, t] of this.tasks) states[name] = { ...t.state, Events: [...t.state.Events] };
    const { status, description } = clientStatusOf(Object.values(states));
    return { ClientStatus: status, ClientDescription: description, TaskStates: states };
  }

  private terminalDesired(a: ClientAlloc): boolean {
    return a.DesiredStatus === 'stop' || a.DesiredStatus === 'evict';
  }

  /** After a task's change: a failed task kills its siblings (the reference's `Sibling Task Failed`); then report. */
  private changed(taskName: string): void {
    const t = this.tasks.get(taskName);
    if (t?.dead && t.state.Failed && !this.stopping) {
      this.stopping = true;
      for (const [name, other] of this.tasks) {
        if (name !== taskName && !other.dead)
          void other.kill(taskEvent(EVENT.siblingFailed, this.o.now(), { Message: `Task's sibling "${taskName}" failed`, FailsTask: false }));
      }
    }
    this.observeHealth();
    this.sendReport();
  }

  /** Sends the current report, with the decided deployment health the first time after the decision. */
  private sendReport(): void {
    const health = this.unsentHealth;
    this.unsentHealth = undefined;
    const rep = this.report();
    this.o.report(this.alloc.ID, health ? { ...rep, DeploymentStatus: health } : rep);
  }
}
