/**
 * Key material out and in (reference/secrets-engines.md §6): `export/:key_type/:name(/:version)`
 * (needs `exportable`, except `public-key`), `backup/:name` (needs `exportable` and
 * `allow_plaintext_backup`, as the reference) and `restore(/:name)`. A backup is base64 of
 * the stored key as JSON; restore checks every field and every key before storing it.
 *
 * @module
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { badRequest } from '../../../kernel/http/index.js';
import type { SecretsPath, SecretsRequest, SecretsResult } from '../types.js';
import { decodeBase64 } from './ciphertext.js';
import { isKeyType, typeInfo, type KeyMaterial } from './key-types.js';
import { keyName } from './keys.routes.js';
import { MAX_BACKUP_BYTES, MAX_KEY_VERSIONS } from './limits.js';
import { withKeyLock } from './locks.js';
import { loadKey, saveKey, type TransitKey } from './policy.js';
import { ed25519Raw } from './render.js';

const EXPORT_TYPES = ['encryption-key', 'signing-key', 'hmac-key', 'public-key'];

/** One version's material in the export form of `exportType`; 400 when the key type has no such key. */
function exported(key: TransitKey, m: KeyMaterial, exportType: string): string {
  const kind = typeInfo(key.type).kind;
  if (exportType === 'hmac-key') return m.hmac_key;
  const unsupported = () => badRequest(`export of "${exportType}" is not supported for keys of type ${key.type}`);
  if (exportType === 'encryption-key') {
    if (kind === 'aead') return m.key ?? '';
    if (kind === 'rsa')
      return createPrivateKey(m.private_key ?? '')
        .export({ format: 'pem', type: 'pkcs1' })
        .toString();
    throw unsupported();
  }
  if (kind === 'aead' || (key.derived && kind === 'ed25519')) throw unsupported();
  if (exportType === 'public-key') return kind === 'ed25519' ? ed25519Raw(m.public_key ?? '').toString('base64') : (m.public_key ?? '');
  const priv = createPrivateKey(m.private_key ?? '');
  if (kind === 'ecdsa') return priv.export({ format: 'pem', type: 'sec1' }).toString();
  if (kind === 'rsa') return priv.export({ format: 'pem', type: 'pkcs1' }).toString();
  // Ed25519: the reference's 64-byte form, seed ‖ public key.
  const seed = priv.export({ format: 'der', type: 'pkcs8' }).subarray(-32);
  return Buffer.concat([seed, ed25519Raw(m.public_key ?? '')]).toString('base64');
}

async function exportHandler(req: SecretsRequest): Promise<SecretsResult | undefined> {
  const exportType = req.params.key_type;
  if (!EXPORT_TYPES.includes(exportType)) throw badRequest(`invalid export type: ${exportType}`);
  const key = await loadKey(req.storage, keyName(req));
  if (!key) return undefined;
  if (exportType !== 'public-key' && !key.exportable) throw badRequest('private key material is not exportable');
  const wanted = req.params.version;
  let versions = Object.entries(key.versions);
  if (wanted) {
    const v = wanted === 'latest' ? key.latest_version : /^\d{1,9}$/.test(wanted) ? Number(wanted) : NaN;
    if (!Number.isInteger(v) || v < 1) throw badRequest('version: could not parse version');
    versions = versions.filter(([n]) => Number(n) === v);
    if (versions.length === 0) throw badRequest('version not found');
  }
  const keys = Object.fromEntries(versions.map(([n, m]) => [n, exported(key, m, exportType)]));
  return { data: { name: key.name, type: key.type, keys } };
}

const exportSpec = (pattern: string): SecretsPath => ({
  pattern,
  synopsis: 'Export key material: encryption-key, signing-key, hmac-key or public-key',
  params: { key_type: 'encryption-key, signing-key, hmac-key or public-key', name: 'name of the key', version: 'a version number or "latest"' },
  operations: { read: { summary: 'Export a key', handle: exportHandler } },
});

interface Backup {
  readonly policy: TransitKey;
  readonly backup_info: { readonly time: string };
}

const backupPath: SecretsPath = {
  pattern: 'backup/:name',
  synopsis: 'A plaintext backup of a key: every version and setting',
  params: { name: 'name of the key' },
  operations: {
    read: {
      summary: 'Back up a key',
      handle: async (req) => {
        const key = await loadKey(req.storage, keyName(req));
        if (!key) return undefined;
        if (!key.exportable) throw badRequest('exporting is disallowed on the policy');
        if (!key.allow_plaintext_backup) throw badRequest('plaintext backup is disallowed on the policy');
        const backup: Backup = { policy: key, backup_info: { time: req.now.toISOString() } };
        return { data: { backup: Buffer.from(JSON.stringify(backup)).toString('base64') } };
      },
    },
  },
};

const isCount = (v: unknown, min: number) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= 1e9;

