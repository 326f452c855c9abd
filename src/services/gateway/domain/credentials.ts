/**
 * Static credentials (issue 20 scope 3; reference:
 * https://developer.hashicorp.com/boundary/docs/concepts/domain-model/credentials and its
 * `credentials` handler) in a static credential store, listed with
 * `?credential_store_id=`: `username_password` (`credup_…`: `username`, write-only
 * `password`), `json` (`credjson_…`: write-only `object`) and `ssh_private_key`
 * (`credspk_…`: `username`, write-only `private_key` and `private_key_passphrase`). The
 * write-only values are kept in the encrypted state (the document's internal `secret`)
 * and shown only as `password_hmac`, `object_hmac`, `private_key_hmac`,
 * `private_key_passphrase_hmac` (credential-hmac.ts).
 *
 * @module
 */
import { createPrivateKey } from 'node:crypto';
import { isObject } from '../../../kernel/util/is-object.js';
import { unlink } from './cascade.js';
import type { CollectionSpec } from './collection.js';
import { credentialHmac } from './credential-hmac.js';
import { T, type CredentialDoc, type CredentialStoreDoc, type TargetDoc } from './docs.js';
import type { GatewayDomain } from './domain.js';
import { newId, PREFIX } from './ids.js';
import type { Input } from './input.js';
import type { Kind } from './resource.js';

/** Credentials: in their store's project, pinned to the store. */
const credentialKind: Kind<CredentialDoc> = {
  type: 'credential',
  table: T.credentials,
  idActions: ['no-op', 'read', 'update', 'delete'],
  where: (_d, c) => ({ scopeId: c.scope_id!, pin: c.credential_store_id }),
};

type CredentialType = CredentialDoc['type'];
const TYPES: readonly CredentialType[] = ['username_password', 'json', 'ssh_private_key'];
const PREFIXES: Record<CredentialType, string> = {
  username_password: PREFIX.usernamePasswordCredential,
  json: PREFIX.jsonCredential,
  ssh_private_key: PREFIX.sshPrivateKeyCredential,
};
/** The write-only attributes of each type. */
const SECRET_FIELDS: Record<CredentialType, readonly string[]> = {
  username_password: ['password'],
  json: ['object'],
  ssh_private_key: ['private_key', 'private_key_passphrase'],
};

const OPENSSH = /^-----BEGIN OPENSSH PRIVATE KEY-----\s*([A-Za-z0-9+/=\s]+?)\s*-----END OPENSSH PRIVATE KEY-----\s*$/;

/**
 * The problem with private key `pem`, if any: PKCS#1/PKCS#8/SEC1 PEM must open (with
 * `passphrase` when encrypted); OpenSSH's own format (`ssh-keygen`'s default) must carry
 * its `openssh-key-v1` header (its encryption is checked by the ssh client that uses it).
 */
function keyProblem(pem: string, passphrase: string | undefined): string | undefined {
  const openssh = OPENSSH.exec(pem.trim());
  if (openssh)
    return Buffer.from(openssh[1]!.replace(/\s+/g, ''), 'base64').subarray(0, 15).toString('latin1') === 'openssh-key-v1\0'
      ? undefined
      : 'Must be a private key in PEM or OpenSSH format.';
  try {
    createPrivateKey({ key: pem, format: 'pem', passphrase });
    return undefined;
  } catch (err) {
    return /passphrase/i.test((err as Error).message)
      ? 'The private key is encrypted and the passphrase does not open it.'
      : 'Must be a private key in PEM or OpenSSH format.';
  }
}

/**
 * The attributes and secrets of a create (all required) or update (merged over `doc`);
 * problems go to `a` under the reference's names.
 */
