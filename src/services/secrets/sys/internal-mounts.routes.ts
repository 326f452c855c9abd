/**
 * `sys/internal/ui/mounts/:path`: which engine serves a path (type, KV version, mount
 * path), for clients that must choose between KV version 1 and 2 paths, as the
 * reference CLI's `kv` commands do. Answers only for a path on which the token holds
 * some capability, so it reveals no more than the token can already use.
 *
 * @module
 */
import { forbidden, notFound } from '../../../kernel/http/index.js';
import { mountInfo } from '../mounts/info.js';
import type { SecretsPath } from '../types.js';

const PROBED = ['read', 'list', 'create', 'update', 'delete', 'patch'] as const;

/** The `sys/internal/ui/mounts/:path` path. */
export const internalMountsPath: SecretsPath = {
  pattern: 'internal/ui/mounts/:path+',
  synopsis: 'The mount serving a path: its type, options (KV version) and mount path',
  params: { path: 'a path under the mount, e.g. secret/app/db' },
  operations: {
    read: {
      summary: 'Look up the mount of a path',
      handle: async (req) => {
        const path = req.params.path;
        const mount = req.ns.mounts.route(path);
        if (!mount || mount.path.startsWith('auth/') || mount.type === 'system') throw notFound();
        const token = req.token;
        if (!token) throw forbidden();
        const rest = path.slice(mount.path.length);
        // KV v2 rules name the API paths (`secret/data/…`), v1 rules the key itself.
        const candidates =
          mount.options?.version === '2' ? ['data', 'metadata', 'delete', 'undelete', 'destroy'].map((f) => `${mount.path}${f}/${rest}`) : [path];
        for (const p of candidates)
          for (const cap of PROBED) if (await req.core.allowed(token, p, cap, { ns: req.ns.entry })) return { data: { ...mountInfo(mount), path: mount.path } };
        throw forbidden();
      },
    },
  },
};
