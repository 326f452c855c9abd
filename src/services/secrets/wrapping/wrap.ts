/**
 * Response wrapping (reference/secrets.md §1.3 `wrap_info`; the reference's
 * `wrapInCubbyhole`): a response is stored in the cubbyhole of a new single-use token
 * and the client gets only that token's `wrap_info`. The wrapping token is an orphan
 * with the `response-wrapping` policy (it may only call `sys/wrapping/unwrap`), a TTL
 * and explicit max TTL equal to the wrap TTL, and is not renewable.
 *
 * Single use: consuming a token (unwrap, rewrap) reads its cubbyhole and revokes it
 * under a per-token lock, so of any number of concurrent unwraps exactly one gets the
 * response. Every request that writes goes to the active server (a standby forwards it),
 * so one process holds the lock for the whole cluster.
 *
 * @module
 */
import { badRequest, type HttpResponse } from '../../../kernel/http/index.js';
import { json } from '../../../kernel/store/index.js';
import { formatTime } from '../../../kernel/util/duration.js';
import { KeyedLock } from '../../../kernel/util/keyed-lock.js';
import type { SecretsCore } from '../core.js';
import { RESPONSE_WRAPPING_POLICY } from '../policy/store.js';
import { renderWrapped } from '../envelope.js';
import { hashToken, type TokenEntry } from '../token/store.js';
import type { SecretsRequest, SecretsResult } from '../types.js';
import { cubbyholeOf } from './cubbyhole-store.js';

/** The error of every unknown, used, expired or non-wrapping token (the reference's text; status 400, §1.4). */
export const INVALID_WRAPPING_TOKEN = 'wrapping token is not valid or does not exist';

/** The `wrap_info` block of a wrapped response (reference/secrets.md §1.3). */
export interface WrapInfo {
  readonly token: string;
  readonly accessor: string;
  /** Seconds. */
  readonly ttl: number;
  /** RFC 3339 with fractional seconds. */
  readonly creation_time: string;
  /** The path of the request whose response is wrapped (relative to its namespace). */
  readonly creation_path: string;
  /** The accessor of the token inside a wrapped token-issuing response. */
  readonly wrapped_accessor?: string;
}

/** What the cubbyhole holds besides the response (`sys/wrapping/lookup`). */
interface WrapRecord {
  /** Seconds. */
  readonly creation_ttl: number;
  readonly creation_time: string;
  readonly creation_path: string;
  readonly wrapped_accessor?: string;
}

const RESPONSE_KEY = 'response';
const INFO_KEY = 'wrapinfo';

/** One lock per wrapping token hash: consuming is read-then-revoke. */
const consuming = new KeyedLock();

/** A wrapped response's stored form: the rendered reply's body and its lookup record. */
interface Stored {
  readonly body: string;
  readonly record: WrapRecord;
}

/**
 * Creates a wrapping token in namespace `namespaceId` and stores `stored` in its
 * cubbyhole; returns its `wrap_info`. A failed store revokes the token again.
 */
async function store(core: SecretsCore, namespaceId: string, stored: Stored, now: Date): Promise<WrapInfo> {
  const ttl = stored.record.creation_ttl;
  const token = await core.tokens.create({
    policies: [RESPONSE_WRAPPING_POLICY],
    ttlS: ttl,
    explicitMaxTtlS: ttl,
    renewable: false,
    path: stored.record.creation_path,
    displayName: 'response-wrapping',
    namespaceId,
    now,
  });
  try {
    await cubbyholeOf(core.backend, token.hash, namespaceId).batch([
      { key: RESPONSE_KEY, value: Buffer.from(stored.body) },
      { key: INFO_KEY, value: json.encode(stored.record) },
    ]);
  } catch (err) {
    await core.tokens.revoke(token.hash);
    throw err;
  }
  const { wrapped_accessor } = stored.record;
  return {
    token: token.id,
    accessor: token.accessor,
    ttl,
    creation_time: stored.record.creation_time,
    creation_path: stored.record.creation_path,
    ...(wrapped_accessor ? { wrapped_accessor } : {}),
  };
}

/**
 * Wraps a rendered reply when the request asked for it (`X-Secrets-Wrap-TTL`): a 200 with
 * a JSON body is stored in a new wrapping token's cubbyhole and replaced by an envelope
 * holding only `wrap_info`. Anything else (errors, 204, 404, a raw reply the handler made
 * itself such as `sys/metrics` or `sys/wrapping/rewrap`) is returned as it is, as the
 * reference wraps only non-empty logical responses.
 *
 * @param req the handled request (its namespace, mount, path and time)
 * @param ttlS the wrap TTL in seconds (positive)
 * @param rendered the reply the client would have received
 * @param result what the handler returned (its `auth.accessor` becomes `wrapped_accessor`)
 */
