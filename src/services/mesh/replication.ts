/**
 * ACL replication into a secondary datacenter (spec 001 "Replication status";
 * reference/mesh.md §2.2–§2.3): policies and roles always, global tokens when
 * `enable_token_replication` is on, pulled from the primary over its HTTP API with the
 * replication token. Auth methods, binding rules and local tokens stay where they are.
 * With the enterprise switch, namespaces too, and every list is read with `?ns=*`; a
 * policy, role or token whose namespace the secondary lacks waits for a namespace round
 * first, so a replicated object never lives in a namespace that does not exist there.
 *
 * One loop per type (kernel `ReplicationLoops`: rate limit, backoff, resync after a
 * failure), each round a blocking query on the primary's list (`?index=`), so a change
 * there arrives at once and an idle primary costs one request per wait. Replicated objects
 * keep the primary's IDs and `Hash`.
 *
 * @module
 */
import type { Logger } from '../../kernel/log/logger.js';
import { mirrorTable, pullJson, ReplicationLoops, type MirrorOptions } from '../../kernel/replicate/index.js';
import type { StateStore } from '../../kernel/store/index.js';
import { DEFAULT_NAMESPACE } from './namespace.js';
import { namespaceExists, nsField, T, type NamespaceDoc, type PolicyDoc, type RoleDoc, type TokenDoc } from './state.js';

/** The status `GET /acl/replication` reports (spec 001; reference/mesh.md §2.1). */
export interface ReplicationStatus {
  readonly Enabled: boolean;
  readonly Running: boolean;
  readonly SourceDatacenter: string;
  readonly ReplicationType: string;
  readonly ReplicatedIndex: number;
  readonly ReplicatedRoleIndex: number;
  readonly ReplicatedTokenIndex: number;
  readonly LastSuccess: string;
  readonly LastError: string;
  readonly LastErrorMessage: string;
}

/** Options of {@link Replicator}. */
export interface ReplicatorOptions {
  readonly state: StateStore;
  /** The primary's name and the `host:port` of one of its servers. */
  readonly primary: { readonly datacenter: string; readonly address: string };
  /** The replication token (`acl.tokens.replication`); undefined: replication idles. */
  readonly token: string | undefined;
  /** Replicate global tokens too. */
  readonly tokens: boolean;
  /** Enterprise switch: replicate namespaces, and objects of every namespace. */
  readonly namespaces?: boolean;
  readonly log: Logger;
  /** Clock in epoch ms. */
  readonly now: () => number;
  /** Blocking-query wait on the primary, in ms; default 5 min. */
  readonly waitMs?: number;
  /** First retry delay after a failure, in ms; default 2000 (doubling, at most 64 000). */
  readonly backoffMs?: number;
}

type Kind = 'namespaces' | 'policies' | 'roles' | 'tokens';

/** Runs the replication loops of a secondary datacenter. */
export class Replicator {
  /** The loops (their indexes and outcomes are read by the metrics). */
  readonly loops: ReplicationLoops<Kind>;

  constructor(private readonly o: ReplicatorOptions) {
    this.loops = new ReplicationLoops<Kind>({ log: o.log, now: o.now, backoffMs: o.backoffMs });
  }

  /** Starts the loops (no-op without a replication token). */
  start(): void {
    if (this.o.token === undefined || this.loops.isRunning) return;
    const kinds: Kind[] = [...(this.o.namespaces ? ['namespaces' as const] : []), 'policies', 'roles', ...(this.o.tokens ? ['tokens' as const] : [])];
    this.loops.start(kinds, (kind, remote) => this.round(kind, remote));
    this.o.log.info({ primary: this.o.primary.datacenter, tokens: this.o.tokens }, 'ACL replication started');
  }

  /** Stops the loops and waits for them to end. */
  close(): Promise<void> {
    return this.loops.close();
  }

  /** The current status. */
  status(): ReplicationStatus {
    const running = this.loops.isRunning;
    return {
      Enabled: true,
      Running: running,
      SourceDatacenter: this.o.primary.datacenter,
      ReplicationType: running ? (this.o.tokens ? 'tokens' : 'policies') : '',
      ReplicatedIndex: this.loops.indexes.get('policies') ?? 0,
      ReplicatedRoleIndex: this.loops.indexes.get('roles') ?? 0,
      ReplicatedTokenIndex: this.loops.indexes.get('tokens') ?? 0,
      LastSuccess: this.loops.lastSuccess,
      LastError: this.loops.lastError,
      LastErrorMessage: this.loops.lastErrorMessage,
    };
  }

  /** One round: a blocking list after `remote`, the diff, one local transaction. Returns the new remote index. */
  private async round(kind: Kind, remote: number): Promise<number> {
    const { items, index } = await this.fetchList(kind, remote);
    const next = index < remote ? 0 : index; // the primary's index moved back: resync (reference §2.3 step 3)
    if (kind === 'namespaces') {
      await this.applyNamespaces(items as Api[]);
      return next;
    }
    await this.ensureNamespaces(items as Api[]);
    if (kind === 'policies') await this.applyPolicies(items as PolicyStub[]);
    else if (kind === 'roles') await this.apply(T.roles, (items as Api[]).map(roleDoc), { idOf: (r) => r.ID });
    else await this.applyTokens(items as Api[]);
    return next;
  }

