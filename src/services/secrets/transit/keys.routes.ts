/**
 * Key management of the transit engine (reference/secrets-engines.md §6 "Keys"):
 * `keys` (list), `keys/:name` (create, read, delete), `keys/:name/config`, `keys/:name/rotate`
 * and `keys/:name/trim`. Every change runs under the key's lock (locks.ts).
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import { badRequest } from '../../../kernel/http/index.js';
import type { SecretsPath, SecretsRequest, SecretsResult } from '../types.js';
import { applyKeyConfig, autoRotatePeriod } from './key-config.js';
import { KEY_TYPES, isKeyType, type KeyType } from './key-types.js';
import { withKeyLock } from './locks.js';
import { deleteKey, listKeys, loadKey, newKey, rotated, saveKey, trimmed, type TransitKey } from './policy.js';
import { renderKey } from './render.js';

/** Longest key name accepted, characters. */
const MAX_NAME = 256;

/** The `:name` of the request: 400 when empty or longer than {@link MAX_NAME}. */
export function keyName(req: SecretsRequest): string {
  const name = req.params.name;
  if (!name) throw badRequest('missing key name');
  if (name.length > MAX_NAME) throw badRequest(`name: longer than ${MAX_NAME} characters`);
  return name;
}

/** The key named in the request, or a 400 with `missing` (the reference's per-operation text, e.g. `encryption key not found`). */
export async function requireKey(req: SecretsRequest, missing: string): Promise<TransitKey> {
  const key = await loadKey(req.storage, keyName(req));
  if (!key) throw badRequest(missing);
  return key;
}

/** A key `type` field's value: 400 naming an unknown one. */
export function keyType(v: unknown): KeyType {
  const t = (v as string | undefined) ?? 'aes256-gcm96';
  if (!isKeyType(t)) throw badRequest(`type: unknown key type "${t}"`);
  return t;
}

/** Runs `change` on the stored key under its lock and stores the result; replies with the key read. */
async function changeKey(req: SecretsRequest, change: (key: TransitKey) => Promise<{ key: TransitKey; warnings?: string[] }>): Promise<SecretsResult> {
  const name = keyName(req);
  return withKeyLock(req.core, req.mount, name, async () => {
    const key = await loadKey(req.storage, name);
    if (!key) throw badRequest('key not found');
    const next = await change(key);
    await saveKey(req.storage, next.key);
    return { data: renderKey(next.key), ...(next.warnings?.length ? { warnings: next.warnings } : {}) };
  });
}

const TYPE_FIELD = Type.String({ description: `key type: ${KEY_TYPES.join(', ')} (default aes256-gcm96)` });
const AUTO_ROTATE = Type.Union([Type.String(), Type.Integer()], { description: 'rotate this often (duration; 0 = never, else at least 1h)' });

/** Creates key `name` unless it exists (then nothing changes); replies with the key read. */
async function createKey(req: SecretsRequest): Promise<SecretsResult> {
  const name = keyName(req);
  const type = keyType(req.data.type);
  const options = {
    type,
    derived: req.data.derived === true,
    convergent_encryption: req.data.convergent_encryption === true,
    exportable: req.data.exportable === true,
    allow_plaintext_backup: req.data.allow_plaintext_backup === true,
    auto_rotate_period: req.data.auto_rotate_period === undefined ? 0 : autoRotatePeriod(req.data.auto_rotate_period),
  };
  return withKeyLock(req.core, req.mount, name, async () => {
    const existing = await loadKey(req.storage, name);
    if (existing) return { data: renderKey(existing), warnings: [`key ${name} already existed`] };
    const key = await newKey(name, options, req.now);
    await saveKey(req.storage, key);
    return { data: renderKey(key) };
  });
}

const keysList: SecretsPath = {
  pattern: 'keys',
  synopsis: 'List the transit keys',
  operations: {
    list: {
      summary: 'List the names of the keys',
      handle: async (req) => {
        const keys = await listKeys(req.storage);
        return keys.length ? { data: { keys } } : undefined;
      },
    },
  },
};

