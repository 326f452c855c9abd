/**
 * `metadata/<path>`: read, write, patch, delete and LIST keys (reference/secrets.md §2.8).
 * LIST here is the only listing API of a KV v2 mount.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import type { SecretsPath, SecretsRequest, SecretsResult } from '../../types.js';
import { kvStore } from './store-of.js';
import { rootWarning } from './fallback.routes.js';
import { applyMetadataPatch, applyMetadataUpdate, newKeyMetadata, renderMetadata } from './versions.js';

const key = (req: SecretsRequest) => req.params.path;

const fields = {
  max_versions: Type.Integer({ minimum: 0, description: 'versions to keep; the larger of this and the mount setting applies; 0 = unset' }),
  cas_required: Type.Boolean({ description: 'require check-and-set on every write of this key' }),
  delete_version_after: Type.Union([Type.String(), Type.Integer()], { description: 'soft-delete versions this long after they are written; "0s" = unset' }),
  custom_metadata: Type.Record(Type.String(), Type.Unknown(), { description: 'up to 64 string pairs shown with the metadata' }),
};

async function write(req: SecretsRequest): Promise<SecretsResult | undefined> {
  if (key(req) === '') return rootWarning();
  const warnings = await kvStore(req).update(key(req), (current, config) => {
    const metadata = current ?? newKeyMetadata(req.now);
    const { warnings, applied } = applyMetadataUpdate(metadata, req.data, config, req.now);
    return { metadata: applied ? metadata : undefined, result: warnings };
  });
  return warnings.length ? { data: null, warnings } : undefined;
}

async function patch(req: SecretsRequest): Promise<SecretsResult | undefined> {
  const result = await kvStore(req).update<string[] | 'missing'>(key(req), (current, config) => {
    if (!current) return { result: 'missing' };
    const { warnings, applied } = applyMetadataPatch(current, req.data, config, req.now);
    return { metadata: applied ? current : undefined, result: warnings };
  });
  if (result === 'missing') return { status: 404, data: null };
  return result.length ? { data: null, warnings: result } : undefined;
}

/** The `metadata/<path>` family. */
export const metadataPath: SecretsPath = {
  pattern: 'metadata/:path*',
  synopsis: 'Manage the metadata of secrets; list keys',
  description:
    'Reads show every version\'s state; writes set per-key settings (creating the key without versions); DELETE removes the key and all its versions permanently. LIST shows the keys under a folder; sub-folders end in "/".',
  params: { path: 'location of the secret, or folder to list' },
  fields,
  exists: async (req) => key(req) !== '' && (await kvStore(req).exists(key(req))),
  operations: {
    read: {
      summary: "Read a key's metadata",
      fields: {},
      handle: async (req) => {
        if (key(req) === '') return rootWarning();
        const m = await kvStore(req).metadata(key(req));
        return m && { data: renderMetadata(m) };
      },
    },
    list: {
      summary: 'List keys',
      fields: {},
      handle: async (req) => {
        const keys = await kvStore(req).list(key(req) === '' ? '' : key(req) + '/');
        return keys.length ? { data: { keys } } : undefined;
      },
    },
    create: { summary: "Write a key's metadata", handle: write },
    update: { summary: "Write a key's metadata", handle: write },
    patch: { summary: "Merge-patch a key's metadata", handle: patch },
    delete: {
      summary: 'Delete a key and all its versions',
      fields: {},
      handle: async (req) => {
        if (key(req) === '') return rootWarning();
        await kvStore(req).update(key(req), (current) => ({ metadata: current ? null : undefined, result: undefined }));
        return undefined;
      },
    },
  },
};
