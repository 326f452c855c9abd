/**
 * The reply of a key read (`GET keys/:name`, also returned by create, config, rotate and
 * trim): reference/secrets-engines.md §6 "Keys" — symmetric versions map to their creation
 * time in Unix seconds, asymmetric ones to `{creation_time, name, public_key}` (PEM; raw
 * base64 for ed25519, the reference's form).
 *
 * @module
 */
import { createPublicKey } from 'node:crypto';
import { supports, typeInfo, type KeyMaterial } from './key-types.js';
import type { TransitKey } from './policy.js';

function versionEntry(key: TransitKey, m: KeyMaterial): unknown {
  const info = typeInfo(key.type);
  if (info.kind === 'aead') return Math.floor(Date.parse(m.creation_time) / 1000);
  const name = info.kind === 'ecdsa' ? info.curveName : info.kind === 'rsa' ? key.type : 'ed25519';
  if (!m.public_key) return { creation_time: m.creation_time, name, public_key: '' };
  const public_key = info.kind === 'ed25519' ? ed25519Raw(m.public_key).toString('base64') : m.public_key;
  return { creation_time: m.creation_time, name, public_key };
}

/** The raw 32 bytes of an Ed25519 public key (the last 32 bytes of its SPKI DER). */
export function ed25519Raw(spkiPem: string): Buffer {
  const der = createPublicKey(spkiPem).export({ format: 'der', type: 'spki' });
  return der.subarray(der.length - 32);
}

/** The `data` of a key read. */
export function renderKey(key: TransitKey): Record<string, unknown> {
  const keys = Object.fromEntries(Object.entries(key.versions).map(([v, m]) => [v, versionEntry(key, m)]));
  return {
    name: key.name,
    type: key.type,
    keys,
    latest_version: key.latest_version,
    min_available_version: key.min_available_version,
    min_decryption_version: key.min_decryption_version,
    min_encryption_version: key.min_encryption_version,
    deletion_allowed: key.deletion_allowed,
    derived: key.derived,
    exportable: key.exportable,
    allow_plaintext_backup: key.allow_plaintext_backup,
    auto_rotate_period: key.auto_rotate_period,
    imported_key: false,
    convergent_encryption: key.convergent_encryption,
    ...(key.derived ? { kdf: 'hkdf_sha256' } : {}),
    ...(key.convergent_encryption ? { convergent_encryption_version: 3 } : {}),
    ...supports(key.type),
  };
}
