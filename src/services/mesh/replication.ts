/**
 * ACL replication into a secondary datacenter (spec 001 "Replication status";
 * reference/mesh.md §2.2–§2.3): policies and roles always, global tokens when
 * `enable_token_replication` is on, pulled from the primary over its HTTP API with the
 * replication token. Auth methods, binding rules and local tokens stay where they are.
 * With the enterprise switch, namespaces too, and every list is read with `?ns=*`; a
 * policy, role or token whose namespace the secondary lacks waits for a namespace round
 * first, so a replicated object never lives in a namespace that does not exist there.
 *
 * One loop per type, each a blocking query on the primary's list (`?index=`), so a change
 * there arrives at once and an idle primary costs one request per wait. A shared token
 * bucket (1 round/s, burst 5) rate-limits rounds; a failed round records `LastError` and
 * its message, forgets the remote index (full resync next time) and backs off 2 s, 4 s, …
 * up to 64 s. Replicated objects keep the primary's IDs and `Hash`.
 *
 * @module
 */
import type { Logger } from '../../kernel/log/logger.js';
import type { StateStore, Txn } from '../../kernel/store/index.js';
import { DEFAULT_NAMESPACE } from './namespace.js';
import { namespaceExists } from './ns-scope.js';
import { nsField, T, type NamespaceDoc, type PolicyDoc, type RoleDoc, type TokenDoc } from './state.js';

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

/** The zero time of the status (spec 001). */
export const ZERO_TIME = '0001-01-01T00:00:00Z';

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

const BURST = 5;
const REFILL_MS = 1000;
const MAX_BACKOFF_MS = 64_000;

