/**
 * Auth tokens (reference: Boundary's auth tokens,
 * https://developer.hashicorp.com/boundary/docs/concepts/domain-model/auth-tokens): an id
 * `at_…` and a token string `<id>_<secret>` returned once, by `:authenticate`. Only the
 * SHA-256 of the string is stored. A token ends at `expiration_time` (created +
 * `auth_token_time_to_live`) or when unused for `auth_token_time_to_stale` (its
 * `approximate_last_used_time` is moved forward as it is used).
 *
 * Presented as `Authorization: Bearer <token>`, or as the reference web client's split
 * cookie: `wt-js-token-cookie` holds the first half of the string, the HttpOnly
 * `wt-http-token-cookie` the second (Boundary `handlers.OutgoingResponseFilter`).
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { bearerToken, type HttpRequest } from '../../../kernel/http/index.js';
import { secretsEqual, sha256Hex } from '../../../kernel/util/sha256.js';
import type { AuthTokenDoc } from './docs.js';
import { newId, PREFIX } from './ids.js';

/** The JS-visible half of the split cookie (reference). */
const JS_COOKIE = 'wt-js-token-cookie';
/** The HttpOnly half of the split cookie (reference). */
const HTTP_COOKIE = 'wt-http-token-cookie';

/** A new token: its stored document (hash only) and the string handed to the client once. */
export function mintToken(o: { scopeId: string; userId: string; authMethodId: string; accountId: string; nowMs: number; ttlSeconds: number }): {
  doc: AuthTokenDoc;
  token: string;
} {
  const id = newId(PREFIX.authToken);
  const token = `${id}_${randomBytes(32).toString('base64url')}`;
  const now = new Date(o.nowMs).toISOString();
  const doc: AuthTokenDoc = {
    id,
    scope_id: o.scopeId,
    user_id: o.userId,
    auth_method_id: o.authMethodId,
    account_id: o.accountId,
    token_hash: sha256Hex(token),
    created_time: now,
    updated_time: now,
    approximate_last_used_time: now,
    expiration_time: new Date(o.nowMs + o.ttlSeconds * 1000).toISOString(),
  };
  return { doc, token };
}

/** The token string a request presents (bearer first, then the split cookie, both halves joined); undefined when none. */
export function presentedToken(req: HttpRequest): string | undefined {
  const bearer = bearerToken(req.headers, 'any-case-one-word');
  if (bearer !== undefined) return bearer;
  const cookies = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0) cookies.set(part.slice(0, i).trim(), part.slice(i + 1).trim());
  }
  const js = cookies.get(JS_COOKIE);
  const http = cookies.get(HTTP_COOKIE);
  // One half alone is presented as it is, so it fails as a wrong token (401) rather than
  // passing for no token at all (the anonymous user).
  return js || http ? (js ?? '') + (http ?? '') : undefined;
}

/** The token id inside a token string (`at_XXXXXXXXXX`); undefined when it has none. */
export function tokenIdOf(token: string): string | undefined {
  const m = /^(at_[0-9A-Za-z]{10})_/.exec(token);
  return m?.[1];
}

/** Whether `token` is the one `doc` was minted with (constant-time on the hashes). */
export const tokenMatches = (doc: AuthTokenDoc, token: string): boolean => secretsEqual(sha256Hex(token), doc.token_hash);

/** When (epoch ms) `doc` ends: its expiration, or its last use plus the idle timeout, whichever is first. */
export const tokenEndMs = (doc: AuthTokenDoc, staleSeconds: number): number =>
  Math.min(Date.parse(doc.expiration_time), Date.parse(doc.approximate_last_used_time) + staleSeconds * 1000);

/**
 * The `Set-Cookie` values of the split cookie for `token` (JS-visible first half,
 * HttpOnly second half); `Secure` when the login came over TLS, so the browser sends them
 * back only over TLS.
 */
export function splitCookie(token: string, secure = false): string[] {
  const half = Math.floor(token.length / 2);
  const flags = `Path=/; SameSite=Strict${secure ? '; Secure' : ''}`;
  return [
    `${JS_COOKIE}=${token.slice(0, half)}; ${flags}`,
    `${HTTP_COOKIE}=${token.slice(half)}; Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`,
  ];
}
