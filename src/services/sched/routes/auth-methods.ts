/**
 * ACL auth-method endpoints of the scheduler (spec 002 "ACL auth methods" endpoints table;
 * reference/sched.md §2.1–§2.3):
 *
 * | method | path | ACL |
 * |---|---|---|
 * | GET | `/v1/acl/auth-methods` | none (a valid or absent token); stubs, `[]` when none |
 * | POST, PUT | `/v1/acl/auth-method` | management; create |
 * | GET | `/v1/acl/auth-method/:name` | management; 404 `ACL auth-method not found` |
 * | POST, PUT | `/v1/acl/auth-method/:name` | management; update |
 * | DELETE | `/v1/acl/auth-method/:name` | management; empty body |
 *
 * Every route answers 400 `ACL support disabled` when ACLs are off. Writes in a
 * non-authoritative region go to the authoritative one before any other check (spec 002
 * "What the service does"); reads serve the local copy. The model — decoding, merge,
 * validation texts, redaction — is the auth module's (auth/auth-method.ts); this file adds
 * HTTP and storage. Writes answer with `X-Sched-Index` only (§1.4: ACL writes set no other
 * query meta); reads declare `blocking: [T.authMethods]` and report an index of at least 1.
 *
 * @module
 */
import { CairnError } from '../../../kernel/http/index.js';
import { authMethodStub, decodeAuthMethod, renderAuthMethod, validateAuthMethod, type AuthMethod } from '../auth/auth-method.js';
import { AUTH_METHOD_NOT_FOUND, notFoundError } from '../auth/errors.js';
import { aclCaller, forwardToAuthoritative, requireManagement, type Ctx, type SchedDeps } from '../deps.js';
import { aclDisabled, schedBadRequest, type SchedReply, type SchedRoute } from '../http.js';
import { T } from '../state.js';

/** 400 text of a write without a body (reference/sched.md §1.1). */
export const EMPTY_BODY = 'Request body is empty';

/**
 * The JSON body of a write; JSON `null` reads as `{}` (Go decodes `null` into a struct as
 * nothing). @throws 400 `Request body is empty` (§1.1); 400 with the parser's text for bad JSON.
 */
export function requireBody(ctx: Ctx): unknown {
  const body = ctx.body<unknown>();
  if (body === undefined) throw schedBadRequest(EMPTY_BODY);
  return body === null ? {} : body;
}

/** A write's reply: `body` with only `X-Sched-Index` (reference/sched.md §1.4). */
export function writeReply(body: unknown, index: number): SchedReply {
  return { body, headers: { 'X-Sched-Index': String(index) } };
}

/** An empty DELETE reply with `X-Sched-Index` (reference/sched.md §1.1, §2.1). */
export function deleteReply(index: number): SchedReply {
  return { empty: true, headers: { 'X-Sched-Index': String(index) } };
}

/** A read's index: never 0, so a blocking query on it can be made (`setReplyQueryMeta`, §1.4). */
export const atLeastOne = (index: number) => Math.max(1, index);

/**
 * The ACL-disabled check and the forward to the authoritative region every ACL write starts
 * with (reference/sched.md §2.3 step 1); undefined when the write is this agent's to do.
 * @throws 400 `ACL support disabled`; 500 `No path to region`.
 */
export async function authoritativeWrite(ctx: Ctx): Promise<SchedReply | undefined> {
  if (!ctx.deps.config.acl.enabled) throw aclDisabled();
  return forwardToAuthoritative(ctx);
}

/**
 * Handler for a route whose collection path was called with a trailing slash and no name
 * (`/v1/acl/auth-method/`): 400 `text` as the reference answers; any other call of a method
 * the path does not declare is 405 `Invalid method` (reference/sched.md §2.1).
 */
export function missingName(text: string) {
  return async (ctx: Ctx): Promise<SchedReply> => {
    if (ctx.req.path.endsWith('/')) throw schedBadRequest(text);
    throw new CairnError('method_not_allowed', 'Invalid method');
  };
}

const MISSING_NAME = 'missing ACL auth-method name';

