/**
 * The key/value store's HTTP API, `GET|PUT|DELETE /v1/kv/<key>` (issue 16 scope 4;
 * reference/mesh-catalog.md "Key/value store"; the reference's `agent/kvs_endpoint.go` and
 * `agent/consul/kvs_endpoint.go`):
 *
 * - `GET` → `[{LockIndex, Key, Flags, Value (base64 or null), Session?, CreateIndex,
 *   ModifyIndex}]`; a missing key → 404 with an empty body and `X-Mesh-Index`; `?raw` → the
 *   value's bytes; `?recurse` → every key under the prefix (404 when none); `?keys` → key
 *   names (`[]` for the root, 404 for another prefix with none), rolled up after
 *   `?separator`; blocking on the key or the prefix (kv-store.ts indexes);
 * - `PUT` with the raw value as body (at most `limits.kv_max_value_size`, 512 KiB: else 413
 *   `Value exceeds <n> byte limit`, nothing stored), `?flags`, `?cas` (0: only if absent)
 *   → `true` / `false`; `?acquire=<session>` takes the key's lock (false when another
 *   session holds it or a lock delay runs; 400 `invalid session "<id>"` for an unknown
 *   session, the reference's text with 500) and `?release=<session>` drops it (false when
 *   the session does not hold it), both storing the value (sessions/store.ts);
 * - `DELETE` with `?recurse` or `?cas` → `true` / `false`;
 * - ACL: `key:read` for a single read (403 also for a missing key), `key:write` for writes,
 *   write on the whole prefix for a recursive delete (`keyWritePrefix`); recursive reads
 *   are filtered per key (`X-Mesh-Results-Filtered-By-ACLs: true` when something was left
 *   out) and, with `acl.enable_key_list_policy`, need `key:list` on the prefix.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { badRequest, CairnError, type ApiQuery } from '../../../kernel/http/index.js';
import type { Indexed } from '../../../kernel/store/index.js';
import type { MeshRouteSpec, MeshRule, Permission } from '../access.js';
import { DEFAULT_KV_MAX_VALUE_SIZE } from '../config.js';
import type { Ctx } from '../deps.js';
import type { MeshReply } from '../http.js';
import { casKv, deleteKv, deleteKvCas, deleteKvTree, keyIndex, KV, kvId, listKv, prefixIndex, rollUpKeys, setKv, type KvDoc } from '../kv-store.js';
import { scopeOf, shownNamespace } from '../ns-scope.js';
import { acquireKv, releaseKv, type LockResult } from '../sessions/store.js';
import type { Identity } from '../resolve.js';

/** `X-Mesh-Results-Filtered-By-ACLs` when a recursive read left keys out. */
const FILTERED = { 'X-Mesh-Results-Filtered-By-ACLs': 'true' } as const;

