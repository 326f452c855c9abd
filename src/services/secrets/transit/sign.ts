/**
 * Signatures of the transit engine (reference/secrets-engines.md §6 `sign`, `verify`) with
 * Node's crypto: Ed25519 (no hash), ECDSA (`asn1` DER or `jws` r‖s in base64url) and RSA
 * (`pss` with the largest salt, or `pkcs1v15`). A `prehashed` input is signed as the digest
 * it is, for RSA PKCS#1 v1.5 only (docs/compatibility.md).
 *
 * @module
 */
import {
  constants,
  createHash,
  createPrivateKey,
  createPublicKey,
  privateEncrypt,
  publicDecrypt,
  sign,
  timingSafeEqual,
  verify,
  type KeyObject,
} from 'node:crypto';
import { badRequest } from '../../../kernel/http/index.js';
import { decodeBase64, formatVersioned, parseVersioned } from './ciphertext.js';
import { derivedEd25519 } from './derive.js';
import { typeInfo, type KeyMaterial } from './key-types.js';
import { decryptionMaterial, material, type TransitKey } from './policy.js';

/** The reference's hash names → Node's digest names (reference §6 `hash_algorithm`). */
const HASHES: Readonly<Record<string, string>> = {
  sha1: 'sha1',
  'sha2-224': 'sha224',
  'sha2-256': 'sha256',
  'sha2-384': 'sha384',
  'sha2-512': 'sha512',
  'sha3-224': 'sha3-224',
  'sha3-256': 'sha3-256',
  'sha3-384': 'sha3-384',
  'sha3-512': 'sha3-512',
};

// DER DigestInfo prefixes of RFC 8017 §9.2 note 1 (and RFC 8702 for SHA-3): PKCS#1 v1.5 over a given digest.
const DIGEST_INFO: Readonly<Record<string, string>> = {
  sha1: '3021300906052b0e03021a05000414',
  sha224: '302d300d06096086480165030402040500041c',
  sha256: '3031300d060960864801650304020105000420',
  sha384: '3041300d060960864801650304020205000430',
  sha512: '3051300d060960864801650304020305000440',
  'sha3-224': '302d300d06096086480165030402070500041c',
  'sha3-256': '3031300d060960864801650304020805000420',
  'sha3-384': '3041300d060960864801650304020905000430',
  'sha3-512': '3051300d060960864801650304020a05000440',
};

/** How one signature is made or checked (the request's fields). */
export interface SignOptions {
  /** The reference's name (`sha2-256` default, `none` for prehashed PKCS#1 v1.5 without DigestInfo). */
  readonly hashAlgorithm?: string;
  readonly prehashed?: boolean;
  /** `pss` (default) or `pkcs1v15`, RSA only. */
  readonly signatureAlgorithm?: string;
  /** `asn1` (default) or `jws`, ECDSA only. */
  readonly marshalingAlgorithm?: string;
  readonly context?: Buffer;
}

interface Resolved {
  readonly digest: string | null;
  readonly padding?: number;
  readonly dsaEncoding?: 'der' | 'ieee-p1363';
  readonly jws: boolean;
}

function resolve(key: TransitKey, o: SignOptions): Resolved {
  const info = typeInfo(key.type);
  if (info.kind === 'aead') throw badRequest(`key type ${key.type} does not support signing`);
  const marshaling = o.marshalingAlgorithm || 'asn1';
  if (marshaling !== 'asn1' && marshaling !== 'jws') throw badRequest(`marshaling_algorithm: unsupported marshaling algorithm "${marshaling}"`);
  const scheme = o.signatureAlgorithm || 'pss';
  if (info.kind === 'rsa' && scheme !== 'pss' && scheme !== 'pkcs1v15') throw badRequest(`signature_algorithm: unsupported signature algorithm "${scheme}"`);
  const hashName = o.hashAlgorithm || 'sha2-256';
  if (info.kind === 'ed25519') {
    if (o.prehashed) throw badRequest('prehashed: not supported for ed25519 keys');
    return { digest: null, jws: marshaling === 'jws' };
  }
  const prehashedRsa = info.kind === 'rsa' && o.prehashed && scheme === 'pkcs1v15';
  if (hashName === 'none' && !prehashedRsa) throw badRequest('hash_algorithm: "none" is only valid with prehashed pkcs1v15 signatures');
  if (hashName !== 'none' && !HASHES[hashName]) throw badRequest(`hash_algorithm: unsupported hash algorithm "${hashName}"`);
  if (o.prehashed && !prehashedRsa) throw badRequest(`prehashed: only supported for RSA keys with signature_algorithm=pkcs1v15`);
  const digest = hashName === 'none' ? null : HASHES[hashName];
  if (info.kind === 'ecdsa') return { digest, dsaEncoding: marshaling === 'jws' ? 'ieee-p1363' : 'der', jws: marshaling === 'jws' };
  return { digest, padding: scheme === 'pss' ? constants.RSA_PKCS1_PSS_PADDING : constants.RSA_PKCS1_PADDING, jws: marshaling === 'jws' };
}

