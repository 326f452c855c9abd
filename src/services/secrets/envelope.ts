/**
 * The secrets service's wire format: the response envelope, 200 vs 204 vs 404, and the
 * `{"errors":[…]}` body of every status ≥ 400 (spec 000 "Errors"; reference/secrets.md
 * §1.3–§1.5).
 *
 * @module
 */
import { notFound, type CairnError, type HttpResponse, type Operation } from '../../kernel/http/index.js';
import { deepFreeze, type Frozen } from '../../kernel/util/deep-freeze.js';
import type { SecretsResult } from './types.js';

const JSON_TYPE = { 'Content-Type': 'application/json' };

/** The JSON text of reply data made by {@link sharedReplyData}, by object. */
const replyJson = new WeakMap<object, string>();

/**
 * Deep-freezes `data` (a handler result's `data`) and serialises it now, so that every
 * reply that carries this same object reuses the text instead of serialising it again
 * (issue 15: a KV v2 read of an unchanged key). For data a handler keeps and hands out
 * more than once; the object must not be changed afterwards (it cannot be: it is frozen).
 */
export function sharedReplyData<T extends Record<string, unknown>>(data: T): Frozen<T> {
  const frozen = deepFreeze(data);
  replyJson.set(frozen, JSON.stringify(frozen));
  return frozen;
}

/** `{"errors":[…]}` with the error's status. */
export function renderError(err: CairnError): HttpResponse {
  return { status: err.status, headers: JSON_TYPE, body: JSON.stringify({ errors: err.messages }) };
}

/** A JSON body with no envelope (`sys/init`, `sys/seal-status`, `?help=1`). */
export function renderBare(status: number, body: unknown): HttpResponse {
  return { status, headers: JSON_TYPE, body: JSON.stringify(body) };
}

/** What a route returned, with the context the envelope needs. */
export interface RenderInput {
  readonly requestId: string;
  readonly operation: Operation;
  readonly mountType: string;
  readonly result: SecretsResult | undefined;
  /** Warning for input fields the route does not declare (reference/clients.md, node-vault). */
  readonly ignored: readonly string[];
}

/**
 * Renders a handler result:
 * - a whole `reply` → itself, without the envelope;
 * - nothing on a read or list, or a list without keys → 404 `{"errors":[]}`;
 * - nothing on a write or delete → 204;
 * - a `raw` body → that body, no envelope;
 * - data, auth or warnings → 200 envelope (or the result's own status, e.g. KV v2's
 *   404 for a deleted version, reference/secrets.md §2.5).
 */
export function renderResult(r: RenderInput): HttpResponse {
  const { result, operation } = r;
  if (result?.reply) return result.reply;
  const empty = result === undefined || (operation === 'list' && !hasKeys(result) && !result.warnings?.length);
  if (empty) {
    if (operation === 'read' || operation === 'list') return renderError(notFound());
    return { status: 204 };
  }
  if (result.raw !== undefined) return renderBare(result.status ?? 200, result.raw);
  const warnings = r.ignored.length
    ? [...(result.warnings ?? []), `Endpoint ignored these unrecognized parameters: [${r.ignored.join(' ')}]`]
    : (result.warnings ?? []);
  if (result.topLevel && result.data) {
    const envelope = envelopeOf(r, result, warnings);
    return { status: result.status ?? 200, headers: JSON_TYPE, body: JSON.stringify({ ...result.data, ...envelope }) };
  }
  // The envelope written out field by field, in the order of envelopeOf (JSON.stringify of
  // an object nests its members' own JSON text), so shared data is spliced in as it is.
  const data = result.data ?? null;
  const body =
    `{"request_id":${JSON.stringify(r.requestId)},"lease_id":${JSON.stringify(result.leaseId ?? '')},"renewable":${result.renewable === true},"lease_duration":${JSON.stringify(result.leaseDuration ?? 0)}` +
    `,"data":${(data && replyJson.get(data)) ?? JSON.stringify(data)},"wrap_info":null,"warnings":${warnings.length ? JSON.stringify(warnings) : 'null'}` +
    `,"auth":${JSON.stringify(result.auth ?? null)},"mount_type":${JSON.stringify(r.mountType)}}`;
  return { status: result.status ?? 200, headers: JSON_TYPE, body };
}

/**
 * The envelope of a wrapped response: `wrap_info` and nothing else (reference/secrets.md
 * §1.3); `info` is the `wrap_info` block (`wrapping/wrap.ts`).
 */
export function renderWrapped(requestId: string, mountType: string, info: object): HttpResponse {
  const body = {
    request_id: requestId,
    lease_id: '',
    renewable: false,
    lease_duration: 0,
    data: null,
    wrap_info: info,
    warnings: null,
    auth: null,
    mount_type: mountType,
  };
  return { status: 200, headers: JSON_TYPE, body: JSON.stringify(body) };
}

/** The response envelope of a handler result (reference/secrets.md §1.3), as an object. */
function envelopeOf(r: RenderInput, result: SecretsResult, warnings: readonly string[]): Record<string, unknown> {
  return {
    request_id: r.requestId,
    lease_id: result.leaseId ?? '',
    renewable: result.renewable === true,
    lease_duration: result.leaseDuration ?? 0,
    data: result.data ?? null,
    wrap_info: null,
    warnings: warnings.length ? warnings : null,
    auth: result.auth ?? null,
    mount_type: r.mountType,
  };
}

function hasKeys(r: SecretsResult): boolean {
  const keys = r.data?.keys;
  return Array.isArray(keys) ? keys.length > 0 : r.data != null;
}
