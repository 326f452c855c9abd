/**
 * The controller as a client of a Cairn secrets service (a `vault` credential store),
 * through the SDK's {@link SecretsClient}: the token checks of a store's create and
 * update, the token's renewal, and the reads of credential libraries. The checks follow
 * the reference (Boundary `internal/credential/vault`, `CreateCredentialStore` and
 * `validateTokenLookup`): `auth/token/lookup-self` must show a renewable, orphan,
 * periodic token; `sys/capabilities-self` must grant what the controller calls
 * (`requiredCapabilities`); then `auth/token/renew-self`. Messages carry the secrets
 * service's status and errors, never the token.
 *
 * @module
 */
import { SecretsApiError, SecretsClient, SecretsConnectionError } from '../../../sdk/index.js';
import type { CredentialStoreDoc } from './docs.js';

/** Paths and the capability the controller needs on each (the reference's `requiredCapabilities`). */
const REQUIRED_CAPABILITIES: Readonly<Record<string, string>> = {
  'auth/token/lookup-self': 'read',
  'auth/token/renew-self': 'update',
  'auth/token/revoke-self': 'update',
  'sys/leases/renew': 'update',
  'sys/leases/revoke': 'update',
};

/** A request to the secrets service failed; `message` says which and why (status and errors), without secrets. */
export class VaultError extends Error {
  /** @param status the secrets service's HTTP status; undefined when it did not answer. */
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** A client for `store`'s secrets service authenticated by `token`. @throws VaultError on a bad address. */
export function storeClient(store: Pick<CredentialStoreDoc, 'attributes'>, token: string): SecretsClient {
  const a = store.attributes;
  try {
    return new SecretsClient({
      address: a.address ?? '',
      token,
      namespace: a.namespace || undefined,
      caCert: a.ca_cert || undefined,
      tlsServerName: a.tls_server_name || undefined,
      skipVerify: a.tls_skip_verify === true,
      fetchTimeoutMs: 30_000,
      readYourWrites: false,
    });
  } catch (err) {
    throw new VaultError((err as Error).message);
  }
}

/** `err` from the SDK as a {@link VaultError} whose message starts with `what`. */
export function vaultError(what: string, err: unknown): VaultError {
  if (err instanceof SecretsApiError)
    return new VaultError(`${what}: the secrets service answered ${err.status}${err.errors.length ? `: ${err.errors.join('; ')}` : ''}`, err.status);
  if (err instanceof SecretsConnectionError) return new VaultError(`${what}: the secrets service did not answer: ${err.message.replace(/^\S+ /, '')}`);
  if (err instanceof VaultError) return err;
  return new VaultError(`${what}: ${(err as Error).message}`);
}

/** A token's state after a renewal: its accessor and when it expires (epoch ms). */
export interface TokenRenewal {
  readonly accessor: string;
  readonly expiresAtMs: number;
}

/** `auth/token/renew-self` with `client`'s token. @throws VaultError */
export async function renewSelf(client: SecretsClient, nowMs: number): Promise<TokenRenewal> {
  try {
    const res = await client.write('auth/token/renew-self', {});
    const auth = res?.auth;
    if (!auth) throw new VaultError('unable to renew vault token: the reply has no auth block');
    return { accessor: auth.accessor, expiresAtMs: nowMs + auth.lease_duration * 1000 };
  } catch (err) {
    throw vaultError('unable to renew vault token', err);
  }
}

/**
 * Checks a store's new token as the reference does (see the module doc) and renews it.
 * @returns the renewal. @throws VaultError naming the first problem (the reference's
 *   texts: "vault token is not renewable", "… is not an orphan token", "… is not a
 *   periodic token", "vault token is missing capabilities: …").
 */
export async function checkStoreToken(client: SecretsClient, nowMs: number): Promise<TokenRenewal> {
  let data: Record<string, unknown>;
  try {
    data = (await client.token.lookup()).data as unknown as Record<string, unknown>;
  } catch (err) {
    throw vaultError('unable to lookup vault token', err);
  }
  if (data.renewable !== true) throw new VaultError('vault token is not renewable');
  if (data.orphan !== true) throw new VaultError('vault token is not an orphan token');
  if (!data.period) throw new VaultError('vault token is not a periodic token');
  const paths = Object.keys(REQUIRED_CAPABILITIES);
  let caps: Record<string, unknown>;
  try {
    caps = ((await client.write('sys/capabilities-self', { paths }))?.data ?? {}) as Record<string, unknown>;
  } catch (err) {
    throw vaultError('unable to get vault capabilities', err);
  }
  const missing = paths.filter((p) => {
    const held = Array.isArray(caps[p]) ? (caps[p] as string[]) : [];
    return held.includes('deny') || !(held.includes('root') || held.includes(REQUIRED_CAPABILITIES[p]!));
  });
  if (missing.length > 0) throw new VaultError(`vault token is missing capabilities: ${missing.map((p) => `${p}: ${REQUIRED_CAPABILITIES[p]}`).join(', ')}`);
  return renewSelf(client, nowMs);
}
