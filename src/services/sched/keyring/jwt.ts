/**
 * Compact JWS signing and checking for the keyring's workload identities (RFC 7515/7519),
 * synchronous on node:crypto so a plan's identities are signed inside its apply: header
 * `{"alg","kid","typ":"JWT"}`, `RS256` (RSASSA-PKCS1-v1_5 with SHA-256) or `EdDSA` (Ed25519).
 * Checking is bounded: a token longer than {@link MAX_JWT_BYTES} or with more than three parts
 * is refused before any parsing.
 *
 * @module
 */
import { sign, verify, type KeyObject } from 'node:crypto';
import type { SigningAlg } from './root-key.js';

/** Longest token {@link readJwt} looks at: 16 KiB (identities are well under 2 KiB). */
const MAX_JWT_BYTES = 16 * 1024;

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

/** Signs `claims` with `key` as `alg`, header `kid`. */
export function signJwt(claims: Readonly<Record<string, unknown>>, o: { readonly alg: SigningAlg; readonly kid: string; readonly key: KeyObject }): string {
  const input = `${b64url(JSON.stringify({ alg: o.alg, kid: o.kid, typ: 'JWT' }))}.${b64url(JSON.stringify(claims))}`;
  const signature = sign(o.alg === 'RS256' ? 'sha256' : null, Buffer.from(input), o.key);
  return `${input}.${b64url(signature)}`;
}

/** A token's parts once its signature checked out. */
export interface ReadJwt {
  readonly kid: string;
  readonly alg: SigningAlg;
  readonly claims: Readonly<Record<string, unknown>>;
}

/**
 * The header and claims of `token` when it is a compact JWS signed by the key `keyOf` finds
 * for its `kid` and `alg`; undefined when it is not one (malformed, too long, unknown `kid`,
 * an algorithm other than RS256/EdDSA, a bad signature). Times are not checked here.
 */
export function readJwt(token: string, keyOf: (kid: string, alg: SigningAlg) => KeyObject | undefined): ReadJwt | undefined {
  if (token.length > MAX_JWT_BYTES) return undefined;
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]+$/.test(p))) return undefined;
  const header = parseObject(parts[0]!);
  const alg = header?.alg;
  const kid = header?.kid;
  if ((alg !== 'RS256' && alg !== 'EdDSA') || typeof kid !== 'string') return undefined;
  const key = keyOf(kid, alg);
  if (!key) return undefined;
  const ok = verify(alg === 'RS256' ? 'sha256' : null, Buffer.from(`${parts[0]}.${parts[1]}`), key, Buffer.from(parts[2]!, 'base64url'));
  if (!ok) return undefined;
  const claims = parseObject(parts[1]!);
  return claims ? { kid, alg, claims } : undefined;
}

/** A base64url JSON object, or undefined. */
function parseObject(part: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
