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
import { RenderCache } from '../../../kernel/http/index.js';
import { ACL_MANAGEMENT, ACL_TOKEN, type SchedRoute } from '../access.js';
import { aclDelete, keyedPrimary, missingKey } from '../acl-write.js';
import { AuthMethodBody, authMethodStub, renderAuthMethod, validateAuthMethod, type AuthMethod, type AuthMethodInput } from '../auth/auth-method.js';
import { AUTH_METHOD_NOT_FOUND, notFoundError } from '../auth/errors.js';
import type { Ctx } from '../deps.js';
import { schedBadRequest, writeReply, type SchedReply } from '../http.js';
import { nullAsEmpty } from '../body.js';
import { requireInput } from '../request.js';
import { T } from '../state.js';

const MISSING_NAME = 'missing ACL auth-method name';

/** The declared body of a method write; `null` reads as `{}`, as Go's decoder reads it. */
const BODY = nullAsEmpty(AuthMethodBody);

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
  // The kernel decoded the declared body (BODY): its 400s, the decoder's texts, came first.
  const input = requireInput(ctx.input<AuthMethodInput>());
  if (pathName !== undefined && input.Name !== pathName) throw schedBadRequest('ACL auth-method name does not match request path');
  const now = new Date(ctx.deps.now());
  const { result, index } = await ctx.deps.state.txn((tx) => {
    const others = tx.list<AuthMethod>(T.authMethods);
    const existing = tx.get<AuthMethod>(T.authMethods, input.Name);
    const method = validateAuthMethod(input, { existing, others, isUpdate: pathName !== undefined, now });
    return tx.put<AuthMethod>(T.authMethods, method.Name, method);
  });
  return writeReply(index, renderAuthMethod(result));
}

/** Method reads: each stored method's reply (secrets redacted), kept until the method changes. */
const reads = new RenderCache<AuthMethod>();

/**
 * Routes of this file (spec 002 "ACL auth methods"; reference/sched.md §2.1). Replies: the
 * method read shape of `renderAuthMethod` (secrets `redacted`, `MaxTokenTTL` a Go duration
 * string, unset `DiscoveryCaPem` / `SigningAlgs` null), the stub list of `authMethodStub`.
 */
export const authMethodRoutes: readonly SchedRoute[] = [
  {
    pattern: 'acl/auth-methods',
    synopsis: 'List auth methods (stubs; no privilege needed)',
    blocking: [T.authMethods],
    methods: {
      GET: {
        access: ACL_TOKEN,
        handle: async (ctx) => {
          const list = ctx.deps.state.list<AuthMethod>(T.authMethods).map(authMethodStub);
          return { body: list, index: ctx.deps.state.tableIndex(T.authMethods) };
        },
      },
    },
  },
  {
    pattern: 'acl/auth-method',
    synopsis: 'Create an auth method',
    methods: {
      // `/v1/acl/auth-method/` is the reference's update path with an empty name: its 400 comes first.
      POST: { access: ACL_MANAGEMENT, forward: keyedPrimary(MISSING_NAME), body: BODY, handle: (ctx) => upsert(ctx, undefined) },
      PUT: { access: ACL_MANAGEMENT, forward: keyedPrimary(MISSING_NAME), body: BODY, handle: (ctx) => upsert(ctx, undefined) },
      GET: missingKey(MISSING_NAME),
      DELETE: missingKey(MISSING_NAME),
    },
  },
  {
    pattern: 'acl/auth-method/:name',
    synopsis: 'Read, update or delete an auth method',
    blocking: [T.authMethods],
    methods: {
      GET: {
        access: ACL_MANAGEMENT,
        handle: async (ctx) => {
          const m = ctx.deps.state.get<AuthMethod>(T.authMethods, ctx.params.name!);
          if (!m) throw notFoundError(AUTH_METHOD_NOT_FOUND);
          const { body, json } = reads.get(m, '', renderAuthMethod);
          return { body, json, index: m.ModifyIndex };
        },
      },
      POST: { access: ACL_MANAGEMENT, forward: 'primary', body: BODY, handle: (ctx) => upsert(ctx, ctx.params.name) },
      PUT: { access: ACL_MANAGEMENT, forward: 'primary', body: BODY, handle: (ctx) => upsert(ctx, ctx.params.name) },
      // Binding rules naming the method stay, as in the reference (§2.3 "Delete"); a missing
      // method is 404 `ACL auth method not found` (the reference's state-store text, there a 500).
      DELETE: {
        access: ACL_MANAGEMENT,
        forward: 'primary',
        handle: (ctx) => aclDelete(ctx, { table: T.authMethods, key: ctx.params.name!, missing: () => notFoundError('ACL auth method not found') }),
      },
    },
  },
];
