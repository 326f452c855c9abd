/**
 * The token auth method's paths, mounted at `auth/token/` (reference/secrets.md §4.1):
 * `create`, `lookup`, `lookup-self`, `lookup-accessor`, `renew-self`, `revoke-self`, `revoke`.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { CommaList, badRequest, commaList, forbidden } from '../../../kernel/http/index.js';
import { parseDuration } from '../../../kernel/util/duration.js';
import type { SecretsPath, SecretsRequest } from '../types.js';
import { authBlock, hashToken, lookupData, type TokenEntry } from './store.js';

const Duration = Type.Union([Type.String(), Type.Integer()], { description: 'duration: seconds or a Go duration string ("1h30m")' });

function caller(req: SecretsRequest): TokenEntry {
  if (!req.token) throw forbidden();
  return req.token;
}

const createPath: SecretsPath = {
  pattern: 'create',
  synopsis: 'Create a new token as a child of the calling token',
  description:
    'Creates a service token. Its policies must be a subset of the caller\'s unless the caller has the root policy; `default` is added unless `no_default_policy` is set.',
  fields: {
    policies: CommaList('policies of the new token'),
    meta: Type.Record(Type.String(), Type.String(), { description: 'metadata shown by lookup' }),
    no_parent: Type.Boolean({ description: 'create an orphan token (root only)' }),
    no_default_policy: Type.Boolean({ description: 'do not attach the default policy' }),
    renewable: Type.Boolean({ description: 'whether the token can be renewed', default: true }),
    ttl: { ...Duration, description: 'time to live; default 768h' },
    explicit_max_ttl: { ...Duration, description: 'hard limit on the lifetime, renewals included' },
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
        if (!isRoot) {
          const extra = policies.filter((p) => p !== 'default' && !parent.policies.includes(p));
          if (extra.length) throw badRequest(`child policies must be subset of parent: ${extra.join(', ')}`);
          if (d.id !== undefined) throw badRequest('root or sudo privileges required to specify token id');
          if (d.no_parent) throw badRequest('root or sudo privileges required to create orphan token');
        }
        const token = await req.core.tokens.create({
          policies,
          meta: (d.meta as Record<string, string> | undefined) ?? null,
          displayName: `token${d.display_name && d.display_name !== 'token' ? '-' + String(d.display_name) : ''}`,
          ttlS: d.ttl === undefined ? 0 : parseDuration(d.ttl, 'ttl'),
          explicitMaxTtlS: d.explicit_max_ttl === undefined ? 0 : parseDuration(d.explicit_max_ttl, 'explicit_max_ttl'),
          renewable: d.renewable as boolean,
          parent: d.no_parent ? undefined : parent,
          id: d.id as string | undefined,
          path: 'auth/token/create',
          namespaceId: req.ns.entry.id,
          now: req.now,
        });
        const known = await Promise.all(policies.map((p) => req.ns.knownPolicy(p)));
        const unknown = policies.filter((_, i) => !known[i]);
        return { data: null, auth: authBlock(token, req.now), warnings: unknown.map((p) => `Policy "${p}" does not exist`) };
      },
    },
  },
};

const lookupSelfPath: SecretsPath = {
  pattern: 'lookup-self',
  synopsis: 'Show the calling token\'s properties',
  operations: {
    read: { summary: 'Look up the calling token', handle: async (req) => ({ data: lookupData(caller(req), req.now) }) },
  },
};

const lookupPath: SecretsPath = {
  pattern: 'lookup',
  synopsis: 'Show a token\'s properties',
  fields: { token: Type.String({ description: 'the token to look up' }) },
  operations: {
    update: {
      summary: 'Look up a token',
      required: ['token'],
      handle: async (req) => {
        const found = await req.core.tokens.lookup(String(req.data.token), req.now);
        if (!found) throw badRequest('bad token');
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
        const found = await req.core.tokens.lookupAccessor(String(req.data.accessor), req.now);
        if (!found) throw badRequest('invalid accessor');
        return { data: lookupData(found, req.now) };
      },
    },
  },
};

const renewSelfPath: SecretsPath = {
  pattern: 'renew-self',
  synopsis: 'Renew the calling token',
  fields: { increment: { ...Duration, description: 'requested extension; default: the token\'s creation TTL' } },
  operations: {
    update: {
      summary: 'Renew the calling token',
      handle: async (req) => {
        const inc = req.data.increment === undefined ? 0 : parseDuration(req.data.increment, 'increment');
        const renewed = await req.core.tokens.renew(caller(req), inc, req.now);
        return { data: null, auth: authBlock(renewed, req.now) };
      },
    },
  },
};

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
        const found = await req.core.tokens.lookupAccessor(String(req.data.accessor), req.now);
        if (!found) throw badRequest('invalid accessor');
        await req.core.tokens.revoke(found.hash);
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
        const found = await req.core.tokens.lookup(String(req.data.token), req.now);
        // Idempotent like the reference: an unknown token is already revoked.
        if (found) await req.core.tokens.revoke(hashToken(found.id));
        return undefined;
      },
    },
  },
};

/** Every path of the token auth method. */
export const tokenPaths: readonly SecretsPath[] = [
  createPath,
  lookupSelfPath,
  lookupPath,
  lookupAccessorPath,
  renewSelfPath,
  revokeSelfPath,
  revokeAccessorPath,
  revokePath,
];

/** Help description of the token method's root. */
export const tokenHelp = 'The token credential backend is always enabled and builtin to the secrets service. It creates, looks up, renews and revokes tokens.';