/** The headers of a `?raw` read: the reference's, so a browser never runs a stored value. */
const RAW_HEADERS = { 'Content-Type': 'text/plain', 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': 'sandbox' } as const;

/** An entry as the API shows it, in the reference's field order (`Session` only while held; `Namespace` with the enterprise switch). */
export function renderKv(d: KvDoc & Indexed, enterprise: boolean | undefined): Record<string, unknown> {
  return {
    LockIndex: d.LockIndex,
    Key: d.Key,
    Flags: d.Flags,
    Value: d.Value,
    ...(d.Session !== undefined && { Session: d.Session }),
    ...shownNamespace(enterprise, d),
    CreateIndex: d.CreateIndex,
    ModifyIndex: d.ModifyIndex,
  };
}

/**
 * @throws 400 `Missing key name` for `''` unless `emptyOk`; 400 for a key holding NUL
 * (kv-store.ts stores namespaces behind it). The kernel already refuses NUL in a request
 * path; this guards keys that arrive in bodies (transactions).
 */
export function checkKey(key: string, emptyOk: boolean): void {
  if (key === '' && !emptyOk) throw badRequest('Missing key name');
  const nul = key.indexOf('\0');
  if (nul >= 0) throw badRequest(`Invalid key name: NUL character at position ${nul}`);
}

/** A `.` or `..` path segment. */
const DOT_SEGMENT = /(?:^|\/)\.\.?(?:\/|$)/;

/**
 * A key from the request path: {@link checkKey}, and no `.` or `..` segment. Clients
 * normalise those away, so such a key could be written but never read back by them; the
 * reference (Go's `http.ServeMux`) redirects such a path to its cleaned form and serves no
 * key at it. Keys in transaction bodies may hold them, as the reference's.
 * @throws 400 as {@link checkKey}; 400 `Invalid key name "<key>": "." and ".." segments are not allowed`.
 */
function checkPathKey(key: string, emptyOk: boolean): void {
  checkKey(key, emptyOk);
  if (DOT_SEGMENT.test(key)) throw badRequest(`Invalid key name ${JSON.stringify(key)}: "." and ".." segments are not allowed`);
}

/**
 * An unsigned integer query parameter (`flags`, `cas`). @throws 400 naming it when it is not
 * decimal digits or passes 2^53 − 1 (the reference takes any uint64; JSON numbers here stop there).
 */
function uintParam(ctx: Ctx, name: string): number | undefined {
  const raw = ctx.query.get(name);
  if (raw === null) return undefined;
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n)) throw badRequest(`Invalid ${name} "${raw}": expected an unsigned integer up to ${Number.MAX_SAFE_INTEGER}`);
  return n;
}

const RECURSE = Type.String({ description: 'Present: every key under the path as a prefix.' });
const CAS = Type.Integer({ minimum: 0, description: 'Check-and-set: only if the key’s modify index is this one (0: only if absent).' });

/** The query parameters of a KV read. */
const READ_QUERY: ApiQuery = {
  recurse: RECURSE,
  keys: Type.String({ description: 'Present: only the key names under the prefix.' }),
  separator: Type.String({ description: 'With `keys`: names rolled up to the first separator after the prefix.' }),
  seperator: Type.String({ description: 'The reference’s historic spelling of `separator` (`separator` wins).' }),
  raw: Type.String({ description: 'Present: the value’s bytes as the body, not JSON.' }),
};

/** The query parameters of a KV write (at most one of `cas`, `acquire`, `release`). */
const WRITE_QUERY: ApiQuery = {
  flags: Type.Integer({ minimum: 0, description: 'An opaque unsigned integer stored with the key.' }),
  cas: CAS,
  acquire: Type.String({ description: 'A session ID: write only if the lock is free or held by it, and take it.' }),
  release: Type.String({ description: 'A session ID: write only if it holds the lock, and release it.' }),
};

/** The query parameters of a KV delete (not both). */
const DELETE_QUERY: ApiQuery = { recurse: RECURSE, cas: CAS };

/** @throws 400 `Conflicting flags: <query>` when more than one of `flags` is given (the reference's `conflictingFlags`). */
function refuseConflicts(ctx: Ctx, ...flags: string[]): void {
  if (flags.filter((f) => ctx.query.has(f)).length < 2) return;
  // The reference's text shows the whole query, undeclared parameters too.
  const q = new URLSearchParams(ctx.req.query);
  q.sort();
  throw badRequest(`Conflicting flags: ${q.toString()}`);
}

/** The namespace of a KV request (the `default` one without the enterprise switch). */
function namespaceOf(ctx: Ctx, who: Identity): string {
  return scopeOf(ctx, who.token ? who : undefined);
}

/** A recursive read's rule without `acl.enable_key_list_policy`: any caller; the handler filters per key. */
const ANY_KEY_READER: MeshRule = Object.freeze({ system: 'data', needs: [], namespaced: true });

