/**
 * Role endpoints (reference/mesh.md §6.5): `PUT /acl/role`, `GET|PUT|DELETE /acl/role/:id`,
 * `GET /acl/role/name/:name`, `GET /acl/roles?policy=` (full roles, not stubs). In a
 * secondary datacenter writes go to the primary (reference/mesh.md §2.4).
 *
 * @module
 */
import { Type, type Static } from '@sinclair/typebox';
import { withBody } from '../../../kernel/http/index.js';
import type { Indexed, StateStore } from '../../../kernel/store/index.js';
import { Go } from '../../../kernel/util/go-schema.js';
import { roleHash } from '../acl/index.js';
import { aclRule, type MeshRouteSpec } from '../access.js';
import type { Ctx } from '../deps.js';
import { meshBody } from '../body-decoding.js';
import { meshBadRequest, meshNotFound, type MeshReply } from '../http.js';
import { nodeIdentities, policyLinks, renderLinks, serviceIdentities, UUID_RE } from '../links.js';
import { inScope, notFoundIn, scopeOf, shownNamespace } from '../ns-scope.js';
import { nameKey, nsField, nsOf, T, type NamespacedId, type RoleDoc } from '../state.js';
import { newId } from '../token-write.js';

const NAME = /^[A-Za-z0-9\-_]{1,256}$/;

/**
 * The body of `PUT /acl/role[/:id]` (reference/mesh.md §6.5). `ID`, the links, the
 * identities and `Namespace` keep their own checks and texts (links.ts, ns-scope.ts).
 */
const RoleBody = meshBody('Role', {
  ID: Go.any("must be empty on create, the URL's ID on update"),
  Name: Go.string(),
  Description: Go.string(),
  Policies: Go.any('policy links: a list of {ID} or {Name}'),
  ServiceIdentities: Go.any('a list of {ServiceName, Datacenters}'),
  NodeIdentities: Go.any('a list of {NodeName, Datacenter}'),
  Namespace: Go.any('enterprise: the namespace (a string)'),
});
type RoleInput = Static<typeof RoleBody>;

/** A role as the API shows it, links with current names (`Namespace` with the enterprise switch). */
function renderRole(state: StateStore, r: RoleDoc & Indexed, enterprise: boolean | undefined): Record<string, unknown> {
  const policies = renderLinks(state, T.policies, r.Policies);
  return {
    ID: r.ID,
    Name: r.Name,
    Description: r.Description,
    ...(policies.length > 0 && { Policies: policies }),
    ...(r.ServiceIdentities.length > 0 && { ServiceIdentities: r.ServiceIdentities }),
    ...(r.NodeIdentities.length > 0 && { NodeIdentities: r.NodeIdentities }),
    Hash: r.Hash,
    CreateIndex: r.CreateIndex,
    ModifyIndex: r.ModifyIndex,
    ...shownNamespace(enterprise, r),
  };
}

const render = (ctx: Ctx, r: RoleDoc & Indexed) => renderRole(ctx.deps.state, r, ctx.deps.config.enterprise);

/** Role `id` if it lives in namespace `ns`. */
function roleIn(read: { get<D>(table: string, id: string): (D & Indexed) | undefined }, id: string, ns: string): (RoleDoc & Indexed) | undefined {
  const r = read.get<RoleDoc>(T.roles, id);
  return r && nsOf(r) === ns ? r : undefined;
}

/** Writes role `role.id` of namespace `role.ns` (names unique per namespace, policies of `ns` only). */
async function write(ctx: Ctx, { id, ns }: NamespacedId, input: RoleInput, mustExist: boolean): Promise<MeshReply> {
  const { result } = await ctx.deps.state.txn((tx) => {
    if (mustExist && !roleIn(tx, id, ns)) throw meshNotFound(`cannot find role ${id}`);
    const name = input.Name ?? '';
    if (name === '') throw meshBadRequest('Invalid Role: no Name is set');
    if (!NAME.test(name)) throw meshBadRequest("Invalid Role: invalid Name. Only alphanumeric characters, '-' and '_' are allowed");
    const other = tx.getBy<RoleDoc>(T.roles, 'name', nameKey(ns, name));
    if (other && other.ID !== id) throw meshBadRequest(`Invalid Role: A Role with Name "${name}" already exists`);
    const description = input.Description ?? '';
    const policies = policyLinks(tx, input.Policies, ns);
    const services = serviceIdentities(input.ServiceIdentities, 'role');
    const nodes = nodeIdentities(input.NodeIdentities, 'role');
    const hash = roleHash({
      name,
      description,
      policyIds: policies.map((p) => p.ID),
      serviceIdentities: services.map((s) => ({ serviceName: s.ServiceName, datacenters: s.Datacenters })),
      nodeIdentities: nodes.map((n) => ({ nodeName: n.NodeName, datacenter: n.Datacenter })),
    });
    return tx.put<RoleDoc>(T.roles, id, {
      ...nsField(ns),
      ID: id,
      Name: name,
      Description: description,
      Policies: policies,
      ServiceIdentities: services,
      NodeIdentities: nodes,
      Hash: hash,
    });
  });
  return { body: render(ctx, result) };
}

