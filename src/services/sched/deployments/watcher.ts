/**
 * The deployment watcher on the leader (the reference's `nomad/deploymentwatcher`; contract 29
 * "Server"): started and stopped with the scheduler (scheduler/leader.ts), like the periodic
 * dispatcher. It reads everything from the state, so a new leader carries on where the old
 * one stopped: on start it checks every active deployment.
 *
 * - An allocation change that touches a deployment (its `DeploymentID`, before or after) or a
 *   deployment change → that deployment is checked (transitions.ts `checkIn`) in its own
 *   write, labelled `DeploymentStatusUpdate` (failed, successful), `DeploymentPromotion`
 *   (auto-promoted) or `DeploymentAllocHealth` (counts and progress deadline moved).
 * - One timer for the earliest `RequireProgressBy` of the running deployments: a deployment a
 *   group of which passes it unfinished fails (`Failed due to progress deadline`).
 *
 * @module
 */
import type { Logger } from '../../../kernel/log/logger.js';
import type { ChangeBatch } from '../../../kernel/store/index.js';
import type { SchedDeps } from '../service-deps.js';
import { LABEL, T } from '../state.js';
import { DEPLOYMENT_STATUS, DEPLOYMENT_TEXT, deploymentActive, type StoredDeployment } from './doc.js';
import { checkIn, failIn, pastDeadline, type CheckOutcome } from './transitions.js';

/** The longest a Node timer waits; a later deadline is reached through intermediate wake-ups. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Thrown to discard a dry run's transaction. */
const DRY_RUN = new Error('dry run');

/** The label of a check's write by what it changed. */
const LABEL_OF: Readonly<Record<Exclude<CheckOutcome, 'none'>, string>> = {
  health: LABEL.deploymentAllocHealth,
  promotion: LABEL.deploymentPromotion,
  status: LABEL.deploymentStatus,
};

/** See the module doc. */
export class DeploymentWatcher {
  private unsubscribe: (() => void) | undefined;
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  /** Deployments with a check queued and not yet run (one check covers every change before it runs). */
  private readonly queued = new Set<string>();

  constructor(
    private readonly deps: SchedDeps,
    private readonly log: Logger,
  ) {}

  /** Starts: every active deployment is checked, the deadline timer set. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = this.deps.state.subscribe((b) => this.onBatch(b));
    for (const d of this.deps.state.list<StoredDeployment>(T.deployments)) if (deploymentActive(d)) this.check(d.ID);
    this.arm();
  }

  /** Stops: no check or deadline runs any more; waits for the writes in flight. */
  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.chain;
  }

  private onBatch(b: ChangeBatch): void {
    let deployments = false;
    for (const c of b.changes) {
      if (c.table === T.allocs) {
        for (const doc of [c.doc, c.previous]) {
          const id = (doc as { DeploymentID?: string } | undefined)?.DeploymentID;
          if (id) this.check(id);
        }
      } else if (c.table === T.deployments) {
        deployments = true;
        if (c.doc && deploymentActive(c.doc as unknown as StoredDeployment)) this.check(c.id);
      }
    }
    if (deployments) this.arm();
  }

  /** Queues a check of deployment `id` (one per burst of changes). */
  private check(id: string): void {
    if (this.queued.has(id)) return;
    this.queued.add(id);
    this.enqueue(async () => {
      this.queued.delete(id);
      const nowNs = this.deps.now() * 1e6;
      const outcome = await this.dryRun(id, nowNs);
      if (outcome === 'none') return;
      await this.deps.state.txn((tx) => checkIn(tx, id, nowNs), LABEL_OF[outcome]);
    });
  }

  /** What a check of `id` would change now: run in a transaction that is thrown away (its label types the real write). */
  private async dryRun(id: string, nowNs: number): Promise<CheckOutcome> {
    let outcome: CheckOutcome = 'none';
    await this.deps.state
      .txn((tx) => {
        outcome = checkIn(tx, id, nowNs);
        throw DRY_RUN;
      })
      .catch((err: unknown) => {
        if (err !== DRY_RUN) throw err;
      });
    return outcome;
  }

  private enqueue(fn: () => Promise<void>): void {
    this.chain = this.chain
      .then(() => (this.running ? fn() : undefined))
      .catch((err: unknown) => this.log.warn({ err }, 'deployments: a deployment check failed'));
  }

  /** Sets the timer for the earliest progress deadline of the running deployments. */
  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.running) return;
    let earliest = Infinity;
    for (const d of this.deps.state.list<StoredDeployment>(T.deployments)) {
      if (d.Status !== DEPLOYMENT_STATUS.running) continue;
      for (const g of Object.values(d.TaskGroups)) {
        if (g.ProgressDeadline <= 0 || g.RequireProgressBy.startsWith('0001-')) continue;
        earliest = Math.min(earliest, Date.parse(g.RequireProgressBy));
      }
    }
    if (earliest === Infinity) return;
    const wait = Math.max(0, earliest - this.deps.now());
    this.timer = setTimeout(() => this.enqueue(() => this.deadlines()), Math.min(wait + 1, MAX_TIMER_MS));
    this.timer.unref();
  }

  /** Fails every running deployment past its progress deadline, then sets the timer again. */
  private async deadlines(): Promise<void> {
    const nowMs = this.deps.now();
    const late = this.deps.state.list<StoredDeployment>(T.deployments).filter((d) => pastDeadline(d, nowMs));
    for (const d of late) {
      await this.deps.state.txn((tx) => {
        const cur = tx.get<StoredDeployment>(T.deployments, d.ID);
        if (cur && pastDeadline(cur, nowMs)) failIn(tx, cur, DEPLOYMENT_TEXT.progressDeadline, nowMs * 1e6);
      }, LABEL.deploymentStatus);
    }
    this.arm();
  }
}
