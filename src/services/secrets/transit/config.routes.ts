/**
 * Mount-wide transit settings (reference/secrets-engines.md §6): `config/keys`
 * (`disable_upsert`: encrypting with a missing key never creates it) and `cache-config`
 * (`size`: accepted and read back; Cairn keeps no key cache of its own — every operation
 * reads the key from storage — so it changes nothing, docs/compatibility.md).
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { badRequest } from '../../../kernel/http/index.js';
import { json, readJson, type Backend } from '../../../kernel/store/index.js';
import type { SecretsPath } from '../types.js';

const KEYS_CONFIG = 'config/keys';
const CACHE_CONFIG = 'config/cache';

/** Whether `disable_upsert` is set on this mount. */
export async function upsertDisabled(storage: Backend): Promise<boolean> {
  return (await readJson<{ disable_upsert?: boolean }>(storage, KEYS_CONFIG))?.disable_upsert === true;
}

const keysConfigPath: SecretsPath = {
  pattern: 'config/keys',
  synopsis: 'Mount-wide key settings',
  fields: { disable_upsert: Type.Boolean({ description: 'refuse to create a missing key on encrypt' }) },
  operations: {
    read: { summary: 'Read the key settings', fields: {}, handle: async (req) => ({ data: { disable_upsert: await upsertDisabled(req.storage) } }) },
    update: {
      summary: 'Write the key settings',
      handle: async (req) => {
        const disable_upsert = req.data.disable_upsert === undefined ? await upsertDisabled(req.storage) : req.data.disable_upsert === true;
        await req.storage.put(KEYS_CONFIG, json.encode({ disable_upsert }));
        return { data: { disable_upsert } };
      },
    },
  },
};

const cacheConfigPath: SecretsPath = {
  pattern: 'cache-config',
  synopsis: 'Key cache size (accepted for compatibility; Cairn has no key cache to size)',
  fields: { size: Type.Integer({ description: 'cache size: 0 (unbounded) or at least 10' }) },
  operations: {
    read: {
      summary: 'Read the cache size',
      fields: {},
      handle: async (req) => ({ data: { size: (await readJson<{ size: number }>(req.storage, CACHE_CONFIG))?.size ?? 0 } }),
    },
    update: {
      summary: 'Write the cache size',
      handle: async (req) => {
        const size = (req.data.size as number | undefined) ?? 0;
        if (size < 0 || (size > 0 && size < 10)) throw badRequest('size: size must be 0 or a value greater or equal to 10');
        await req.storage.put(CACHE_CONFIG, json.encode({ size }));
        return { data: { size }, warnings: ['cache configurations will be applied when this backend is restarted'] };
      },
    },
  },
};

/** The mount-wide settings paths. */
export const configPaths: readonly SecretsPath[] = [keysConfigPath, cacheConfigPath];
