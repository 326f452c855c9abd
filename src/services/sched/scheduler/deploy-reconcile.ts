/**
 * The reconciler's deployment part (the reference's `scheduler/reconcile.go` with
 * deployments; contract 29 "Server"): a service job's group with an update strategy
 * (jobs/update.ts `groupUpdate`) rolls a new job version out through the version's deployment:
 * - the deployment is created by the first plan that places, replaces or updates anything of
 *   the version (the first version too: it becomes stable when the deployment succeeds);
 * - with `Canary` > 0 and older allocations to replace, the canaries are placed beside them
 *   first (named after the allocations they will replace, `DeploymentStatus.Canary`), and
 *   nothing old is replaced before promotion; after it, an old allocation whose slot a
 *   promoted canary holds stops;
 * - old allocations are replaced `MaxParallel` minus the deployment's placed-but-not-yet-
 *   healthy allocations at a time; none while the deployment is paused or failed, or has an
 *   unhealthy allocation;
 * - an older version's running deployment is cancelled (`Cancelled due to newer version of
 *   job`), a stopped job's (`Cancelled because job is stopped`); the canaries of a deployment
 *   that is no longer active stop.
 * An allocation updated in place joins the deployment, keeping a health it had.
 *
 * @module
 */
import { allocTerminal, clientTerminal } from '../alloc.js';
import {
  DEPLOYMENT_STATUS,
  DEPLOYMENT_TEXT,
  deploymentActive,
  forJobVersion,
  newDeployment,
  newGroupState,
  type Deployment,
  type DeploymentGroupState,
  type StoredDeployment,
} from '../deployments/doc.js';
import { groupUpdate } from '../jobs/update.js';
import type { Job, TaskGroup, UpdateStrategy } from '../jobs/types.js';
import type { AllocUpdate, DeploymentWrites, DesiredUpdates, ExistingAlloc } from './model.js';

/** What the reconciler gives the deployment (its ID generator and the job's deployments). */
interface RolloutInput {
  readonly newId: () => string;
  readonly nowNs: number;
  readonly deployments: readonly StoredDeployment[];
}

/** Newest first. */
const newestFirst = (ds: readonly StoredDeployment[]) => [...ds].sort((x, y) => y.CreateIndex - x.CreateIndex);

/** The writes of a stopped or missing job: its active deployments cancelled. */
export function stoppedJobWrites(deployments: readonly StoredDeployment[]): DeploymentWrites {
  return { cancel: deployments.filter(deploymentActive).map((d) => ({ id: d.ID, description: DEPLOYMENT_TEXT.stoppedJob })) };
}

/** One old allocation and its slot. */
interface Slotted {
  readonly index: number;
  readonly alloc: ExistingAlloc;
}

/** What a group's deployment decides of its old allocations and canaries. */
interface Rolled {
  /** Stop and replace now. */
  readonly replace: readonly Slotted[];
  /** Keep for a later batch. */
  readonly wait: readonly Slotted[];
  /** Stop without a replacement: a promoted canary holds the slot. */
  readonly stop: readonly ExistingAlloc[];
  /** Canaries to place, by name. */
  readonly canaryNames: readonly string[];
}

/** The deployment of a job's current version across its groups (see the module doc). */
export class Rollout {
  private readonly existing: StoredDeployment | undefined;
  private readonly cancel: { id: string; description: string }[];
  private readonly groups: Record<string, DeploymentGroupState>;
  private candidateId: string | undefined;
  private touched = false;

  constructor(
    private readonly job: Job,
    private readonly input: RolloutInput,
  ) {
    const all = newestFirst(input.deployments);
    this.existing = all.find((d) => forJobVersion(d, job));
    this.cancel = all.filter((d) => deploymentActive(d) && !forJobVersion(d, job)).map((d) => ({ id: d.ID, description: DEPLOYMENT_TEXT.newerJob }));
    this.groups = { ...(this.existing?.TaskGroups ?? {}) };
  }

  /** The deployment's ID (a new one's made on first use). */
  get id(): string {
    if (this.existing) return this.existing.ID;
    this.candidateId ??= this.input.newId();
    return this.candidateId;
  }

  /** The deployment's status (a new one runs). */
  get status(): string {
    return this.existing?.Status ?? DEPLOYMENT_STATUS.running;
  }

  /** The deployment of group `tg`, or undefined when the group has none (no strategy, or its version's deployment is over). */
  group(tg: TaskGroup): RolloutGroup | undefined {
    const u = groupUpdate(this.job, tg);
    if (!u) return undefined;
    if (this.existing) {
      if (!this.existing.TaskGroups[tg.Name]) return undefined;
      if (this.existing.Status === DEPLOYMENT_STATUS.successful || this.existing.Status === DEPLOYMENT_STATUS.cancelled) return undefined;
    } else this.groups[tg.Name] ??= newGroupState(tg, u, 0);
    return new RolloutGroup(this, tg, u);
  }

  /** Group `name`'s state. */
  state(name: string): DeploymentGroupState {
    return this.groups[name]!;
  }