export async function wrapReply(req: SecretsRequest, ttlS: number, rendered: HttpResponse, result: SecretsResult | undefined): Promise<HttpResponse> {
  if (rendered.status !== 200 || typeof rendered.body !== 'string' || result?.reply) return rendered;
  const info = await store(
    req.core,
    req.ns.entry.id,
    {
      body: rendered.body,
      record: {
        creation_ttl: ttlS,
        creation_time: formatTime(req.now),
        creation_path: req.mount.path + req.path,
        ...(result?.auth ? { wrapped_accessor: result.auth.accessor } : {}),
      },
    },
    req.now,
  );
  return renderWrapped(req.id, req.mount.type, info);
}

/** The live wrapping token `id`, or undefined (unknown, expired, revoked, or not a wrapping token). */
async function wrappingToken(core: SecretsCore, id: string, now: Date): Promise<TokenEntry | undefined> {
  const t = await core.tokens.lookup(id, now);
  return t && t.policies.length === 1 && t.policies[0] === RESPONSE_WRAPPING_POLICY ? t : undefined;
}

/**
 * Reads what wrapping token `id` holds and revokes it (its cubbyhole goes with it), once:
 * under the token's lock, so a concurrent second consumer finds no token.
 *
 * @throws CairnError 400 {@link INVALID_WRAPPING_TOKEN}
 */
async function consume(core: SecretsCore, id: string, now: Date): Promise<Stored & { namespaceId: string }> {
  if (!id) throw badRequest(INVALID_WRAPPING_TOKEN);
  return consuming.run(hashToken(id), async () => {
    const t = await wrappingToken(core, id, now);
    if (!t) throw badRequest(INVALID_WRAPPING_TOKEN);
    const namespaceId = t.namespace_id ?? 'root';
    const box = cubbyholeOf(core.backend, t.hash, namespaceId);
    const [body, record] = await Promise.all([box.get(RESPONSE_KEY), box.get(INFO_KEY)]);
    await core.tokens.revoke(t.hash);
    if (!body || !record) throw badRequest(INVALID_WRAPPING_TOKEN);
    return { body: Buffer.from(body).toString(), record: json.decode<WrapRecord>(record)!, namespaceId };
  });
}

/**
 * `sys/wrapping/unwrap`: the wrapped reply, exactly as it would have been sent unwrapped
 * (200 with its envelope), and the wrapping token is gone.
 *
 * @throws CairnError 400 {@link INVALID_WRAPPING_TOKEN} for an unknown, used or expired token
 */
export async function unwrap(core: SecretsCore, id: string, now: Date): Promise<HttpResponse> {
  const { body } = await consume(core, id, now);
  return { status: 200, headers: { 'Content-Type': 'application/json' }, body };
}

/**
 * `sys/wrapping/rewrap`: moves what wrapping token `id` holds to a new wrapping token
 * with the same creation TTL and path, revoking the old one; returns the new `wrap_info`.
 *
 * @throws CairnError 400 {@link INVALID_WRAPPING_TOKEN}
 */
export async function rewrap(core: SecretsCore, id: string, now: Date): Promise<WrapInfo> {
  const old = await consume(core, id, now);
  return store(core, old.namespaceId, { body: old.body, record: { ...old.record, creation_time: formatTime(now) } }, now);
}

/**
 * `sys/wrapping/lookup`: `{creation_path, creation_time, creation_ttl}` of a live wrapping
 * token, without using it.
 *
 * @throws CairnError 400 {@link INVALID_WRAPPING_TOKEN}
 */
export async function lookupWrapping(core: SecretsCore, id: string, now: Date): Promise<Record<string, unknown>> {
  const t = id ? await wrappingToken(core, id, now) : undefined;
  const raw = t && (await cubbyholeOf(core.backend, t.hash, t.namespace_id ?? 'root').get(INFO_KEY));
  if (!raw) throw badRequest(INVALID_WRAPPING_TOKEN);
  const r = json.decode<WrapRecord>(raw)!;
  return { creation_path: r.creation_path, creation_time: r.creation_time, creation_ttl: r.creation_ttl };
}

/** The result of a route whose reply is a `wrap_info` envelope (`sys/wrapping/rewrap`): sent as it is, never wrapped again. */
export function wrapResult(info: WrapInfo, req: SecretsRequest): SecretsResult {
  return { reply: renderWrapped(req.id, req.mount.type, info) };
}
