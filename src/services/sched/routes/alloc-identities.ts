/**
 * Signing an allocation's workload identities for its client (issue 27 scope 2; a Cairn
 * route for the reference's `Alloc.SignIdentities` RPC): the client asks for the identities
 * it hands its tasks that were not signed with the plan — named ones, and any with a `ttl`,
 * fresh at start and again at half their TTL (client/identities.ts).
 *
 * ```text
 * POST|PUT /v1/allocation/:id/identities  {"Identities":[{"TaskName","IdentityName"}…]}   the allocation's node secret only
 *   (a service identity: its task's name, or "" for a group's service; keyring/identity.ts findIdentity)
 *   → {"SignedIdentities":[{"TaskName","IdentityName","JWT","Expiration"}…]}   Expiration: RFC 3339, or null without a ttl
 * ```
 *
 * Only the node the allocation runs on may ask (its `SecretID`): no ACL token, management
 * included, gets a workload's credential from this route. Signing writes nothing.
 *
 * @module
 */
import type { StoredAlloc } from '../alloc.js';
import { allocTerminal } from '../alloc.js';
import { Go } from '../../../kernel/util/go-schema.js';
import type { SchedAccess, SchedRoute } from '../access.js';
import type { Ctx } from '../deps.js';
import { schedBadRequest, schedInternal, schedNotFound, type SchedReply } from '../http.js';
import type { Job } from '../jobs/types.js';
import { findIdentity, identityClaims } from '../keyring/identity.js';
import { T } from '../state.js';

/** Most identities one request may ask for. */
const MAX_REQUESTS = 64;

const IdentitiesBody = Go.struct('structs.AllocIdentitiesRequest', { Identities: Go.any('[{"TaskName", "IdentityName"}]: the identities to sign') });

/** The stored allocation. @throws 404 `alloc not found`. */
function storedAlloc(ctx: Ctx): StoredAlloc & { readonly Job?: Job } {
  const a = ctx.deps.state.get<StoredAlloc & { Job?: Job }>(T.allocs, ctx.params.id!);
  if (!a) throw schedNotFound('alloc not found');
  return a;
}

/** Only the secret of the allocation's node. */
const access = (ctx: Ctx): SchedAccess => ({ secretOf: { node: storedAlloc(ctx).NodeID } });

/** The asked identities. @throws 400 naming `Identities` and the bad entry. */
function requests(ctx: Ctx): { TaskName: string; IdentityName: string }[] {
  const raw = ctx.input<{ Identities?: unknown }>()?.Identities;
  if (!Array.isArray(raw) || raw.length === 0) throw schedBadRequest('Identities must be a non-empty list of {"TaskName", "IdentityName"}');
  if (raw.length > MAX_REQUESTS) throw schedBadRequest(`Identities: at most ${MAX_REQUESTS} per request`);
  return raw.map((r: unknown, i) => {
    const o = r as { TaskName?: unknown; IdentityName?: unknown } | null;
    if (typeof o?.TaskName !== 'string' || typeof o.IdentityName !== 'string')
      throw schedBadRequest(`Identities[${i}] must have string TaskName and IdentityName`);
    return { TaskName: o.TaskName, IdentityName: o.IdentityName };
  });
}

/** Signs each asked identity. @throws 400 for a terminal allocation, an unknown task or identity; 500 before the first key. */
async function sign(ctx: Ctx): Promise<SchedReply> {
  const asked = requests(ctx);
  const alloc = storedAlloc(ctx);
  if (allocTerminal(alloc)) throw schedBadRequest('alloc is terminal');
  const keyring = ctx.deps.keyring;
  if (!keyring) throw schedInternal('this agent keeps no keyring');
  const group = alloc.Job?.TaskGroups.find((g) => g.Name === alloc.TaskGroup);
  const nowMs = ctx.deps.now();
  const signed = asked.map((r) => {
    // TaskName "" asks for a group service's identity.
    if (!group || !alloc.Job || (r.TaskName !== '' && !group.Tasks.some((t) => t.Name === r.TaskName))) throw schedBadRequest(`unknown task "${r.TaskName}"`);
    const identity = findIdentity(group, r.TaskName, r.IdentityName);
    if (!identity)
      throw schedBadRequest(
        r.TaskName === '' ? `the group has no service identity "${r.IdentityName}"` : `task "${r.TaskName}" has no identity "${r.IdentityName}"`,
      );
    const claims = identityClaims({ ...alloc, Job: alloc.Job }, r.TaskName, identity, { region: ctx.deps.config.region, issuer: keyring.issuer, nowMs });
    const exp = claims.exp as number | undefined;
    return { ...r, JWT: keyring.sign(claims).jwt, Expiration: exp === undefined ? null : new Date(exp * 1000).toISOString() };
  });
  return { body: { SignedIdentities: signed } };
}

/** Routes of this file. */
export const allocIdentityRoutes: readonly SchedRoute[] = [
  {
    pattern: 'allocation/:id/identities',
    synopsis: "Sign workload identities of an allocation for its node (Cairn extension; the reference's clients use RPC)",
    methods: {
      POST: { access, body: IdentitiesBody, handle: sign },
      PUT: { access, body: IdentitiesBody, handle: sign },
    },
  },
];
