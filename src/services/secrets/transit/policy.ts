/**
 * A transit key ("policy" in the reference's storage) and its versions: created, rotated,
 * trimmed and stored as one JSON entry `policy/<name>` in the mount's own storage (behind
 * the barrier; key material is never written anywhere else). Source:
 * reference/secrets-engines.md §6 "Keys".
 *
 * @module
 */
import { badRequest } from '../../../kernel/http/index.js';
import { json, readJson, type Backend } from '../../../kernel/store/index.js';
import { generateMaterial, typeInfo, type KeyMaterial, type KeyType } from './key-types.js';
import { MAX_KEY_VERSIONS } from './limits.js';

/** One key as stored. Versions are numbered from 1; `versions` holds those not trimmed. */
export interface TransitKey {
  readonly name: string;
  readonly type: KeyType;
  /** Every operation derives its key from the request's `context` (HKDF-SHA256). */
  readonly derived: boolean;
  /** Same plaintext and context → same ciphertext (the nonce comes from an HMAC of the plaintext); needs `derived`. */
  readonly convergent_encryption: boolean;
  readonly exportable: boolean;
  readonly allow_plaintext_backup: boolean;
  readonly deletion_allowed: boolean;
  readonly min_decryption_version: number;
  /** 0 = the latest version. */
  readonly min_encryption_version: number;
  readonly min_available_version: number;
  readonly latest_version: number;
  /** Seconds; 0 = no automatic rotation. */
  readonly auto_rotate_period: number;
  readonly versions: Readonly<Record<string, KeyMaterial>>;
}

/** The storage key of key `name`. */
const keyPath = (name: string) => `policy/${name}`;

/** The stored key `name`, or undefined. */
export async function loadKey(storage: Backend, name: string): Promise<TransitKey | undefined> {
  return (await readJson<TransitKey>(storage, keyPath(name))) as TransitKey | undefined;
}

/** Stores `key` (create or replace). */
export async function saveKey(storage: Backend, key: TransitKey): Promise<void> {
  await storage.put(keyPath(key.name), json.encode(key));
}

/** Removes key `name` and all its versions. */
export async function deleteKey(storage: Backend, name: string): Promise<void> {
  await storage.delete(keyPath(name));
}

/** Names of every key, sorted. */
export async function listKeys(storage: Backend): Promise<string[]> {
  return (await storage.list('policy/')).filter((k) => !k.endsWith('/')).sort();
}

/** Settings of a new key (the create request's fields). */
export interface NewKeyOptions {
  readonly type: KeyType;
  readonly derived: boolean;
  readonly convergent_encryption: boolean;
  readonly exportable: boolean;
  readonly allow_plaintext_backup: boolean;
  readonly auto_rotate_period: number;
}

/** A new key `name` with its version 1 made at `now`. Throws 400 for an impossible combination (reference's texts). */
export async function newKey(name: string, o: NewKeyOptions, now: Date): Promise<TransitKey> {
  const kind = typeInfo(o.type).kind;
  if (o.convergent_encryption && !o.derived) throw badRequest('convergent encryption requires derivation to be enabled');
  if (o.convergent_encryption && kind !== 'aead') throw badRequest(`convergent encryption not supported for keys of type ${o.type}`);
  if (o.derived && kind !== 'aead' && kind !== 'ed25519') throw badRequest(`key derivation not supported for keys of type ${o.type}`);
  return {
    name,
    ...o,
    deletion_allowed: false,
    min_decryption_version: 1,
    min_encryption_version: 0,
    min_available_version: 0,
    latest_version: 1,
    versions: { '1': await generateMaterial(o.type, o.derived, now) },
  };
}

/** `key` with a new latest version made at `now`. Throws 400 past {@link MAX_KEY_VERSIONS} kept versions. */
export async function rotated(key: TransitKey, now: Date): Promise<TransitKey> {
  if (Object.keys(key.versions).length >= MAX_KEY_VERSIONS) {
    throw badRequest(`the key keeps the maximum of ${MAX_KEY_VERSIONS} versions; trim older versions before rotating`);
  }
  const v = key.latest_version + 1;
  return { ...key, latest_version: v, versions: { ...key.versions, [String(v)]: await generateMaterial(key.type, key.derived, now) } };
}

/**
 * `key` without the versions below `minAvailable` (`keys/:name/trim`). The reference's rules
 * (reference/secrets-engines.md §6): positive, never decremented, and not above
 * `min_decryption_version` nor `min_encryption_version`, both of which must be set.
 */
export function trimmed(key: TransitKey, minAvailable: number): TransitKey {
  if (minAvailable <= 0) throw badRequest('minimum available version should be positive');
  if (minAvailable < key.min_available_version) throw badRequest('minimum available version cannot be decremented');
  if (key.min_encryption_version === 0) throw badRequest('minimum encryption version should be set before trimming');
  if (minAvailable > key.min_decryption_version) {
    throw badRequest('cannot set minimum available version to a value greater than minimum decryption version');
  }
  if (minAvailable > key.min_encryption_version) {
    throw badRequest('cannot set minimum available version to a value greater than minimum encryption version');
  }
  const versions = Object.fromEntries(Object.entries(key.versions).filter(([v]) => Number(v) >= minAvailable));
  return { ...key, min_available_version: minAvailable, versions };
}

/** The version an encryption (or signature, HMAC) uses: `requested` (0 = latest) within the key's encryption bounds. */
export function encryptionVersion(key: TransitKey, requested: number): number {
  const v = requested || key.latest_version;
  if (v > key.latest_version) throw badRequest('requested version for encryption is higher than the latest key version');
  if (key.min_encryption_version > 0 && v < key.min_encryption_version) {
    throw badRequest('requested version for encryption is less than the minimum encryption key version');
  }
  return v;
}

/** The reference's text for a ciphertext, signature or HMAC below `min_decryption_version`. */
const TOO_OLD = 'ciphertext or signature version is disallowed by policy (too old)';

/** The material of version `v` for a decryption (or verification): 400 when it is too new, too old or trimmed. */
export function decryptionMaterial(key: TransitKey, v: number): KeyMaterial {
  if (v > key.latest_version) throw badRequest('invalid ciphertext: version is too new');
  if (key.min_decryption_version > 0 && v < key.min_decryption_version) throw badRequest(TOO_OLD);
  const m = key.versions[String(v)];
  if (!m) throw badRequest(TOO_OLD);
  return m;
}

/** The material of version `v` (an encryption version from {@link encryptionVersion}). */
export function material(key: TransitKey, v: number): KeyMaterial {
  const m = key.versions[String(v)];
  if (!m) throw badRequest(`key version ${v} is not available (trimmed)`);
  return m;
}