  private async applyNamespaces(items: Api[]): Promise<void> {
    const docs = items.map((n): NamespaceDoc => ({ Name: String(n.Name), Description: String(n.Description ?? '') }));
    await this.apply(T.namespaces, docs, { idOf: (n) => n.Name, same: (a, b) => a.Description === b.Description });
  }

  /** Runs a namespace round first when `items` name a namespace this datacenter lacks. */
  private async ensureNamespaces(items: Api[]): Promise<void> {
    if (!this.o.namespaces) return;
    const missing = items.some((d) => typeof d.Namespace === 'string' && !namespaceExists(this.o.state, d.Namespace));
    if (missing) await this.applyNamespaces((await this.fetchList('namespaces', 0)).items as Api[]);
  }

  private async applyPolicies(stubs: PolicyStub[]): Promise<void> {
    const local = new Map(this.o.state.list<PolicyDoc>(T.policies).map((p) => [p.ID, p]));
    const changed = stubs.filter((s) => local.get(s.ID)?.Hash !== s.Hash);
    const full = new Map<string, PolicyDoc>();
    for (const s of changed) {
      const ns = this.o.namespaces && s.Namespace ? `?ns=${encodeURIComponent(s.Namespace)}` : '';
      const { body } = await this.get(`/v1/acl/policy/${encodeURIComponent(s.ID)}${ns}`, 'failed to retrieve ACL policy updates');
      full.set(s.ID, policyDoc(body as Api));
    }
    await this.apply(
      T.policies,
      stubs.map((s) => full.get(s.ID) ?? local.get(s.ID)!),
      { idOf: (p) => p.ID },
    );
  }

  private async applyTokens(tokens: Api[]): Promise<void> {
    if (tokens.some((t) => t.SecretID === '<hidden>')) {
      throw new Error('failed to retrieve unredacted tokens - replication token in use does not grant acl:write');
    }
    const global = tokens.filter((t) => t.Local !== true).map(tokenDoc);
    await this.apply(T.tokens, global, { idOf: (t) => t.AccessorID, mine: (t) => !t.Local });
  }

  private async apply<D extends object>(table: string, remote: D[], o: MirrorOptions<D>): Promise<void> {
    await mirrorTable(this.o.state, table, remote, o);
  }

  private async fetchList(kind: Kind, after: number): Promise<{ items: unknown[]; index: number }> {
    const wait = `${Math.round((this.o.waitMs ?? 300_000) / 1000)}s`;
    const path = kind === 'namespaces' ? '/v1/namespaces?' : `/v1/acl/${kind}?${this.o.namespaces ? 'ns=*&' : ''}`;
    const { body, index } = await this.get(`${path}index=${after}&wait=${wait}`, `failed to retrieve remote ACL ${kind}`);
    if (!Array.isArray(body)) throw new Error(`failed to retrieve remote ACL ${kind}: the answer is not a list`);
    return { items: body, index };
  }

  private get(path: string, what: string) {
    return pullJson(`http://${this.o.primary.address}${path}`, {
      headers: { 'X-Mesh-Token': this.o.token! },
      indexHeader: 'x-mesh-index',
      stop: this.loops.signal,
      what,
    });
  }
}

interface PolicyStub {
  readonly ID: string;
  readonly Hash: string;
  readonly Namespace?: string;
}

type Api = Record<string, unknown>;
const ids = (v: unknown) => (Array.isArray(v) ? v.map((l: { ID: string }) => ({ ID: l.ID })) : []);
const list = <X>(v: unknown): X[] => (Array.isArray(v) ? (v as X[]) : []);

/** The stored `{Namespace}` of an object as the primary's API shows it (absent in CE: `default`). */
const nsFrom = (d: Api) => nsField(typeof d.Namespace === 'string' ? d.Namespace : DEFAULT_NAMESPACE);

/** A policy as the primary's API shows it → the stored document. */
function policyDoc(p: Api): PolicyDoc {
  const dcs = list<string>(p.Datacenters);
  return {
    ...nsFrom(p),
    ID: String(p.ID),
    Name: String(p.Name),
    Description: String(p.Description ?? ''),
    Rules: String(p.Rules ?? ''),
    ...(dcs.length > 0 && { Datacenters: dcs }),
    Hash: String(p.Hash),
  };
}

/** A role from the primary's API → the stored document (links by ID only). */
function roleDoc(r: Api): RoleDoc {
  return {
    ...nsFrom(r),
    ID: String(r.ID),
    Name: String(r.Name),
    Description: String(r.Description ?? ''),
    Policies: ids(r.Policies),
    ServiceIdentities: list(r.ServiceIdentities),
    NodeIdentities: list(r.NodeIdentities),
    Hash: String(r.Hash),
  };
}

/** A token from the primary's API → the stored document (links by ID only). */
function tokenDoc(t: Api): TokenDoc {
  return {
    ...nsFrom(t),
    AccessorID: String(t.AccessorID),
    SecretID: String(t.SecretID),
    Description: String(t.Description ?? ''),
    Policies: ids(t.Policies),
    Roles: ids(t.Roles),
    ServiceIdentities: list(t.ServiceIdentities),
    NodeIdentities: list(t.NodeIdentities),
    Local: false,
    ...(typeof t.AuthMethod === 'string' && { AuthMethod: t.AuthMethod }),
    ...(typeof t.ExpirationTime === 'string' && { ExpirationTime: t.ExpirationTime }),
    CreateTime: String(t.CreateTime),
    Hash: String(t.Hash),
  };
}
