/**
 * The transit key types (reference/secrets-engines.md §6 "Keys"): what each does and how a
 * new version's key material is made with Node's crypto. Symmetric types hold raw key
 * bytes; asymmetric types hold a PKCS#8 private key and an SPKI public key, both PEM.
 *
 * @module
 */
import { generateKeyPair, randomBytes } from 'node:crypto';

/** Every `type` a key may have. */
export const KEY_TYPES = [
  'aes256-gcm96',
  'aes128-gcm96',
  'chacha20-poly1305',
  'ed25519',
  'ecdsa-p256',
  'ecdsa-p384',
  'ecdsa-p521',
  'rsa-2048',
  'rsa-3072',
  'rsa-4096',
] as const;
export type KeyType = (typeof KEY_TYPES)[number];

/** How a type works: `aead` (symmetric encryption), `ecdsa`, `ed25519` or `rsa`. */
export interface KeyTypeInfo {
  readonly kind: 'aead' | 'ecdsa' | 'ed25519' | 'rsa';
  /** AEAD: Node's cipher name and key length in bytes. */
  readonly cipher?: 'aes-256-gcm' | 'aes-128-gcm' | 'chacha20-poly1305';
  readonly keyBytes?: number;
  /** ECDSA: Node's curve name, the reference's curve name (read `keys[v].name`) and the JWS coordinate size in bytes. */
  readonly curve?: 'prime256v1' | 'secp384r1' | 'secp521r1';
  readonly curveName?: string;
  readonly coordBytes?: number;
  /** RSA modulus length in bits. */
  readonly bits?: number;
}

const INFO: Readonly<Record<KeyType, KeyTypeInfo>> = {
  'aes256-gcm96': { kind: 'aead', cipher: 'aes-256-gcm', keyBytes: 32 },
  'aes128-gcm96': { kind: 'aead', cipher: 'aes-128-gcm', keyBytes: 16 },
  'chacha20-poly1305': { kind: 'aead', cipher: 'chacha20-poly1305', keyBytes: 32 },
  ed25519: { kind: 'ed25519' },
  'ecdsa-p256': { kind: 'ecdsa', curve: 'prime256v1', curveName: 'P-256', coordBytes: 32 },
  'ecdsa-p384': { kind: 'ecdsa', curve: 'secp384r1', curveName: 'P-384', coordBytes: 48 },
  'ecdsa-p521': { kind: 'ecdsa', curve: 'secp521r1', curveName: 'P-521', coordBytes: 66 },
  'rsa-2048': { kind: 'rsa', bits: 2048 },
  'rsa-3072': { kind: 'rsa', bits: 3072 },
  'rsa-4096': { kind: 'rsa', bits: 4096 },
};

/** Whether `t` names a key type. */
export const isKeyType = (t: string): t is KeyType => (KEY_TYPES as readonly string[]).includes(t);

/** What `type` does. */
export const typeInfo = (type: KeyType): KeyTypeInfo => INFO[type];

/** The reference's `supports_*` flags of a key read. */
export function supports(type: KeyType) {
  const { kind } = INFO[type];
  return {
    supports_encryption: kind === 'aead' || kind === 'rsa',
    supports_decryption: kind === 'aead' || kind === 'rsa',
    supports_derivation: kind === 'aead' || kind === 'ed25519',
    supports_signing: kind !== 'aead',
  };
}

/** One key version's material as stored (behind the barrier, in the key's storage entry). */
export interface KeyMaterial {
  /** Creation time, RFC 3339. */
  readonly creation_time: string;
  /** AEAD types and derived ed25519 (the HKDF input): the raw key, base64. */
  readonly key?: string;
  /** Asymmetric types: PKCS#8 private key and SPKI public key, PEM. */
  readonly private_key?: string;
  readonly public_key?: string;
  /** Each version's own random 256-bit HMAC key, base64 (reference §6 `hmac`). */
  readonly hmac_key: string;
}

/**
 * New key material for one version of a `type` key, created at `now`. A derived ed25519 key
 * keeps a random 32-byte seed instead of a key pair: each context derives its own pair.
 * Key pairs are made off the event loop (an RSA-4096 pair takes about a second).
 */
export async function generateMaterial(type: KeyType, derived: boolean, now: Date): Promise<KeyMaterial> {
  const info = INFO[type];
  const base = { creation_time: now.toISOString(), hmac_key: randomBytes(32).toString('base64') };
  if (info.kind === 'aead') return { ...base, key: randomBytes(info.keyBytes ?? 32).toString('base64') };
  if (info.kind === 'ed25519' && derived) return { ...base, key: randomBytes(32).toString('base64') };
  const pair = await new Promise<{ publicKey: string; privateKey: string }>((resolve, reject) => {
    const done = (err: Error | null, publicKey: string, privateKey: string) => (err ? reject(err) : resolve({ publicKey, privateKey }));
    const pem = { privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } } as const;
    if (info.kind === 'ed25519') generateKeyPair('ed25519', pem, done);
    else if (info.kind === 'ecdsa') generateKeyPair('ec', { namedCurve: info.curve ?? 'prime256v1', ...pem }, done);
    else generateKeyPair('rsa', { modulusLength: info.bits ?? 2048, ...pem }, done);
  });
  return { ...base, private_key: pair.privateKey, public_key: pair.publicKey };
}