const keyPath: SecretsPath = {
  pattern: 'keys/:name',
  synopsis: 'Create, read or delete a named encryption key',
  params: { name: 'name of the key' },
  exists: async (req) => (await loadKey(req.storage, keyName(req))) !== undefined,
  fields: {
    type: TYPE_FIELD,
    derived: Type.Boolean({ description: 'derive a key per request from `context` (HKDF-SHA256)' }),
    convergent_encryption: Type.Boolean({ description: 'same plaintext and context give the same ciphertext; needs derived' }),
    exportable: Type.Boolean({ description: 'allow export of the key material (cannot be undone)' }),
    allow_plaintext_backup: Type.Boolean({ description: 'allow a plaintext backup of the key (cannot be undone)' }),
    auto_rotate_period: AUTO_ROTATE,
  },
  operations: {
    create: { summary: 'Create a key', handle: createKey },
    update: { summary: 'Create a key (no change when it exists)', handle: createKey },
    read: {
      summary: 'Read a key: its versions, settings and public keys',
      fields: {},
      handle: async (req) => {
        const key = await loadKey(req.storage, keyName(req));
        return key ? { data: renderKey(key) } : undefined;
      },
    },
    delete: {
      summary: 'Delete a key (needs deletion_allowed)',
      fields: {},
      handle: async (req) => {
        const name = keyName(req);
        await withKeyLock(req.core, req.mount, name, async () => {
          const key = await loadKey(req.storage, name);
          if (!key) throw badRequest('could not delete key; not found');
          if (!key.deletion_allowed) throw badRequest('deletion is not allowed for this policy');
          await deleteKey(req.storage, name);
        });
        return undefined;
      },
    },
  },
};

const keyConfigPath: SecretsPath = {
  pattern: 'keys/:name/config',
  synopsis: "Configure a key's version bounds, deletion, export, backup and automatic rotation",
  params: { name: 'name of the key' },
  fields: {
    min_decryption_version: Type.Integer({ minimum: 0, description: 'oldest version that may decrypt, verify or rewrap (0 = 1)' }),
    min_encryption_version: Type.Integer({ minimum: 0, description: 'oldest version that may encrypt, sign or HMAC (0 = latest)' }),
    deletion_allowed: Type.Boolean({ description: 'allow the key to be deleted' }),
    exportable: Type.Boolean({ description: 'allow export of the key material (cannot be undone)' }),
    allow_plaintext_backup: Type.Boolean({ description: 'allow a plaintext backup (cannot be undone)' }),
    auto_rotate_period: AUTO_ROTATE,
  },
  operations: { update: { summary: "Change a key's settings", handle: (req) => changeKey(req, async (key) => applyKeyConfig(key, req.data)) } },
};

const rotatePath: SecretsPath = {
  pattern: 'keys/:name/rotate',
  synopsis: 'Make a new version of a key the latest',
  params: { name: 'name of the key' },
  fields: {},
  operations: { update: { summary: 'Rotate a key', handle: (req) => changeKey(req, async (key) => ({ key: await rotated(key, req.now) })) } },
};

const trimPath: SecretsPath = {
  pattern: 'keys/:name/trim',
  synopsis: 'Delete the versions of a key below a version for good',
  params: { name: 'name of the key' },
  fields: { min_available_version: Type.Integer({ minimum: 0, description: 'oldest version kept' }) },
  operations: {
    update: {
      summary: 'Trim old versions',
      required: ['min_available_version'],
      handle: (req) => changeKey(req, async (key) => ({ key: trimmed(key, req.data.min_available_version as number) })),
    },
  },
};

/** The key-management paths. */
export const keyPaths: readonly SecretsPath[] = [keysList, keyPath, keyConfigPath, rotatePath, trimPath];
