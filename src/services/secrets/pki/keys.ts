/**
 * Key pairs of the PKI engine (reference/secrets-engines.md §7: `key_type` `rsa` | `ec` |
 * `ed25519`, `key_bits` 0 ⇒ rsa 2048 / ec 256): generated with Node's crypto, imported
 * into its WebCrypto for @peculiar/x509's signing, and written in the reference's PEM
 * forms (`RSA PRIVATE KEY`, `EC PRIVATE KEY`, or PKCS #8 `PRIVATE KEY`).
 *
 * @module
 */
import { createPrivateKey, createPublicKey, generateKeyPair, webcrypto, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { InputError } from '../../../kernel/util/duration.js';

const generate = promisify(generateKeyPair);

/** A key type of roles and issuers; `any` (roles only) signs CSRs of every type and issues none. */
export type KeyType = 'rsa' | 'ec' | 'ed25519';

const RSA_BITS = [2048, 3072, 4096, 8192];
const EC_CURVES: Readonly<Record<number, { curve: string; jwk: string; hash: string }>> = {
  256: { curve: 'prime256v1', jwk: 'P-256', hash: 'SHA-256' },
  384: { curve: 'secp384r1', jwk: 'P-384', hash: 'SHA-384' },
  521: { curve: 'secp521r1', jwk: 'P-521', hash: 'SHA-512' },
};

/**
 * `key_type` and `key_bits` checked and defaulted: rsa 2048 (2048/3072/4096/8192), ec 256
 * (256/384/521), ed25519 0; `any` (only where `allowAny`) keeps its bits. Errors (400
 * naming the field): an unknown type, bits the type does not have.
 */
export function keySpec(type: unknown, bits: unknown, allowAny = false): { type: KeyType | 'any'; bits: number } {
  const t = String(type ?? 'rsa');
  const b = Number(bits ?? 0);
  if (t === 'rsa') {
    if (b && !RSA_BITS.includes(b)) throw new InputError(`key_bits: unsupported bit length for RSA key: ${b}`);
    return { type: t, bits: b || 2048 };
  }
  if (t === 'ec') {
    if (b && !EC_CURVES[b]) throw new InputError(`key_bits: unsupported bit length for EC key: ${b}`);
    return { type: t, bits: b || 256 };
  }
  if (t === 'ed25519') return { type: t, bits: 0 };
  if (t === 'any' && allowAny) return { type: t, bits: b };
  throw new InputError(`key_type: unknown key type ${JSON.stringify(t)}; expected rsa, ec or ed25519${allowAny ? ' (or any)' : ''}`);
}

/** A generated or stored key pair, ready for signing. */
export interface SigningKey {
  readonly type: KeyType;
  readonly bits: number;
  /** The private key as PKCS #8 PEM (how it is stored). */
  readonly pkcs8: string;
  readonly privateKey: webcrypto.CryptoKey;
  readonly publicKey: webcrypto.CryptoKey;
  /** What @peculiar/x509 signs with (hash follows the key size). */
  readonly signingAlgorithm: webcrypto.AlgorithmIdentifier | webcrypto.EcdsaParams | webcrypto.RsaHashedImportParams;
}

/** A new key pair (RSA generation takes a worker thread of libuv's pool, not the event loop). */
export async function generateKey(type: KeyType, bits: number): Promise<SigningKey> {
  const pair =
    type === 'rsa'
      ? await generate('rsa', { modulusLength: bits })
      : type === 'ec'
        ? await generate('ec', { namedCurve: EC_CURVES[bits].curve })
        : await generate('ed25519');
  return fromKeyObject(pair.privateKey);
}

/** A stored PKCS #8 PEM key back as a {@link SigningKey}. */
export function loadKey(pkcs8: string): Promise<SigningKey> {
  return fromKeyObject(createPrivateKey(pkcs8));
}

async function fromKeyObject(key: KeyObject): Promise<SigningKey> {
  const type = key.asymmetricKeyType;
  const pkcs8Der = key.export({ type: 'pkcs8', format: 'der' });
  const spkiDer = createPublicKey(key).export({ type: 'spki', format: 'der' });
  const pkcs8 = key.export({ type: 'pkcs8', format: 'pem' }) as string;
  let bits: number;
  let importAlg: webcrypto.AlgorithmIdentifier | webcrypto.RsaHashedImportParams | webcrypto.EcKeyImportParams;
  let signingAlgorithm: SigningKey['signingAlgorithm'];
  let kt: KeyType;
  if (type === 'rsa') {
    kt = 'rsa';
    bits = key.asymmetricKeyDetails?.modulusLength ?? 2048;
    importAlg = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
    signingAlgorithm = importAlg;
  } else if (type === 'ec') {
    kt = 'ec';
    const curve = key.asymmetricKeyDetails?.namedCurve;
    bits = Number(Object.entries(EC_CURVES).find(([, c]) => c.curve === curve)?.[0] ?? 0);
    if (!bits) throw new Error(`unsupported EC curve ${curve}`);
    importAlg = { name: 'ECDSA', namedCurve: EC_CURVES[bits].jwk };
    signingAlgorithm = { name: 'ECDSA', hash: EC_CURVES[bits].hash };
  } else if (type === 'ed25519') {
    kt = 'ed25519';
    bits = 0;
    importAlg = { name: 'Ed25519' };
    signingAlgorithm = importAlg;
  } else throw new Error(`unsupported key type ${type}`);
  const privateKey = await webcrypto.subtle.importKey('pkcs8', pkcs8Der, importAlg, true, ['sign']);
  const publicKey = await webcrypto.subtle.importKey('spki', spkiDer, importAlg, true, ['verify']);
  return { type: kt, bits, pkcs8, privateKey, publicKey, signingAlgorithm };
}

/**
 * The private key in the reference's reply form: `der` (default; PEM of the type's own
 * encoding: PKCS #1 `RSA PRIVATE KEY`, SEC 1 `EC PRIVATE KEY`, Ed25519 as PKCS #8) or
 * `pkcs8` (`PRIVATE KEY`).
 */
export function privateKeyPem(key: SigningKey, format: 'der' | 'pkcs8'): string {
  if (format === 'pkcs8' || key.type === 'ed25519') return key.pkcs8.trimEnd();
  const k = createPrivateKey(key.pkcs8);
  return (k.export({ type: key.type === 'rsa' ? 'pkcs1' : 'sec1', format: 'pem' }) as string).trimEnd();
}
