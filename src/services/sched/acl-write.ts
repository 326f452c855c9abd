/**
 * What the scheduler's ACL write endpoints share (roles, policies, tokens, auth methods,
 * binding rules; reference/sched.md §2.3): the delete of a global object, the 400 of an
 * invalid object, and the reference's answer to a collection path with a trailing slash.
 * Their routes declare the rest: a management token (access.ts `ACL_MANAGEMENT`), in the
 * authoritative region (`forward: 'primary'`).
 *
 * @module
 */
import { CairnError, PUBLIC } from '../../kernel/http/index.js';
import type { SchedOperation } from './access.js';
import { multiError } from './auth/errors.js';
import type { Ctx } from './deps.js';
import { schedBadRequest, writeReply, type SchedReply } from './http.js';

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
 * `DELETE` of a global ACL object, once its route's rule passed (a management token, in the
 * authoritative region): one write removing the document; an empty reply with
 * `X-Sched-Index` (reference/sched.md §1.1, §2.1). The reference answers a missing object
 * 500; here it is `missing()` (reference/README.md rule 3). @throws `missing()`.
 */
export async function aclDelete(ctx: Ctx, o: AclDeleteOptions): Promise<SchedReply> {
  const { index } = await ctx.deps.state.txn((tx) => {
    if (!tx.delete(o.table, o.key) && o.missing) throw o.missing();
  });
  return writeReply(index);
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
function requireKeyInPath(ctx: Ctx, text: string): void {
  if (ctx.req.path.endsWith('/')) throw schedBadRequest(text);
}

/**
 * The operation of a method a collection path does not declare: 400 `text` when called with a
 * trailing slash and no key ({@link requireKeyInPath}), else 405 `Invalid method`
 * (reference/sched.md §2.1). Anyone may call it: it answers nothing but these errors.
 */
export function missingKey(text: string): SchedOperation {
  return {
    access: PUBLIC,
    handle: async (ctx) => {
      requireKeyInPath(ctx, text);
      throw new CairnError('method_not_allowed', 'Invalid method');
    },
  };
}

/**
 * The `forward` of a global ACL write on a collection path: to the authoritative region,
 * after the 400 `text` of a trailing slash with no key, which the reference answers first.
 */
export function keyedPrimary(text: string): (ctx: Ctx) => 'primary' {
  return (ctx) => {
    requireKeyInPath(ctx, text);
    return 'primary';
  };
}
