/**
 * The client's address on a request an HA standby forwards to the active server. The
 * active server sees the standby's socket, so without this a token's `bound_cidrs` and an
 * AppRole's CIDR lists would be checked against the standby's address: refused for the
 * right client, or allowed for any client whose standby is inside the blocks. (The
 * reference forwards over its mutually authenticated cluster port and carries the
 * original address along.)
 *
 * The same goes for the client's TLS certificate chain (the `cert` auth method's login and
 * renewal): the active server sees the standby's connection, not the client's.
 *
 * The standby adds `X-Cairn-Forwarded-For: <address> <epoch ms> <HMAC>[ <chain>]`, where
 * `<chain>` is present when the client connected with TLS: `-` without a certificate, else
 * its certificates (DER, base64url, its own first) joined by `.`. The HMAC-SHA256 covers
 * the address, the time, the method and the chain under a key derived from the barrier
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

/** Who sent a request: its address and, on TLS, the certificate chain it presented (`[]`: none). */
export interface ForwardedClient {
  readonly address: string;
  readonly clientCertificates?: readonly Buffer[];
}

/** The MAC over what the header vouches for: the client's address, the signing time (epoch ms), the method and the chain. */
const mac = (key: Uint8Array, { address, at, method, chain }: { address: string; at: number; method: string; chain: string | undefined }): Buffer =>
  createHmac('sha256', key)
    .update(`${address}\n${at}\n${method}${chain === undefined ? '' : `\n${chain}`}`)
    .digest();

/** The header value for a request from `client` (`now`: epoch ms). */
export function signForwardedFor(key: Uint8Array, client: ForwardedClient, method: string, now = Date.now()): string {
  const certs = client.clientCertificates;
  const chain = certs === undefined ? undefined : certs.length === 0 ? '-' : certs.map((c) => c.toString('base64url')).join('.');
  const signed = `${client.address} ${now} ${mac(key, { address: client.address, at: now, method, chain }).toString('base64url')}`;
  return chain === undefined ? signed : `${signed} ${chain}`;
}

/**
 * The client `header` describes when it was signed with `key` for `method` within
 * {@link MAX_AGE_MS} of `now` (epoch ms); else undefined (never an error: the caller then
 * uses its own connection's address and certificates).
 */
export function verifiedForwardedFor(key: Uint8Array | undefined, header: string | undefined, method: string, now = Date.now()): ForwardedClient | undefined {
  if (key === undefined || header === undefined) return undefined;
  const parts = header.split(' ');
  if (parts.length !== 3 && parts.length !== 4) return undefined;
  const [address, at, signature, chain] = parts as [string, string, string, string | undefined];
  const t = Number(at);
  if (!/^\d{1,16}$/.test(at) || Math.abs(now - t) > MAX_AGE_MS) return undefined;
  const want = mac(key, { address, at: t, method, chain });
  const got = Buffer.from(signature, 'base64url');
  if (got.length !== want.length || !timingSafeEqual(got, want)) return undefined;
  if (chain === undefined) return { address };
  return { address, clientCertificates: chain === '-' ? [] : chain.split('.').map((c) => Buffer.from(c, 'base64url')) };
}
