/**
 * Credential stores (issue 20 scope 3; reference:
 * https://developer.hashicorp.com/boundary/docs/concepts/domain-model/credential-stores
 * and its `credentialstores` handler): in a project scope, of type `vault` (`csvlt_…`, a
 * Cairn secrets service: `attributes.address`, `token`, `namespace`, `ca_cert`,
 * `tls_server_name`, `tls_skip_verify`, `worker_filter`) or `static` (`csst_…`, holding
 * static credentials). A vault store's token is write-only: create and every update that
 * sends one check it at the secrets service (vault.ts: renewable, orphan, periodic, the
 * capabilities the controller needs) and renew it; the view shows `token_hmac` and
 * `token_status` instead. The leader renews it while the store exists
 * (vault-token-renewer.ts). Deleting a store revokes its token (and with it the leases it
 * made) and deletes its libraries or credentials.
 *
 * @module
 */
import { compileFilter, FilterError } from '../../../kernel/bexpr/index.js';
import { deleteStoreContents } from './cascade.js';
import type { CollectionSpec } from './collection.js';
import { credentialHmac } from './credential-hmac.js';
import { T, type CredentialStoreDoc, type VaultTokenState } from './docs.js';
import type { Caller, GatewayDomain } from './domain.js';
import { newId, PREFIX } from './ids.js';
import type { Input } from './input.js';
import { may, type Kind } from './resource.js';
import { checkStoreToken, storeClient, vaultError } from './vault.js';

/** Credential stores: in their project. */
const credentialStoreKind: Kind<CredentialStoreDoc> = {
  type: 'credential-store',
  table: T.credentialStores,
  idActions: ['no-op', 'read', 'update', 'delete'],
  where: (_d, s) => ({ scopeId: s.scope_id! }),
};

const CREATE_REQUIRED = 'Field required for creating a vault credential store.';

/** The checked vault attributes of a create (all of `current` kept on an update); problems go to `a`. */
function vaultAttributes(a: Input, current?: CredentialStoreDoc['attributes']): CredentialStoreDoc['attributes'] {
  const out: Record<string, unknown> = { ...current };
  const text = (field: 'address' | 'namespace' | 'ca_cert' | 'tls_server_name' | 'worker_filter') => {
    if (!a.has(field)) return;
    const v = a.string(field);
    if (v === null || v === '') delete out[field];
    else if (typeof v === 'string') out[field] = v;
  };
  for (const f of ['address', 'namespace', 'ca_cert', 'tls_server_name', 'worker_filter'] as const) text(f);
  if (a.has('tls_skip_verify')) {
    const v = a.bool('tls_skip_verify');
    if (v) out.tls_skip_verify = true;
    else delete out.tls_skip_verify;
  }
  if (typeof out.address === 'string') {
    let url: URL | undefined;
    try {
      url = new URL(out.address);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) a.fail('address', 'Must be an http:// or https:// URL.');
  } else a.fail('address', current ? 'This is a required field and cannot be unset.' : CREATE_REQUIRED);
  if (typeof out.ca_cert === 'string' && !/-----BEGIN CERTIFICATE-----/.test(out.ca_cert)) a.fail('ca_cert', 'Incorrectly formatted value.');
  if (typeof out.worker_filter === 'string') {
    try {
      compileFilter(out.worker_filter);
    } catch (err) {
      if (!(err instanceof FilterError)) throw err;
      a.fail('worker_filter', `Unable to parse the filter: ${err.message}`);
    }
  }
  if (a.has('token_hmac')) a.fail('token_hmac', 'This is a read only field.');
  if (a.has('token_status')) a.fail('token_status', 'This is a read only field.');
  return out as CredentialStoreDoc['attributes'];
}

/** Checks `token` against the store's secrets service and returns its state; a refusal is reported on `attributes.token` (or `address` when unreachable). */
async function tokenState(d: GatewayDomain, a: Input, attributes: CredentialStoreDoc['attributes'], token: string): Promise<VaultTokenState | undefined> {
  try {
    const client = storeClient({ attributes }, token);
    try {
      const now = d.now();
      const r = await checkStoreToken(client, now);
      const iso = new Date(now).toISOString();
      return { token, accessor: r.accessor, status: 'current', last_renewal_time: iso, expiration_time: new Date(r.expiresAtMs).toISOString() };
    } finally {
      await client.close();
    }
  } catch (err) {
    const e = vaultError('unable to check the vault token', err);
    a.fail(e.status === undefined && !/^vault token/.test(e.message) ? 'address' : 'token', e.message);
    return undefined;
  }
}

