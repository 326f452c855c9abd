/**
 * Role endpoints (reference/mesh.md §6.5): `PUT /acl/role`, `GET|PUT|DELETE /acl/role/:id`,
 * `GET /acl/role/name/:name`, `GET /acl/roles?policy=` (full roles, not stubs). In a
 * secondary datacenter writes go to the primary (reference/mesh.md §2.4).
 *
 * @module
 */
import type { Indexed, StateStore } from '../../../kernel/store/index.js';
import { roleHash } from '../acl/index.js';
import { callerOf, forwardToPrimary, type Ctx, type MeshDeps } from '../deps.js';
import { meshBadRequest, meshNotFound, type MeshReply, type MeshRoute } from '../http.js';
import { nodeIdentities, policyLinks, renderLinks, serviceIdentities, stringField, UUID_RE } from '../links.js';
import { T, type RoleDoc } from '../state.js';
import { newId } from '../token-write.js';

const NAME = /^[A-Za-z0-9\-_]{1,256}$/;

interface RoleInput {
  readonly ID?: unknown;
  readonly Name?: unknown;
  readonly Description?: unknown;
  readonly Policies?: unknown;
  readonly ServiceIdentities?: unknown;
  readonly NodeIdentities?: unknown;
}

/** A role as the API shows it, links with current names. */
export function renderRole(state: StateStore, r: RoleDoc & Indexed): Record<string, unknown> {
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
  };
}

async function write(ctx: Ctx, id: string, input: RoleInput, mustExist: boolean): Promise<MeshReply> {
  const { result } = await ctx.deps.state.txn((tx) => {
    if (mustExist && !tx.get(T.roles, id)) throw meshNotFound(`cannot find role ${id}`);
    const name = stringField(input.Name, 'Name') ?? '';
    if (name === '') throw meshBadRequest('Invalid Role: no Name is set');
    if (!NAME.test(name)) throw meshBadRequest("Invalid Role: invalid Name. Only alphanumeric characters, '-' and '_' are allowed");
    const other = tx.getBy<RoleDoc>(T.roles, 'name', name);
    if (other && other.ID !== id) throw meshBadRequest(`Invalid Role: A Role with Name "${name}" already exists`);
    const description = stringField(input.Description, 'Description') ?? '';
    const policies = policyLinks(tx, input.Policies);
    const services = serviceIdentities(input.ServiceIdentities, 'role');
    const nodes = nodeIdentities(input.NodeIdentities, 'role');
    const hash = roleHash({
      name,
      description,
      policyIds: policies.map((p) => p.ID),
      serviceIdentities: services.map((s) => ({ serviceName: s.ServiceName, datacenters: s.Datacenters })),
      nodeIdentities: nodes.map((n) => ({ nodeName: n.NodeName, datacenter: n.Datacenter })),
    });
    return tx.put<RoleDoc>(T.roles, id, { ID: id, Name: name, Description: description, Policies: policies, ServiceIdentities: services, NodeIdentities: nodes, Hash: hash });
  });
  return { body: renderRole(ctx.deps.state, result) };
}

function idParam(ctx: Ctx): string {
  if (!UUID_RE.test(ctx.params.id)) throw meshBadRequest('Role ID invalid UUID');
  return ctx.params.id;
}

const notFound = () => meshNotFound('Requested role does not exist: ACL not found');

/** The role routes. */
export const roleRoutes: readonly MeshRoute<MeshDeps>[] = [
  {
    pattern: 'acl/role',
    synopsis: 'Create a role',
    methods: {
      PUT: async (ctx) => {
        const primary = await forwardToPrimary(ctx);
        if (primary) return primary;
        callerOf(ctx, 'acl', 'write');
        const input = ctx.body<RoleInput>('Role') ?? {};
        if (input.ID !== undefined && input.ID !== '') throw meshBadRequest('Cannot specify the ID when creating a new role');
        return write(ctx, newId(), input, false);
      },
    },
  },
  {
    pattern: 'acl/role/name/:name',
    synopsis: 'Read a role by name',
    blocking: [T.roles],
    methods: {
      GET: async (ctx) => {
        callerOf(ctx, 'acl', 'read');
        const r = ctx.deps.state.getBy<RoleDoc>(T.roles, 'name', ctx.params.name);
        if (!r) throw notFound();
        return { body: renderRole(ctx.deps.state, r), index: ctx.deps.state.tableIndex(T.roles) };
      },
    },
  },
  {
    pattern: 'acl/role/:id',
    synopsis: 'Read, update or delete a role',
    blocking: [T.roles],
    methods: {
      GET: async (ctx) => {
        callerOf(ctx, 'acl', 'read');
        const r = ctx.deps.state.get<RoleDoc>(T.roles, idParam(ctx));
        if (!r) throw notFound();
        return { body: renderRole(ctx.deps.state, r), index: ctx.deps.state.tableIndex(T.roles) };
      },
      PUT: async (ctx) => {
        const primary = await forwardToPrimary(ctx);
        if (primary) return primary;
        callerOf(ctx, 'acl', 'write');
        const id = idParam(ctx);
        const input = ctx.body<RoleInput>('Role') ?? {};
        if (input.ID !== undefined && input.ID !== '' && input.ID !== id) throw meshBadRequest('Role ID in URL and payload do not match');
        return write(ctx, id, input, true);
      },
      DELETE: async (ctx) => {
        const primary = await forwardToPrimary(ctx);
        if (primary) return primary;
        callerOf(ctx, 'acl', 'write');
        const id = idParam(ctx);
        await ctx.deps.state.txn((tx) => tx.delete(T.roles, id));
        return { body: true };
      },
    },
  },
  {
    pattern: 'acl/roles',
    synopsis: 'List roles',
    blocking: [T.roles],
    methods: {
      GET: async (ctx) => {
        callerOf(ctx, 'acl', 'read');
        const policy = ctx.query.get('policy');
        const roles = ctx.deps.state.list<RoleDoc>(T.roles).filter((r) => !policy || r.Policies.some((p) => p.ID === policy));
        return { body: roles.map((r) => renderRole(ctx.deps.state, r)), index: ctx.deps.state.tableIndex(T.roles) };
      },
    },
  },
];
