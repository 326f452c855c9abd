/**
 * The consistency state header, `X-Secrets-Index` (the reference's `X-Vault-Index`,
 * Vault Enterprise "Eventual consistency"; spec 000 "Errors" 412).
 *
 * Every 2xx reply to a request that wrote carries the state after its writes. A client
 * that sends it back asks for a server that has applied at least that state: the active
 * server always has; a performance standby that has not yet answers 412 (retry with
 * backoff), or forwards the request to the active server when the client also sent
 * `X-Secrets-Inconsistent: forward-active-node`.
 *
 * Wire value: base64 (standard, padded) of `v1:<cluster id>:<commit index>`, where the
 * commit index is the PostgreSQL table's change-feed index (kernel/store/pg-listen.ts).
 * Clients treat it as opaque. Unlike the reference it carries no HMAC: a forged value
 * can only make its sender wait (412) or be refused (400), never read anything.
 *
 * @module
 */
import { badRequest } from '../../../kernel/http/index.js';

/** Request and reply header carrying the state (lower case, as the kernel gives headers). */
export const INDEX_HEADER = 'x-secrets-index';
/** Request header choosing what a behind performance standby does (`X-Vault-Inconsistent`). */
export const INCONSISTENT_HEADER = 'x-secrets-inconsistent';
/** {@link INCONSISTENT_HEADER} value asking a behind standby to forward instead of answering 412. */
export const FORWARD_ACTIVE_NODE = 'forward-active-node';

const VERSION = 'v1';

/** The header value for `index` in cluster `clusterId`. */
export function formatState(clusterId: string, index: number): string {
  return Buffer.from(`${VERSION}:${clusterId}:${index}`, 'utf8').toString('base64');
}

/**
 * The commit index a client's `X-Secrets-Index` value asks for.
 * @throws CairnError 400 naming the header: not base64 of `v1:<cluster id>:<index>`, or
 *   a state of another cluster.
 */
export function parseState(value: string, clusterId: string): number {
  const text = /^[A-Za-z0-9+/]+={0,2}$/.test(value.trim()) ? Buffer.from(value.trim(), 'base64').toString('utf8') : '';
  const m = /^v1:([^:]+):(\d{1,15})$/.exec(text);
  if (!m) throw badRequest('X-Secrets-Index header is not a state this service issued');
  if (m[1] !== clusterId) throw badRequest('X-Secrets-Index header is from another cluster');
  return Number(m[2]);
}