function idParam(ctx: Ctx): string {
  if (!UUID_RE.test(ctx.params.id)) throw meshBadRequest('Role ID invalid UUID');
  return ctx.params.id;
}

/** The role routes: reads need `acl:read`, writes `acl:write` and go to the primary datacenter. */
export const roleRoutes: readonly MeshRouteSpec[] = [
  {
    pattern: 'acl/role',
    synopsis: 'Create a role',
    methods: {
      PUT: withBody(RoleBody, {
        bodyKind: 'Role',
        access: aclRule('write'),
        forward: 'primary',
        handle: async (ctx, body) => {
          const input = body ?? {};
          if (input.ID !== undefined && input.ID !== '') throw meshBadRequest('Cannot specify the ID when creating a new role');
          return write(ctx, { id: newId(), ns: scopeOf(ctx, ctx.caller, input.Namespace) }, input, false);
        },
      }),
    },
  },
  {
    pattern: 'acl/role/name/:name',
    synopsis: 'Read a role by name',
    blocking: [T.roles],
    methods: {
      GET: {
        access: aclRule('read'),
        handle: async (ctx) => {
          const ns = scopeOf(ctx, ctx.caller);
          const r = ctx.deps.state.getBy<RoleDoc>(T.roles, 'name', nameKey(ns, ctx.params.name));
          if (!r) throw notFoundIn('role', ns);
          return { body: render(ctx, r), index: ctx.deps.state.tableIndex(T.roles) };
        },
      },
    },
  },
  {
    pattern: 'acl/role/:id',
    synopsis: 'Read, update or delete a role',
    blocking: [T.roles],
    methods: {
      GET: {
        access: aclRule('read'),
        handle: async (ctx) => {
          const ns = scopeOf(ctx, ctx.caller);
          const r = roleIn(ctx.deps.state, idParam(ctx), ns);
          if (!r) throw notFoundIn('role', ns);
          return { body: render(ctx, r), index: ctx.deps.state.tableIndex(T.roles) };
        },
      },
      PUT: withBody(RoleBody, {
        bodyKind: 'Role',
        access: aclRule('write'),
        forward: 'primary',
        handle: async (ctx, body) => {
          const id = idParam(ctx);
          const input = body ?? {};
          if (input.ID !== undefined && input.ID !== '' && input.ID !== id) throw meshBadRequest('Role ID in URL and payload do not match');
          return write(ctx, { id, ns: scopeOf(ctx, ctx.caller, input.Namespace) }, input, true);
        },
      }),
      DELETE: {
        access: aclRule('write'),
        forward: 'primary',
        handle: async (ctx) => {
          const id = idParam(ctx);
          const ns = scopeOf(ctx, ctx.caller);
          // A role of another namespace is not there for this request: nothing to delete.
          await ctx.deps.state.txn((tx) => {
            if (roleIn(tx, id, ns)) tx.delete(T.roles, id);
          });
          return { body: true };
        },
      },
    },
  },
  {
    pattern: 'acl/roles',
    synopsis: 'List roles',
    blocking: [T.roles],
    methods: {
      GET: {
        access: aclRule('read'),
        query: { policy: Type.String({ description: 'Only roles linked to this policy ID.' }) },
        handle: async (ctx) => {
          const scope = scopeOf(ctx, ctx.caller, undefined, true);
          const policy = ctx.query.get('policy');
          const roles = ctx.deps.state
            .list<RoleDoc>(T.roles)
            .filter(inScope(scope))
            .filter((r) => !policy || r.Policies.some((p) => p.ID === policy));
          return { body: roles.map((r) => render(ctx, r)), index: ctx.deps.state.tableIndex(T.roles) };
        },
      },
    },
  },
];
