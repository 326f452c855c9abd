/**
 * `sys/namespaces`: create, read, patch, list and delete the namespaces directly below
 * the request's namespace (reference/secrets.md §3.8).
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { badRequest } from '../../../kernel/http/index.js';
import type { NamespaceEntry } from '../namespace/registry.js';
import { checkNamespaceNotShadowing } from '../namespace/shadowing.js';
import type { SecretsPath, SecretsRequest } from '../types.js';

const info = (e: NamespaceEntry) => ({ id: e.id, path: e.path, custom_metadata: { ...e.custom_metadata } });

/** custom_metadata as strings; with `patch`, a null value removes the key. Errors: 400 naming the key. */
function metadata(v: unknown, base: Record<string, string> = {}, patch = false): Record<string, string> {
  if (v === undefined) return base;
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw badRequest('custom_metadata: must be an object of strings');
  const out = { ...base };
  for (const [k, x] of Object.entries(v)) {
    if (x === null && patch) delete out[k];
    else if (typeof x === 'string') out[k] = x;
    else throw badRequest(`custom_metadata: value of "${k}" must be a string`);
  }
  return out;
}

const child = (req: SecretsRequest) => req.core.namespaces.get(req.ns.path + req.params.name + '/');
const fields = { custom_metadata: Type.Record(Type.String(), Type.Unknown(), { description: 'string pairs kept with the namespace' }) };

const listPath: SecretsPath = {
  pattern: 'namespaces',
  synopsis: 'List the namespaces directly below this one',
  operations: {
    list: {
      summary: 'List child namespaces',
      handle: async (req) => {
        const kids = req.core.namespaces.children(req.ns.entry);
        const key = (e: NamespaceEntry) => e.path.slice(req.ns.path.length);
        return kids.length ? { data: { keys: kids.map(key), key_info: Object.fromEntries(kids.map((e) => [key(e), info(e)])) } } : undefined;
      },
    },
  },
};

const namespacePath: SecretsPath = {
  pattern: 'namespaces/:name',
  synopsis: 'Create, read, patch or delete a child namespace',
  params: { name: 'name of the namespace (no "/")' },
  fields,
  exists: async (req) => child(req) !== undefined,
  operations: {
    read: {
      summary: 'Read a namespace',
      fields: {},
      handle: async (req) => {
        const e = child(req);
        return e && { data: info(e) };
      },
    },
    create: {
      summary: 'Create a namespace',
      handle: async (req) => {
        const customMetadata = metadata(req.data.custom_metadata);
        checkNamespaceNotShadowing(req.ns, req.params.name);
        const e = await req.core.namespaces.create(req.ns.entry, req.params.name, customMetadata);
        return { data: info(e) };
      },
    },
    update: {
      summary: 'Replace the custom metadata of a namespace',
      handle: async (req) => {
        const e = child(req)!;
        await req.core.namespaces.setMetadata(e, metadata(req.data.custom_metadata, e.custom_metadata));
        return { data: info(child(req)!) };
      },
    },
    patch: {
      summary: 'Merge custom metadata into a namespace (null removes a key)',
      handle: async (req) => {
        const e = child(req);
        if (!e) return { status: 404, data: null };
        await req.core.namespaces.setMetadata(e, metadata(req.data.custom_metadata, e.custom_metadata, true));
        return { data: info(child(req)!) };
      },
    },
    delete: {
      summary: 'Delete a namespace: its mounts and their data, its policies, its tokens',
      fields: {},
      handle: async (req) => {
        const e = child(req);
        if (!e) return undefined;
        // Leave the registry first (no request reaches it any more), then delete what it owned.
        await req.core.namespaces.remove(e);
        const scope = await req.core.scope(e);
        req.core.dropScope(e);
        await req.core.tokens.revokeByPathPrefix('', e.id);
        await scope.destroy();
        return undefined;
      },
    },
  },
};

/** The `sys/namespaces` family. */
export const namespacesPaths: readonly SecretsPath[] = [listPath, namespacePath];