function parts(type: CredentialType, a: Input, doc?: CredentialDoc): Pick<CredentialDoc, 'attributes' | 'secret'> {
  const attrs: Record<string, unknown> = { ...doc?.attributes };
  const secret: Record<string, unknown> = { ...doc?.secret };
  const required = (field: string) =>
    doc ? 'This is a required field and cannot be unset.' : `Field required for creating a ${type.replace('_', '-')} credential.`;
  const text = (into: Record<string, unknown>, field: string, optional = false) => {
    if (doc && !a.has(field)) return;
    const v = a.string(field);
    if (typeof v === 'string' && v !== '') into[field] = v;
    else if (optional && (v === null || v === '')) delete into[field];
    else if (!optional || v !== undefined) a.fail(field, required(field));
  };
  if (type === 'username_password' || type === 'ssh_private_key') text(attrs, 'username');
  if (type === 'username_password') text(secret, 'password');
  if (type === 'ssh_private_key') {
    text(secret, 'private_key');
    text(secret, 'private_key_passphrase', true);
    if (typeof secret.private_key === 'string' && (a.has('private_key') || a.has('private_key_passphrase'))) {
      const problem = keyProblem(secret.private_key, secret.private_key_passphrase as string | undefined);
      if (problem) a.fail('private_key', problem);
    }
  }
  if (type === 'json' && (!doc || a.has('object'))) {
    const v = a.raw.object;
    a.has('object');
    if (isObject(v) && Object.keys(v).length > 0) secret.object = v;
    else a.fail('object', doc ? 'This is a required field and cannot be unset.' : 'This is a required field and must be a non-empty JSON object.');
  }
  for (const f of Object.keys(a.raw)) {
    if (!f.endsWith('_hmac')) continue;
    a.has(f);
    a.fail(f, 'This is a read only field.');
  }
  return { attributes: attrs, secret };
}

/** The store a credential goes into, when it is a static one. */
const staticStore = (d: GatewayDomain, id: string) => {
  const s = d.state.get<CredentialStoreDoc>(T.credentialStores, id);
  return s?.type === 'static' ? s : undefined;
};

/** The `credentials` collection: its routes are declared in routes.ts. */
export const credentialCollection: CollectionSpec<CredentialDoc> = {
  path: 'credentials',
  kind: credentialKind,
  parentField: 'credential_store_id',
  recursive: false,
  collection(d, storeId) {
    const s = staticStore(d, storeId);
    return s ? { r: { id: '', type: 'credential', scopeId: s.scope_id!, pin: s.id }, scopeId: s.scope_id! } : undefined;
  },
  inParent: (doc, storeId) => doc.credential_store_id === storeId,
  async create(_d, input, storeId, scopeId) {
    const t = input.string('type', { required: true });
    const type = TYPES.includes(t as CredentialType) ? (t as CredentialType) : undefined;
    if (typeof t === 'string' && !type) input.fail('type', `This is a required field and must be one of ${TYPES.map((x) => `"${x}"`).join(', ')}.`);
    const p = type ? parts(type, input.object('attributes'), undefined) : (input.object('attributes'), { attributes: {}, secret: {} });
    return { scope_id: scopeId, credential_store_id: storeId, type: type ?? 'username_password', ...p };
  },
  update(_d, input, doc) {
    if (input.has('type')) {
      const t = input.string('type');
      if (t !== null && t !== doc.type) input.fail('type', 'Cannot modify resource type.');
    }
    return input.has('attributes') ? parts(doc.type, input.object('attributes'), doc) : {};
  },
  extra(d, doc) {
    const attributes: Record<string, unknown> = { ...doc.attributes };
    for (const f of SECRET_FIELDS[doc.type]) {
      const v = doc.secret?.[f];
      if (v !== undefined) attributes[`${f}_hmac`] = credentialHmac(d, doc.credential_store_id, typeof v === 'string' ? v : JSON.stringify(v));
    }
    return { attributes };
  },
  newId: (doc) => newId(PREFIXES[doc.type]),
  onDelete: (tx, doc, d) => unlink<TargetDoc>(tx, { table: T.targets, field: 'brokered_credential_source_ids' }, doc.id, d.nowIso()),
};
