/**
 * Token endpoints (reference/mesh.md §6.3): `PUT /acl/token`, `GET|PUT|DELETE
 * /acl/token/:accessor`, `PUT /acl/token/:accessor/clone`, `GET /acl/token/self`,
 * `GET /acl/tokens`. Reads need `acl:read` (secrets shown only with `acl:write`), writes
 * `acl:write`; `token/self` needs only the token. In a secondary datacenter, writes of
 * global tokens go to the primary (reference/mesh.md §2.4).
 *
 * @module
 */
import { Type, type Static } from '@sinclair/typebox';
import { RenderCache, withBody, type ApiForward, type ApiQuery } from '../../../kernel/http/index.js';
import type { Indexed, StateStore } from '../../../kernel/store/index.js';
import { Go } from '../../../kernel/util/go-schema.js';
import { ANONYMOUS_TOKEN_ACCESSOR_ID } from '../acl/index.js';
import { aclRule, requireAclSupport, type MeshRouteSpec } from '../access.js';
import { meshBody } from '../body-decoding.js';
import { canSeeSecrets, type Ctx } from '../deps.js';
import { meshBadRequest, meshNotFound, type MeshReply } from '../http.js';
import { renderLinks, UUID_RE } from '../links.js';
import { expired } from '../resolve.js';
import { inScope, notFoundIn, scopeOf, shownNamespace } from '../ns-scope.js';
import { nsOf, T, type TokenDoc } from '../state.js';
import { createToken, newId, updateToken, withHash, type TokenInput, type TokenUpdateInput } from '../token-write.js';

/**
 * The fields of a token body (reference/mesh.md §6.3) but `Local`. The IDs, links,
 * identities, expiry, `AuthMethod` and `Namespace` keep their own checks and texts
 * (token-write.ts, links.ts, ns-scope.ts).
 */
const TOKEN_FIELDS = {
  AccessorID: Go.any("a UUID; new when absent (create), the URL's (update)"),
  SecretID: Go.any('a UUID; new when absent (create), unchanged (update)'),
  Description: Go.string(),
  Policies: Go.any('policy links: a list of {ID} or {Name}'),
  Roles: Go.any('role links: a list of {ID} or {Name}'),
  ServiceIdentities: Go.any('a list of {ServiceName, Datacenters}'),
  NodeIdentities: Go.any('a list of {NodeName, Datacenter}'),
  ExpirationTime: Go.any('an RFC 3339 time'),
  ExpirationTTL: Go.any('a Go duration ("1h") or nanoseconds'),
  AuthMethod: Go.any('refused outside of login'),
  Namespace: Go.any('enterprise: the namespace (a string)'),
};

/** The body of `PUT /acl/token`. */
const TokenBody = meshBody('Token', { ...TOKEN_FIELDS, Local: Go.bool('a token of this datacenter only') });

/** The body of `PUT /acl/token/:accessor`: `Local`, when given, must be the token's (its own text). */
const TokenUpdateBody = meshBody('Token', { ...TOKEN_FIELDS, Local: Go.any("the token's own Local") });

/** The body of `PUT /acl/token/:accessor/clone`: a `Description` that is not a string keeps the source's. */
const TokenCloneBody = meshBody('Token', { Description: Go.any("the clone's description (a string)"), Namespace: TOKEN_FIELDS.Namespace });

/** The hidden form of a secret (reference/mesh.md §6.3). */
const HIDDEN = '<hidden>';

/**
 * A token as the API shows it: links with current names, empty lists and absent optional
 * fields left out (the reference's omitempty), the secret hidden unless `showSecret`,
 * `Namespace` last with the enterprise switch (reference/mesh.md §6.2).
 */
export function renderToken(state: StateStore, t: TokenDoc & Indexed, showSecret: boolean, enterprise: boolean | undefined): Record<string, unknown> {
  const policies = renderLinks(state, T.policies, t.Policies);
  const roles = renderLinks(state, T.roles, t.Roles);
  return {
    AccessorID: t.AccessorID,
    SecretID: showSecret ? t.SecretID : HIDDEN,
    Description: t.Description,
    ...(policies.length > 0 && { Policies: policies }),
    ...(roles.length > 0 && { Roles: roles }),
    ...(t.ServiceIdentities.length > 0 && { ServiceIdentities: t.ServiceIdentities }),
    ...(t.NodeIdentities.length > 0 && { NodeIdentities: t.NodeIdentities }),
    Local: t.Local,
    ...(t.AuthMethod !== undefined && { AuthMethod: t.AuthMethod }),
    ...(t.ExpirationTime !== undefined && { ExpirationTime: t.ExpirationTime }),
    CreateTime: t.CreateTime,
    Hash: t.Hash,
    CreateIndex: t.CreateIndex,
    ModifyIndex: t.ModifyIndex,
    ...shownNamespace(enterprise, t),
  };
}

