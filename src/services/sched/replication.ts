/**
 * ACL replication into a non-authoritative region (spec 002 "What the service does": reads
 * serve replicated data that can lag; reference/sched.md §2.3): policies, roles, global
 * tokens, auth methods and binding rules are pulled from the authoritative region with the
 * replication token (`acl.replication_token`, a management token there) and written here
 * with the `Replication` label, so the event stream reports them too. Local tokens stay.
 *
 * The reference replicates over its servers' RPC; Cairn pulls an internal HTTP endpoint of
 * the authoritative region (routes/replication.ts) that returns whole documents, secrets
 * included (auth-method client secrets, token secrets: the reads of the public API redact
 * them). One loop per kind, each round a blocking query (kernel `ReplicationLoops`).
 *
 * @module
 */
import type { Logger } from '../../kernel/log/logger.js';
import { mirrorTable, pullJson, ReplicationLoops } from '../../kernel/replicate/index.js';
import type { StateStore } from '../../kernel/store/index.js';
import { LABEL, T, type TokenDoc } from './state.js';

/** What is replicated, with its table and the key of its documents. */
export const REPLICATED = {
  policies: { table: T.policies, id: 'Name' },
  roles: { table: T.roles, id: 'ID' },
  tokens: { table: T.tokens, id: 'AccessorID' },
  'auth-methods': { table: T.authMethods, id: 'Name' },
  'binding-rules': { table: T.bindingRules, id: 'ID' },
} as const;

/** One of {@link REPLICATED}. */
export type ReplicatedKind = keyof typeof REPLICATED;

/** The kinds in the order their loops start (policies before the tokens and roles that name them). */
export const REPLICATED_KINDS = Object.keys(REPLICATED) as ReplicatedKind[];

/** The status `GET /v1/acl/replication` reports (a Cairn endpoint; the reference has none). */
export interface ReplicationStatus {
  readonly Enabled: boolean;
  readonly Running: boolean;
  readonly SourceRegion: string;
  /** Index of the authoritative region each kind was last replicated at. */
  readonly ReplicatedIndexes: Readonly<Record<string, number>>;
  readonly LastSuccess: string;
  readonly LastError: string;
  readonly LastErrorMessage: string;
}

/** Options of {@link SchedReplicator}. */
export interface SchedReplicatorOptions {
  readonly state: StateStore;
  /** The authoritative region and the `host:port` of one of its servers. */
  readonly source: { readonly region: string; readonly address: string };
  /** The replication token; undefined: replication idles (the agent warns). */
  readonly token: string | undefined;
  readonly log: Logger;
  /** Clock in epoch ms. */
  readonly now: () => number;
  /** Blocking-query wait on the source, in ms; default 5 min. */
  readonly waitMs?: number;
  /** First retry delay after a failure, in ms; default 2000. */
  readonly backoffMs?: number;
}

/** Documents compare equal when every field but the local indexes is equal. */
function sameDoc(a: object, b: object): boolean {
  const strip = ({ CreateIndex: _c, ModifyIndex: _m, ...rest }: Record<string, unknown>) => JSON.stringify(rest);
  return strip(a as Record<string, unknown>) === strip(b as Record<string, unknown>);
}

/** Runs the replication loops of a non-authoritative region. */
export class SchedReplicator {
  /** The loops (their indexes and outcomes are read by the metrics). */
  readonly loops: ReplicationLoops<ReplicatedKind>;

  constructor(private readonly o: SchedReplicatorOptions) {
    // The reference's limiter: one per loop, 10 rounds/s with a burst of 10 (nomad/leader.go).
    this.loops = new ReplicationLoops<ReplicatedKind>({ log: o.log, now: o.now, backoffMs: o.backoffMs, rate: { perSecond: 10, burst: 10, shared: false } });
  }

  /** Starts the loops (no-op without a replication token). */
  start(): void {
    if (this.o.token === undefined || this.loops.isRunning) return;
    this.loops.start(REPLICATED_KINDS, (kind, remote) => this.round(kind, remote));
    this.o.log.info({ authoritative: this.o.source.region }, 'ACL replication started');
  }

  /** Stops the loops and waits for them to end. */
  close(): Promise<void> {
    return this.loops.close();
  }

  /** The current status. */
  status(): ReplicationStatus {
    return {
      Enabled: true,
      Running: this.loops.isRunning,
      SourceRegion: this.o.source.region,
      ReplicatedIndexes: Object.fromEntries(REPLICATED_KINDS.map((k) => [k, this.loops.indexes.get(k) ?? 0])),
      LastSuccess: this.loops.lastSuccess,
      LastError: this.loops.lastError,
      LastErrorMessage: this.loops.lastErrorMessage,
    };
  }

  /** One round: a blocking read of every document of `kind` after `remote`, mirrored here. */
  private async round(kind: ReplicatedKind, remote: number): Promise<number> {
    const wait = `${Math.round((this.o.waitMs ?? 300_000) / 1000)}s`;
    const { body, index } = await pullJson(`http://${this.o.source.address}/v1/internal/acl/replicate/${kind}?index=${remote}&wait=${wait}`, {
      headers: { 'X-Sched-Token': this.o.token! },
      indexHeader: 'x-sched-index',
      stop: this.loops.signal,
      what: `failed to retrieve remote ACL ${kind}`,
    });
    if (!Array.isArray(body)) throw new Error(`failed to retrieve remote ACL ${kind}: the answer is not a list`);
    const { table, id } = REPLICATED[kind];
    const idOf = (d: Record<string, unknown>) => String(d[id]);
    const mine = kind === 'tokens' ? (d: Record<string, unknown>) => (d as unknown as TokenDoc).Global : undefined;
    await mirrorTable(this.o.state, table, body as Record<string, unknown>[], { idOf, mine, same: sameDoc, label: LABEL.replication });
    return index < remote ? 0 : index;
  }
}
