/**
 * `config` (mount-wide KV v2 settings, reference/secrets.md §2.4) and `subkeys/<path>`
 * (a secret's structure without its values, §2.9).
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import type { SecretsPath, SecretsRequest, SecretsResult } from '../../types.js';
import { kvStore } from './store-of.js';
import { applyConfigUpdate, renderConfig, renderVersionMeta, subkeys, versionState } from './versions.js';

/** The `config` path. */
export const configPath: SecretsPath = {
  pattern: 'config',
  synopsis: 'Configure the KV v2 engine: versions kept, check-and-set, automatic deletion',
  fields: {
    max_versions: Type.Integer({ minimum: 0, description: 'versions kept per key; 0 = default (10)' }),
    cas_required: Type.Boolean({ description: 'require check-and-set on every write' }),
    delete_version_after: Type.Union([Type.String(), Type.Integer()], {
      description: 'soft-delete versions this long after they are written; negative disables, 0 clears',
    }),
  },
  operations: {
    read: { summary: 'Read the engine configuration', fields: {}, handle: async (req) => ({ data: renderConfig(await kvStore(req).config()) }) },
    update: {
      summary: 'Write the engine configuration',
      handle: async (req) => {
        const store = kvStore(req);
        const { config, applied } = applyConfigUpdate(await store.config(), req.data);
        if (applied) await store.saveConfig(config);
        return undefined;
      },
    },
  },
};

async function readSubkeys(req: SecretsRequest): Promise<SecretsResult | undefined> {
  const entry = await kvStore(req).read(req.params.path);
  if (!entry) return undefined;
  const { metadata } = entry;
  const v = Number(req.data.version ?? 0) || metadata.current_version;
  const meta = renderVersionMeta(metadata, v);
  if (!meta) return undefined;
  if (versionState(metadata.versions[String(v)], req.now) !== 'live') return { status: 404, data: { subkeys: null, metadata: meta } };
  const data = await entry.data(v);
  return data ? { data: { subkeys: subkeys(data, Number(req.data.depth ?? 0)), metadata: meta } } : undefined;
}

/** The `subkeys/<path>` path. */
export const subkeysPath: SecretsPath = {
  pattern: 'subkeys/:path+',
  synopsis: 'Read the structure of a secret: its keys, with every value replaced by null',
  params: { path: 'location of the secret' },
  fields: {
    version: Type.Integer({ minimum: 0, description: 'version to read; 0 = latest' }),
    depth: Type.Integer({ minimum: 0, description: 'how deep to descend; 0 = no limit' }),
  },
  operations: { read: { summary: 'Read subkeys', handle: readSubkeys } },
};
