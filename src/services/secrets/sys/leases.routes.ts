/**
 * `sys/leases`: look leases up, list them, renew and revoke them one by one or by prefix,
 * and tidy the ones whose token is gone (the reference's `/sys/leases` API; Vault
 * `logical_system.go` handleLease*, handleRenew, handleRevoke*, handleTidyLeases), plus
 * the older aliases `sys/renew`, `sys/revoke`, `sys/revoke-prefix`, `sys/revoke-force`.
 * Listing and revoking by prefix need `sudo` (policy/acl.ts root-protected paths).
 *
 * Errors (400, the reference's texts): no lease id → `lease_id must be specified`;
 * lookup of an unknown lease → `invalid lease`; renew: `lease not found`, `lease expired`,
 * `lease is not renewable`, `past the max TTL, cannot renew`.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { badRequest } from '../../../kernel/http/index.js';
import { parseDuration } from '../../../kernel/util/duration.js';
import { lookupData } from '../lease/entry.js';
import type { SecretsPath, SecretsRequest, SecretsResult } from '../types.js';

const LeaseId = Type.String({ description: 'the id of the lease (`<mount><path>/<random id>`)' });
const Increment = Type.Union([Type.String(), Type.Integer()], {
  description: 'requested TTL extension, seconds or a duration string; 0 = the TTL the engine gives',
});
const Sync = Type.Boolean({ default: true, description: 'revoke now (default) rather than mark for the expiry loop, which answers 202' });
const PREFIX_PARAM = { prefix: 'lease id prefix (a mount path, a secret path, or a whole lease id)' };
const URL_LEASE_PARAM = { url_lease_id: 'the id of the lease (instead of `lease_id` in the body)' };

/** The namespace the request acts in: leases are kept per namespace. */
const nsOf = (req: SecretsRequest) => req.ns.entry.id;

/** The lease id from the body, else the URL. @throws 400 `lease_id must be specified`. */
function leaseIdOf(req: SecretsRequest): string {
  const id = (req.data.lease_id as string | undefined) || req.params.url_lease_id || '';
  if (id === '') throw badRequest('lease_id must be specified');
  return id;
}

/** `sync` as given (default true). */
const syncOf = (req: SecretsRequest) => req.data.sync !== false;

/** 202 without a body: the revocation is queued for the expiry loop (the reference's lazy revoke). */
const ACCEPTED: SecretsResult = { reply: { status: 202 } };

/** `PUT sys/leases/lookup` → `data`: {@link lookupData}. @throws 400 `lease_id must be specified`, `invalid lease`. */
async function lookup(req: SecretsRequest): Promise<SecretsResult> {
  const e = await req.core.leases.lookup(nsOf(req), leaseIdOf(req));
  if (!e) throw badRequest('invalid lease');
  return { data: lookupData(e, req.now.getTime()) };
}

/** `LIST sys/leases/lookup/:prefix` → `data.keys`: lease ids and sub-prefixes under it (404 when none). */
async function list(req: SecretsRequest): Promise<SecretsResult> {
  return { data: { keys: await req.core.leases.list(nsOf(req), req.params.prefix ?? '') } };
}

/**
 * `PUT sys/leases/renew` `{lease_id, increment}` → the envelope with `lease_id`, `renewable`,
 * `lease_duration` (seconds granted), the engine's `data` and the capping warning.
 * @throws 400: see the module doc; `increment` not a duration.
 */
async function renew(req: SecretsRequest): Promise<SecretsResult> {
  const incrementS = req.data.increment === undefined ? 0 : parseDuration(req.data.increment, 'increment');
  const g = await req.core.leases.renew(nsOf(req), leaseIdOf(req), incrementS);
  return { data: g.data ?? null, leaseId: g.leaseId, renewable: g.renewable, leaseDuration: g.ttlS, ...(g.warnings.length ? { warnings: g.warnings } : {}) };
}

/** `PUT sys/leases/revoke` `{lease_id, sync}` → 204 (sync, the default) or 202 (queued); an unknown lease is no error. */
async function revoke(req: SecretsRequest): Promise<SecretsResult | undefined> {
  const sync = syncOf(req);
  await req.core.leases.revoke(nsOf(req), leaseIdOf(req), { sync });
  return sync ? undefined : ACCEPTED;
}

