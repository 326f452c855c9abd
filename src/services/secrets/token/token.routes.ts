/**
 * The token auth method's paths, mounted at `auth/token/` (reference/secrets.md §4.1):
 * `create`, `lookup`, `lookup-self`, `lookup-accessor`, `renew-self`, `renew`,
 * `renew-accessor`, `revoke-self`, `revoke-accessor`, `revoke`. TTLs are capped at the token mount's maximum (768h by default).
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { CommaList, badRequest, commaList, forbidden } from '../../../kernel/http/index.js';
import { formatDuration, parseDuration } from '../../../kernel/util/duration.js';
import type { AuthMethods } from '../auth/method.js';
import { checkLoginRenewal } from '../auth/renewal.js';
import { DEFAULT_LEASE_TTL_S } from '../mounts/table.js';
import { RESPONSE_WRAPPING_POLICY } from '../policy/store.js';
import type { SecretsPath, SecretsRequest } from '../types.js';
import { authBlock, hashToken, lookupData, type StoredToken, type TokenEntry } from './store.js';

const Duration = Type.Union([Type.String(), Type.Integer()], { description: 'duration: seconds or a Go duration string ("1h30m")' });

function caller(req: SecretsRequest): TokenEntry {
  if (!req.token) throw forbidden();
  return req.token;
}

/** A duration field in seconds; absent → 0. Error (400) naming the field when it is negative or not a duration. */
function seconds(v: unknown, field: string): number {
  if (v === undefined) return 0;
  const s = parseDuration(v, field);
  if (s < 0) throw badRequest(`${field}: must not be negative`);
  return s;
}

/** The token mount's maximum TTL in seconds (`sys/auth/token/tune`), else the system's 768h. */
const mountMaxTtl = (req: SecretsRequest): number => req.mount.config.max_lease_ttl || DEFAULT_LEASE_TTL_S;

/** The reference's warning when a requested TTL is cut to the maximum (reference/secrets.md §4.1). */
const cappedWarning = (wantedS: number, maxS: number) =>
  `TTL of "${formatDuration(wantedS)}" exceeded the effective max_ttl of "${formatDuration(maxS)}"; TTL value is capped accordingly`;

/**
 * Whether token `t` may be named (by token or accessor) from the request's namespace:
 * it belongs to that namespace or one below it, never to a parent or a sibling
 * (reference/secrets.md §6).
 */
function reachable(req: SecretsRequest, t: StoredToken): boolean {
  const home = req.core.namespaces.byId(t.namespace_id ?? 'root');
  return home !== undefined && home.path.startsWith(req.ns.path);
}

/** The live token behind `accessor` as seen from the request's namespace; error (400) `invalid accessor`. */
async function byAccessor(req: SecretsRequest): Promise<StoredToken> {
  const found = await req.core.tokens.lookupAccessor(String(req.data.accessor), req.now);
  if (!found || !reachable(req, found)) throw badRequest('invalid accessor');
  return found;
}

/** The live token `req.data.token` as seen from the request's namespace, or undefined. */
async function byToken(req: SecretsRequest): Promise<TokenEntry | undefined> {
  const found = await req.core.tokens.lookup(String(req.data.token), req.now);
  return found && reachable(req, found) ? found : undefined;
}

