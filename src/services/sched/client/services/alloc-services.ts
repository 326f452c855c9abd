/**
 * The services of one allocation on the client (reference/integration.md §2): the group's
 * services are registered before its tasks start and a task's services when it starts
 * (again after each restart); a task's services are removed when its process exits, every
 * service when the allocation stops — first, before `shutdown_delay` and the kill signal
 * (alloc-runner.ts keeps that order). It runs the script checks (script-check.ts) and
 * watches the checks with a `check_restart` limit: after `grace` from the task's start,
 * each check interval in which the check is not passing (a `warning` passes with
 * `ignore_warnings`) counts, one passing result resets the count, and at `limit` the task
 * is restarted through the group's restart policy (task-runner.ts `checkRestart`). A service
 * with a service identity is registered with its own token (service-tokens.ts), logged out
 * after the allocation's services are deregistered.
 *
 * For the deployment health (client/deployment-health.ts) it follows, once asked
 * ({@link AllocServices.followChecks}), the status of every check of every service the
 * allocation should have; a canary allocation's services carry their canary tags and meta
 * until {@link AllocServices.setCanary} says it is promoted (registration.ts).
 *
 * @module
 */
import type { Logger } from '../../../../kernel/log/logger.js';
import type { MeshCheckStatus } from '../../../../sdk/index.js';
import type { Service } from '../../jobs/services.js';
import type { TaskGroup } from '../../jobs/types.js';
import type { CheckHealth } from '../deployment-health.js';
import type { ServiceRegistrar } from './discovery.js';
import { buildRegistration, type Registration, type RegistrationContext, type RestartWatch } from './registration.js';
import { ScriptCheckLoop } from './script-check.js';
import type { ServiceTokens } from './service-tokens.js';

/** Options of {@link AllocServices}. */
export interface AllocServicesOptions {
  readonly registrar: ServiceRegistrar;
  readonly ctx: RegistrationContext;
  readonly group: TaskGroup;
  /** Each task's environment. */
  readonly envs: ReadonlyMap<string, Readonly<Record<string, string>>>;
  /** Each task's working directory (script checks run there). */
  readonly taskDir: (task: string) => string;
  /** Restarts `task` for an unhealthy check (`reason` its event's text). */
  readonly restartTask: (task: string, reason: string) => void;
  /** A registration of `task` (undefined: a group service) could not be built (a bad name or port) or the agent did not take it (told once until it does). */
  readonly onError: (task: string | undefined, message: string) => void;
  /** The services' identity tokens (service-tokens.ts); absent: every service is registered with the client's token. */
  readonly tokens?: ServiceTokens;
  readonly log: Logger;
  readonly now: () => number;
}

/** A watch's counters. */
interface WatchState {
  readonly w: RestartWatch;
  count: number;
  lastCounted: number;
  graceUntil: number;
}

/** A registration with what runs for it. */
interface Live {
  readonly reg: Registration;
  /** The block it was built from (a canary's promotion builds it again). */
  readonly service: Service;
  readonly owner: string | undefined;
  readonly scripts: ScriptCheckLoop[];
  readonly unwatch: (() => void)[];
  readonly watches: WatchState[];
  /** Stops the watches of {@link AllocServices.followChecks} on its checks. */
  readonly unfollow: (() => void)[];
}

/** The ID of check `i` (in its block's order) of registration `l` (registration.ts). */
const checkIdOf = (l: Live, i: number): string => `${l.reg.id}-check-${i}`;

/** One allocation's services; see the module doc. */
export class AllocServices {
  private readonly live = new Map<string, Live>();
  private stopped = false;
  /** Whether the services carry their canary tags and meta. */
  private canary: boolean;
  /** Told after each reading of the followed checks; undefined: the checks are not followed. */
  private checksRead: (() => void) | undefined;
  /** The last status of each followed check, by check ID. */
  private readonly checkStatus = new Map<string, MeshCheckStatus>();

  constructor(private readonly o: AllocServicesOptions) {
    this.canary = o.ctx.canary === true;
  }

  /** Whether the group or any task has a service. */
  static wanted(group: TaskGroup): boolean {
    return (group.Services?.length ?? 0) > 0 || group.Tasks.some((t) => (t.Services?.length ?? 0) > 0);
  }

  /** Registers the group's services (before any task starts). */
  async groupStarted(): Promise<void> {
    await Promise.all((this.o.group.Services ?? []).map((s) => this.add(s, undefined)));
  }

  /** Task `task` started (or started again): its services are registered, the grace of the watches restarting it begins. */
  taskStarted(task: string): void {
    const now = this.o.now();
    for (const l of this.live.values()) for (const ws of l.watches) if (ws.w.task === undefined || ws.w.task === task) this.arm(ws, now);
    const t = this.o.group.Tasks.find((x) => x.Name === task);
    for (const s of t?.Services ?? []) void this.add(s, task);
  }

  /** Task `task`'s process exited: its services are removed. */
  taskExited(task: string): void {
    for (const l of [...this.live.values()]) if (l.owner === task) void this.remove(l);
  }

  /**
   * Follows the status of every check of the allocation's services (about every second, with
   * the registrar's check watch) and calls `read` after each reading; undefined stops it.
   */
  followChecks(read: (() => void) | undefined): void {
    const was = this.checksRead;
    this.checksRead = read;
    if (!was && read) for (const l of this.live.values()) this.followLive(l);
    if (was && !read) {
      for (const l of this.live.values()) for (const u of l.unfollow.splice(0)) u();
      this.checkStatus.clear();
    }
  }

