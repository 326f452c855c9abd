/**
 * The data functions of job templates, consul-template's way (reference/integration.md §3):
 * a render is synchronous; each call names a dependency (dependency.ts), looks its value up
 * in the cache the render was given, and when absent records it as missing and returns an
 * empty value, so the render finishes and the runner learns exactly what to fetch. Every
 * dependency touched is recorded as used (what the runner keeps watching).
 *
 * | call | result | holds the render back |
 * | --- | --- | --- |
 * | `key "path[@dc]"` | the value | until the key exists |
 * | `keyOrDefault "path" "default"` | the value, else the default | never |
 * | `keyExists "path"` | bool | until first fetched |
 * | `ls "prefix"` | top-level {@link KeyPair}s (`.Key` relative, `.Value`) | until first fetched |
 * | `tree "prefix"` | all {@link KeyPair}s below, folders left out | until first fetched |
 * | `service "[tag.]name[@dc][~near][\|filter]"` (or `service "name" "filter"`) | passing {@link HealthService}s (`\|any`, `\|passing,warning`) | until first fetched |
 * | `services ["@dc"]` | {@link CatalogService}s (`.Name`, `.Tags`), by name | until first fetched |
 * | `secret "path"` / `secret "path" "k=v" …` | a {@link Secret} (`.Data`, `.LeaseID`, …) read / written | until readable |
 * | `secrets "path"` | the keys listed, sorted | until first fetched |
 *
 * Results are structs (classes), so a misspelt field is an error as in consul-template
 * (`can't evaluate field Vlaue in type *KeyPair`); `.Data` of a secret is a map.
 *
 * @module
 */
import { templateFunc, type FuncMap, type Value } from '../../../kernel/template/index.js';
import { describeDependency, type Dependency, type HealthInstance, type KvEntry, type SecretResponse } from './dependency.js';

/** A KV pair of `ls` and `tree` (consul-template `dependency.KeyPair`). */
class KeyPair {
  /** The full path. */
  readonly Path: string;
  /** The path below the prefix. */
  readonly Key: string;
  readonly Value: string;
  readonly CreateIndex: number;
  readonly ModifyIndex: number;
  readonly LockIndex: number;
  readonly Flags: number;
  readonly Session: string;

  /** `e` listed under `prefix`. */
  constructor(e: KvEntry, prefix: string) {
    const base = prefix.replace(/\/+$/, '');
    this.Path = e.Key;
    this.Key = (e.Key.startsWith(base) ? e.Key.slice(base.length) : e.Key).replace(/^\/+/, '');
    this.Value = e.Value;
    this.CreateIndex = e.CreateIndex ?? 0;
    this.ModifyIndex = e.ModifyIndex ?? 0;
    this.LockIndex = e.LockIndex ?? 0;
    this.Flags = e.Flags ?? 0;
    this.Session = e.Session ?? '';
  }
}

/** A service instance of `service` (consul-template `dependency.HealthService`, the fields Cairn fills). */
class HealthService {
  readonly Node: string;
  readonly NodeAddress: string;
  readonly NodeDatacenter: string;
  readonly NodeMeta: Readonly<Record<string, string>>;
  readonly ID: string;
  readonly Name: string;
  readonly Address: string;
  readonly Port: number;
  readonly Tags: readonly string[];
  readonly ServiceMeta: Readonly<Record<string, string>>;
  readonly Status: string;

  constructor(i: HealthInstance) {
    this.Node = i.Node;
    this.NodeAddress = i.NodeAddress;
    this.NodeDatacenter = i.NodeDatacenter ?? '';
    this.NodeMeta = i.NodeMeta ?? {};
    this.ID = i.ID;
    this.Name = i.Name;
    // As consul-template: the node's address when the service has none.
    this.Address = i.Address || i.NodeAddress;
    this.Port = i.Port;
    this.Tags = i.Tags ?? [];
    this.ServiceMeta = i.ServiceMeta ?? {};
    this.Status = i.Status;
  }
}

/** A catalog entry of `services` (consul-template `dependency.CatalogSnippet`). */
class CatalogService {
  constructor(
    readonly Name: string,
    readonly Tags: readonly string[],
  ) {}
}

