/**
 * ACL role endpoints of the scheduler (the reference's `command/agent/acl_endpoint.go`
 * `ACLRole*Request`, `nomad/acl_endpoint.go` `UpsertRoles`, `DeleteRolesByID`, `ListRoles`,
 * `GetRoleByID`, `GetRoleByName`, `nomad/structs/acl.go` `ACLRole.Validate`,
 * `nomad/state/state_store_acl.go`):
 *
 * ```text
 * GET         /v1/acl/roles              stubs; a client token sees the roles it links; ?prefix= on ID
 * POST|PUT    /v1/acl/role               create (a body ID makes it an update of that role)
 * GET         /v1/acl/role/:id           management, or a token linking the role; 404 `ACL role not found`
 * POST|PUT    /v1/acl/role/:id           update; body ID must equal the path
 * DELETE      /v1/acl/role/:id           management; empty reply; 404 `ACL role not found`
 * GET         /v1/acl/role/name/:name    as GET by ID
 * ```
 *
 * A role is `{ID, Name, Description, Policies: [{Name}], Hash, CreateIndex, ModifyIndex}`;
 * every linked policy must exist. Writes go to the authoritative region (roles are global).
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import type { Indexed } from '../../../kernel/store/index.js';
import { ACL_MANAGEMENT, ACL_TOKEN, type SchedRoute } from '../access.js';
import { aclDelete, invalidObject } from '../acl-write.js';
import { contentHash } from '../auth/stamp.js';
import type { Ctx } from '../deps.js';
import { schedBadRequest, schedNotFound, writeReply, type SchedReply } from '../http.js';
import { PREFIX_QUERY, queryPrefix, requireInput } from '../request.js';
import { Go } from '../../../kernel/util/go-schema.js';
import { withBody } from '../../../kernel/http/index.js';
import type { Identity } from '../resolve.js';
import { T, type RoleDoc } from '../state.js';
import { decodeLinks } from '../go-struct.js';

/** Role names (the reference's `ValidACLRoleName`). */
const ROLE_NAME = /^[a-zA-Z0-9-]{1,128}$/;
/** Longest role description in bytes (the reference's `maxACLRoleDescriptionLength`). */
const MAX_ROLE_DESCRIPTION_BYTES = 256;
/** 404 text of a missing role (reference `command/agent/acl_endpoint.go`). */
const ROLE_NOT_FOUND = 'ACL role not found';

/** A role as the API shows it (the reference's `ACLRole`; its list stub has the same fields). */
function renderRole(r: RoleDoc & Indexed): Record<string, unknown> {
  return {
    ID: r.ID,
    Name: r.Name,
    Description: r.Description,
    Policies: r.Policies.map((p) => ({ Name: p.Name })),
    Hash: r.Hash,
    CreateIndex: r.CreateIndex,
    ModifyIndex: r.ModifyIndex,
  };
}

/** True when `who` may read `role`: a management token, or a token linking it. */
function mayRead(who: Identity, role: RoleDoc | undefined): boolean {
  return who.management || (role !== undefined && who.token.Roles.some((l) => l.ID === role.ID));
}

interface RoleInput {
  readonly ID: string;
  readonly Name: string;
  readonly Description: string;
  readonly Policies: readonly { Name: string }[];
}

/** The body of a role write (the reference's `structs.ACLRole`; `Policies` decoded by {@link roleInput}). */
const RoleBody = Go.struct(
  'ACLRole',
  { ID: Go.string('empty on create'), Name: Go.string(), Description: Go.string(), Policies: Go.any('[{"Name": "<policy>"}]') },
  { typePrefix: 'structs.' },
);

/**
 * The role in the decoded body. @throws 400 `Request body is empty`; the decoder's texts for
 * `Policies`, which name `ACLRole.Policies` and `structs.ACLRolePolicyLink` (go-struct.ts `decodeLinks`).
 */
function roleInput(input: Static<typeof RoleBody> | undefined): RoleInput {
  const d = requireInput(input);
  const policies = decodeLinks(d.Policies ?? undefined, { owner: 'ACLRole', field: 'Policies', linkType: 'ACLRolePolicyLink', keys: ['Name'] });
  return { ID: d.ID, Name: d.Name, Description: d.Description, Policies: policies };
}

/**
 * Creates (no ID) or updates a role. @throws 400 `role 0 invalid: …` (`invalid name '<n>'`,
 * `description longer than 256`, `at least one policy should be specified`), `role with name
 * <n> already exists`, `cannot find role <id>`, `ACL role with name <n> already exists`,
 * `cannot find policy <n>` (reference `UpsertRoles`, `upsertACLRoleTxn`).
 */