  /**
   * Every check the allocation's services should have (the group's, and each task's whether
   * it runs or not), with its status as last read: undefined while its service is not
   * registered or the check has not run.
   */
  checks(): CheckHealth[] {
    const owners: [string | undefined, readonly Service[] | null | undefined][] = [
      [undefined, this.o.group.Services],
      ...this.o.group.Tasks.map((t) => [t.Name, t.Services] as [string, readonly Service[] | null | undefined]),
    ];
    const out: CheckHealth[] = [];
    for (const [owner, services] of owners) {
      for (const service of services ?? []) {
        const l = [...this.live.values()].find((x) => x.service === service && x.owner === owner);
        for (const [i, c] of (service.Checks ?? []).entries()) {
          out.push({
            service: l?.reg.body.Name ?? service.Name,
            task: owner,
            status: l && this.checkStatus.get(checkIdOf(l, i)),
            onUpdate: c.OnUpdate,
          });
        }
      }
    }
    return out;
  }

  /**
   * The allocation is a canary (`true`) or no longer one (promoted): its registered services
   * are registered again with their canary or normal tags and meta (registration.ts).
   */
  setCanary(canary: boolean): void {
    if (canary === this.canary) return;
    this.canary = canary;
    for (const l of [...this.live.values()]) void this.add(l.service, l.owner);
  }

  /** Removes every service of the allocation (the first step of stopping it); nothing registers after it. */
  async deregisterAll(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.live.values()].map((l) => this.remove(l)));
    // Their tokens go once nothing registers with them any more.
    await this.o.tokens?.logoutAll();
  }

  private envOf(task: string): Readonly<Record<string, string>> {
    return this.o.envs.get(task) ?? {};
  }

  private async add(service: Service, owner: string | undefined): Promise<void> {
    if (this.stopped) return;
    let reg: Registration;
    try {
      const runIn = owner ?? (service.TaskName || this.o.group.Tasks[0]?.Name || '');
      reg = buildRegistration({ ...this.o.ctx, canary: this.canary }, service, { task: owner, env: this.envOf(runIn), scriptTask: runIn });
    } catch (err) {
      this.o.onError(owner, (err as Error).message);
      return;
    }
    const token = await this.o.tokens?.tokenFor(service, owner);
    if (this.stopped) return;
    if (token !== undefined) reg = { ...reg, token };
    const prior = this.live.get(reg.id);
    if (prior) this.stopRuns(prior);
    const l: Live = { reg, service, owner, scripts: [], unwatch: [], watches: [], unfollow: [] };
    this.live.set(reg.id, l);
    // The agent unreachable or refusing: one task event, and the registrar retries with backoff.
    await this.o.registrar.register(reg, (err) => this.o.onError(owner, `registering ${JSON.stringify(reg.body.Name)} failed (${err}); retrying`));
    if (this.live.get(reg.id) !== l) return; // removed meanwhile
    for (const sc of reg.scripts) {
      const run = { command: sc.command, args: sc.args, cwd: this.o.taskDir(sc.task), env: this.o.envs.get(sc.task) ?? {}, timeoutMs: sc.timeoutMs };
      l.scripts.push(new ScriptCheckLoop(run, sc.intervalMs, (r) => void this.o.registrar.updateTtl(sc.checkId, r.status, r.output)));
    }
    const now = this.o.now();
    for (const w of reg.watches) {
      const ws: WatchState = { w, count: 0, lastCounted: 0, graceUntil: 0 };
      this.arm(ws, now);
      l.watches.push(ws);
      l.unwatch.push(this.o.registrar.watch(w.checkId, (status) => this.observe(ws, status)));
    }
    if (this.checksRead) this.followLive(l);
  }

  /** Watches the checks of registration `l` for {@link followChecks}. */
  private followLive(l: Live): void {
    for (const i of (l.service.Checks ?? []).keys()) {
      const id = checkIdOf(l, i);
      l.unfollow.push(
        this.o.registrar.watch(id, (status) => {
          if (this.live.get(l.reg.id) !== l) return;
          this.checkStatus.set(id, status);
          this.checksRead?.();
        }),
      );
    }
  }

  private arm(ws: WatchState, now: number): void {
    ws.count = 0;
    ws.graceUntil = now + ws.w.restart.Grace / 1e6;
  }

  private observe(ws: WatchState, status: MeshCheckStatus): void {
    const now = this.o.now();
    if (this.stopped || now < ws.graceUntil) return;
    if (status === 'passing' || (status === 'warning' && ws.w.restart.IgnoreWarnings)) {
      ws.count = 0;
      return;
    }
    // One count per check interval: the check has run once since the last one.
    if (now - ws.lastCounted < ws.w.intervalMs) return;
    ws.lastCounted = now;
    ws.count += 1;
    if (ws.count < ws.w.restart.Limit) return;
    // Not counted again until the task has started anew (taskStarted arms the grace).
    ws.count = 0;
    ws.graceUntil = Number.POSITIVE_INFINITY;
    const reason = `healthcheck: check ${JSON.stringify(ws.w.checkName)} unhealthy`;
    const tasks = ws.w.task !== undefined ? [ws.w.task] : this.o.group.Tasks.map((t) => t.Name);
    this.o.log.info({ check: ws.w.checkId, tasks }, 'client: restarting for an unhealthy check');
    for (const t of tasks) this.o.restartTask(t, reason);
  }

  private stopRuns(l: Live): void {
    for (const s of l.scripts) s.stop();
    for (const u of [...l.unwatch, ...l.unfollow]) u();
    // A registration made again starts its checks anew in the agent.
    for (const i of (l.service.Checks ?? []).keys()) this.checkStatus.delete(checkIdOf(l, i));
  }

  private async remove(l: Live): Promise<void> {
    if (this.live.get(l.reg.id) !== l) return;
    this.live.delete(l.reg.id);
    this.stopRuns(l);
    await this.o.registrar.deregister(l.reg.id);
  }
}