const createPath: SecretsPath = {
  pattern: 'create',
  synopsis: 'Create a new token as a child of the calling token',
  description:
    "Creates a service token. Its policies must be a subset of the caller's unless the caller has the root policy; `default` is added unless `no_default_policy` is set.",
  fields: {
    policies: CommaList('policies of the new token'),
    meta: Type.Record(Type.String(), Type.String(), { description: 'metadata shown by lookup' }),
    no_parent: Type.Boolean({ description: 'create an orphan token (root only)' }),
    no_default_policy: Type.Boolean({ description: 'do not attach the default policy' }),
    renewable: Type.Boolean({ description: 'whether the token can be renewed', default: true }),
    ttl: { ...Duration, description: 'time to live; default 768h' },
    explicit_max_ttl: { ...Duration, description: 'hard limit on the lifetime, renewals included' },
    period: { ...Duration, description: 'make a periodic token: each renewal resets its TTL to this, with no maximum but explicit_max_ttl (root only)' },
    display_name: Type.String({ description: 'display name', default: 'token' }),
    id: Type.String({ description: 'the token itself (root callers only)' }),
  },
  operations: {
    update: {
      summary: 'Create a token',
      handle: async (req) => {
        const parent = caller(req);
        const d = req.data;
        const isRoot = parent.policies.includes('root');
        let policies = d.policies === undefined ? parent.policies.filter((p) => p !== 'root' || isRoot) : commaList(d.policies).map((p) => p.toLowerCase());
        if (!d.no_default_policy && !policies.includes('root') && !policies.includes('default')) policies = [...policies, 'default'];
        // Only wrapping tokens hold it (wrapping/wrap.ts): the reference's non-assignable policies.
        if (policies.includes(RESPONSE_WRAPPING_POLICY)) throw badRequest(`cannot assign policy "${RESPONSE_WRAPPING_POLICY}"`);
        if (!isRoot) {
          const extra = policies.filter((p) => p !== 'default' && !parent.policies.includes(p));
          if (extra.length) throw badRequest(`child policies must be subset of parent: ${extra.join(', ')}`);
          if (d.id !== undefined) throw badRequest('root or sudo privileges required to specify token id');
          if (d.no_parent) throw badRequest('root or sudo privileges required to create orphan token');
          if (d.period !== undefined) throw badRequest('root or sudo privileges required to create periodic token');
        }
        const periodS = seconds(d.period, 'period');
        const wantedTtl = seconds(d.ttl, 'ttl');
        const explicitMax = seconds(d.explicit_max_ttl, 'explicit_max_ttl');
        const maxTtl = explicitMax ? Math.min(explicitMax, mountMaxTtl(req)) : mountMaxTtl(req);
        const ttlS = Math.min(wantedTtl || req.mount.config.default_lease_ttl || DEFAULT_LEASE_TTL_S, maxTtl);
        const token = await req.core.tokens.create({
          policies,
          meta: (d.meta as Record<string, string> | undefined) ?? null,
          displayName: `token${d.display_name && d.display_name !== 'token' ? '-' + String(d.display_name) : ''}`,
          ttlS,
          explicitMaxTtlS: explicitMax,
          periodS,
          renewable: d.renewable as boolean,
          parent: d.no_parent ? undefined : parent,
          id: d.id as string | undefined,
          path: 'auth/token/create',
          namespaceId: req.ns.entry.id,
          now: req.now,
        });
        const known = await Promise.all(policies.map((p) => req.ns.knownPolicy(p)));
        const unknown = policies.filter((_, i) => !known[i]);
        const warnings = unknown.map((p) => `Policy "${p}" does not exist`);
        if (wantedTtl > maxTtl && !policies.includes('root')) warnings.push(cappedWarning(wantedTtl, maxTtl));
        return { data: null, auth: authBlock(token, req.now), warnings };
      },
    },
  },
};

const lookupSelfPath: SecretsPath = {
  pattern: 'lookup-self',
  synopsis: "Show the calling token's properties",
  operations: {
    read: { summary: 'Look up the calling token', handle: async (req) => ({ data: lookupData(caller(req), req.now) }) },
  },
};

const lookupPath: SecretsPath = {
  pattern: 'lookup',
  synopsis: "Show a token's properties",
  fields: { token: Type.String({ description: 'the token to look up' }) },
  operations: {
    update: {
      summary: 'Look up a token',
      required: ['token'],
      handle: async (req) => {
        const found = await byToken(req);
        // 403, not 400: the reference's handleLookup answers ErrPermissionDenied (hvac raises Forbidden).
        if (!found) throw forbidden('bad token');
        return { data: lookupData(found, req.now) };
      },
    },
  },
};

const lookupAccessorPath: SecretsPath = {
  pattern: 'lookup-accessor',
  synopsis: 'Show the properties of the token behind an accessor (the token itself is not shown)',
  fields: { accessor: Type.String({ description: 'accessor of the token' }) },
  operations: {
    update: {
      summary: 'Look up a token by accessor',
      required: ['accessor'],
      handle: async (req) => {
        return { data: lookupData(await byAccessor(req), req.now) };
      },
    },
  },
};

const incrementField = { ...Duration, description: "requested extension; default: the token's creation TTL" };

/**
 * Renews `token` by `req.data.increment` (seconds or a duration; default its creation TTL),
 * capped at its explicit or the mount's maximum, after its auth method's say (`methods`, the
 * registry); the reply's `auth` block has the new `lease_duration`, and a warning when capped.
 * Errors: 400 naming `increment`; what the renewal refuses (not renewable, the method's check).
 */