/**
 * Creates (`pathName` undefined) or updates an auth method (reference/sched.md §2.3;
 * spec 002: an update needs the method to exist and accepts only `OIDC`). Validation runs
 * inside the transaction, so the one-`Default` rule holds under concurrent writes.
 * @throws 400 `missing ACL auth-method name` (`/v1/acl/auth-method/`); 403 `Permission denied`;
 *   400 `Request body is empty`, the decoder's text,
 *   `ACL auth-method name does not match request path`, `auth method 0 invalid: <multierror>`,
 *   `default method already exists: <name>`; 404 `ACL auth-method not found` (update).
 */
async function upsert(ctx: Ctx, pathName: string | undefined): Promise<SchedReply> {
  // `/v1/acl/auth-method/` is the reference's update path with an empty name.
  if (pathName === undefined && ctx.req.path.endsWith('/')) throw schedBadRequest(MISSING_NAME);
  const forwarded = await authoritativeWrite(ctx);
  if (forwarded) return forwarded;
  requireManagement(ctx);
  const input = decodeAuthMethod(requireBody(ctx));
  if (pathName !== undefined && input.Name !== pathName) throw schedBadRequest('ACL auth-method name does not match request path');
  const now = new Date(ctx.deps.now());
  const { result, index } = await ctx.deps.state.txn((tx) => {
    const others = tx.list<AuthMethod>(T.authMethods);
    const existing = tx.get<AuthMethod>(T.authMethods, input.Name);
    const method = validateAuthMethod(input, { existing, others, isUpdate: pathName !== undefined, now });
    return tx.put<AuthMethod>(T.authMethods, method.Name, method);
  });
  return writeReply(renderAuthMethod(result), index);
}

/**
 * Deletes method `name`; binding rules naming it stay, as in the reference (§2.3 "Delete").
 * @throws 403; 404 `ACL auth method not found` (the reference's state-store text, there a 500).
 */
async function remove(ctx: Ctx): Promise<SchedReply> {
  const forwarded = await authoritativeWrite(ctx);
  if (forwarded) return forwarded;
  requireManagement(ctx);
  const { index } = await ctx.deps.state.txn((tx) => {
    if (!tx.delete(T.authMethods, ctx.params.name)) throw notFoundError('ACL auth method not found');
  });
  return deleteReply(index);
}

/**
 * Routes of this file (spec 002 "ACL auth methods"; reference/sched.md §2.1). Replies: the
 * method read shape of `renderAuthMethod` (secrets `redacted`, `MaxTokenTTL` a Go duration
 * string, unset `DiscoveryCaPem` / `SigningAlgs` null), the stub list of `authMethodStub`.
 */
export const authMethodRoutes: readonly SchedRoute<SchedDeps>[] = [
  {
    pattern: 'acl/auth-methods',
    synopsis: 'List auth methods (stubs; no privilege needed)',
    blocking: [T.authMethods],
    methods: {
      GET: async (ctx) => {
        aclCaller(ctx);
        const list = ctx.deps.state.list<AuthMethod>(T.authMethods).map(authMethodStub);
        return { body: list, index: atLeastOne(ctx.deps.state.tableIndex(T.authMethods)) };
      },
    },
  },
  {
    pattern: 'acl/auth-method',
    synopsis: 'Create an auth method',
    methods: {
      POST: (ctx) => upsert(ctx, undefined),
      PUT: (ctx) => upsert(ctx, undefined),
      GET: missingName(MISSING_NAME),
      DELETE: missingName(MISSING_NAME),
    },
  },
  {
    pattern: 'acl/auth-method/:name',
    synopsis: 'Read, update or delete an auth method',
    blocking: [T.authMethods],
    methods: {
      GET: async (ctx) => {
        requireManagement(ctx);
        const m = ctx.deps.state.get<AuthMethod>(T.authMethods, ctx.params.name);
        if (!m) throw notFoundError(AUTH_METHOD_NOT_FOUND);
        return { body: renderAuthMethod(m), index: atLeastOne(m.ModifyIndex) };
      },
      POST: (ctx) => upsert(ctx, ctx.params.name),
      PUT: (ctx) => upsert(ctx, ctx.params.name),
      DELETE: remove,
    },
  },
];
