/**
 * ACL binding-rule endpoints of the scheduler (reference/sched.md §2.4), every one for
 * management tokens only:
 *
 * | method | path | notes |
 * |---|---|---|
 * | GET | `/v1/acl/binding-rules` | stubs `{ID, Description, AuthMethod, Hash, CreateIndex, ModifyIndex}`; `[]` when none |
 * | POST, PUT | `/v1/acl/binding-rule` | create (a body `ID` updates that rule, as the reference's upsert) |
 * | GET | `/v1/acl/binding-rule/:id` | 404 `ACL binding rule not found` |
 * | POST, PUT | `/v1/acl/binding-rule/:id` | update; the path ID fills an empty body ID, another one is 400 |
 * | DELETE | `/v1/acl/binding-rule/:id` | empty body |
 *
 * Every route answers 400 `ACL support disabled` when ACLs are off; writes in a
 * non-authoritative region go to the authoritative one first. The model — decoding, merge,
 * validation texts — is the auth module's (auth/binding-rule.ts).
 *
 * @module
 */
import { ACL_MANAGEMENT, type SchedRoute } from '../access.js';
import { aclDelete, keyedPrimary, missingKey } from '../acl-write.js';
import type { AuthMethod } from '../auth/auth-method.js';
import { BindingRuleBody, bindingRuleStub, validateBindingRule, type BindingRule, type BindingRuleInput } from '../auth/binding-rule.js';
import { notFoundError } from '../auth/errors.js';
import type { Ctx } from '../deps.js';
import { schedBadRequest, writeReply, type SchedReply } from '../http.js';
import { nullAsEmpty } from '../body.js';
import { requireInput } from '../request.js';
import { T } from '../state.js';

/** 404 text of a missing rule, on read and delete (the reference's HTTP layer; its delete says the same from the state store, there a 500). */
const BINDING_RULE_NOT_FOUND = 'ACL binding rule not found';
const MISSING_ID = 'missing ACL binding rule ID';

/** The declared body of a rule write; `null` reads as `{}`, as Go's decoder reads it. */
const BODY = nullAsEmpty(BindingRuleBody);

/**
 * Creates or updates a rule (reference/sched.md §2.4): `pathId` is the update path's ID.
 * Validation runs inside the transaction against the stored rule and auth methods.
 * @throws 400 `missing ACL binding rule ID` (`/v1/acl/binding-rule/`); 403 `Permission denied`;
 *   400 `Request body is empty`, the decoder's text, `ACL binding rule ID does not match request path`,
 *   `cannot find binding rule <id>`, `cannot update auth method for binding rule, create a new rule instead`,
 *   `binding rule 0 invalid: <multierror>`, `ACL auth method <name> not found`.
 */
async function upsert(ctx: Ctx, pathId: string | undefined): Promise<SchedReply> {
  // The kernel decoded the declared body (BODY): its 400s, the decoder's texts, came first.
  let input = requireInput(ctx.input<BindingRuleInput>());
  if (pathId !== undefined) {
    if (input.ID === '') input = { ...input, ID: pathId };
    if (input.ID !== pathId) throw schedBadRequest('ACL binding rule ID does not match request path');
  }
  const now = new Date(ctx.deps.now());
  const { result, index } = await ctx.deps.state.txn((tx) => {
    const existing = input.ID === '' ? undefined : tx.get<BindingRule>(T.bindingRules, input.ID);
    const rule = validateBindingRule(input, { existing, authMethods: tx.list<AuthMethod>(T.authMethods), now });
    return tx.put<BindingRule>(T.bindingRules, rule.ID, rule);
  });
  return writeReply(index, result);
}

/**
 * Routes of this file (reference/sched.md §2.4). Replies: a stored rule `{ID, Description,
 * AuthMethod, Selector, BindType, BindName, Hash, CreateTime, ModifyTime, CreateIndex,
 * ModifyIndex}`, or the list of `bindingRuleStub`. Reads declare `blocking: [T.bindingRules]`.
 */
export const bindingRuleRoutes: readonly SchedRoute[] = [
  {
    pattern: 'acl/binding-rules',
    synopsis: 'List binding rules (stubs)',
    blocking: [T.bindingRules],
    methods: {
      GET: {
        access: ACL_MANAGEMENT,
        handle: async (ctx) => {
          const list = ctx.deps.state.list<BindingRule>(T.bindingRules).map(bindingRuleStub);
          return { body: list, index: ctx.deps.state.tableIndex(T.bindingRules) };
        },
      },
    },
  },
  {
    pattern: 'acl/binding-rule',
    synopsis: 'Create a binding rule',
    methods: {
      // `/v1/acl/binding-rule/` is the reference's update path with an empty ID: its 400 comes first.
      POST: { access: ACL_MANAGEMENT, forward: keyedPrimary(MISSING_ID), body: BODY, handle: (ctx) => upsert(ctx, undefined) },
      PUT: { access: ACL_MANAGEMENT, forward: keyedPrimary(MISSING_ID), body: BODY, handle: (ctx) => upsert(ctx, undefined) },
      GET: missingKey(MISSING_ID),
      DELETE: missingKey(MISSING_ID),
    },
  },
  {
    pattern: 'acl/binding-rule/:id',
    synopsis: 'Read, update or delete a binding rule',
    blocking: [T.bindingRules],
    methods: {
      GET: {
        access: ACL_MANAGEMENT,
        handle: async (ctx) => {
          const r = ctx.deps.state.get<BindingRule>(T.bindingRules, ctx.params.id!);
          if (!r) throw notFoundError(BINDING_RULE_NOT_FOUND);
          return { body: r, index: r.ModifyIndex };
        },
      },
      POST: { access: ACL_MANAGEMENT, forward: 'primary', body: BODY, handle: (ctx) => upsert(ctx, ctx.params.id) },
      PUT: { access: ACL_MANAGEMENT, forward: 'primary', body: BODY, handle: (ctx) => upsert(ctx, ctx.params.id) },
      DELETE: {
        access: ACL_MANAGEMENT,
        forward: 'primary',
        handle: (ctx) => aclDelete(ctx, { table: T.bindingRules, key: ctx.params.id!, missing: () => notFoundError(BINDING_RULE_NOT_FOUND) }),
      },
    },
  },
];