/** The key in a backup, checked field by field and key by key; 400 `invalid backup: …` otherwise. */
function parseBackup(encoded: string): TransitKey {
  const bad = (why: string) => badRequest(`invalid backup: ${why}`);
  const raw = decodeBase64(encoded, 'backup');
  if (raw.length > MAX_BACKUP_BYTES) throw bad('too large');
  let parsed: Partial<Backup>;
  try {
    parsed = JSON.parse(raw.toString('utf8')) as Partial<Backup>;
  } catch {
    throw bad('not JSON');
  }
  const p = parsed?.policy as Partial<TransitKey> | undefined;
  if (!p || typeof p !== 'object') throw bad('no key');
  if (typeof p.type !== 'string' || !isKeyType(p.type)) throw bad('unknown key type');
  for (const f of ['derived', 'convergent_encryption', 'exportable', 'allow_plaintext_backup', 'deletion_allowed'] as const) {
    if (typeof p[f] !== 'boolean') throw bad(`${f} is not a boolean`);
  }
  if (!isCount(p.latest_version, 1) || !isCount(p.min_decryption_version, 1) || !isCount(p.min_encryption_version, 0)) throw bad('bad versions');
  if (!isCount(p.min_available_version, 0) || !isCount(p.auto_rotate_period, 0)) throw bad('bad settings');
  const versions = p.versions;
  if (!versions || typeof versions !== 'object' || Object.keys(versions).length === 0 || Object.keys(versions).length > MAX_KEY_VERSIONS) {
    throw bad('bad key versions');
  }
  const kind = typeInfo(p.type).kind;
  const kept: Record<string, KeyMaterial> = {};
  for (const [v, m] of Object.entries(versions)) {
    if (!/^\d{1,9}$/.test(v) || Number(v) > (p.latest_version ?? 0)) throw bad(`bad version ${v}`);
    if (typeof m?.hmac_key !== 'string' || typeof m.creation_time !== 'string' || Number.isNaN(Date.parse(m.creation_time))) throw bad(`version ${v}`);
    try {
      if (kind === 'aead' || (kind === 'ed25519' && p.derived)) {
        if (Buffer.from(m.key ?? '', 'base64').length !== (typeInfo(p.type).keyBytes ?? 32)) throw new Error('key length');
      } else if (createPrivateKey(m.private_key ?? '').asymmetricKeyType !== createPublicKey(m.public_key ?? '').asymmetricKeyType) {
        throw new Error('key pair');
      }
    } catch {
      throw bad(`version ${v} holds no valid ${p.type} key`);
    }
    const { creation_time, hmac_key, key, private_key, public_key } = m;
    kept[v] = { creation_time, hmac_key, ...(key ? { key } : {}), ...(private_key ? { private_key, public_key } : {}) };
  }
  // Only the known fields are kept: a backup is untrusted input.
  return {
    name: typeof p.name === 'string' ? p.name : '',
    type: p.type,
    derived: p.derived as boolean,
    convergent_encryption: p.convergent_encryption as boolean,
    exportable: p.exportable as boolean,
    allow_plaintext_backup: p.allow_plaintext_backup as boolean,
    deletion_allowed: p.deletion_allowed as boolean,
    min_decryption_version: p.min_decryption_version as number,
    min_encryption_version: p.min_encryption_version as number,
    min_available_version: p.min_available_version as number,
    latest_version: p.latest_version as number,
    auto_rotate_period: p.auto_rotate_period as number,
    versions: kept,
  };
}

async function restore(req: SecretsRequest): Promise<SecretsResult | undefined> {
  if (typeof req.data.backup !== 'string' || req.data.backup === '') throw badRequest("'backup' must be supplied");
  const fromBackup = parseBackup(req.data.backup);
  const name = req.params.name || (req.data.name as string | undefined) || fromBackup.name;
  if (typeof name !== 'string' || name === '' || name.length > 256 || name.includes('/')) throw badRequest('name: invalid key name');
  await withKeyLock(req.core, req.mount, name, async () => {
    if (!req.data.force && (await loadKey(req.storage, name))) throw badRequest(`key "${name}" already exists`);
    await saveKey(req.storage, { ...fromBackup, name });
  });
  return undefined;
}

const restoreSpec = (pattern: string): SecretsPath => ({
  pattern,
  synopsis: 'Restore a key from a backup',
  params: { name: 'name to restore the key as (default: the name in the backup)' },
  fields: {
    backup: Type.String({ description: 'the backup from backup/:name' }),
    name: Type.String({ description: 'name to restore the key as' }),
    force: Type.Boolean({ description: 'replace an existing key of that name' }),
  },
  operations: { update: { summary: 'Restore a key', handle: restore } },
});

/** The export, backup and restore paths. */
export const exportPaths: readonly SecretsPath[] = [
  exportSpec('export/:key_type/:name'),
  exportSpec('export/:key_type/:name/:version'),
  backupPath,
  restoreSpec('restore'),
  restoreSpec('restore/:name'),
];
