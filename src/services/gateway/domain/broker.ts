/**
 * Brokered credentials (issue 20 scope 3): what `:authorize-session` hands the user for a
 * target's `brokered_credential_source_ids` — credential libraries read from a Cairn
 * secrets service (`vault` stores, `vault-generic` libraries) and static credentials —
 * and their release when the session ends (leases revoked).
 *
 * The reply follows the reference's `SessionCredential` (Boundary
 * `handlers/targets`, `dynamicToSessionCredential` and `staticToSessionCredential`):
 * `secret.decoded` is the secrets service reply's `data` for a library (for KV v2:
 * `{"data":{…},"metadata":{…}}`) and `secret.raw` its JSON in base64; a typed library
 * (`credential_type`) adds `credential`, extracted as the reference does — the attribute
 * names (mapping overrides, defaults `username`, `password`, `private_key`,
 * `private_key_passphrase`; a name starting with `/` is a JSON pointer) are looked up in
 * `data` itself, then in KV v2's `data.data`. A read that returns a `lease_id` is recorded
 * for the session (credential-leases table) and revoked by {@link releaseCredentials}
 * (retried by the leader while the secrets service cannot be reached).
 *
 * @module
 */
import { GatewayApiError } from './errors.js';
import { T, type CredentialDoc, type CredentialLeaseDoc, type CredentialLibraryDoc, type CredentialStoreDoc, type TargetDoc } from './docs.js';
import type { DomainState } from './domain-state.js';
import { storeClient, vaultError } from './vault.js';
import { isObject } from '../../../kernel/util/is-object.js';

/** One brokered credential in the `:authorize-session` reply (the reference's `SessionCredential`). */
export interface BrokeredCredential {
  readonly credential_source: {
    readonly id: string;
    readonly name?: string;
    readonly description?: string;
    readonly credential_store_id: string;
    /** The source's type: `vault-generic` for a library, `static` for a static credential (the reference's). */
    readonly type: string;
    /** `username_password`, `ssh_private_key`, `json`, … or absent (untyped library). */
    readonly credential_type?: string;
  };
  /** `raw`: base64 of the secret's JSON; `decoded`: the secret as JSON. */
  readonly secret: { readonly raw: string; readonly decoded: unknown };
  /** The typed fields (`username`, `password`, …) when the source has a credential type. */
  readonly credential?: Readonly<Record<string, unknown>>;
}

/** A 400 naming source `id` and what went wrong (never a secret). */
const sourceError = (id: string, problem: string) =>
  new GatewayApiError('bad_request', 'FailedPrecondition', `Unable to broker credential source "${id}": ${problem}`);

const secretOf = (decoded: unknown) => ({ raw: Buffer.from(JSON.stringify(decoded), 'utf8').toString('base64'), decoded });

