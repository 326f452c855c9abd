/**
 * Binding-rule endpoints (reference/mesh.md §6.6): `PUT /acl/binding-rule`,
 * `GET|PUT|DELETE /acl/binding-rule/:id`, `GET /acl/binding-rules?authmethod=`. Writes
 * need `acl:write`, reads `acl:read`. A rule is checked against its auth method: the
 * selector is compiled and its fields checked against the method's blank identity, the
 * bind name interpolated with every projected variable set to `fake` and validated for
 * its bind type (`service`, `node`, `role`, `policy`). Validation failures are 400 with
 * the reference's texts (the reference answers 500; reference/README.md rule 3).
 *
 * @module
 */
import { AuthnError, checkBindingRule, MESH_BIND_PROFILE } from '../../../kernel/authn/index.js';
import { checkSelectors, compileFilter, FilterError } from '../../../kernel/bexpr/index.js';
import { Type, type Static } from '@sinclair/typebox';
import { withBody } from '../../../kernel/http/index.js';
import type { Indexed, Txn } from '../../../kernel/store/index.js';
import { Go } from '../../../kernel/util/go-schema.js';
import { blankSelectable, projectedVarNames } from '../auth-config.js';
import type { AuthMethodDoc, BindingRuleDoc } from '../auth-docs.js';
import { aclRule, type MeshRouteSpec } from '../access.js';
import type { Ctx } from '../deps.js';
import { meshBody } from '../body-decoding.js';
import { meshBadRequest, meshNotFound, type MeshReply } from '../http.js';
import { UUID_RE } from '../links.js';
import { inScope, notFoundIn, scopeOf, shownNamespace } from '../ns-scope.js';
import { authMethodKey, nsField, nsOf, T, type NamespacedId } from '../state.js';
import { newId } from '../token-write.js';

/**
 * The body of `PUT /acl/binding-rule[/:id]` (reference/mesh.md §6.6). `ID` and `Namespace`
 * keep their own checks and texts (`Cannot specify the ID…`, ns-scope.ts).
 */
const BindingRuleBody = meshBody('BindingRule', {
  ID: Go.any("must be empty on create, the URL's ID on update"),
  Description: Go.string(),
  AuthMethod: Go.string("the auth method's name (immutable)"),
  Selector: Go.string('a filter expression over the identity'),
  BindType: Go.string('service, node, role or policy'),
  BindName: Go.string('may interpolate ${var}'),
  Namespace: Go.any('enterprise: the namespace (a string)'),
});
type BindingRuleInput = Static<typeof BindingRuleBody>;

/** A binding rule as the API shows it (`Namespace` with the enterprise switch). */
function renderBindingRule(r: BindingRuleDoc & Indexed, enterprise: boolean | undefined): Record<string, unknown> {
  return {
    ID: r.ID,
    Description: r.Description,
    AuthMethod: r.AuthMethod,
    Selector: r.Selector,
    BindType: r.BindType,
    BindName: r.BindName,
    CreateIndex: r.CreateIndex,
    ModifyIndex: r.ModifyIndex,
    ...shownNamespace(enterprise, r),
  };
}

/**
 * Checks `input` against its auth method (of namespace `rule.ns`) in `tx` and stores rule
 * `rule.id` there (`existing` when updating).
 * @throws 400 with the reference's texts, e.g. `cannot find auth method with name "x"`,
 *   `invalid Binding Rule: Selector is invalid: <why>`, `Invalid Binding Rule: unknown BindType "x"`.
 */
function writeRule(tx: Txn, { id, ns }: NamespacedId, input: BindingRuleInput, existing: BindingRuleDoc | undefined): BindingRuleDoc & Indexed {
  const wanted = input.AuthMethod ?? '';
  if (existing && wanted !== '' && wanted !== existing.AuthMethod) throw meshBadRequest('the AuthMethod field of an Binding Rule is immutable');
  const methodName = wanted || existing?.AuthMethod || '';
  if (methodName === '') throw meshBadRequest('Invalid Binding Rule: no AuthMethod is set');
  const method = tx.get<AuthMethodDoc>(T.authMethods, authMethodKey(ns, methodName));
  if (!method) throw meshBadRequest(`cannot find auth method with name "${methodName}"`);
  const selector = input.Selector ?? '';
  if (selector !== '') {
    try {
      checkSelectors(compileFilter(selector), blankSelectable(method.Type));
    } catch (err) {
      if (err instanceof FilterError) throw meshBadRequest(`invalid Binding Rule: Selector is invalid: ${err.message}`);
      throw err;
    }
  }
  const bindType = input.BindType ?? '';
  if (bindType === '') throw meshBadRequest('Invalid Binding Rule: no BindType is set');
  const bindName = input.BindName ?? '';
  if (bindName === '') throw meshBadRequest('Invalid Binding Rule: no BindName is set');
  try {
    checkBindingRule({ selector, bindType, bindName }, projectedVarNames(method.Type, method.Config), MESH_BIND_PROFILE);
  } catch (err) {
    if (!(err instanceof AuthnError)) throw err;
    if (err.message.startsWith('unknown BindType')) throw meshBadRequest(`Invalid Binding Rule: ${err.message}`);
    if (err.message.startsWith('invalid bind name')) throw meshBadRequest('Invalid Binding Rule: invalid BindName');
    throw meshBadRequest(`Invalid Binding Rule: invalid BindName: ${err.message}`);
  }
  const description = input.Description ?? '';
  return tx.put<BindingRuleDoc>(T.bindingRules, id, {
    ...nsField(ns),
    ID: id,
    Description: description,
    AuthMethod: methodName,
    Selector: selector,
    BindType: bindType,
    BindName: bindName,
  });
}