/** A secret of `secret` (consul-template `dependency.Secret`). */
/** The `auth` block of a written token (consul-template's Vault `api.SecretAuth`: `.Auth.ClientToken`, …). */
class SecretAuth {
  readonly ClientToken: string;
  readonly Accessor: string;
  readonly Policies: readonly string[];
  readonly TokenPolicies: readonly string[];
  readonly Metadata: Readonly<Record<string, unknown>>;
  readonly Orphan: boolean;
  readonly EntityID: string;
  /** Seconds. */
  readonly LeaseDuration: number;
  readonly Renewable: boolean;

  constructor(a: Readonly<Record<string, unknown>>) {
    const str = (k: string) => (typeof a[k] === 'string' ? (a[k] as string) : '');
    const list = (k: string) => (Array.isArray(a[k]) ? (a[k] as unknown[]).filter((x): x is string => typeof x === 'string') : []);
    this.ClientToken = str('client_token');
    this.Accessor = str('accessor');
    this.Policies = list('policies');
    this.TokenPolicies = list('token_policies');
    this.Metadata = a.metadata !== null && typeof a.metadata === 'object' ? (a.metadata as Record<string, unknown>) : {};
    this.Orphan = a.orphan === true;
    this.EntityID = str('entity_id');
    this.LeaseDuration = typeof a.lease_duration === 'number' ? a.lease_duration : 0;
    this.Renewable = a.renewable === true;
  }
}

class Secret {
  readonly RequestID: string;
  readonly LeaseID: string;
  readonly LeaseDuration: number;
  readonly Renewable: boolean;
  readonly Data: Readonly<Record<string, unknown>>;
  readonly Warnings: readonly string[];
  readonly Auth: SecretAuth | null;

  constructor(r: SecretResponse) {
    this.RequestID = r.request_id ?? '';
    this.LeaseID = r.lease_id ?? '';
    this.LeaseDuration = r.lease_duration ?? 0;
    this.Renewable = r.renewable ?? false;
    this.Data = r.data ?? {};
    this.Warnings = r.warnings ?? [];
    this.Auth = r.auth ? new SecretAuth(r.auth) : null;
  }
}

/** Where a render's data functions read and record (render.ts). */
export interface DataContext {
  /** Fetched values by {@link describeDependency} text (dependency.ts says each kind's value). */
  readonly cache: ReadonlyMap<string, unknown>;
  /** Records a dependency the render touched; `missing` when the render must wait for it. */
  readonly record: (d: Dependency, missing: boolean) => void;
}

const HEALTH_FILTERS = ['any', 'passing', 'warning', 'critical', 'maintenance'];

function text(fn: string, v: Value): string {
  if (typeof v !== 'string') throw new Error(`${fn}: expected a string argument`);
  return v;
}

/** `path@dc` → path (leading `/` dropped) and datacenter. */
function pathAndDc(fn: string, v: Value): { path: string; dc?: string } {
  const m = /^([^@]+)(?:@([\w.-]+))?$/.exec(text(fn, v));
  if (!m) throw new Error(`${fn}: invalid format: ${JSON.stringify(v)}`);
  const path = m[1]!.replace(/^\/+/, '');
  return m[2] ? { path, dc: m[2] } : { path };
}

/** The `service` query (consul-template's `health.service` syntax). */
function serviceQuery(args: readonly Value[]): Dependency & { kind: 'health.service' } {
  if (args.length < 1 || args.length > 2) throw new Error(`service: expected 1 or 2 arguments, got ${args.length}`);
  const query = args.map((a) => text('service', a)).join('|');
  const m = /^(?:([\w=:.-]+)\.)?([\w/-]+)(?:@([\w.-]+))?(?:~([\w.-]+))?(?:\|([\w,]+))?$/.exec(query);
  if (!m) throw new Error(`health.service: invalid format: ${JSON.stringify(query)}`);
  const filter = (m[5] ?? 'passing').split(',').filter((f) => f !== '');
  for (const f of filter) if (!HEALTH_FILTERS.includes(f)) throw new Error(`health.service: invalid filter: ${JSON.stringify(f)} in ${JSON.stringify(query)}`);
  if (filter.includes('any') && filter.length > 1) throw new Error(`health.service: "any" cannot be combined with other filters in ${JSON.stringify(query)}`);
  return {
    kind: 'health.service',
    name: m[2]!,
    ...(m[1] && { tag: m[1] }),
    ...(m[3] && { dc: m[3] }),
    ...(m[4] && { near: m[4] }),
    filter: filter.length > 0 ? filter : ['passing'],
  };
}

