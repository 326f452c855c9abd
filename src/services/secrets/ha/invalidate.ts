/**
 * Which in-memory caches of a {@link SecretsCore} a changed storage key belongs to, and
 * bringing them up to date (a performance standby, after another server wrote: issue 8
 * scope 2, "keeps its caches correct from LISTEN/NOTIFY").
 *
 * Keys: the change feed reports physical keys; the barrier keeps keys as they are
 * (seal/barrier.ts: only values are encrypted), so they are the core's keys too. A
 * namespace's own state lives under `namespaces/<id>/` (namespace/scope.ts), the root
 * namespace's unprefixed. The caches and their keys:
 *
 * | key | cache |
 * |---|---|
 * | `core/mounts`, `namespaces/<id>/core/mounts` | that namespace's mount table (reloaded) |
 * | `sys/policy/<name>`, `namespaces/<id>/sys/policy/<name>` | that namespace's parsed policies and ACLs (emptied) |
 * | `core/namespaces/<id>` | the namespace registry entry (re-read; a deleted namespace's scope is dropped) |
 * | `core/cors` | the CORS configuration (reloaded) |
 * | `core/audit` | the audit devices (reloaded: this standby audits the reads it serves with them) |
 * | `sys/token/…` | the token store's ancestor-expiry memo (emptied) |
 * | `core/keyring`, `core/root-key`, `core/seal-config`, `core/cluster-info` | fixed after initialisation; a change asks for a full reload |
 * | anything else (`logical/<mount uuid>/…`, auth-method data) | only the barrier's value cache, which the caller invalidates first |
 *
 * @module
 */
import { TABLE_KEY } from '../mounts/table.js';
import { NAMESPACE_PREFIX } from '../namespace/registry.js';
import { POLICY_PREFIX } from '../policy/store.js';
import { CORS_KEY } from '../cors.js';
import { AUDIT_KEY } from '../audit/broker.js';
import { TOKEN_PREFIX } from '../token/store.js';
import type { SecretsCore } from '../core.js';

/** Keys written once at initialisation; a change means the whole core must be reopened. */
const FIXED_KEYS: ReadonlySet<string> = new Set(['core/keyring', 'core/root-key', 'core/seal-config', 'core/cluster-info']);

/** What one batch of changed keys touches: namespace ids (root = `root`) per cache. */
interface Touched {
  readonly mountTables: Set<string>;
  readonly policies: Set<string>;
  readonly namespaces: Set<string>;
  cors: boolean;
  audit: boolean;
  tokens: boolean;
  fixed: boolean;
}

/** Sorts `keys` into the caches they belong to (see the module doc's table). */
function classify(keys: readonly string[]): Touched {
  const t: Touched = { mountTables: new Set(), policies: new Set(), namespaces: new Set(), cors: false, audit: false, tokens: false, fixed: false };
  for (const key of keys) {
    const m = /^namespaces\/([^/]+)\/(.*)$/.exec(key);
    const [ns, rest] = m ? [m[1], m[2]] : ['root', key];
    if (rest === TABLE_KEY) t.mountTables.add(ns);
    else if (rest.startsWith(POLICY_PREFIX)) t.policies.add(ns);
    else if (!m && key.startsWith(NAMESPACE_PREFIX)) t.namespaces.add(key.slice(NAMESPACE_PREFIX.length));
    else if (!m && key === CORS_KEY) t.cors = true;
    else if (!m && key === AUDIT_KEY) t.audit = true;
    else if (!m && key.startsWith(TOKEN_PREFIX)) t.tokens = true;
    else if (!m && FIXED_KEYS.has(key)) t.fixed = true;
  }
  return t;
}

/**
 * Brings the caches of `core` that `keys` belong to up to date (the barrier's value cache
 * must already have forgotten `keys`). Resolves `'reload'` when a key calls for reopening
 * the whole core instead, else `'done'`. Reads storage; never writes.
 */
export async function applyChanges(core: SecretsCore, keys: readonly string[]): Promise<'done' | 'reload'> {
  const t = classify(keys);
  if (t.fixed) return 'reload';
  // Registry first: a deleted namespace's scope is dropped rather than reloaded.
  for (const id of t.namespaces) {
    const old = await core.namespaces.refresh(id);
    const fresh = core.namespaces.byId(id);
    if (old && (!fresh || fresh.path !== old.path)) core.dropScope(old);
  }
  for (const id of t.policies) core.loadedScope(id)?.policies.invalidate();
  await Promise.all([...t.mountTables].map((id) => core.loadedScope(id)?.mounts.reload()));
  if (t.cors) await core.cors.reload();
  if (t.audit) await core.audit.load(core.backend);
  if (t.tokens) core.tokens.forgetChains();
  return 'done';
}
