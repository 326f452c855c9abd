/**
 * Brokered credentials (issue 20 scope 3): what `:authorize-session` hands the user for a
 * target's `brokered_credential_source_ids` — credential libraries read from a Cairn
 * secrets service (`vault` stores, `vault-generic` libraries) and static credentials —
 * and their release when the session ends (leases revoked).
 *
 * This file is the contract between the session code (which calls it) and the credential
 * store code (which implements it); until a target names credential sources nothing is
 * brokered.
 *
 * @module
 */
import type { TargetDoc } from './docs.js';
import type { GatewayDomain } from './domain.js';
import { invalidFields } from './errors.js';

/** One brokered credential in the `:authorize-session` reply (the reference's `SessionCredential`). */
export interface BrokeredCredential {
  readonly credential_source: {
    readonly id: string;
    readonly name?: string;
    readonly description?: string;
    readonly credential_store_id: string;
    /** The source's type: `vault-generic`, `username_password`, `json`, `ssh_private_key`. */
    readonly type: string;
    /** `username_password`, `ssh_private_key`, … or absent (untyped). */
    readonly credential_type?: string;
  };
  /** `raw`: base64 of the secret's JSON; `decoded`: the secret as JSON. */
  readonly secret: { readonly raw: string; readonly decoded: unknown };
  /** The typed fields (`username`, `password`, …) when the source has a credential type. */
  readonly credential?: Readonly<Record<string, unknown>>;
}

/**
 * The credentials of `target`'s brokered sources for session `sessionId`, fetched now.
 * @throws GatewayApiError 400 when a source cannot be read (the message names the source
 *   and the secrets service's answer, never a secret).
 */
export async function brokerCredentials(_d: GatewayDomain, target: TargetDoc, _sessionId: string): Promise<BrokeredCredential[]> {
  if (target.brokered_credential_source_ids.length === 0) return [];
  throw invalidFields({ brokered_credential_source_ids: 'Credential brokering is not available.' });
}

/** Releases what session `sessionId`'s credentials hold (revokes their leases); never throws. */
export async function releaseCredentials(_d: GatewayDomain, _sessionId: string): Promise<void> {}
