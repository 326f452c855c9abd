/**
 * Token checks: a token that created leases has one entry in the expiry index at the
 * earliest expiry of it and its ancestors (`sys/lease/token-check/<hash>` remembers when
 * and under which key), so the expiry loop revokes an expired token's leases on time even
 * though the token store only revokes expired tokens when they are next looked up.
 *
 * @module
 */
import { json, readJson, type Backend, type BackendOp } from '../../../kernel/store/index.js';
import type { StoredToken, TokenStore } from '../token/store.js';
import { LEASE_PREFIX } from './entry.js';
import { expiryKey, indexOp } from './expiry-index.js';

/** When a token's check is due (epoch ms) and its key in the expiry index. */
export interface TokenCheck {
  readonly at: number;
  readonly key: string;
}

const checkKey = (hash: string) => `${LEASE_PREFIX}token-check/${hash}`;

/** The scheduled check of token `hash`, or undefined. */
export const readCheck = (backend: Backend, hash: string) => readJson<TokenCheck>(backend, checkKey(hash));

/** Writes that drop the check of token `hash` (its leases are gone, or it is being rescheduled). */
export function dropCheckOps(hash: string, check: TokenCheck | undefined): BackendOp[] {
  return check ? [{ key: checkKey(hash) }, { key: check.key }] : [{ key: checkKey(hash) }];
}

/**
 * Writes that schedule a check of `token` at its chain's expiry, unless one at least as
 * early is scheduled (`current`, the record as read; undefined = none). None for a token
 * that never expires.
 */
export async function scheduleCheckOps(tokens: TokenStore, token: StoredToken, current: TokenCheck | undefined): Promise<BackendOp[]> {
  const at = await tokens.chainExpiresAt(token);
  if (!at || (current && current.at <= at)) return [];
  const key = expiryKey(at);
  const ops: BackendOp[] = [
    indexOp(key, { kind: 'token', hash: token.hash, accessor: token.accessor }),
    { key: checkKey(token.hash), value: json.encode({ at, key } satisfies TokenCheck) },
  ];
  if (current) ops.push({ key: current.key });
  return ops;
}
