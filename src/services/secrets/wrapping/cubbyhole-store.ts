/**
 * Where each token's cubbyhole lives: `sys/cubbyhole/<token hash>/<namespace id>/…` in
 * the root storage, behind the barrier. Keyed by the token's SHA-256 (never the token
 * itself), so no two tokens share a cubbyhole and revoking a token deletes its whole
 * prefix, every namespace included.
 *
 * @module
 */
import { BackendView, type Backend } from '../../../kernel/store/index.js';
import { deleteAll } from '../namespace/scope.js';
import type { StoredToken } from '../token/store.js';

const PREFIX = 'sys/cubbyhole/';

/** The cubbyhole of the token with hash `tokenHash` in namespace `namespaceId`. */
export function cubbyholeOf(backend: Backend, tokenHash: string, namespaceId: string): Backend {
  return new BackendView(backend, `${PREFIX}${tokenHash}/${namespaceId}/`);
}

/**
 * A token-store revoke listener (`TokenStore.onRevoke`) that deletes the revoked token's
 * cubbyholes in every namespace; an expired token revoked lazily by a lookup loses its
 * cubbyhole the same way.
 */
export function cubbyholeReaper(backend: Backend): (entry: StoredToken) => Promise<void> {
  return (entry) => deleteAll(new BackendView(backend, `${PREFIX}${entry.hash}/`));
}