/** `token` of a vault create/update: required on create, never empty. */
function tokenInput(a: Input, required: boolean): string | undefined {
  if (!required && !a.has('token')) return undefined;
  const v = a.string('token');
  if (typeof v === 'string' && v.trim() !== '') return v;
  a.fail('token', required ? CREATE_REQUIRED : 'This is a required field and cannot be unset.');
  return undefined;
}

/** Revokes a deleted store's token (and so the leases it made), in the background; failures are logged, not raised. */
function revokeToken(d: GatewayDomain, doc: CredentialStoreDoc): void {
  const t = doc.vault_token;
  if (!t || t.status !== 'current') return;
  const warn = (err: unknown) =>
    d.log.warn(
      { store: doc.id, err: vaultError('unable to revoke vault token', err).message },
      "the deleted credential store's token was not revoked; it ends with its period",
    );
  let client;
  try {
    client = storeClient(doc, t.token);
  } catch (err) {
    return warn(err);
  }
  const c = client;
  c.token
    .revokeSelf()
    .catch(warn)
    .finally(() => void c.close());
}

/** `authorized_collection_actions` of a store: its libraries (vault) or credentials (static). */
function collectionActions(caller: Caller, s: CredentialStoreDoc): Record<string, string[]> {
  const [path, type] = s.type === 'vault' ? (['credential-libraries', 'credential-library'] as const) : (['credentials', 'credential'] as const);
  const acts = ['create', 'list'].filter((a) => may(caller, { id: '', type, scopeId: s.scope_id!, pin: s.id }, a));
  return acts.length > 0 ? { [path]: acts } : {};
}

/** The `credential-stores` collection: its routes are declared in routes.ts. */
export const credentialStoreCollection: CollectionSpec<CredentialStoreDoc> = {
  path: 'credential-stores',
  kind: credentialStoreKind,
  parentField: 'scope_id',
  recursive: true,
  collection: (d, id) => (d.scope(id) ? { r: { id: '', type: 'credential-store', scopeId: id }, scopeId: id } : undefined),
  inParent: (doc, id) => doc.scope_id === id,
  async create(d, input, parentId) {
    if (d.scope(parentId)?.type !== 'project') input.fail('scope_id', 'This field must be a valid project scope id.');
    const type = input.string('type', { required: true });
    const a = input.object('attributes');
    if (type === 'static') return { scope_id: parentId, type: 'static', attributes: {} };
    if (type !== 'vault') {
      if (typeof type === 'string') input.fail('type', 'This is a required field and must be a known credential store type.');
      return { scope_id: parentId, type: 'vault', attributes: {} };
    }
    const attributes = vaultAttributes(a);
    const token = tokenInput(a, true);
    // The secrets service is asked only about an otherwise valid request.
    const vault_token = token !== undefined && input.isClean() ? await tokenState(d, a, attributes, token) : undefined;
    return { scope_id: parentId, type: 'vault', attributes, vault_token };
  },
  async update(d, input, doc) {
    if (input.has('type')) {
      const t = input.string('type');
      if (t !== doc.type && t !== null) input.fail('type', 'Cannot modify resource type.');
    }
    if (doc.type === 'static') {
      input.object('attributes');
      return {};
    }
    const a = input.object('attributes');
    if (!input.has('attributes')) return {};
    const attributes = vaultAttributes(a, doc.attributes);
    const token = tokenInput(a, false);
    const connection = ['address', 'namespace', 'ca_cert', 'tls_server_name', 'tls_skip_verify'].some((f) => a.has(f));
    if (!input.isClean()) return {};
    // A new token, or a new way to reach the service, is checked before it is kept.
    if (token !== undefined || connection) {
      const checked = await tokenState(d, a, attributes, token ?? doc.vault_token?.token ?? '');
      return checked ? { attributes, vault_token: checked } : {};
    }
    return { attributes };
  },
  extra(d, doc, caller) {
    const t = doc.vault_token;
    const attributes = t ? { ...doc.attributes, token_hmac: credentialHmac(d, doc.id, t.token), token_status: t.status } : doc.attributes;
    return { attributes, authorized_collection_actions: collectionActions(caller, doc) };
  },
  newId: (doc) => newId(doc.type === 'vault' ? PREFIX.vaultStore : PREFIX.staticStore),
  onDelete: (tx, doc, d) => deleteStoreContents(tx, doc.id, d.nowIso()),
  afterDelete: revokeToken,
};