/** Binding rule `id` if it lives in namespace `ns`. */
function ruleIn(read: { get<D>(table: string, id: string): (D & Indexed) | undefined }, id: string, ns: string): (BindingRuleDoc & Indexed) | undefined {
  const r = read.get<BindingRuleDoc>(T.bindingRules, id);
  return r && nsOf(r) === ns ? r : undefined;
}

async function write(ctx: Ctx, { id, ns }: NamespacedId, input: BindingRuleInput, mustExist: boolean): Promise<MeshReply> {
  const { result } = await ctx.deps.state.txn((tx) => {
    const existing = ruleIn(tx, id, ns);
    if (mustExist && !existing) throw meshNotFound(`cannot find binding rule ${id}`);
    return writeRule(tx, { id, ns }, input, existing);
  });
  return { body: renderBindingRule(result, ctx.deps.config.enterprise) };
}

function idParam(ctx: Ctx): string {
  if (!UUID_RE.test(ctx.params.id)) throw meshBadRequest('Binding Rule ID invalid UUID');
  return ctx.params.id;
}

/** The binding-rule routes. */
export const bindingRuleRoutes: readonly MeshRouteSpec[] = [
  {
    pattern: 'acl/binding-rule',
    synopsis: 'Create a binding rule',
    methods: {
      PUT: withBody(BindingRuleBody, {
        bodyKind: 'BindingRule',
        access: aclRule('write'),
        handle: async (ctx, body) => {
          const input = body ?? {};
          if (input.ID !== undefined && input.ID !== '') throw meshBadRequest('Cannot specify the ID when creating a new binding rule');
          return write(ctx, { id: newId(), ns: scopeOf(ctx, ctx.caller, input.Namespace) }, input, false);
        },
      }),
    },
  },
  {
    pattern: 'acl/binding-rule/:id',
    synopsis: 'Read, update or delete a binding rule',
    blocking: [T.bindingRules],
    methods: {
      GET: {
        access: aclRule('read'),
        handle: async (ctx) => {
          const ns = scopeOf(ctx, ctx.caller);
          const r = ruleIn(ctx.deps.state, idParam(ctx), ns);
          if (!r) throw notFoundIn('binding rule', ns);
          return { body: renderBindingRule(r, ctx.deps.config.enterprise), index: ctx.deps.state.tableIndex(T.bindingRules) };
        },
      },
      PUT: withBody(BindingRuleBody, {
        bodyKind: 'BindingRule',
        access: aclRule('write'),
        handle: async (ctx, body) => {
          const id = idParam(ctx);
          const input = body ?? {};
          if (input.ID !== undefined && input.ID !== '' && input.ID !== id) throw meshBadRequest('BindingRule ID in URL and payload do not match');
          return write(ctx, { id, ns: scopeOf(ctx, ctx.caller, input.Namespace) }, input, true);
        },
      }),
      DELETE: {
        access: aclRule('write'),
        handle: async (ctx) => {
          const id = idParam(ctx);
          const ns = scopeOf(ctx, ctx.caller);
          // A rule of another namespace is not there for this request: nothing to delete.
          await ctx.deps.state.txn((tx) => {
            if (ruleIn(tx, id, ns)) tx.delete(T.bindingRules, id);
          });
          return { body: true };
        },
      },
    },
  },
  {
    pattern: 'acl/binding-rules',
    synopsis: 'List binding rules, optionally of one auth method',
    blocking: [T.bindingRules],
    methods: {
      GET: {
        access: aclRule('read'),
        query: { authmethod: Type.String({ description: 'Only the rules of this auth method.' }) },
        handle: async (ctx) => {
          const scope = scopeOf(ctx, ctx.caller, undefined, true);
          const method = ctx.query.get('authmethod');
          const rules = ctx.deps.state
            .list<BindingRuleDoc>(T.bindingRules)
            .filter(inScope(scope))
            .filter((r) => !method || r.AuthMethod === method);
          return { body: rules.map((r) => renderBindingRule(r, ctx.deps.config.enterprise)), index: ctx.deps.state.tableIndex(T.bindingRules) };
        },
      },
    },
  },
];