const render = (ctx: Ctx, t: TokenDoc & Indexed, showSecret: boolean) => renderToken(ctx.deps.state, t, showSecret, ctx.deps.config.enterprise);

/** Token reads: each stored token's reply, kept until the token, a policy or a role changes. */
const reads = new RenderCache<TokenDoc & Indexed>();

function accessorParam(ctx: Ctx): string {
  const id = ctx.params.accessor;
  if (!UUID_RE.test(id)) throw meshBadRequest('Accessor ID is missing or an invalid UUID');
  return id;
}

/** Token `id` if it exists in namespace `ns` and has not expired. */
function liveToken(read: { get<D>(table: string, id: string): (D & Indexed) | undefined }, ctx: Ctx, id: string, ns: string): (TokenDoc & Indexed) | undefined {
  const t = read.get<TokenDoc>(T.tokens, id);
  return t && nsOf(t) === ns && !expired(t, ctx.deps.now()) ? t : undefined;
}

/**
 * Where a token write runs: in a secondary, a write of a global token (or of one this
 * datacenter does not have) goes to the primary; a local token's stays here (reference/mesh.md §2.4).
 * A create reads the declared body (`ctx.input()`: decoded once, for this and the handler).
 * @throws 401 `ACL support disabled` first; 400 for a create body that is not JSON (`Token decoding failed: …`) or has a field of
 *   the wrong kind, before forwarding (the reference decodes before it forwards).
 */
function tokenWriteForward(ctx: Ctx): ApiForward | undefined {
  requireAclSupport(aclRule('write'), ctx.deps);
  const local =
    ctx.params.accessor === undefined ? ctx.input<TokenInput>()?.Local === true : ctx.deps.state.get<TokenDoc>(T.tokens, ctx.params.accessor)?.Local === true;
  return local ? undefined : 'primary';
}

async function create(ctx: Ctx, body: TokenInput | undefined): Promise<MeshReply> {
  const input = body ?? {};
  const who = ctx.caller;
  const namespace = scopeOf(ctx, who, input.Namespace);
  const { result } = await ctx.deps.state.txn((tx) => createToken(tx, input, { nowMs: ctx.deps.now(), namespace }));
  return { body: render(ctx, result, canSeeSecrets(who)) };
}

async function read(ctx: Ctx): Promise<MeshReply> {
  const who = ctx.caller;
  const ns = scopeOf(ctx, who);
  const t = liveToken(ctx.deps.state, ctx, accessorParam(ctx), ns);
  if (!t) throw notFoundIn('token', ns);
  const show = canSeeSecrets(who);
  // The links show the policies' and roles' current names: their tables' index is in the stamp.
  const stamp = `${show}/${ctx.deps.state.latestIndex(T.policies, T.roles)}`;
  const { body, json } = reads.get(t, stamp, (doc) => render(ctx, doc, show));
  return { body, json, index: ctx.deps.state.tableIndex(T.tokens) };
}

async function self(ctx: Ctx): Promise<MeshReply> {
  const t = ctx.secret === undefined ? undefined : ctx.deps.acl.lookup(ctx.secret);
  if (!t) throw meshNotFound('Supplied token does not exist');
  return { body: render(ctx, t, true), index: ctx.deps.state.tableIndex(T.tokens) };
}

async function update(ctx: Ctx, body: TokenUpdateInput | undefined): Promise<MeshReply> {
  const who = ctx.caller;
  const id = accessorParam(ctx);
  const input = body ?? {};
  if (input.AccessorID !== undefined && input.AccessorID !== '' && input.AccessorID !== id)
    throw meshBadRequest('Token Accessor ID in URL and payload do not match');
  const ns = scopeOf(ctx, who, input.Namespace);
  const { result } = await ctx.deps.state.txn((tx) => {
    const existing = liveToken(tx, ctx, id, ns);
    if (!existing) throw meshNotFound(`Cannot find token "${id}"`);
    return updateToken(tx, existing, input);
  });
  return { body: render(ctx, result, canSeeSecrets(who)) };
}

