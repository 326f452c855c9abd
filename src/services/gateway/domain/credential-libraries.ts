/**
 * Credential libraries (issue 20 scope 3; reference:
 * https://developer.hashicorp.com/boundary/docs/concepts/domain-model/credential-libraries
 * and its `credentiallibraries` handler): `vault-generic` libraries (`clvlt_…`) of a
 * vault credential store, listed with `?credential_store_id=`. `attributes.path` is read
 * from the store's secrets service when a session is authorised (broker.ts) with
 * `http_method` GET (default) or POST (with `http_request_body`). `credential_type`
 * (`username_password`, `ssh_private_key`, or none) makes the secret a typed credential;
 * `credential_mapping_overrides` names the secret's attributes to take
 * (`username_attribute`, `password_attribute`, `private_key_attribute`,
 * `private_key_passphrase_attribute`).
 *
 * @module
 */
import type { CollectionSpec } from './collection.js';
import { unlink } from './cascade.js';
import { T, type CredentialLibraryDoc, type CredentialStoreDoc, type TargetDoc } from './docs.js';
import type { GatewayDomain } from './domain.js';
import { newId, PREFIX } from './ids.js';
import type { Input } from './input.js';
import type { Kind } from './resource.js';
import { isObject } from '../../../kernel/util/is-object.js';

/** Libraries: in their store's project, pinned to the store. */
const credentialLibraryKind: Kind<CredentialLibraryDoc> = {
  type: 'credential-library',
  table: T.credentialLibraries,
  idActions: ['no-op', 'read', 'update', 'delete'],
  where: (_d, l) => ({ scopeId: l.scope_id!, pin: l.credential_store_id }),
};

/** Mapping override names per credential type (the reference's `validateMapping`). */
const MAPPING_FIELDS: Readonly<Record<string, readonly string[]>> = {
  username_password: ['username_attribute', 'password_attribute'],
  ssh_private_key: ['username_attribute', 'private_key_attribute', 'private_key_passphrase_attribute'],
};

function isJsonObject(text: string): boolean {
  try {
    return isObject(JSON.parse(text));
  } catch {
    return false;
  }
}

/** The checked `attributes` (merged over `current` on an update). */
function attributes(a: Input, current?: CredentialLibraryDoc['attributes']): CredentialLibraryDoc['attributes'] {
  const path = a.has('path') ? a.string('path') : current?.path;
  if (typeof path !== 'string' || path.trim() === '')
    a.fail('path', current ? 'This is a required field and cannot be set to empty.' : 'This is a required field.');
  let method = current?.http_method ?? 'GET';
  if (a.has('http_method')) {
    const m = a.string('http_method');
    if (m === null) method = 'GET';
    else if (typeof m === 'string' && ['GET', 'POST'].includes(m.toUpperCase())) method = m.toUpperCase() as 'GET' | 'POST';
    else a.fail('http_method', "If set, value must be 'GET' or 'POST'.");
  }
  let body = current?.http_request_body;
  if (a.has('http_request_body')) {
    const b = a.string('http_request_body');
    body = typeof b === 'string' && b !== '' ? b : undefined;
  }
  if (body !== undefined && a.has('http_request_body') && !isJsonObject(body))
    a.fail('http_request_body', 'Must be a JSON object (the body sent to the secrets service).');
  if (body !== undefined && method !== 'POST') a.fail('http_request_body', 'Field can only be set if "attributes.http_method" is set to the value \'POST\'.');
  return { path: (path as string) ?? '', http_method: method, ...(body !== undefined ? { http_request_body: body } : {}) };
}

/** The checked `credential_mapping_overrides` for `type` merged over `current` (`null` values clear). */
function overrides(input: Input, type: string | undefined, current?: Readonly<Record<string, string>>): Record<string, string> | undefined {
  if (!input.has('credential_mapping_overrides')) return current;
  const raw = input.raw.credential_mapping_overrides;
  if (raw === null) return undefined;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    input.fail('credential_mapping_overrides', 'Must be an object.');
    return current;
  }
  const entries = Object.entries(raw as Record<string, unknown>);
  if (type === undefined) {
    if (entries.length > 0) input.fail('credential_mapping_overrides', 'This field can only be set if "credential_type" is set');
    return undefined;
  }
  const out: Record<string, string> = { ...current };
  for (const [k, v] of entries) {
    const field = `credential_mapping_overrides.${k}`;
    if (!MAPPING_FIELDS[type]!.includes(k)) input.fail(field, `Invalid mapping override for credential type "${type}"`);
    else if (v === null) delete out[k];
    else if (typeof v === 'string' && v !== '') out[k] = v;
    else input.fail(field, 'Mapping value must be a string or a null to clear.');
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

const storeOf = (d: GatewayDomain, id: string) => d.state.get<CredentialStoreDoc>(T.credentialStores, id);

/** The `credential-libraries` collection: its routes are declared in routes.ts. */
export const credentialLibraryCollection: CollectionSpec<CredentialLibraryDoc> = {
  path: 'credential-libraries',
  kind: credentialLibraryKind,
  parentField: 'credential_store_id',
  recursive: false,
  collection(d, storeId) {
    const s = storeOf(d, storeId);
    return s?.type === 'vault' ? { r: { id: '', type: 'credential-library', scopeId: s.scope_id!, pin: s.id }, scopeId: s.scope_id! } : undefined;
  },
  inParent: (doc, storeId) => doc.credential_store_id === storeId,
  async create(_d, input, storeId, scopeId) {
    const type = input.string('type');
    // The reference takes a missing type, or its deprecated `vault`, as `vault-generic`.
    if (type !== undefined && type !== null && type !== 'vault-generic' && type !== 'vault') input.fail('type', 'Type must be "vault-generic".');
    const ct = input.string('credential_type');
    const credentialType = ct === null || ct === undefined || ct === '' || ct === 'unspecified' ? undefined : ct;
    if (credentialType !== undefined && !MAPPING_FIELDS[credentialType]) input.fail('credential_type', `Unknown credential type "${credentialType}"`);
    const attrs = attributes(input.object('attributes'));
    // With an unknown credential type only that is reported.
    const mapping =
      credentialType === undefined || MAPPING_FIELDS[credentialType]
        ? overrides(input, credentialType)
        : (input.has('credential_mapping_overrides'), undefined);
    return {
      scope_id: scopeId,
      credential_store_id: storeId,
      type: 'vault-generic',
      attributes: attrs,
      credential_type: credentialType,
      credential_mapping_overrides: mapping,
    };
  },
  update(_d, input, doc) {
    if (input.has('type')) {
      const t = input.string('type');
      if (t !== null && t !== doc.type) input.fail('type', 'Cannot modify resource type.');
    }
    if (input.has('credential_type')) {
      const ct = input.string('credential_type');
      if (ct !== null && ct !== '' && ct !== doc.credential_type) input.fail('credential_type', 'Cannot modify credential type.');
    }
    const out: Partial<CredentialLibraryDoc> = {};
    if (input.has('attributes')) Object.assign(out, { attributes: attributes(input.object('attributes'), doc.attributes) });
    if (input.has('credential_mapping_overrides'))
      Object.assign(out, { credential_mapping_overrides: overrides(input, doc.credential_type, doc.credential_mapping_overrides) ?? null });
    return out;
  },
  newId: () => newId(PREFIX.vaultGenericLibrary),
  onDelete: (tx, doc, d) => unlink<TargetDoc>(tx, { table: T.targets, field: 'brokered_credential_source_ids' }, doc.id, d.nowIso()),
};