async function renewToken(req: SecretsRequest, token: TokenEntry, methods: AuthMethods) {
  const inc = seconds(req.data.increment, 'increment');
  await checkLoginRenewal(req, token, methods);
  const { token: renewed, capped } = await req.core.tokens.renew(token, inc, mountMaxTtl(req), req.now);
  const max = token.explicit_max_ttl || mountMaxTtl(req);
  return { data: null, auth: authBlock(renewed, req.now), warnings: capped ? [cappedWarning(inc || token.creation_ttl, max)] : [] };
}

/** `renew-self`; the auth method that issued the token has its say (`methods`: the auth-method registry, auth/methods.ts). */
const renewSelfPath = (methods: AuthMethods): SecretsPath => ({
  pattern: 'renew-self',
  synopsis: 'Renew the calling token',
  fields: { increment: incrementField },
  operations: {
    update: { summary: 'Renew the calling token', handle: (req) => renewToken(req, caller(req), methods) },
  },
});

/**
 * `renew` `{token, increment?}`: renews the token given in the body as `renew-self` does the
 * caller's (the reference's `auth/token/renew`, token_store.go `handleRenew`; clients such as
 * hvac's `auth.token.renew` call it). Errors: 400 `token not found` for a token unknown,
 * expired or out of the request's namespace.
 */
const renewPath = (methods: AuthMethods): SecretsPath => ({
  pattern: 'renew',
  synopsis: 'Renew a token',
  fields: { token: Type.String({ description: 'the token to renew' }), increment: incrementField },
  operations: {
    update: {
      summary: 'Renew a token',
      required: ['token'],
      handle: async (req) => {
        const found = await byToken(req);
        if (!found) throw badRequest('token not found');
        return renewToken(req, found, methods);
      },
    },
  },
});

/**
 * `renew-accessor` `{accessor, increment?}`: renews the token behind an accessor; the reply's
 * `auth` block leaves `client_token` empty, as the reference's does (token_store.go
 * `handleUpdateRenewAccessor`). Errors: 400 `invalid accessor`.
 */
const renewAccessorPath = (methods: AuthMethods): SecretsPath => ({
  pattern: 'renew-accessor',
  synopsis: 'Renew the token behind an accessor (the token itself is not shown)',
  fields: { accessor: Type.String({ description: 'accessor of the token' }), increment: incrementField },
  operations: {
    update: {
      summary: 'Renew a token by accessor',
      required: ['accessor'],
      // The token itself stays unknown here: an empty id is what `auth.client_token` shows.
      handle: async (req) => renewToken(req, { ...(await byAccessor(req)), id: '' }, methods),
    },
  },
});

const revokeSelfPath: SecretsPath = {
  pattern: 'revoke-self',
  synopsis: 'Revoke the calling token and all its children',
  operations: {
    update: {
      summary: 'Revoke the calling token',
      handle: async (req) => {
        await req.core.tokens.revoke(caller(req).hash);
        return undefined;
      },
    },
  },
};

const revokeAccessorPath: SecretsPath = {
  pattern: 'revoke-accessor',
  synopsis: 'Revoke the token behind an accessor, and all its children',
  fields: { accessor: Type.String({ description: 'accessor of the token' }) },
  operations: {
    update: {
      summary: 'Revoke a token by accessor',
      required: ['accessor'],
      handle: async (req) => {
        await req.core.tokens.revoke((await byAccessor(req)).hash);
        return undefined;
      },
    },
  },
};

const revokePath: SecretsPath = {
  pattern: 'revoke',
  synopsis: 'Revoke a token and all its children',
  fields: { token: Type.String({ description: 'the token to revoke' }) },
  operations: {
    update: {
      summary: 'Revoke a token',
      required: ['token'],
      handle: async (req) => {
        const found = await byToken(req);
        // Idempotent like the reference: an unknown token is already revoked.
        if (found) await req.core.tokens.revoke(hashToken(found.id));
        return undefined;
      },
    },
  },
};

/**
 * Every path of the token auth method. `methods`: the auth-method registry (auth/methods.ts),
 * handed in by the engine registry so that the token routes do not import every method's routes.
 */
export function tokenPaths(methods: AuthMethods): readonly SecretsPath[] {
  return [
    createPath,
    lookupSelfPath,
    lookupPath,
    lookupAccessorPath,
    renewSelfPath(methods),
    renewPath(methods),
    renewAccessorPath(methods),
    revokeSelfPath,
    revokeAccessorPath,
    revokePath,
  ];
}

/** Help description of the token method's root. */
export const tokenHelp = 'The token credential backend is always enabled and builtin to the secrets service. It creates, looks up, renews and revokes tokens.';