/**
 * A KV rule: `permission` checked in the request's namespace, which is resolved first (its
 * 400 / 403 come before a missing permission's, as the reference's order). Built per request
 * on the hottest path of the service: one literal, no spread.
 */
function keyRule(permission: Permission): MeshRule {
  return { system: 'data', needs: [permission], namespaced: true };
}

/**
 * A read's rule: `key:read` on the key; a recursive or `?keys` read is filtered per key
 * and needs `key:list` on the prefix only with `acl.enable_key_list_policy`.
 * @throws 400 `Missing key name` for a single read of `''`; a `.` or `..` segment ({@link checkPathKey}).
 */
function readRule(ctx: Ctx): MeshRule {
  const key = ctx.params.key ?? '';
  const recursive = ctx.query.has('recurse') || ctx.query.has('keys');
  checkPathKey(key, recursive);
  if (!recursive) return keyRule({ resource: 'key', access: 'read', segment: key });
  return ctx.deps.config.acl.enableKeyListPolicy ? keyRule({ resource: 'key', access: 'list', segment: key }) : ANY_KEY_READER;
}

/** The index a `GET` reports for its key or prefix (the route's `resultIndex`); never throws. */
function readIndex(ctx: Ctx): number {
  const key = ctx.params.key ?? '';
  let ns: string;
  try {
    ns = namespaceOf(ctx, ctx.caller);
  } catch {
    // The handler refuses the request: let it do so at once rather than after the wait.
    return Number.POSITIVE_INFINITY;
  }
  const recursive = ctx.query.has('recurse') || ctx.query.has('keys');
  return recursive ? prefixIndex(ctx.deps.state, ns, key) : keyIndex(ctx.deps.state, ns, key);
}

/** `GET /v1/kv/<key>`: one key, or with `?recurse` / `?keys` a prefix (module doc). */
async function read(ctx: Ctx): Promise<MeshReply> {
  const key = ctx.params.key ?? '';
  const { state, config } = ctx.deps;
  const recurse = ctx.query.has('recurse');
  const keysOnly = ctx.query.has('keys');
  const who = ctx.caller;
  const ns = namespaceOf(ctx, who);
  if (!recurse && !keysOnly) {
    const doc = state.get<KvDoc>(KV.entries, kvId(ns, key));
    const index = keyIndex(state, ns, key);
    if (!doc) return { status: 404, index, empty: true };
    if (ctx.query.has('raw')) return { index, raw: { body: Buffer.from(doc.Value ?? '', 'base64') }, headers: RAW_HEADERS };
    return { index, body: [renderKv(doc, config.enterprise)] };
  }
  const all = listKv(state, ns, key);
  const visible = all.filter((d) => who.authorizer.allowed('key', 'read', d.Key));
  const index = prefixIndex(state, ns, key);
  const headers = visible.length < all.length ? FILTERED : undefined;
  if (keysOnly) {
    // The reference's historic spelling `seperator` still works; `separator` wins.
    const separator = ctx.query.get('separator') ?? ctx.query.get('seperator') ?? '';
    const keys = rollUpKeys(visible, key, separator);
    if (keys.length === 0 && key !== '') return { status: 404, index, headers, empty: true };
    return { index, headers, body: keys };
  }
  if (visible.length === 0) return { status: 404, index, headers, empty: true };
  return { index, headers, body: visible.map((d) => renderKv(d, config.enterprise)) };
}

/** A write's query, checked. @throws 400 `Missing key name`, a `.` or `..` segment, `Conflicting flags: …`, a bad `flags` / `cas`; 413 `Value exceeds <n> byte limit`. */
function writeInput(ctx: Ctx): { key: string; flags: number; cas: number | undefined } {
  const key = ctx.params.key ?? '';
  checkPathKey(key, false);
  refuseConflicts(ctx, 'cas', 'acquire', 'release');
  const flags = uintParam(ctx, 'flags') ?? 0;
  const cas = uintParam(ctx, 'cas');
  const limit = ctx.deps.config.kvMaxValueSize ?? DEFAULT_KV_MAX_VALUE_SIZE;
  if (ctx.req.body.length > limit) throw new CairnError('payload_too_large', `Value exceeds ${limit} byte limit`);
  return { key, flags, cas };
}

