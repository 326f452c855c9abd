/**
 * The leader's failure detector for agents sharing one PostgreSQL state (issue 16 scope 5:
 * "invalidation when … the node goes"): each agent holds a member lock while it runs
 * (kernel pg-members.ts); every `intervalMs` the leader asks which agents' nodes hold none
 * and sets their `serfHealth` check critical with the reference's text, `Agent not live or
 * unreachable`. The catalog write invalidates the sessions tied to that check in the same
 * transaction (a held lock is released, with its lock delay), as the reference's gossip
 * failure detector does. Once the member lock is held again the check is passing again
 * (the agent's own anti-entropy would also restore it at its next sync).
 *
 * Members are the nodes whose `serfHealth` an agent wrote (its output is one of the two
 * `SERF_*_OUTPUT` texts): a node registered through the catalog API with a check of that name is
 * left alone.
 *
 * @module
 */
import type { Logger } from '../../../kernel/log/logger.js';
import type { StateStore } from '../../../kernel/store/index.js';
import { Periodic } from '../../../kernel/util/periodic.js';
import { checksOf, stripIndexes, writeCheck } from '../catalog/register.js';
import { CT, SERF_ALIVE_OUTPUT, SERF_CHECK_ID, SERF_DEAD_OUTPUT, type CheckDoc } from '../catalog/model.js';
import { reconcileSessions } from '../sessions/store.js';

/** Options of {@link MemberLiveness}. */
export interface MemberLivenessOptions {
  readonly state: StateStore;
  /** Those of the node names whose agent holds no member lock (PostgresBackend.absentMembers). */
  readonly absent: (nodes: readonly string[]) => Promise<string[]>;
  /** Epoch ms. */
  readonly now: () => number;
  readonly log: Logger;
  /** Pause between rounds, ms; default 1000. */
  readonly intervalMs?: number;
}

/** See the module doc; the leader runs it (start on leading, stop on stepping down). */
export class MemberLiveness {
  private readonly periodic: Periodic;

  constructor(private readonly o: MemberLivenessOptions) {
    this.periodic = new Periodic(
      () => this.check(),
      o.intervalMs ?? 1000,
      (err) => o.log.warn({ err: err.message }, 'agent liveness could not be checked; next round retries'),
    );
  }

  /** A round every `intervalMs` from now on (no-op when running). */
  start(): void {
    this.periodic.start();
  }

  /** Stops the rounds and waits for one in progress. */
  async stop(): Promise<void> {
    await this.periodic.stop();
  }

  /**
   * One round: marks the members gone or back. Resolves with the nodes whose check changed.
   * @throws the store's or the database's error (e.g. no longer the leader).
   */
  async check(): Promise<string[]> {
    const members = this.o.state
      .list<CheckDoc>(CT.checks)
      .filter((c) => c.CheckID === SERF_CHECK_ID && c.ServiceID === '' && (c.Output === SERF_ALIVE_OUTPUT || c.Output === SERF_DEAD_OUTPUT));
    if (members.length === 0) return [];
    const absent = new Set(await this.o.absent(members.map((c) => c.Node)));
    const flips = members.filter((c) => (c.Status === 'critical') !== absent.has(c.Node));
    if (flips.length === 0) return [];
    const nowMs = this.o.now();
    await this.o.state.txn((tx) => {
      for (const flip of flips) {
        const c = checksOf(tx, flip.Node).find((x) => x.CheckID === SERF_CHECK_ID);
        if (!c) continue;
        const dead = absent.has(c.Node);
        writeCheck(tx, { ...stripIndexes(c), Status: dead ? 'critical' : 'passing', Output: dead ? SERF_DEAD_OUTPUT : SERF_ALIVE_OUTPUT });
        reconcileSessions(tx, c.Node, nowMs);
      }
    }, 'member-liveness');
    for (const c of flips)
      this.o.log.info({ node: c.Node, alive: !absent.has(c.Node) }, absent.has(c.Node) ? 'agent gone: serfHealth critical' : 'agent back: serfHealth passing');
    return flips.map((c) => c.Node);
  }
}
