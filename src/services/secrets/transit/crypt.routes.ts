/**
 * `encrypt/:name`, `decrypt/:name`, `rewrap/:name` and `datakey/:type/:name`
 * (reference/secrets-engines.md §6 "Crypto ops"). Encrypting with a missing key creates it
 * when the request is a `create`: the path's existence check says whether the key exists,
 * so the ACL layer demands the `create` capability for an upsert and `update` otherwise
 * (reference/secrets.md §5.4); an `update` on a missing key is refused.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { badRequest } from '../../../kernel/http/index.js';
import type { SecretsPath, SecretsRequest, SecretsResult } from '../types.js';
import { batchField, optionalBase64, partialFailureField, runBatch, type BatchItem } from './batch.js';
import { decodeBase64 } from './ciphertext.js';
import { upsertDisabled } from './config.routes.js';
import { decryptWith, encryptWith, type CryptOptions } from './cipher.js';
import { keyName, keyType, requireKey } from './keys.routes.js';
import { withKeyLock } from './locks.js';
import { encryptionVersion, loadKey, newKey, saveKey, type TransitKey } from './policy.js';

const NOT_FOUND = 'encryption key not found';
const b64 = (description: string) => Type.String({ description });
const KEY_VERSION = Type.Integer({ minimum: 0, description: 'key version to encrypt with (0 = latest)' });
const ITEM = {
  context: b64('base64 key-derivation context (derived keys)'),
  associated_data: b64('base64 data authenticated with the ciphertext (AEAD keys)'),
  nonce: b64("base64 nonce (the reference's legacy convergent mode; refused)"),
  reference: Type.String({ description: 'echoed in the batch result' }),
};

function cryptOptions(item: BatchItem, req: SecretsRequest): CryptOptions {
  if (optionalBase64(item, 'nonce', decodeBase64)) throw badRequest('nonce: provided nonce not allowed for this key');
  return {
    context: optionalBase64(item, 'context', decodeBase64),
    associatedData: optionalBase64(item, 'associated_data', decodeBase64),
    paddingScheme: (req.data.padding_scheme as string | undefined) ?? (req.data.encrypt_padding_scheme as string | undefined),
  };
}

const keyVersion = (item: BatchItem): number => (typeof item.key_version === 'number' ? item.key_version : Number(item.key_version ?? 0) || 0);

/** The key to encrypt with: the stored one, or on a `create` a new one made from the request (`type`, derived when a context is given). */
async function keyForEncrypt(req: SecretsRequest): Promise<TransitKey> {
  const existing = await loadKey(req.storage, keyName(req));
  if (existing) return existing;
  if (req.operation !== 'create' || (await upsertDisabled(req.storage))) throw badRequest(NOT_FOUND);
  const items = (req.data.batch_input as readonly BatchItem[] | undefined) ?? [req.data];
  const derived = items.some((i) => typeof i.context === 'string' && i.context !== '');
  const options = {
    type: keyType(req.data.type),
    derived,
    convergent_encryption: req.data.convergent_encryption === true,
    exportable: false,
    allow_plaintext_backup: false,
    auto_rotate_period: 0,
  };
  const name = keyName(req);
  return withKeyLock(req.core, req.mount, name, async () => {
    const raced = await loadKey(req.storage, name);
    if (raced) return raced;
    const key = await newKey(name, options, req.now);
    await saveKey(req.storage, key);
    return key;
  });
}

async function encrypt(req: SecretsRequest): Promise<SecretsResult> {
  const key = await keyForEncrypt(req);
  return runBatch(req, async (item) => {
    if (item.plaintext === undefined) throw badRequest('missing plaintext to encrypt');
    const plaintext = decodeBase64(String(item.plaintext), 'plaintext');
    const version = encryptionVersion(key, keyVersion(item));
    return { ciphertext: encryptWith(key, version, plaintext, cryptOptions(item, req)), key_version: version };
  });
}

async function decrypt(req: SecretsRequest): Promise<SecretsResult> {
  const key = await requireKey(req, NOT_FOUND);
  return runBatch(req, async (item) => {
    if (typeof item.ciphertext !== 'string' || item.ciphertext === '') throw badRequest('missing ciphertext to decrypt');
    const { plaintext } = decryptWith(key, item.ciphertext, cryptOptions(item, req));
    return { plaintext: plaintext.toString('base64') };
  });
}