/** `PUT /v1/kv/<key>`: stores the body as the value (module doc). */
async function write(ctx: Ctx): Promise<MeshReply> {
  const { key, flags, cas } = writeInput(ctx);
  const { state, now } = ctx.deps;
  const body = ctx.req.body;
  const ns = namespaceOf(ctx, ctx.caller);
  const value = body.length === 0 ? null : body.toString('base64');
  const acquire = ctx.query.get('acquire');
  const release = ctx.query.get('release');
  const at = now();
  const { result } = await state.txn((tx): LockResult => {
    if (acquire !== null) return acquireKv(tx, { ns, key, session: acquire }, { value, flags }, at);
    if (release !== null) return releaseKv(tx, { ns, key, session: release }, { value, flags });
    if (cas === undefined) {
      setKv(tx, ns, key, { value, flags });
      return true;
    }
    return casKv(tx, { ns, key }, cas, { value, flags });
  }, 'kv-set');
  // A refused lock stores nothing: the transaction wrote nothing before answering.
  if (typeof result === 'object') throw badRequest(result.error);
  return { body: result };
}

/** A delete's query, checked. @throws 400 `Conflicting flags: …`, `Missing key name` (unless recursive), a `.` or `..` segment, a bad `cas`. */
function deleteInput(ctx: Ctx): { key: string; recurse: boolean; cas: number | undefined } {
  const key = ctx.params.key ?? '';
  refuseConflicts(ctx, 'recurse', 'cas');
  const recurse = ctx.query.has('recurse');
  checkPathKey(key, recurse);
  return { key, recurse, cas: uintParam(ctx, 'cas') };
}

/** `DELETE /v1/kv/<key>`: one key, with `?cas` only at that index, or with `?recurse` a prefix. */
async function remove(ctx: Ctx): Promise<MeshReply> {
  const { key, recurse, cas } = deleteInput(ctx);
  const { state, now } = ctx.deps;
  const ns = namespaceOf(ctx, ctx.caller);
  const at = now();
  const { result } = await state.txn((tx) => {
    if (recurse) {
      deleteKvTree(tx, ns, key, at);
      return true;
    }
    if (cas !== undefined) return deleteKvCas(tx, { ns, key }, cas, at);
    deleteKv(tx, ns, key, at);
    return true;
  }, 'kv-delete');
  return { body: result };
}

/**
 * The KV route: the key is the rest of the path, as it is (a trailing `/` or `.` included;
 * a `.` or `..` segment is a 400, {@link checkPathKey}).
 * Reads need `key:read` on the key (recursive ones are filtered per key), writes `key:write`,
 * a recursive delete `key:write` on every key under the prefix; a bad request is a 400 / 413
 * before the caller is resolved.
 */
export const kvRoutes: readonly MeshRouteSpec[] = [
  {
    pattern: 'kv/:key*',
    synopsis: 'Read, write or delete a key, or a prefix with ?recurse / ?keys',
    methods: {
      GET: { access: readRule, query: READ_QUERY, handle: read },
      PUT: { access: (ctx) => keyRule({ resource: 'key', access: 'write', segment: writeInput(ctx).key }), query: WRITE_QUERY, handle: write },
      DELETE: {
        query: DELETE_QUERY,
        access: (ctx) => {
          const { key, recurse } = deleteInput(ctx);
          return keyRule({ resource: 'key', access: 'write', segment: key, prefix: recurse });
        },
        handle: remove,
      },
    },
    blocking: [KV.entries, KV.tombstones],
    resultIndex: readIndex,
    rawTail: true,
  },
];
