/**
 * Policy endpoints (reference/mesh.md §6.4): `PUT /acl/policy`, `GET|PUT|DELETE
 * /acl/policy/:id`, `GET /acl/policy/name/:name`, `GET /acl/policies` (stubs without
 * Rules). Rules are checked with the ACL language parser at write time; the built-in
 * `global-management` policy may be renamed but not changed or deleted (§6.1). In a
 * secondary datacenter writes go to the primary (§2.4).
 *
 * @module
 */
import type { Static } from '@sinclair/typebox';
import { withBody } from '../../../kernel/http/index.js';
import type { Indexed, Txn } from '../../../kernel/store/index.js';
import { Go } from '../../../kernel/util/go-schema.js';
import { GLOBAL_MANAGEMENT_POLICY, parseRules, policyHash, RulesError } from '../acl/index.js';
import { aclRule, type MeshRouteSpec } from '../access.js';
import type { Ctx } from '../deps.js';
import { meshBody } from '../body-decoding.js';
import { meshBadRequest, meshNotFound, type MeshReply } from '../http.js';
import { arrayField, UUID_RE } from '../links.js';
import { inScope, notFoundIn, scopeOf, shownNamespace } from '../ns-scope.js';
import { nameKey, nsField, nsOf, T, type NamespacedId, type PolicyDoc } from '../state.js';
import { newId } from '../token-write.js';

const NAME = /^[A-Za-z0-9\-_]{1,128}$/;

/**
 * The body of `PUT /acl/policy[/:id]` (reference/mesh.md §6.4). `ID`, `Datacenters` and
 * `Namespace` keep their own checks and texts (`Cannot specify the ID…`, `Datacenters must be
 * a list`, ns-scope.ts).
 */
const PolicyBody = meshBody('Policy', {
  ID: Go.any("must be empty on create, the URL's ID on update"),
  Name: Go.string(),
  Description: Go.string(),
  Rules: Go.string('ACL rules (HCL or JSON)'),
  Datacenters: Go.any('a list of datacenter names'),
  Namespace: Go.any('enterprise: the namespace (a string)'),
});
type PolicyInput = Static<typeof PolicyBody>;

/** A policy as the API shows it (`Datacenters` omitted when empty; `Namespace` with the enterprise switch). */
function renderPolicy(p: PolicyDoc & Indexed, enterprise: boolean | undefined, withRules = true): Record<string, unknown> {
  return {
    ID: p.ID,
    Name: p.Name,
    Description: p.Description,
    ...(withRules && { Rules: p.Rules }),
    ...(p.Datacenters?.length && { Datacenters: p.Datacenters }),
    Hash: p.Hash,
    CreateIndex: p.CreateIndex,
    ModifyIndex: p.ModifyIndex,
    ...shownNamespace(enterprise, p),
  };
}

/**
 * Writes policy `policy.id` of namespace `policy.ns` from `input` in `tx` (create when
 * `existing` is undefined). Names are unique per namespace. @throws 400 with the reference's texts.
 */
function writePolicy(tx: Txn, { id, ns }: NamespacedId, input: PolicyInput, existing: (PolicyDoc & Indexed) | undefined): PolicyDoc & Indexed {
  const name = input.Name ?? '';
  if (name === '') throw meshBadRequest('Invalid Policy: no Name is set');
  if (!NAME.test(name) && !(existing && existing.Name === name)) {
    throw meshBadRequest("Invalid Policy: invalid Name. Only alphanumeric characters, '-' and '_' are allowed");
  }
  const rules = input.Rules ?? '';
  const datacenters = arrayField<unknown>(input.Datacenters, 'Datacenters');
  if (datacenters.some((d) => typeof d !== 'string')) throw meshBadRequest('Datacenters must be a list of strings');
  const other = tx.getBy<PolicyDoc>(T.policies, 'name', nameKey(ns, name));
  if (other && other.ID !== id) throw meshBadRequest(`Invalid Policy: A Policy with Name "${name}" already exists`);
  if (id === GLOBAL_MANAGEMENT_POLICY.id && existing) {
    if (rules !== existing.Rules) throw meshBadRequest('Changing the Rules for the builtin global-management policy is not permitted');
    if (JSON.stringify(datacenters) !== JSON.stringify(existing.Datacenters ?? [])) {
      throw meshBadRequest('Changing the Datacenters of the builtin global-management policy is not permitted');
    }
  }
  try {
    parseRules(rules);
  } catch (err) {
    if (err instanceof RulesError) throw meshBadRequest(err.message);
    throw err;
  }
  const description = input.Description ?? '';
  const dcs = datacenters as string[];
  const doc: PolicyDoc = {
    ...nsField(ns),
    ID: id,
    Name: name,
    Description: description,
    Rules: rules,
    ...(dcs.length > 0 && { Datacenters: dcs }),
    Hash: policyHash({ name, description, rules, datacenters: dcs }),
  };
  return tx.put(T.policies, id, doc);
}