async function rewrap(req: SecretsRequest): Promise<SecretsResult> {
  const key = await requireKey(req, NOT_FOUND);
  return runBatch(req, async (item) => {
    if (typeof item.ciphertext !== 'string' || item.ciphertext === '') throw badRequest('missing ciphertext to decrypt');
    const o = cryptOptions(item, req);
    const { plaintext } = decryptWith(key, item.ciphertext, { ...o, paddingScheme: req.data.decrypt_padding_scheme as string | undefined });
    const version = encryptionVersion(key, keyVersion(item));
    return { ciphertext: encryptWith(key, version, plaintext, o), key_version: version };
  });
}

const encryptPath: SecretsPath = {
  pattern: 'encrypt/:name',
  synopsis: 'Encrypt base64 plaintext with a named key',
  params: { name: 'name of the key' },
  exists: async (req) => (await loadKey(req.storage, keyName(req))) !== undefined,
  fields: {
    plaintext: b64('base64 plaintext to encrypt'),
    key_version: KEY_VERSION,
    ...ITEM,
    padding_scheme: Type.String({ description: 'RSA padding: oaep' }),
    type: Type.String({ description: 'type of the key made when it does not exist (create capability)' }),
    convergent_encryption: Type.Boolean({ description: 'convergent key made when it does not exist' }),
    batch_input: batchField({
      plaintext: Type.String(),
      key_version: KEY_VERSION,
      context: Type.String(),
      associated_data: Type.String(),
      nonce: Type.String(),
      reference: Type.String(),
    }),
    partial_failure_response_code: partialFailureField,
  },
  operations: {
    create: { summary: 'Encrypt, creating the key when it does not exist', handle: encrypt },
    update: { summary: 'Encrypt', handle: encrypt },
  },
};

const ciphertextItem = {
  ciphertext: Type.String(),
  key_version: KEY_VERSION,
  context: Type.String(),
  associated_data: Type.String(),
  nonce: Type.String(),
  reference: Type.String(),
};

const decryptPath: SecretsPath = {
  pattern: 'decrypt/:name',
  synopsis: 'Decrypt a ciphertext with a named key',
  params: { name: 'name of the key' },
  fields: {
    ciphertext: Type.String({ description: 'vault:v<N>:… ciphertext' }),
    ...ITEM,
    padding_scheme: Type.String({ description: 'RSA padding: oaep' }),
    batch_input: batchField(ciphertextItem),
    partial_failure_response_code: partialFailureField,
  },
  operations: { update: { summary: 'Decrypt', handle: decrypt } },
};

const rewrapPath: SecretsPath = {
  pattern: 'rewrap/:name',
  synopsis: 'Re-encrypt a ciphertext with the latest (or a given) version of its key, never revealing the plaintext',
  params: { name: 'name of the key' },
  fields: {
    ciphertext: Type.String({ description: 'vault:v<N>:… ciphertext' }),
    key_version: KEY_VERSION,
    ...ITEM,
    decrypt_padding_scheme: Type.String({ description: 'RSA padding of the old ciphertext: oaep' }),
    encrypt_padding_scheme: Type.String({ description: 'RSA padding of the new ciphertext: oaep' }),
    batch_input: batchField(ciphertextItem),
    partial_failure_response_code: partialFailureField,
  },
  operations: { update: { summary: 'Rewrap', handle: rewrap } },
};

const DATAKEY_BITS = [128, 256, 512];

const datakeyPath: SecretsPath = {
  pattern: 'datakey/:plaintext/:name',
  synopsis: 'Make a random data key and return it encrypted with a named key (and in plaintext for "plaintext")',
  params: { plaintext: '"plaintext" (return the key in plaintext too) or "wrapped"', name: 'name of the key' },
  fields: {
    bits: Type.Integer({ description: 'data key length: 128, 256 (default) or 512' }),
    context: ITEM.context,
    nonce: ITEM.nonce,
    key_version: KEY_VERSION,
  },
  operations: {
    update: {
      summary: 'Generate a data key',
      handle: async (req) => {
        const kind = req.params.plaintext;
        if (kind !== 'plaintext' && kind !== 'wrapped') throw badRequest('Invalid path; must be "plaintext" or "wrapped"');
        const bits = (req.data.bits as number | undefined) ?? 256;
        if (!DATAKEY_BITS.includes(bits)) throw badRequest('bits: invalid bit length; must be 128, 256 or 512');
        const key = await requireKey(req, NOT_FOUND);
        const version = encryptionVersion(key, keyVersion(req.data));
        const dataKey = randomBytes(bits / 8);
        const ciphertext = encryptWith(key, version, dataKey, cryptOptions(req.data, req));
        return { data: { ciphertext, key_version: version, ...(kind === 'plaintext' ? { plaintext: dataKey.toString('base64') } : {}) } };
      },
    },
  },
};

/** The encryption paths. */
export const cryptPaths: readonly SecretsPath[] = [encryptPath, decryptPath, rewrapPath, datakeyPath];
