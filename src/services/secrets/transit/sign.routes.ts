/**
 * `sign/:name(/:hash_algorithm)`, `verify/:name(/:hash_algorithm)` and
 * `hmac/:name(/:algorithm)` (reference/secrets-engines.md §6 "Crypto ops"). `verify` checks
 * a `signature` or, with `hmac`, an HMAC made by `hmac` — one or the other, the same for
 * every batch item. A signature or HMAC below `min_decryption_version` is refused.
 *
 * @module
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { badRequest } from '../../../kernel/http/index.js';
import type { SecretsPath, SecretsRequest, SecretsResult } from '../types.js';
import { batchField, optionalBase64, partialFailureField, runBatch, type BatchItem } from './batch.js';
import { decodeBase64, formatVersioned, parseVersioned } from './ciphertext.js';
import { requireKey } from './keys.routes.js';
import { decryptionMaterial, encryptionVersion, material, type TransitKey } from './policy.js';
import { digestName, signWith, verifyWith, type SignOptions } from './sign.js';

const KEY_VERSION = Type.Integer({ minimum: 0, description: 'key version to use (0 = latest)' });
const INPUT = Type.String({ description: 'base64 input' });
const CONTEXT = Type.String({ description: 'base64 key-derivation context (derived ed25519 keys)' });
const SIGN_FIELDS = {
  input: INPUT,
  context: CONTEXT,
  hash_algorithm: Type.String({ description: 'sha2-256 (default), sha1, sha2-224/384/512, sha3-224/256/384/512; none (prehashed pkcs1v15)' }),
  prehashed: Type.Boolean({ description: 'the input is already a digest (RSA pkcs1v15)' }),
  signature_algorithm: Type.String({ description: 'RSA: pss (default) or pkcs1v15' }),
  marshaling_algorithm: Type.String({ description: 'ECDSA: asn1 (default) or jws' }),
  partial_failure_response_code: partialFailureField,
};

const inputOf = (item: BatchItem): Buffer => {
  if (item.input === undefined) throw badRequest('missing input');
  return decodeBase64(String(item.input), 'input');
};

const keyVersion = (item: BatchItem): number => Number(item.key_version ?? 0) || 0;

function signOptions(req: SecretsRequest, item: BatchItem): SignOptions {
  return {
    hashAlgorithm: req.params.hash_algorithm || (req.data.hash_algorithm as string | undefined),
    prehashed: req.data.prehashed === true,
    signatureAlgorithm: req.data.signature_algorithm as string | undefined,
    marshalingAlgorithm: req.data.marshaling_algorithm as string | undefined,
    context: optionalBase64(item, 'context', decodeBase64),
  };
}

async function signHandler(req: SecretsRequest): Promise<SecretsResult> {
  const key = await requireKey(req, 'signing key not found');
  return runBatch(req, async (item) => {
    const version = encryptionVersion(key, keyVersion(item));
    return { signature: signWith(key, version, inputOf(item), signOptions(req, item)), key_version: version };
  });
}

function hmacOf(key: TransitKey, version: number, algorithm: string | undefined, input: Buffer): Buffer {
  return createHmac(digestName(algorithm), Buffer.from(material(key, version).hmac_key, 'base64'))
    .update(input)
    .digest();
}

const algorithmOf = (req: SecretsRequest): string | undefined =>
  req.params.algorithm || req.params.hash_algorithm || (req.data.algorithm as string | undefined) || (req.data.hash_algorithm as string | undefined);

async function verifyHandler(req: SecretsRequest): Promise<SecretsResult> {
  const key = await requireKey(req, 'signature verification key not found');
  const items = (req.data.batch_input as readonly BatchItem[] | undefined) ?? [req.data];
  const hmacs = items.filter((i) => i.hmac !== undefined).length;
  const signatures = items.filter((i) => i.signature !== undefined).length;
  if (hmacs && signatures) throw badRequest('provide one of "signature" or "hmac" in every item, not both');
  return runBatch(req, async (item) => {
    const input = inputOf(item);
    if (hmacs) {
      if (typeof item.hmac !== 'string') throw badRequest('missing hmac');
      const { version, body } = parseVersioned(item.hmac);
      decryptionMaterial(key, version);
      const given = decodeBase64(body, 'hmac');
      const want = hmacOf(key, version, algorithmOf(req), input);
      return { valid: given.length === want.length && timingSafeEqual(given, want) };
    }
    if (typeof item.signature !== 'string') throw badRequest('missing signature');
    return { valid: verifyWith(key, item.signature, input, signOptions(req, item)) };
  });
}

async function hmacHandler(req: SecretsRequest): Promise<SecretsResult> {
  const key = await requireKey(req, 'encryption key not found');
  return runBatch(req, async (item) => {
    if (item.input === undefined) throw badRequest('missing input for HMAC');
    const version = encryptionVersion(key, keyVersion(item));
    const mac = hmacOf(key, version, algorithmOf(req), decodeBase64(String(item.input), 'input'));
    return { hmac: formatVersioned(version, mac.toString('base64')), key_version: version };
  });
}

const signItem = { input: Type.String(), context: Type.String(), key_version: KEY_VERSION, reference: Type.String() };

const signSpec = (pattern: string): SecretsPath => ({
  pattern,
  synopsis: 'Sign base64 input with a named asymmetric key',
  params: { name: 'name of the key', hash_algorithm: 'hash algorithm (instead of the field)' },
  fields: { ...SIGN_FIELDS, key_version: KEY_VERSION, batch_input: batchField(signItem) },
  operations: { update: { summary: 'Sign', handle: signHandler } },
});

const verifySpec = (pattern: string): SecretsPath => ({
  pattern,
  synopsis: 'Check a signature or an HMAC of base64 input with a named key',
  params: { name: 'name of the key', hash_algorithm: 'hash algorithm (instead of the field)' },
  fields: {
    ...SIGN_FIELDS,
    signature: Type.String({ description: 'vault:v<N>:… signature (or hmac)' }),
    hmac: Type.String({ description: 'vault:v<N>:… HMAC (or signature)' }),
    algorithm: Type.String({ description: 'HMAC hash algorithm (with hmac), sha2-256 default' }),
    batch_input: batchField({ input: Type.String(), signature: Type.String(), hmac: Type.String(), context: Type.String(), reference: Type.String() }),
  },
  operations: { update: { summary: 'Verify', handle: verifyHandler } },
});

const hmacSpec = (pattern: string): SecretsPath => ({
  pattern,
  synopsis: "HMAC base64 input with a named key's version HMAC key",
  params: { name: 'name of the key', algorithm: 'hash algorithm (instead of the field)' },
  fields: {
    input: INPUT,
    algorithm: Type.String({ description: 'sha2-256 (default), sha1, sha2-224/384/512, sha3-224/256/384/512' }),
    key_version: KEY_VERSION,
    batch_input: batchField({ input: Type.String(), key_version: KEY_VERSION, reference: Type.String() }),
    partial_failure_response_code: partialFailureField,
  },
  operations: { update: { summary: 'HMAC', handle: hmacHandler } },
});

/** The signature and HMAC paths. */
export const signPaths: readonly SecretsPath[] = [
  signSpec('sign/:name'),
  signSpec('sign/:name/:hash_algorithm'),
  verifySpec('verify/:name'),
  verifySpec('verify/:name/:hash_algorithm'),
  hmacSpec('hmac/:name'),
  hmacSpec('hmac/:name/:algorithm'),
];