/** RFC 6901 pointer `ptr` into `v`; undefined when it does not resolve. */
function pointer(v: unknown, ptr: string): unknown {
  let cur = v;
  for (const raw of ptr.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/**
 * The string attributes `names` of `data` (the reference's `defaultExtract`, then
 * `kv2Extract` on a reply of exactly `data` and `metadata` objects); undefined unless every
 * name in `need` is found.
 */
export function extract(data: Record<string, unknown>, names: Readonly<Record<string, string>>, need: readonly string[]): Record<string, string> | undefined {
  const take = (from: Record<string, unknown>, pointers: boolean) => {
    const out: Record<string, string> = {};
    for (const [k, name] of Object.entries(names)) {
      const v = pointers && name.startsWith('/') ? pointer(from, name) : from[name];
      if (typeof v === 'string' && v !== '') out[k] = v;
    }
    return need.every((k) => out[k] !== undefined) ? out : undefined;
  };
  const direct = take(data, true);
  if (direct) return direct;
  const keys = Object.keys(data);
  if (keys.length === 2 && isObject(data.data) && isObject(data.metadata)) return take(data.data, false);
  return undefined;
}

/** The typed credential of a library's secret; @throws when the secret does not hold it. */
function typed(lib: CredentialLibraryDoc, data: Record<string, unknown>): Record<string, string> | undefined {
  const o = lib.credential_mapping_overrides ?? {};
  if (lib.credential_type === 'username_password') {
    const c = extract(data, { username: o.username_attribute ?? 'username', password: o.password_attribute ?? 'password' }, ['username', 'password']);
    if (!c)
      throw sourceError(
        lib.id,
        `vault credential mapping failed: the secret at "${lib.attributes.path}" has no string attributes for a username_password credential`,
      );
    return c;
  }
  if (lib.credential_type === 'ssh_private_key') {
    const names = {
      username: o.username_attribute ?? 'username',
      private_key: o.private_key_attribute ?? 'private_key',
      private_key_passphrase: o.private_key_passphrase_attribute ?? 'private_key_passphrase',
    };
    const c = extract(data, names, ['username', 'private_key']);
    if (!c)
      throw sourceError(
        lib.id,
        `vault credential mapping failed: the secret at "${lib.attributes.path}" has no string attributes for an ssh_private_key credential`,
      );
    return c;
  }
  return undefined;
}

/** Reads library `lib` for `sessionId`; records its lease. */
async function fromLibrary(d: DomainState, lib: CredentialLibraryDoc, sessionId: string): Promise<BrokeredCredential> {
  const store = d.state.get<CredentialStoreDoc>(T.credentialStores, lib.credential_store_id);
  const token = store?.vault_token;
  if (!store || !token) throw sourceError(lib.id, 'its credential store has no token');
  if (token.status !== 'current') throw sourceError(lib.id, `the token of credential store "${store.id}" is ${token.status}`);
  const client = storeClient(store, token.token);
  let body: Record<string, unknown> | undefined;
  try {
    const { path, http_method: method, http_request_body: reqBody } = lib.attributes;
    const res = await client.raw(method, path, method === 'POST' ? { body: reqBody === undefined ? {} : JSON.parse(reqBody) } : {});
    // The reference's client takes a 404 as no secret at all.
    if (res.status === 404) throw sourceError(lib.id, `vault secret is empty: ${method} ${path}: the secrets service answered 404`);
    if (res.status >= 400) {
      const errors =
        typeof res.body === 'object' && res.body !== null && Array.isArray((res.body as { errors?: unknown }).errors)
          ? (res.body as { errors: unknown[] }).errors.map(String)
          : [];
      throw sourceError(lib.id, `${method} ${path}: the secrets service answered ${res.status}${errors.length ? `: ${errors.join('; ')}` : ''}`);
    }
    if (typeof res.body === 'object' && res.body !== null) body = res.body as Record<string, unknown>;
  } catch (err) {
    if (err instanceof GatewayApiError) throw err;
    throw sourceError(lib.id, vaultError(`${lib.attributes.http_method} ${lib.attributes.path}`, err).message);
  } finally {
    await client.close();
  }
  const data = body?.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw sourceError(lib.id, `vault secret is empty: "${lib.attributes.path}" returned no data`);
  const leaseId = typeof body?.lease_id === 'string' ? body.lease_id : '';
  if (leaseId !== '') {
    await d.state.txn((tx) =>
      tx.put<CredentialLeaseDoc>(T.credentialLeases, leaseId, {
        id: leaseId,
        session_id: sessionId,
        credential_store_id: store.id,
        credential_library_id: lib.id,
        created_time: d.nowIso(),
      }),
    );
  }
  const credential = typed(lib, data as Record<string, unknown>);
  return {
    credential_source: {
      id: lib.id,
      name: lib.name,
      description: lib.description,
      credential_store_id: store.id,
      type: lib.type,
      credential_type: lib.credential_type,
    },
    secret: secretOf(data),
    ...(credential ? { credential } : {}),
  };
}

/** A static credential as the reference's `staticToSessionCredential` shows it. */
function fromStatic(c: CredentialDoc): BrokeredCredential {
  const s = c.secret ?? {};
  let secret: Record<string, unknown>;
  if (c.type === 'username_password') secret = { username: c.attributes.username, password: s.password };
  else if (c.type === 'ssh_private_key')
    secret = {
      username: c.attributes.username,
      private_key: s.private_key,
      ...(s.private_key_passphrase ? { private_key_passphrase: s.private_key_passphrase } : {}),
    };
  else secret = { ...(s.object as Record<string, unknown>) };
  return {
    credential_source: {
      id: c.id,
      name: c.name,
      description: c.description,
      credential_store_id: c.credential_store_id,
      type: 'static',
      credential_type: c.type,
    },
    secret: secretOf(secret),
    credential: secret,
  };
}

/**
 * The credentials of `target`'s brokered sources for session `sessionId`, fetched now,
 * in the target's source order. On a failure the leases already made are released.
 * @throws GatewayApiError 400 `FailedPrecondition` when a source cannot be read (the
 *   message names the source and the secrets service's answer, never a secret).
 */
export async function brokerCredentials(d: DomainState, target: TargetDoc, sessionId: string): Promise<BrokeredCredential[]> {
  const out: BrokeredCredential[] = [];
  try {
    for (const id of target.brokered_credential_source_ids) {
      const lib = d.state.get<CredentialLibraryDoc>(T.credentialLibraries, id);
      const cred = lib ? undefined : d.state.get<CredentialDoc>(T.credentials, id);
      if (lib) out.push(await fromLibrary(d, lib, sessionId));
      else if (cred) out.push(fromStatic(cred));
      else throw sourceError(id, 'no such credential library or credential');
    }
  } catch (err) {
    await releaseCredentials(d, sessionId);
    throw err;
  }
  return out;
}

/**
 * Revokes `lease` with its store's token. True when it is gone: revoked, already gone, or
 * ended with its store's token (a deleted store's token was revoked; a token the service
 * refuses took its leases with it); false when the service did not answer (retry later).
 */
async function revokeLease(d: DomainState, lease: CredentialLeaseDoc): Promise<boolean> {
  const store = d.state.get<CredentialStoreDoc>(T.credentialStores, lease.credential_store_id);
  if (!store?.vault_token) return true;
  const client = storeClient(store, store.vault_token.token);
  try {
    await client.leases.revoke(lease.id);
    return true;
  } catch (err) {
    const e = vaultError('unable to revoke the lease', err);
    d.log.warn({ session: lease.session_id, lease: lease.id, err: e.message }, "a brokered credential's lease was not revoked");
    return e.status !== undefined;
  } finally {
    await client.close();
  }
}

/** A stored lease record without the store's indexes. */
const strip = ({ CreateIndex: _c, ModifyIndex: _m, ...rest }: CredentialLeaseDoc & { CreateIndex?: number; ModifyIndex?: number }): CredentialLeaseDoc => rest;

/** Deletes the records of `done` and marks `kept` as released (to be retried), in one transaction. */
async function settle(d: DomainState, done: readonly CredentialLeaseDoc[], kept: readonly CredentialLeaseDoc[]): Promise<void> {
  if (done.length === 0 && kept.every((l) => l.released_time)) return;
  const now = d.nowIso();
  await d.state.txn((tx) => {
    for (const l of done) tx.delete(T.credentialLeases, l.id);
    for (const l of kept) if (!l.released_time) tx.put<CredentialLeaseDoc>(T.credentialLeases, l.id, { ...strip(l), released_time: now });
  });
}

/** Revokes `leases`; settles their records. */
async function revokeAll(d: DomainState, leases: readonly CredentialLeaseDoc[]): Promise<void> {
  const done: CredentialLeaseDoc[] = [];
  const kept: CredentialLeaseDoc[] = [];
  for (const lease of leases) ((await revokeLease(d, lease)) ? done : kept).push(lease);
  await settle(d, done, kept);
}

/**
 * Releases what session `sessionId`'s credentials hold: revokes their leases with their
 * store's token (`sys/leases/revoke`). A lease the secrets service could not be asked
 * about stays recorded as released, and the leader retries it
 * ({@link retryReleasedLeases}). Never throws (failures are logged).
 */
export async function releaseCredentials(d: DomainState, sessionId: string): Promise<void> {
  const leases = d.state.listBy<CredentialLeaseDoc>(T.credentialLeases, 'session', sessionId);
  if (leases.length === 0) return;
  try {
    await revokeAll(d, leases);
  } catch (err) {
    d.log.warn({ session: sessionId, err: (err as Error).message }, 'the leases of an ended session could not be settled');
  }
}

/** Retries the revocation of leases whose session ended while the secrets service could not be reached (the leader's renewal rounds). */
export async function retryReleasedLeases(d: DomainState): Promise<void> {
  const released = d.state.listBy<CredentialLeaseDoc>(T.credentialLeases, 'released', 'yes');
  if (released.length > 0) await revokeAll(d, released);
}
