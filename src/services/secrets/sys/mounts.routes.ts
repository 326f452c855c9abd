/**
 * `sys/mounts`: list, enable, read, disable and tune secrets engines
 * (reference/secrets.md §3.5).
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { badRequest, notFound } from '../../../kernel/http/index.js';
import { parseDuration } from '../../../kernel/util/duration.js';
import { mountInfo } from '../mounts/info.js';
import type { MountEntry, MountInput } from '../mounts/table.js';
import { checkMountNotShadowed } from '../namespace/shadowing.js';
import type { SecretsPath, SecretsRequest } from '../types.js';

const Ttl = Type.Union([Type.String(), Type.Integer()], { description: 'seconds or a duration string; 0 = system default' });

/**
 * Validates type and options of a new mount: `kv-v1`/`kv-v2` aliases, `options.version`
 * only for `kv` (reference/secrets.md §2.1). Errors: 400 naming the field.
 */
function mountInput(d: Record<string, unknown>, known: (type: string) => boolean): MountInput {
  let type = String(d.type);
  const options: Record<string, string> = {};
  for (const [k, v] of Object.entries((d.options as Record<string, unknown>) ?? {})) options[k] = String(v);
  if (type === 'kv-v1' || type === 'kv-v2') {
    options.version = type.slice(-1);
    type = 'kv';
  }
  if (!known(type)) throw badRequest(`type: unknown secrets engine type "${type}"`);
  if (type === 'kv') {
    options.version ??= '1';
    if (options.version !== '1' && options.version !== '2') throw badRequest(`options.version: must be "1" or "2", got "${options.version}"`);
  } else if (options.version !== undefined) {
    throw badRequest(`secrets engine "${type}" does not allow setting a version`);
  }
  const c = (d.config as Record<string, unknown>) ?? {};
  return {
    type,
    description: d.description as string | undefined,
    options: Object.keys(options).length ? options : null,
    config: {
      default_lease_ttl: c.default_lease_ttl === undefined ? 0 : parseDuration(c.default_lease_ttl, 'config.default_lease_ttl'),
      max_lease_ttl: c.max_lease_ttl === undefined ? 0 : parseDuration(c.max_lease_ttl, 'config.max_lease_ttl'),
      force_no_cache: c.force_no_cache === true,
    },
    local: d.local === true,
    seal_wrap: d.seal_wrap === true,
  };
}

function secretsMounts(req: SecretsRequest): MountEntry[] {
  return req.ns.mounts.list().filter((e) => !e.path.startsWith('auth/'));
}

const mountsPath: SecretsPath = {
  pattern: 'mounts',
  synopsis: 'List the mounted secrets engines',
  operations: {
    read: {
      summary: 'List mounted secrets engines',
      handle: async (req) => ({ data: Object.fromEntries(secretsMounts(req).map((e) => [e.path, mountInfo(e)])), topLevel: true }),
    },
  },
};

const tunePath: SecretsPath = {
  pattern: 'mounts/:path+/tune',
  synopsis: "Read or tune a mount's configuration",
  params: { path: 'the mount path' },
  fields: {
    description: Type.String({ description: 'human-friendly description' }),
    default_lease_ttl: Ttl,
    max_lease_ttl: Ttl,
    options: Type.Record(Type.String(), Type.Unknown(), { description: 'engine options; the KV version cannot be changed here' }),
  },
  operations: {
    read: {
      summary: 'Read the mount configuration',
      handle: async (req) => {
        const e = req.ns.mounts.get(req.params.path);
        if (!e) throw badRequest(`cannot fetch sysview for path "${req.params.path}/"`);
        return { data: { ...e.config, description: e.description, options: e.options } };
      },
    },
    update: {
      summary: 'Tune the mount configuration',
      handle: async (req) => {
        const d = req.data;
        const ttl = (f: string) => (d[f] === undefined ? undefined : parseDuration(d[f], f));
        const def = ttl('default_lease_ttl');
        const max = ttl('max_lease_ttl');
        const opts = d.options as Record<string, unknown> | undefined;
        const e = req.ns.mounts.get(req.params.path);
        if (!e) throw badRequest(`no mount at "${req.params.path}/"`);
        if (opts?.version !== undefined && String(opts.version) !== (e.options?.version ?? undefined))
          throw badRequest('options.version: changing the version of a mounted engine is not supported');
        await req.ns.mounts.update(req.params.path, (m) => {
          if (d.description !== undefined) m.description = String(d.description);
          if (def !== undefined) m.config.default_lease_ttl = def;
          if (max !== undefined) m.config.max_lease_ttl = max;
          if (opts) m.options = { ...(m.options ?? {}), ...Object.fromEntries(Object.entries(opts).map(([k, v]) => [k, String(v)])) };
        });
        return undefined;
      },
    },
  },
};

const mountPath: SecretsPath = {
  pattern: 'mounts/:path+',
  synopsis: 'Enable, read or disable a secrets engine at a path',
  params: { path: 'where to mount the engine' },
  fields: {
    type: Type.String({ description: 'engine type, e.g. "kv" (or "kv-v2")' }),
    description: Type.String({ description: 'human-friendly description' }),
    config: Type.Object({}, { additionalProperties: true, description: 'default_lease_ttl, max_lease_ttl, force_no_cache' }),
    options: Type.Record(Type.String(), Type.Unknown(), { description: 'engine options, e.g. {"version":"2"} for kv' }),
    local: Type.Boolean({ description: 'not replicated' }),
    seal_wrap: Type.Boolean({ description: 'accepted for compatibility' }),
  },
  operations: {
    read: {
      summary: 'Read one mount',
      handle: async (req) => {
        const e = req.ns.mounts.get(req.params.path);
        if (!e || e.path.startsWith('auth/')) throw notFound();
        return { data: mountInfo(e) };
      },
    },
    update: {
      summary: 'Enable a secrets engine',
      required: ['type'],
      handle: async (req) => {
        const input = mountInput(req.data, (t) => req.core.engineKnown(t));
        checkMountNotShadowed(req.core.namespaces, req.ns.entry, req.params.path);
        await req.ns.mountEngine(req.params.path, input);
        return undefined;
      },
    },
    delete: {
      summary: 'Disable a secrets engine and delete its data',
      handle: async (req) => {
        await req.ns.unmountEngine(req.params.path);
        return undefined;
      },
    },
  },
};

/** The `sys/mounts` family, tune first so `mounts/x/tune` is not taken for a mount named `x/tune`. */
export const mountsPaths: readonly SecretsPath[] = [mountsPath, tunePath, mountPath];