/** `revoke-prefix` (`force` false; 204, or 202 with `sync=false`) and `revoke-force` (always now, 204). */
async function revokePrefix(req: SecretsRequest, force: boolean): Promise<SecretsResult | undefined> {
  const sync = force || syncOf(req);
  await req.core.leases.revokePrefix(nsOf(req), req.params.prefix, { sync, force });
  return sync ? undefined : ACCEPTED;
}

const lookupOp = { summary: 'Look up a lease', fields: { lease_id: LeaseId }, handle: lookup };
const listOp = { summary: 'List the lease ids under a prefix (sudo)', fields: {}, handle: list };
const renewOp = { summary: 'Renew a lease', fields: { lease_id: LeaseId, increment: Increment }, handle: renew };
const revokeOp = { summary: 'Revoke a lease', fields: { lease_id: LeaseId, sync: Sync }, handle: revoke };
const revokePrefixOp = {
  summary: 'Revoke every lease under a prefix (sudo)',
  fields: { sync: Sync },
  handle: (req: SecretsRequest) => revokePrefix(req, false),
};
const revokeForceOp = {
  summary: 'Revoke every lease under a prefix, dropping those whose engine fails to revoke them (sudo)',
  fields: {},
  handle: (req: SecretsRequest) => revokePrefix(req, true),
};

/** `path` and the same path with the lease id in the URL (`…/:url_lease_id+`). */
function withUrlId(pattern: string, synopsis: string, op: typeof renewOp | typeof revokeOp): SecretsPath[] {
  return [
    { pattern, synopsis, operations: { update: op } },
    { pattern: `${pattern}/:url_lease_id+`, synopsis, params: URL_LEASE_PARAM, operations: { update: op } },
  ];
}

const prefixPath = (pattern: string, synopsis: string, op: typeof revokePrefixOp | typeof revokeForceOp): SecretsPath => ({
  pattern: `${pattern}/:prefix+`,
  synopsis,
  params: PREFIX_PARAM,
  operations: { update: op },
  // `sys/leases/revoke-prefix/auth/approle/`: the prefix as users write it.
  trailingSlash: true,
});

/** Every `sys/leases` path and the older aliases. */
export const leasesPaths: readonly SecretsPath[] = [
  {
    pattern: 'leases/lookup',
    synopsis: 'Look up a lease, or list the top of the lease tree',
    description: 'PUT with `lease_id` returns the lease: `id`, `issue_time`, `expire_time`, `last_renewal`, `renewable`, `ttl` (seconds left).',
    operations: { update: lookupOp, list: listOp },
  },
  { pattern: 'leases/lookup/:prefix+', synopsis: 'List the lease ids under a prefix (needs sudo)', params: PREFIX_PARAM, operations: { list: listOp } },
  ...withUrlId('leases/renew', "Renew a lease by `increment` seconds, within the mount's max TTL", renewOp),
  ...withUrlId('leases/revoke', 'Revoke a lease now (`sync`, default) or through the expiry loop (202)', revokeOp),
  prefixPath('leases/revoke-prefix', 'Revoke every lease under a prefix (needs sudo)', revokePrefixOp),
  prefixPath('leases/revoke-force', 'Revoke every lease under a prefix, ignoring engine errors (needs sudo)', revokeForceOp),
  {
    pattern: 'leases/tidy',
    synopsis: 'Revoke the leases whose token no longer exists',
    operations: {
      update: {
        summary: 'Tidy dangling leases',
        fields: {},
        handle: async (req) => {
          const n = await req.core.leases.tidy(nsOf(req));
          req.core.log.info({ revoked: n }, 'tidy of leases finished');
          return { status: 202, warnings: ["Tidy operation successfully started. Any information from the operation will be printed to the server's logs."] };
        },
      },
    },
  },
  ...withUrlId('renew', 'Renew a lease (older alias of sys/leases/renew)', renewOp),
  ...withUrlId('revoke', 'Revoke a lease (older alias of sys/leases/revoke)', revokeOp),
  prefixPath('revoke-prefix', 'Revoke every lease under a prefix (older alias; needs sudo)', revokePrefixOp),
  prefixPath('revoke-force', 'Revoke every lease under a prefix, ignoring engine errors (older alias; needs sudo)', revokeForceOp),
];