/** `k=v` arguments of a secret write. */
function writeData(args: readonly Value[]): Record<string, string> {
  const data: Record<string, string> = {};
  for (const a of args) {
    const s = text('secret', a);
    const eq = s.indexOf('=');
    if (eq <= 0) throw new Error(`secret: invalid value ${JSON.stringify(s)} - must be key=value`);
    data[s.slice(0, eq)] = s.slice(eq + 1);
  }
  return data;
}

function kvPairs(entries: readonly KvEntry[], prefix: string): KeyPair[] {
  return entries.map((e) => new KeyPair(e, prefix));
}

/** The data functions (module doc), reading and recording through `ctx`. */
export function dataFunctions(ctx: DataContext): FuncMap {
  /** The cached value of `d`, recording it; undefined (and recorded missing) when absent. */
  const lookup = (d: Dependency, blocks = true): { value: unknown } | undefined => {
    const key = describeDependency(d);
    const found = ctx.cache.has(key);
    ctx.record(d, blocks && !found);
    return found ? { value: ctx.cache.get(key) } : undefined;
  };
  return {
    key: templateFunc((p) => {
      const d: Dependency = { kind: 'kv.block', ...pathAndDc('key', p) };
      const key = describeDependency(d);
      const v = ctx.cache.get(key);
      // Blocks until the key exists: a cached "does not exist" is still missing.
      ctx.record(d, typeof v !== 'string');
      return typeof v === 'string' ? v : '';
    }),
    keyOrDefault: templateFunc((p, def) => {
      const hit = lookup({ kind: 'kv.get', ...pathAndDc('keyOrDefault', p) }, false);
      return typeof hit?.value === 'string' && hit.value !== '' ? hit.value : text('keyOrDefault', def);
    }),
    keyExists: templateFunc((p) => typeof lookup({ kind: 'kv.exists', ...pathAndDc('keyExists', p) })?.value === 'string'),
    ls: templateFunc((p) => {
      const { path, dc } = pathAndDc('ls', p);
      const hit = lookup({ kind: 'kv.list', prefix: path, ...(dc && { dc }) });
      return hit ? kvPairs((hit.value as KvEntry[]) ?? [], path).filter((kp) => kp.Key !== '' && !kp.Key.includes('/')) : [];
    }),
    tree: templateFunc((p) => {
      const { path, dc } = pathAndDc('tree', p);
      const hit = lookup({ kind: 'kv.list', prefix: path, ...(dc && { dc }) });
      return hit ? kvPairs((hit.value as KvEntry[]) ?? [], path).filter((kp) => kp.Key !== '' && !kp.Key.endsWith('/')) : [];
    }),
    service: templateFunc(
      (...args) => {
        const d = serviceQuery(args);
        const hit = lookup(d);
        if (!hit) return [];
        const all = ((hit.value as HealthInstance[]) ?? []).map((i) => new HealthService(i));
        return d.filter.includes('any') ? all : all.filter((s) => d.filter.includes(s.Status));
      },
      1,
      2,
    ),
    services: templateFunc(
      (dcArg) => {
        const dc = dcArg === undefined ? undefined : text('services', dcArg).replace(/^@/, '');
        const hit = lookup({ kind: 'catalog.services', ...(dc && { dc }) });
        if (!hit) return [];
        const catalog = (hit.value as Record<string, readonly string[] | null>) ?? {};
        return Object.keys(catalog)
          .sort()
          .map((name) => new CatalogService(name, catalog[name] ?? []));
      },
      0,
      1,
    ),
    secret: templateFunc(
      (p, ...kv) => {
        const path = text('secret', p).replace(/^\/+/, '');
        const d: Dependency = kv.length > 0 ? { kind: 'secret.write', path, data: writeData(kv) } : { kind: 'secret.read', path };
        const hit = lookup(d);
        // nil while absent, as consul-template: `with secret …` skips its body.
        return hit ? new Secret((hit.value as SecretResponse) ?? {}) : null;
      },
      1,
      'variadic',
    ),
    secrets: templateFunc((p) => {
      const hit = lookup({ kind: 'secret.list', path: text('secrets', p).replace(/^\/+/, '') });
      return hit ? [...((hit.value as string[]) ?? [])].sort() : [];
    }),
  };
}