  /** Changes group `name`'s state and marks the deployment written. */
  setState(name: string, s: DeploymentGroupState): void {
    this.groups[name] = s;
    this.touched = true;
  }

  /** Marks the deployment written (something of the version was placed, replaced or updated). */
  touch(): void {
    this.touched = true;
  }

  /** The plan's deployment writes. */
  writes(): DeploymentWrites {
    if (!this.touched) return { cancel: this.cancel };
    const base: Deployment = this.existing ?? newDeployment(this.id, this.job, this.groups, this.input.nowNs);
    return { upsert: { ...base, TaskGroups: this.groups }, cancel: this.cancel };
  }
}

/** One group's part of a {@link Rollout}. */
export class RolloutGroup {
  constructor(
    private readonly rollout: Rollout,
    private readonly tg: TaskGroup,
    private readonly u: UpdateStrategy,
  ) {}

  private get active(): boolean {
    return deploymentActive({ Status: this.rollout.status });
  }

  /** The `DeploymentID` of what the group places now: the deployment's while it is active, else none. */
  get placementId(): string | undefined {
    return this.active ? this.rollout.id : undefined;
  }

  /** Is `a` a canary (of any deployment) that is not yet promoted? */
  isCanary(a: ExistingAlloc): boolean {
    return a.DeploymentStatus?.Canary === true;
  }

  /** Does canary `a` stay? Only the canaries of this active, unpromoted deployment. */
  keepsCanary(a: ExistingAlloc): boolean {
    return this.active && a.DeploymentID === this.rollout.id && !this.rollout.state(this.tg.Name).Promoted;
  }

  /** The fields an in-place update of `a` sets besides `Job`: it joins the active deployment, keeping a health it had. */
  inPlace(a: ExistingAlloc): Partial<AllocUpdate['set']> {
    if (!this.active) return {};
    this.rollout.touch();
    const healthy = a.DeploymentStatus?.Healthy === true;
    return { DeploymentID: this.rollout.id, DeploymentStatus: healthy ? { ...a.DeploymentStatus!, Canary: false } : null };
  }

  /**
   * Paces the old allocations `destructive` (module doc): `canaries` are this deployment's
   * unpromoted ones, `keptIndices` the slots current allocations hold, `allocs` every
   * allocation of the group (for the in-flight count).
   */
  roll(o: { destructive: readonly Slotted[]; canaries: readonly ExistingAlloc[]; keptIndices: ReadonlySet<number>; allocs: readonly ExistingAlloc[] }): Rolled {
    const name = this.tg.Name;
    let s = this.rollout.state(name);
    const old = [...o.destructive].sort((x, y) => x.index - y.index);
    const running = this.rollout.status === DEPLOYMENT_STATUS.running;
    if (
      s.PlacedAllocs === 0 &&
      s.DesiredCanaries === 0 &&
      !s.Promoted &&
      this.u.Canary > 0 &&
      old.length > 0 &&
      this.rollout.status === DEPLOYMENT_STATUS.running
    ) {
      // The version's first plan with old allocations to replace: canaries first.
      s = { ...s, DesiredCanaries: this.u.Canary };
      this.rollout.setState(name, s);
    }
    if (s.DesiredCanaries > 0 && !s.Promoted) {
      const canaryNames: string[] = [];
      if (running) {
        const taken = new Set(o.canaries.map((c) => c.Name));
        const free = old.map((x) => x.alloc.Name).filter((n) => !taken.has(n));
        canaryNames.push(...[...new Set(free)].slice(0, Math.max(0, s.DesiredCanaries - o.canaries.length)));
        if (canaryNames.length > 0) this.rollout.touch();
      }
      return { replace: [], wait: old, stop: [], canaryNames };
    }
    const covered = old.filter((x) => o.keptIndices.has(x.index));
    const rest = old.filter((x) => !o.keptIndices.has(x.index));
    const mine = o.allocs.filter((a) => a.DeploymentID === this.rollout.id);
    const unhealthy = mine.some((a) => a.DeploymentStatus?.Healthy === false);
    const inFlight = mine.filter((a) => !allocTerminal(a) && !clientTerminal(a) && a.DeploymentStatus?.Healthy !== true).length;
    const limit = running && !unhealthy ? Math.max(0, this.u.MaxParallel - inFlight) : 0;
    if (covered.length > 0) this.rollout.touch();
    return { replace: rest.slice(0, limit), wait: rest.slice(limit), stop: covered.map((x) => x.alloc), canaryNames: [] };
  }

  /** After the group's plan: the deployment is written when the group changed anything; its `DesiredTotal` is the group's count. */
  done(counts: DesiredUpdates): void {
    if (counts.Place + counts.DestructiveUpdate + counts.Canary + counts.InPlaceUpdate + counts.Migrate === 0) return;
    if (!this.active) return;
    this.rollout.setState(this.tg.Name, { ...this.rollout.state(this.tg.Name), DesiredTotal: this.tg.Count });
  }
}
