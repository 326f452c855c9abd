/**
 * What the scheduler's ACL write endpoints share (roles, policies, tokens, auth methods,
 * binding rules; reference/sched.md §2.3): the start of a global write (ACL check, forward
 * to the authoritative region, management token), the delete of a global object, the 400 of
 * an invalid object, and the reference's answer to a collection path with a trailing slash.
 *
 * @module
 */
import { CairnError } from '../../kernel/http/index.js';
import { multiError } from './auth/errors.js';
import { forwardToAuthoritative, requireAclEnabled, requireManagement, type Ctx } from './deps.js';
import { schedBadRequest, writeReply, type SchedReply } from './http.js';

/**
 * Runs `write` when the write of a global ACL object (role, policy, auth method, binding
 * rule) is this agent's to do, in the reference's order: 400 `ACL support disabled` when ACLs
 * are off; in a non-authoritative region the request goes to the authoritative one and its
 * reply is returned (reference/sched.md §2.3 step 1; spec 002 "What the service does"); then
 * the caller must hold a management token. @throws 400 `ACL support disabled`; 500 `No path
 * to region`; 403 `Permission denied`; whatever `write` throws.
 */
export async function globalAclWrite(ctx: Ctx, write: () => Promise<SchedReply>): Promise<SchedReply> {
  requireAclEnabled(ctx);
  const forwarded = await forwardToAuthoritative(ctx);
  if (forwarded) return forwarded;
  requireManagement(ctx);
  return write();
}

/** What {@link aclDelete} removes. */
export interface AclDeleteOptions {
  /** The state table (`T.roles`, …). */
  readonly table: string;
  /** The document's key in it (ID or name from the path). */
  readonly key: string;
  /** The error of a missing object (a 404 with the route's text); undefined: a missing object is no error (policies). */
  readonly missing?: () => Error;
}

/**
 * `DELETE` of a global ACL object: {@link globalAclWrite}, then one write removing the
 * document; an empty reply with `X-Sched-Index` (reference/sched.md §1.1, §2.1). The
 * reference answers a missing object 500; here it is `missing()` (reference/README.md rule 3).
 * @throws as {@link globalAclWrite}; `missing()`.
 */
export function aclDelete(ctx: Ctx, o: AclDeleteOptions): Promise<SchedReply> {
  return globalAclWrite(ctx, async () => {
    const { index } = await ctx.deps.state.txn((tx) => {
      if (!tx.delete(o.table, o.key) && o.missing) throw o.missing();
    });
    return writeReply(index);
  });
}

/**
 * 400 `<kind> 0 invalid: <multierror>`, the reference's wrapping of an object's validation
 * errors, e.g. `token 0 invalid: 1 error occurred:\n\t* token name too long\n\n`.
 */
export function invalidObject(kind: 'token' | 'policy' | 'role', errors: readonly string[]): CairnError {
  return schedBadRequest(`${kind} 0 invalid: ${multiError(errors)}`);
}

/**
 * Throws 400 `text` when a collection path was called with a trailing slash and no key
 * (`/v1/acl/auth-method/`: the reference's update path with an empty name, reference/sched.md §2.1).
 */
export function requireKeyInPath(ctx: Ctx, text: string): void {
  if (ctx.req.path.endsWith('/')) throw schedBadRequest(text);
}

/**
 * Handler for the methods a collection path does not declare: 400 `text` when called with a
 * trailing slash and no key ({@link requireKeyInPath}), else 405 `Invalid method` (reference/sched.md §2.1).
 */
export function missingKey(text: string): (ctx: Ctx) => Promise<SchedReply> {
  return async (ctx) => {
    requireKeyInPath(ctx, text);
    throw new CairnError('method_not_allowed', 'Invalid method');
  };
}
