/**
 * The secrets service's wire format: the response envelope, 200 vs 204 vs 404, and the
 * `{"errors":[…]}` body of every status ≥ 400 (spec 000 "Errors"; reference/secrets.md
 * §1.3–§1.5).
 *
 * @module
 */
import { notFound, type CairnError, type HttpResponse, type Operation } from '../../kernel/http/index.js';
import type { SecretsResult } from './types.js';

const JSON_TYPE = { 'Content-Type': 'application/json' };

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
  const warnings = [...(result.warnings ?? [])];
  if (r.ignored.length) warnings.push(`Endpoint ignored these unrecognized parameters: [${r.ignored.join(' ')}]`);
  const envelope: Record<string, unknown> = {
    request_id: r.requestId,
    lease_id: '',
    renewable: false,
    lease_duration: result.leaseDuration ?? 0,
    data: result.data ?? null,
    wrap_info: null,
    warnings: warnings.length ? warnings : null,
    auth: result.auth ?? null,
    mount_type: r.mountType,
  };
  const body = result.topLevel && result.data ? { ...result.data, ...envelope } : envelope;
  return { status: result.status ?? 200, headers: JSON_TYPE, body: JSON.stringify(body) };
}

function hasKeys(r: SecretsResult): boolean {
  const keys = r.data?.keys;
  return Array.isArray(keys) ? keys.length > 0 : r.data != null;
}