function privateKeyOf(key: TransitKey, m: KeyMaterial, context: Buffer | undefined): KeyObject {
  return key.derived ? derivedEd25519(m, context) : createPrivateKey(m.private_key ?? '');
}

function publicKeyOf(key: TransitKey, m: KeyMaterial, context: Buffer | undefined): KeyObject {
  return key.derived ? createPublicKey(derivedEd25519(m, context)) : createPublicKey(m.public_key ?? '');
}

function prehashedPayload(r: Resolved, input: Buffer): Buffer {
  return r.digest ? Buffer.concat([Buffer.from(DIGEST_INFO[r.digest], 'hex'), input]) : input;
}

/** The signature of `input` with version `version` of `key`: `vault:v<N>:<base64>` (base64url for `jws`). Throws 400 for bad options. */
export function signWith(key: TransitKey, version: number, input: Buffer, o: SignOptions): string {
  const r = resolve(key, o);
  const priv = privateKeyOf(key, material(key, version), o.context);
  const sig = o.prehashed
    ? privateEncrypt({ key: priv, padding: constants.RSA_PKCS1_PADDING }, prehashedPayload(r, input))
    : sign(r.digest, input, { key: priv, ...pssSalt(r, constants.RSA_PSS_SALTLEN_MAX_SIGN), dsaEncoding: r.dsaEncoding });
  return formatVersioned(version, sig.toString(r.jws ? 'base64url' : 'base64'));
}

/** Whether `signature` (`vault:v<N>:…`) is a valid signature of `input`. Throws 400 for a malformed one or a version outside the key's bounds. */
export function verifyWith(key: TransitKey, signature: string, input: Buffer, o: SignOptions): boolean {
  const r = resolve(key, o);
  const { version, body } = parseVersioned(signature);
  const pub = publicKeyOf(key, decryptionMaterial(key, version), o.context);
  const sig = r.jws ? decodeBase64Url(body) : decodeBase64(body, 'signature');
  if (o.prehashed) {
    let recovered: Buffer;
    try {
      recovered = publicDecrypt({ key: pub, padding: constants.RSA_PKCS1_PADDING }, sig);
    } catch {
      return false;
    }
    const want = prehashedPayload(r, input);
    return recovered.length === want.length && timingSafeEqual(recovered, want);
  }
  return verify(r.digest, input, { key: pub, ...pssSalt(r, constants.RSA_PSS_SALTLEN_AUTO), dsaEncoding: r.dsaEncoding }, sig);
}

// PSS signs with the largest salt (the reference's `salt_length` "auto") and verifies any salt length.
const pssSalt = (r: Resolved, saltLength: number) =>
  r.padding === undefined ? {} : r.padding === constants.RSA_PKCS1_PSS_PADDING ? { padding: r.padding, saltLength } : { padding: r.padding };

function decodeBase64Url(v: string): Buffer {
  if (!/^[A-Za-z0-9_-]*$/.test(v)) throw badRequest('signature: failed to base64url-decode the JWS signature');
  return Buffer.from(v, 'base64url');
}

/** Node's digest name for the reference's hash name (`sha2-256` when absent; `hash`, `hmac`); 400 for an unknown one. */
export function digestName(name: string | undefined): string {
  const n = HASHES[name || 'sha2-256'];
  if (!n) throw badRequest(`algorithm: unsupported hash algorithm "${name}"`);
  return n;
}

/** The digest of `input` under the reference's hash name (the `hash` route); 400 for an unknown name. */
export const hashOf = (name: string | undefined, input: Buffer): Buffer => createHash(digestName(name)).update(input).digest();