async function clone(ctx: Ctx, body: Static<typeof TokenCloneBody> | undefined): Promise<MeshReply> {
  const who = ctx.caller;
  const id = accessorParam(ctx);
  const input = body ?? {};
  const ns = scopeOf(ctx, who, input.Namespace);
  const { result } = await ctx.deps.state.txn((tx) => {
    const src = liveToken(tx, ctx, id, ns);
    if (!src) throw meshNotFound(`Cannot find token "${id}"`);
    if (src.AuthMethod !== undefined) throw meshBadRequest('Cannot clone a token created from an auth method');
    const accessor = newId();
    const { Hash: _h, CreateIndex: _c, ModifyIndex: _m, ...rest } = src;
    const description = typeof input.Description === 'string' ? input.Description : src.Description;
    return tx.put(
      T.tokens,
      accessor,
      withHash({ ...rest, AccessorID: accessor, SecretID: newId(), Description: description, CreateTime: new Date(ctx.deps.now()).toISOString() }),
    );
  });
  return { body: render(ctx, result, canSeeSecrets(who)) };
}

async function remove(ctx: Ctx): Promise<MeshReply> {
  const who = ctx.caller;
  const id = accessorParam(ctx);
  if (id === ANONYMOUS_TOKEN_ACCESSOR_ID) throw meshBadRequest('Delete operation not permitted on the anonymous token');
  if (id === who.accessorId) throw meshBadRequest("Deletion of the request's authorization token is not permitted");
  const ns = scopeOf(ctx, who);
  // A token of another namespace is not there for this request: nothing to delete.
  await ctx.deps.state.txn((tx) => {
    const t = tx.get<TokenDoc>(T.tokens, id);
    if (t && nsOf(t) === ns) tx.delete(T.tokens, id);
  });
  return { body: true };
}

/** The query parameters of the token list: each narrows it to tokens linked to what it names. */
const LIST_QUERY: ApiQuery = {
  policy: Type.String({ description: 'A policy ID.' }),
  role: Type.String({ description: 'A role ID.' }),
  authmethod: Type.String({ description: 'An auth method name.' }),
  servicename: Type.String({ description: 'A service identity’s service name.' }),
};

async function list(ctx: Ctx): Promise<MeshReply> {
  const who = ctx.caller;
  const q = ctx.query;
  const now = ctx.deps.now();
  const show = canSeeSecrets(who);
  const scope = scopeOf(ctx, who, undefined, true);
  const items = ctx.deps.state
    .list<TokenDoc>(T.tokens)
    .filter(inScope(scope))
    .filter((t) => !expired(t, now))
    .filter((t) => !q.get('policy') || t.Policies.some((p) => p.ID === q.get('policy')))
    .filter((t) => !q.get('role') || t.Roles.some((r) => r.ID === q.get('role')))
    .filter((t) => !q.get('authmethod') || t.AuthMethod === q.get('authmethod'))
    .filter((t) => !q.get('servicename') || t.ServiceIdentities.some((s) => s.ServiceName === q.get('servicename')))
    .map((t) => render(ctx, t, show));
  return { body: items, index: ctx.deps.state.tableIndex(T.tokens) };
}

/** The token routes: reads need `acl:read`, writes `acl:write`, `token/self` only a token that resolves. */
export const tokenRoutes: readonly MeshRouteSpec[] = [
  {
    pattern: 'acl/token',
    synopsis: 'Create a token',
    methods: { PUT: withBody(TokenBody, { bodyKind: 'Token', access: aclRule('write'), forward: tokenWriteForward, handle: create }) },
  },
  { pattern: 'acl/token/self', synopsis: "Read the request's own token", methods: { GET: { access: aclRule(), handle: self } }, blocking: [T.tokens] },
  {
    pattern: 'acl/token/:accessor/clone',
    synopsis: 'Clone a token',
    methods: { PUT: withBody(TokenCloneBody, { bodyKind: 'Token', access: aclRule('write'), forward: tokenWriteForward, handle: clone }) },
  },
  {
    pattern: 'acl/token/:accessor',
    synopsis: 'Read, update or delete a token',
    methods: {
      GET: { access: aclRule('read'), handle: read },
      PUT: withBody(TokenUpdateBody, { bodyKind: 'Token', access: aclRule('write'), forward: tokenWriteForward, handle: update }),
      DELETE: { access: aclRule('write'), forward: tokenWriteForward, handle: remove },
    },
    blocking: [T.tokens],
  },
  { pattern: 'acl/tokens', synopsis: 'List tokens', methods: { GET: { access: aclRule('read'), query: LIST_QUERY, handle: list } }, blocking: [T.tokens] },
];