/** UTC, whole seconds: `2026-11-22T16:50:03Z`. */
const stamp = (ms: number) => new Date(Math.round(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** Runs the replication loops of a secondary datacenter. */
export class Replicator {
  private running = false;
  private readonly stop = new AbortController();
  private readonly loops: Promise<void>[] = [];
  private readonly indexes: Record<Kind, number> = { namespaces: 0, policies: 0, roles: 0, tokens: 0 };
  private lastSuccess = ZERO_TIME;
  private lastError = ZERO_TIME;
  private lastErrorMessage = '';
  private tokensAvailable = BURST;
  private lastRefill = 0;

  constructor(private readonly o: ReplicatorOptions) {}

  /** Starts the loops (no-op without a replication token). */
  start(): void {
    if (this.o.token === undefined || this.running) return;
    this.running = true;
    this.lastRefill = this.o.now();
    const kinds: Kind[] = [...(this.o.namespaces ? ['namespaces' as const] : []), 'policies', 'roles', ...(this.o.tokens ? ['tokens' as const] : [])];
    for (const k of kinds) this.loops.push(this.loop(k));
    this.o.log.info({ primary: this.o.primary.datacenter, tokens: this.o.tokens }, 'ACL replication started');
  }

  /** Stops the loops and waits for them to end. */
  async close(): Promise<void> {
    this.running = false;
    this.stop.abort();
    await Promise.allSettled(this.loops);
  }

  /** The current status. */
  status(): ReplicationStatus {
    return {
      Enabled: true,
      Running: this.running,
      SourceDatacenter: this.o.primary.datacenter,
      ReplicationType: this.running ? (this.o.tokens ? 'tokens' : 'policies') : '',
      ReplicatedIndex: this.indexes.policies,
      ReplicatedRoleIndex: this.indexes.roles,
      ReplicatedTokenIndex: this.indexes.tokens,
      LastSuccess: this.lastSuccess,
      LastError: this.lastError,
      LastErrorMessage: this.lastErrorMessage,
    };
  }

  private async loop(kind: Kind): Promise<void> {
    let remote = 0;
    let backoff = this.o.backoffMs ?? 2000;
    while (this.running) {
      try {
        await this.takeRoundToken();
        remote = await this.round(kind, remote);
        this.indexes[kind] = remote;
        this.lastSuccess = stamp(this.o.now());
        backoff = this.o.backoffMs ?? 2000;
      } catch (err) {
        if (!this.running) return;
        this.lastError = stamp(this.o.now());
        this.lastErrorMessage = (err as Error).message;
        this.o.log.warn({ kind, err: this.lastErrorMessage }, 'ACL replication round failed');
        remote = 0;
        await this.sleep(backoff);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
    }
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
    else if (kind === 'roles') await this.apply(T.roles, (items as Api[]).map(roleDoc), (r) => r.ID);
    else await this.applyTokens(items as Api[]);
    return next;
  }

  private async applyNamespaces(items: Api[]): Promise<void> {
    const docs = items.map((n): NamespaceDoc => ({ Name: String(n.Name), Description: String(n.Description ?? '') }));
    await this.apply(T.namespaces, docs, (n) => n.Name, () => true, (a, b) => a.Description === b.Description);
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
    await this.apply(T.policies, stubs.map((s) => full.get(s.ID) ?? local.get(s.ID)!), (p) => p.ID);
  }

  private async applyTokens(tokens: Api[]): Promise<void> {
    if (tokens.some((t) => t.SecretID === '<hidden>')) {
      throw new Error('failed to retrieve unredacted tokens - replication token in use does not grant acl:write');
    }
    const global = tokens.filter((t) => t.Local !== true).map(tokenDoc);
    await this.apply(T.tokens, global, (t) => t.AccessorID, (t) => !t.Local);
  }

  /**
   * Makes the local `table` hold exactly `remote` (restricted to docs where `mine` holds):
   * deletes what the primary no longer has, writes what is new or not `same` (by `Hash`).
   */
  private async apply<D extends object>(
    table: string,
    remote: D[],
    idOf: (d: D) => string,
    mine: (d: D) => boolean = () => true,
    same: (local: D, remote: D) => boolean = (a, b) => (a as { Hash?: string }).Hash === (b as { Hash?: string }).Hash,
  ): Promise<void> {
    const want = new Map(remote.map((d) => [idOf(d), d]));
    const have = this.o.state.list<D>(table).filter(mine);
    const deletes = have.filter((d) => !want.has(idOf(d))).map(idOf);
    const upserts = remote.filter((d) => {
      const local = this.o.state.get<D>(table, idOf(d));
      return !local || !same(local, d);
    });
    if (deletes.length === 0 && upserts.length === 0) return;
    await this.o.state.txn((tx: Txn) => {
      // Everything changing goes first, so names moving between objects never clash.
      for (const id of [...deletes, ...upserts.map(idOf)]) tx.delete(table, id);
      for (const d of upserts) tx.put(table, idOf(d), d);
    });
  }

  private async fetchList(kind: Kind, after: number): Promise<{ items: unknown[]; index: number }> {
    const wait = `${Math.round((this.o.waitMs ?? 300_000) / 1000)}s`;
    const path = kind === 'namespaces' ? '/v1/namespaces?' : `/v1/acl/${kind}?${this.o.namespaces ? 'ns=*&' : ''}`;
    const { body, index } = await this.get(`${path}index=${after}&wait=${wait}`, `failed to retrieve remote ACL ${kind}`);
    if (!Array.isArray(body)) throw new Error(`failed to retrieve remote ACL ${kind}: the answer is not a list`);
    return { items: body, index };
  }

  private async get(path: string, what: string): Promise<{ body: unknown; index: number }> {
    // One signal per request, tied to the stop signal only while the request runs: handing
    // the long-lived stop signal to every fetch leaves a listener behind per request until
    // garbage collection (nodejs/node#52635).
    const request = new AbortController();
    const abort = () => request.abort();
    this.stop.signal.addEventListener('abort', abort, { once: true });
    let res: Response;
    let text: string;
    try {
      res = await fetch(`http://${this.o.primary.address}${path}`, { headers: { 'X-Mesh-Token': this.o.token! }, signal: request.signal });
      text = await res.text();
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new Error(`${what}: rpc error making call: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
    } finally {
      this.stop.signal.removeEventListener('abort', abort);
    }
    if (res.status !== 200) throw new Error(`${what}: ${res.status} (${text.trim()})`);
    return { body: JSON.parse(text), index: Number(res.headers.get('x-mesh-index') ?? 0) };
  }

  private async takeRoundToken(): Promise<void> {
    for (;;) {
      const now = this.o.now();
      this.tokensAvailable = Math.min(BURST, this.tokensAvailable + (now - this.lastRefill) / REFILL_MS);
      this.lastRefill = now;
      if (this.tokensAvailable >= 1) {
        this.tokensAvailable -= 1;
        return;
      }
      await this.sleep((1 - this.tokensAvailable) * REFILL_MS);
      if (!this.running) throw new Error('stopped');
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t);
        this.stop.signal.removeEventListener('abort', done);
        resolve();
      };
      const t = setTimeout(done, ms);
      this.stop.signal.addEventListener('abort', done, { once: true });
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
  return { ...nsFrom(p), ID: String(p.ID), Name: String(p.Name), Description: String(p.Description ?? ''), Rules: String(p.Rules ?? ''), ...(dcs.length > 0 && { Datacenters: dcs }), Hash: String(p.Hash) };
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
