/**
 * The scheduler's ACL error texts (the reference's `nomad/structs/errors.go`;
 * reference/sched.md §1.2 and §1.3). The HTTP layer answers plain text, no JSON:
 *
 * ```text
 * 403 Permission denied       any denied check, and an unknown, invalid or expired secret on RPC endpoints
 * 403 ACL token not found     the token lookup itself found nothing
 * ```
 *
 * The reference maps by suffix and answers the bare text, so a forwarded
 * `rpc error: Permission denied` is a 403 with the body `Permission denied` too
 * ({@link aclErrorStatus}; the reference's `command/agent/http.go` `errCodeFromHandler`).
 *
 * @module
 */

/** The denial text, exactly; also the 403 body. */
export const PERMISSION_DENIED = 'Permission denied';
/** An unknown secret, as the token lookup reports it. */
export const TOKEN_NOT_FOUND = 'ACL token not found';
/** A token past its ExpirationTime (event streams end with it, sched.md §3.6). */
export const TOKEN_EXPIRED = 'ACL token expired';

/** A denied request; its message is {@link PERMISSION_DENIED} and is safe to show. */
export class PermissionDeniedError extends Error {
  override readonly name = 'PermissionDeniedError';

  constructor() {
    super(PERMISSION_DENIED);
  }
}

/** The error for a denied check (throw it; the HTTP layer answers 403 `Permission denied`). */
export function permissionDenied(): PermissionDeniedError {
  return new PermissionDeniedError();
}

/** An unknown secret: `ACL token not found` (403). */
export function tokenNotFound(): Error {
  return new Error(TOKEN_NOT_FOUND);
}

/** An expired token: `ACL token expired`. */
export function tokenExpired(): Error {
  return new Error(TOKEN_EXPIRED);
}

/**
 * The reference's status rule for ACL texts (sched.md §1.2, step 3): a message ending
 * with `Permission denied` → 403 with the body `Permission denied`; ending with
 * `ACL token not found` → 403 with the body `ACL token not found`; anything else →
 * undefined (the caller's other rules decide: coded errors before this, 500 after).
 */
export function aclErrorStatus(message: string): { status: 403; body: string } | undefined {
  if (message.endsWith(PERMISSION_DENIED)) return { status: 403, body: PERMISSION_DENIED };
  if (message.endsWith(TOKEN_NOT_FOUND)) return { status: 403, body: TOKEN_NOT_FOUND };
  return undefined;
}