async function upsert(ctx: Ctx, body: Static<typeof RoleBody> | undefined, pathId: string | undefined): Promise<SchedReply> {
  const input = roleInput(body);
  if (pathId !== undefined && pathId !== input.ID) throw schedBadRequest('ACL role ID does not match request path');
  const errors: string[] = [];
  if (!ROLE_NAME.test(input.Name)) errors.push(`invalid name '${input.Name}'`);
  if (Buffer.byteLength(input.Description) > MAX_ROLE_DESCRIPTION_BYTES) errors.push(`description longer than ${MAX_ROLE_DESCRIPTION_BYTES}`);
  if (input.Policies.length < 1) errors.push('at least one policy should be specified');
  if (errors.length > 0) throw invalidObject('role', errors);
  const { result, index } = await ctx.deps.state.txn((tx) => {
    let id = input.ID;
    if (id === '') {
      if (tx.getBy(T.roles, 'name', input.Name)) throw schedBadRequest(`role with name ${input.Name} already exists`);
      id = randomUUID();
    } else {
      if (!tx.get(T.roles, id)) throw schedBadRequest(`cannot find role ${id}`);
      const other = tx.getBy<RoleDoc>(T.roles, 'name', input.Name);
      if (other && other.ID !== id) throw schedBadRequest(`ACL role with name ${input.Name} already exists`);
    }
    const names: string[] = [];
    for (const link of input.Policies) {
      if (!tx.get(T.policies, link.Name)) throw schedBadRequest(`cannot find policy ${link.Name}`);
      if (!names.includes(link.Name)) names.push(link.Name);
    }
    const doc: RoleDoc = {
      ID: id,
      Name: input.Name,
      Description: input.Description,
      Policies: names.map((Name) => ({ Name })),
      Hash: contentHash([input.Name, input.Description, names]),
    };
    const existing = tx.get<RoleDoc>(T.roles, id);
    // An unchanged role is not written, so blocking queries do not wake (reference upsertACLRoleTxn).
    return existing && existing.Hash === doc.Hash ? existing : tx.put(T.roles, id, doc);
  });
  return writeReply(index, renderRole(result));
}

/** Routes of this file (module doc). */
export const aclRoleRoutes: readonly SchedRoute[] = [
  {
    pattern: 'acl/roles',
    synopsis: 'List ACL roles (stubs); a client token sees the roles it links',
    blocking: [T.roles],
    methods: {
      GET: {
        access: ACL_TOKEN,
        query: PREFIX_QUERY,
        handle: async (ctx) => {
          const prefix = queryPrefix(ctx);
          const roles = ctx.deps.state.list<RoleDoc>(T.roles).filter((r) => r.ID.startsWith(prefix) && mayRead(ctx.caller, r));
          return { body: roles.map(renderRole), index: ctx.deps.state.tableIndex(T.roles) };
        },
      },
    },
  },
  {
    pattern: 'acl/role',
    synopsis: 'Create an ACL role',
    methods: {
      POST: withBody(RoleBody, { access: ACL_MANAGEMENT, forward: 'primary', handle: (ctx: Ctx, body) => upsert(ctx, body, undefined) }),
      PUT: withBody(RoleBody, { access: ACL_MANAGEMENT, forward: 'primary', handle: (ctx: Ctx, body) => upsert(ctx, body, undefined) }),
    },
  },
  {
    pattern: 'acl/role/name/:name',
    synopsis: 'Read an ACL role by name',
    blocking: [T.roles],
    methods: {
      GET: {
        // Management, or a token linking the role.
        access: (ctx) => ({ acl: 'management', orIf: (who) => mayRead(who, ctx.deps.state.getBy<RoleDoc>(T.roles, 'name', ctx.params.name!)) }),
        handle: async (ctx) => {
          const role = ctx.deps.state.getBy<RoleDoc>(T.roles, 'name', ctx.params.name!);
          if (!role) throw schedNotFound(ROLE_NOT_FOUND);
          return { body: renderRole(role), index: role.ModifyIndex };
        },
      },
    },
  },
  {
    pattern: 'acl/role/:id',
    synopsis: 'Read, update or delete an ACL role',
    blocking: [T.roles],
    methods: {
      GET: {
        // Management, or a token linking the role (whether it exists or not).
        access: (ctx) => ({ acl: 'management', orIf: (who) => who.token.Roles.some((l) => l.ID === ctx.params.id) }),
        handle: async (ctx) => {
          const role = ctx.deps.state.get<RoleDoc>(T.roles, ctx.params.id!);
          if (!role) throw schedNotFound(ROLE_NOT_FOUND);
          return { body: renderRole(role), index: role.ModifyIndex };
        },
      },
      POST: withBody(RoleBody, { access: ACL_MANAGEMENT, forward: 'primary', handle: (ctx: Ctx, body) => upsert(ctx, body, ctx.params.id) }),
      PUT: withBody(RoleBody, { access: ACL_MANAGEMENT, forward: 'primary', handle: (ctx: Ctx, body) => upsert(ctx, body, ctx.params.id) }),
      DELETE: {
        access: ACL_MANAGEMENT,
        forward: 'primary',
        handle: (ctx) => aclDelete(ctx, { table: T.roles, key: ctx.params.id!, missing: () => schedNotFound(ROLE_NOT_FOUND) }),
      },
    },
  },
];
