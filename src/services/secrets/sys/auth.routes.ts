/**
 * `sys/auth`: list, enable, read, disable and tune auth methods (reference/secrets.md
 * §3.6). Like `sys/mounts`, the list copies its data to the top level (§1.1).
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { badRequest, notFound } from '../../../kernel/http/index.js';
import type { SecretsPath, SecretsRequest } from '../types.js';
import { AUTH_METHODS } from '../auth/methods.js';
import { authInfo, authInput, authKey, authTuneInfo, checkLeaseOrder, disableAuthMethod, leaseTtl } from './auth.js';

/** The auth method types `sys/auth/:path` enables, for its help text. */
const METHOD_TYPES = [...AUTH_METHODS.keys()];

const Ttl = Type.Union([Type.String(), Type.Integer()], { description: 'seconds or a duration string; 0 = system default (768h)' });

/** The auth mount at `auth/<path>/`, or undefined. */
const authMount = (req: SecretsRequest) => req.ns.mounts.get('auth/' + req.params.path);

const authListPath: SecretsPath = {
  pattern: 'auth',
  synopsis: 'List the enabled auth methods',
  operations: {
    read: {
      summary: 'List enabled auth methods',
      handle: async (req) => {
        const entries = req.ns.mounts.list().filter((e) => e.path.startsWith('auth/'));
        return { data: Object.fromEntries(entries.map((e) => [authKey(e), authInfo(e)])), topLevel: true };
      },
    },
  },
};

const authTunePath: SecretsPath = {
  pattern: 'auth/:path+/tune',
  synopsis: "Read or tune an auth method's configuration",
  params: { path: "the auth method's path, without auth/" },
  fields: { description: Type.String({ description: 'human-friendly description' }), default_lease_ttl: Ttl, max_lease_ttl: Ttl },
  operations: {
    read: {
      summary: "Read the auth method's configuration",
      handle: async (req) => {
        const e = authMount(req);
        if (!e) throw badRequest(`cannot fetch sysview for path "auth/${req.params.path}/"`);
        return { data: authTuneInfo(e) };
      },
    },
    update: {
      summary: "Tune the auth method's configuration",
      handle: async (req) => {
        const d = req.data;
        const def = leaseTtl(d.default_lease_ttl, 'default_lease_ttl');
        const max = leaseTtl(d.max_lease_ttl, 'max_lease_ttl');
        const e = authMount(req);
        if (!e) throw badRequest(`no auth method at "auth/${req.params.path}/"`);
        checkLeaseOrder(def ?? e.config.default_lease_ttl, max ?? e.config.max_lease_ttl);
        await req.ns.mounts.update(e.path, (m) => {
          if (d.description !== undefined) m.description = String(d.description);
          if (def !== undefined) m.config.default_lease_ttl = def;
          if (max !== undefined) m.config.max_lease_ttl = max;
        });
        return undefined;
      },
    },
  },
};

const authPath: SecretsPath = {
  pattern: 'auth/:path+',
  synopsis: 'Enable, read or disable an auth method at a path',
  description: `Types: ${METHOD_TYPES.map((t) => `\`${t}\``).join(', ')}. Disabling a method revokes the tokens it issued and deletes its users, roles and secret IDs; \`token/\` cannot be disabled.`,
  params: { path: 'where to enable the method, without auth/' },
  fields: {
    type: Type.String({ description: `auth method type: ${METHOD_TYPES.map((t) => `"${t}"`).join(', ')}` }),
    description: Type.String({ description: 'human-friendly description' }),
    config: Type.Object(
      { default_lease_ttl: Type.Optional(Ttl), max_lease_ttl: Type.Optional(Ttl) },
      { additionalProperties: true, description: 'default_lease_ttl, max_lease_ttl' },
    ),
    local: Type.Boolean({ description: 'not replicated' }),
    seal_wrap: Type.Boolean({ description: 'accepted for compatibility' }),
  },
  operations: {
    read: {
      summary: 'Read one auth method',
      handle: async (req) => {
        const e = authMount(req);
        if (!e) throw notFound();
        return { data: authInfo(e) };
      },
    },
    update: {
      summary: 'Enable an auth method',
      required: ['type'],
      handle: async (req) => {
        await req.ns.mounts.mountAuth(req.params.path, authInput(req.data));
        return undefined;
      },
    },
    delete: {
      summary: 'Disable an auth method, revoke its tokens and delete its data',
      handle: async (req) => {
        await disableAuthMethod(req.core, req.ns, req.params.path);
        return undefined;
      },
    },
  },
};

/** The `sys/auth` family, tune first so `auth/x/tune` is not taken for a method at `x/tune`. */

export const authPaths: readonly SecretsPath[] = [authListPath, authTunePath, authPath];
