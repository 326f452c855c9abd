/**
 * The 403 texts of a failed ACL check (reference/mesh.md §0.4 and §8; the reference's
 * `acl/errors.go` `PermissionDeniedError.Error`):
 *
 * ```text
 * Permission denied: token with AccessorID '<id>' lacks permission 'service:write' on "web"
 * Permission denied: anonymous token lacks permission 'acl:read'. The anonymous token is used implicitly when a request does not specify a token.
 * Permission denied: provided token lacks permission 'key:read' on "app/x"     (no accessor known)
 * Permission denied: Cannot modify root ACL                                   (a cause)
 * ```
 *
 * The HTTP layer answers 403 to any error whose text contains `Permission denied`.
 *
 * @module
 */
import type { Access, Resource } from './authorizer.js';
import { ANONYMOUS_TOKEN_ACCESSOR_ID } from './builtin.js';

/** A denied request; `message` is the reference's text and is safe to show. */
export class PermissionDeniedError extends Error {
  override readonly name = 'PermissionDeniedError';
}

/**
 * Builds the detailed denial for `accessorId` (the anonymous token's accessor gives the
 * anonymous wording; `undefined` or `''` gives `provided token`), needing `access` on
 * `resource`, naming `segment` when given and not empty.
 */
export function permissionDenied(accessorId: string | undefined, resource: Resource, access: Access, segment?: string): PermissionDeniedError {
  const anonymous = accessorId === ANONYMOUS_TOKEN_ACCESSOR_ID;
  const who = anonymous ? 'anonymous token' : accessorId ? `token with AccessorID '${accessorId}'` : 'provided token';
  // The reference quotes the name with plain quotes, not Go's %q (no escaping).
  const on = segment ? ` on "${segment}"` : '';
  const hint = anonymous ? '. The anonymous token is used implicitly when a request does not specify a token.' : '';
  return new PermissionDeniedError(`Permission denied: ${who} lacks permission '${resource}:${access}'${on}${hint}`);
}

/** A denial with a reason instead of a permission: `Permission denied: <cause>`, or `Permission denied` alone. */
export function permissionDeniedBecause(cause?: string): PermissionDeniedError {
  return new PermissionDeniedError(cause ? `Permission denied: ${cause}` : 'Permission denied');
}
