/**
 * A `fetch` that trusts a given PEM CA bundle, for JWKS / discovery URLs configured with
 * `JWKSCACert` / `OIDCDiscoveryCACert` (reference/mesh.md §4.4). Without a CA it is the
 * global `fetch` (system roots). Handed to `jose` and `openid-client` as their `customFetch`.
 *
 * @module
 */
import { Agent, fetch as undiciFetch } from 'undici';

/** The fetch shape both `jose` and `openid-client` accept as `customFetch`. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** A fetch over a connection pool that verifies servers against `caPem` (or the system roots when absent). */
export function fetchTrusting(caPem: string | undefined): FetchLike {
  if (!caPem) return (url, init) => fetch(url, init);
  const dispatcher = new Agent({ connect: { ca: caPem } });
  // undici's Response is the same class the global fetch returns on Node 20; only the
  // declared types differ, hence the casts.
  return (url, init) => undiciFetch(url, { ...(init as object), dispatcher }) as unknown as Promise<Response>;
}