function idParam(ctx: Ctx): string {
  const id = ctx.params.id;
  if (!UUID_RE.test(id)) throw meshBadRequest('Policy ID invalid UUID');
  return id;
}

/** Policy `id` if it lives in namespace `ns`. */
function policyIn(read: { get<D>(table: string, id: string): (D & Indexed) | undefined }, id: string, ns: string): (PolicyDoc & Indexed) | undefined {
  const p = read.get<PolicyDoc>(T.policies, id);
  return p && nsOf(p) === ns ? p : undefined;
}

async function create(ctx: Ctx, body: PolicyInput | undefined): Promise<MeshReply> {
  const input = body ?? {};
  if (input.ID !== undefined && input.ID !== '') throw meshBadRequest('Cannot specify the ID when creating a new policy');
  const ns = scopeOf(ctx, ctx.caller, input.Namespace);
  const { result } = await ctx.deps.state.txn((tx) => writePolicy(tx, { id: newId(), ns }, input, undefined));
  return { body: renderPolicy(result, ctx.deps.config.enterprise) };
}

async function update(ctx: Ctx, body: PolicyInput | undefined): Promise<MeshReply> {
  const id = idParam(ctx);
  const input = body ?? {};
  if (input.ID !== undefined && input.ID !== '' && input.ID !== id) throw meshBadRequest('Policy ID in URL and payload do not match');
  const ns = scopeOf(ctx, ctx.caller, input.Namespace);
  const { result } = await ctx.deps.state.txn((tx) => {
    const existing = policyIn(tx, id, ns);
    if (!existing) throw meshNotFound(`cannot find policy ${id}`);
    return writePolicy(tx, { id, ns }, input, existing);
  });
  return { body: renderPolicy(result, ctx.deps.config.enterprise) };
}

async function read(ctx: Ctx): Promise<MeshReply> {
  const ns = scopeOf(ctx, ctx.caller);
  const p = policyIn(ctx.deps.state, idParam(ctx), ns);
  if (!p) throw notFoundIn('policy', ns);
  return { body: renderPolicy(p, ctx.deps.config.enterprise), index: ctx.deps.state.tableIndex(T.policies) };
}

async function readByName(ctx: Ctx): Promise<MeshReply> {
  const ns = scopeOf(ctx, ctx.caller);
  if (!ctx.params.name) throw meshBadRequest('Missing policy Name');
  const p = ctx.deps.state.getBy<PolicyDoc>(T.policies, 'name', nameKey(ns, ctx.params.name));
  if (!p) throw notFoundIn('policy', ns);
  return { body: renderPolicy(p, ctx.deps.config.enterprise), index: ctx.deps.state.tableIndex(T.policies) };
}

async function remove(ctx: Ctx): Promise<MeshReply> {
  const id = idParam(ctx);
  if (id === GLOBAL_MANAGEMENT_POLICY.id) throw meshBadRequest('Delete operation not permitted on the builtin global-management policy');
  const ns = scopeOf(ctx, ctx.caller);
  // A policy of another namespace is not there for this request: nothing to delete.
  await ctx.deps.state.txn((tx) => {
    if (policyIn(tx, id, ns)) tx.delete(T.policies, id);
  });
  return { body: true };
}

async function list(ctx: Ctx): Promise<MeshReply> {
  const scope = scopeOf(ctx, ctx.caller, undefined, true);
  const items = ctx.deps.state
    .list<PolicyDoc>(T.policies)
    .filter(inScope(scope))
    .map((p) => renderPolicy(p, ctx.deps.config.enterprise, false));
  return { body: items, index: ctx.deps.state.tableIndex(T.policies) };
}

/** The policy routes: reads need `acl:read`, writes `acl:write` and go to the primary datacenter. */
export const policyRoutes: readonly MeshRouteSpec[] = [
  {
    pattern: 'acl/policy',
    synopsis: 'Create a policy',
    methods: { PUT: withBody(PolicyBody, { bodyKind: 'Policy', access: aclRule('write'), forward: 'primary', handle: create }) },
  },
  {
    pattern: 'acl/policy/name/:name',
    synopsis: 'Read a policy by name',
    methods: { GET: { access: aclRule('read'), handle: readByName } },
    blocking: [T.policies],
  },
  {
    pattern: 'acl/policy/:id',
    synopsis: 'Read, update or delete a policy',
    methods: {
      GET: { access: aclRule('read'), handle: read },
      PUT: withBody(PolicyBody, { bodyKind: 'Policy', access: aclRule('write'), forward: 'primary', handle: update }),
      DELETE: { access: aclRule('write'), forward: 'primary', handle: remove },
    },
    blocking: [T.policies],
  },
  { pattern: 'acl/policies', synopsis: 'List policies', methods: { GET: { access: aclRule('read'), handle: list } }, blocking: [T.policies] },
];
