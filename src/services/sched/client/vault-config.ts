/**
 * The client agent's `vault` block (issue 27 scope 3; reference/integration.md §4, the
 * reference's agent `vault` block in its workload-identity form): where the secrets service
 * is and which JWT auth method the tasks' `vault_default` identities log in at
 * (client/secrets-token.ts).
 *
 * ```hcl
 * vault {
 *   address               = "http://127.0.0.1:8200"   # default https://127.0.0.1:8200 (the SDK's)
 *   jwt_auth_backend_path = "jwt-workloads"           # default (the reference's: "jwt-nomad")
 *   namespace             = ""                        # the secrets namespace logins are made in
 *   create_from_role      = "cairn-workloads"         # the role of tasks whose vault block names none
 * }
 * ```
 *
 * Accepted as the reference's, harmless: `enabled` (false: as without the block), `name`
 * (only `default`), `ca_file`, `tls_server_name`, `tls_skip_verify`. A client with the block
 * reports the node attribute `vault.accessible = true` (fingerprint.ts), which the tasks
 * with a `vault` block are constrained to (jobs/vault.ts).
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { blockError, cfg, type BlockAt } from '../../../kernel/config/index.js';

/** The JWT auth mount tasks log in at when the block names none (contract: what `cairn dev` mounts). */
const DEFAULT_JWT_PATH = 'jwt-workloads';
/** The secrets service when the block names none (the SDK's default). */
const DEFAULT_ADDRESS = 'https://127.0.0.1:8200';

/** The `vault` block's schema. */
export const vaultBlockKeys = {
  enabled: cfg.bool({ doc: "false: as without the block (the reference's key)" }),
  name: cfg.string({ doc: 'the cluster name; only "default"' }),
  address: cfg.string({ doc: 'http(s)://host:port of the secrets service; default https://127.0.0.1:8200' }),
  jwt_auth_backend_path: cfg.string({ doc: 'the JWT auth mount tasks log in at with their vault_default identity; default jwt-workloads' }),
  namespace: cfg.string({ doc: 'the secrets namespace logins are made in; default none' }),
  create_from_role: cfg.string({ doc: "the JWT role of tasks whose vault block names none; default: the auth method's default_role" }),
  ca_file: cfg.string({ doc: "PEM file of the CA that signed the secrets service's certificate" }),
  tls_server_name: cfg.string({ doc: "the name checked against the secrets service's certificate" }),
  tls_skip_verify: cfg.bool({ doc: 'accept any certificate (tests only)' }),
};

/** The parsed block. */
export interface VaultBlockRaw {
  readonly enabled?: boolean;
  readonly name?: string;
  readonly address?: string;
  readonly jwt_auth_backend_path?: string;
  readonly namespace?: string;
  readonly create_from_role?: string;
  readonly ca_file?: string;
  readonly tls_server_name?: string;
  readonly tls_skip_verify?: boolean;
  readonly $at: BlockAt;
}

/** The client's secrets service settings. */
export interface VaultClientSettings {
  /** `http(s)://host:port`. */
  readonly address: string;
  /** The JWT auth mount path, without slashes. */
  readonly jwtAuthBackendPath: string;
  /** `''`: none. */
  readonly namespace: string;
  /** `''`: the auth method's `default_role`. */
  readonly createFromRole: string;
  /** PEM text of `ca_file`. */
  readonly caCert?: string;
  readonly tlsServerName?: string;
  readonly tlsSkipVerify: boolean;
}

/**
 * The settings of a `vault` block; undefined with `enabled = false`.
 * @throws {ConfigError} at the key: an address that is not http(s)://host:port, a `name` other
 *   than `default`, an empty `jwt_auth_backend_path`, an unreadable `ca_file`.
 */
export function vaultSettingsFrom(b: VaultBlockRaw): VaultClientSettings | undefined {
  if (b.enabled === false) return undefined;
  if (b.name !== undefined && b.name !== 'default') throw blockError(b.$at, 'name', `"name": only the "default" cluster is supported, got "${b.name}"`);
  const address = (b.address ?? DEFAULT_ADDRESS).replace(/\/+$/, '');
  if (!/^https?:\/\/(\[[^\]]+\]|[^:\s/]+)(:\d{1,5})?$/.test(address)) throw blockError(b.$at, 'address', `"address": "${address}" is not http(s)://host:port`);
  const path = (b.jwt_auth_backend_path ?? DEFAULT_JWT_PATH).replace(/^\/+|\/+$/g, '');
  if (path === '') throw blockError(b.$at, 'jwt_auth_backend_path', '"jwt_auth_backend_path" must not be empty');
  let caCert: string | undefined;
  if (b.ca_file !== undefined) {
    try {
      caCert = readFileSync(b.ca_file, 'utf8');
    } catch (err) {
      throw blockError(b.$at, 'ca_file', `"ca_file": ${(err as Error).message}`);
    }
  }
  return {
    address,
    jwtAuthBackendPath: path,
    namespace: b.namespace ?? '',
    createFromRole: b.create_from_role ?? '',
    ...(caCert !== undefined && { caCert }),
    ...(b.tls_server_name !== undefined && { tlsServerName: b.tls_server_name }),
    tlsSkipVerify: b.tls_skip_verify ?? false,
  };
}
