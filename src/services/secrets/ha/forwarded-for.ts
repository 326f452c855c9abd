/**
 * The client's address on a request an HA standby forwards to the active server. The
 * active server sees the standby's socket, so without this a token's `bound_cidrs` and an
 * AppRole's CIDR lists would be checked against the standby's address: refused for the
 * right client, or allowed for any client whose standby is inside the blocks. (The
 * reference forwards over its mutually authenticated cluster port and carries the
 * original address along.)
 *
 * The standby adds `X-Cairn-Forwarded-For: <address> <epoch ms> <HMAC>`; the HMAC-SHA256
 * covers the address, the time and the method under a key derived from the barrier
 * keyring, which only unsealed servers of this cluster hold. The active server uses the
 * address only when the HMAC matches and the time is within {@link MAX_AGE_MS}; anything
 * else (a client sending the header itself) is ignored and the socket's address used.
 *
 * @module
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header a standby sets (replacing any the client sent). */
export const FORWARDED_FOR_HEADER = 'x-cairn-forwarded-for';

/** How far (ms) the signed time may be from the active server's clock. */
const MAX_AGE_MS = 60_000;

const mac = (key: Uint8Array, address: string, at: number, method: string): Buffer =>
  createHmac('sha256', key).update(`${address}\n${at}\n${method}`).digest();

/** The header value for a request from `address` (`now`: epoch ms). */
export function signForwardedFor(key: Uint8Array, address: string, method: string, now = Date.now()): string {
  return `${address} ${now} ${mac(key, address, now, method).toString('base64url')}`;
}

/**
 * The client address `header` carries when it was signed with `key` for `method` within
 * {@link MAX_AGE_MS} of `now` (epoch ms); else undefined (never an error: the caller then
 * uses the socket's address).
 */
export function verifiedForwardedFor(key: Uint8Array | undefined, header: string | undefined, method: string, now = Date.now()): string | undefined {
  if (key === undefined || header === undefined) return undefined;
  const parts = header.split(' ');
  if (parts.length !== 3) return undefined;
  const [address, at, signature] = parts as [string, string, string];
  const t = Number(at);
  if (!/^\d{1,16}$/.test(at) || Math.abs(now - t) > MAX_AGE_MS) return undefined;
  const want = mac(key, address, t, method);
  const got = Buffer.from(signature, 'base64url');
  return got.length === want.length && timingSafeEqual(got, want) ? address : undefined;
}
