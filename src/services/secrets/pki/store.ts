/**
 * What a PKI mount keeps in its own storage (behind the barrier; the reference's layout
 * where it has one, reference/secrets-engines.md §7):
 * - `issuer/<id>` an issuer: its certificate, the chain above it, the key it signs with;
 * - `key/<id>` a private key (PKCS #8 PEM) — issuers' keys live only here;
 * - `certs/<serial>` every issued certificate unless its role says `no_store`,
 *   `revoked/<serial>` the revoked ones (serials in the `39-dd-…` form);
 * - `crl/<issuer id>` the issuer's current CRL (DER, base64) and its number;
 * - `config/issuers`, `config/urls`, `config/crl`, `role/<name>`, `tidy/status`.
 * Issued certificates' private keys are never stored.
 *
 * @module
 */
import { json, type Backend } from '../../../kernel/store/index.js';
import type { EngineResources } from '../engine-resources.js';
import type { SecretsRequest } from '../types.js';

/** One issuer (a CA certificate this mount can sign with, or a parent without a key). */
export interface IssuerEntry {
  readonly issuer_id: string;
  issuer_name: string;
  /** The key it signs with (`key/<id>`); empty for an issuer imported without its key. */
  readonly key_id: string;
  /** PEM. */
  readonly certificate: string;
  /** PEM certificates: this one first, then its parents up to a root when known. */
  readonly ca_chain: readonly string[];
  /** Colon form. */
  readonly serial_number: string;
  /** NotAfter, Unix seconds. */
  readonly not_after: number;
}

/** One stored private key. */
export interface KeyEntry {
  readonly key_id: string;
  key_name: string;
  readonly key_type: string;
  /** PKCS #8 PEM. */
  readonly private_key: string;
}

/** One stored certificate (`certs/<serial>`). */
export interface CertEntry {
  /** PEM. */
  readonly certificate: string;
  readonly issuer_id: string;
  /** NotAfter, Unix seconds (tidy). */
  readonly not_after: number;
}

/** A revocation (`revoked/<serial>`). */
export interface RevokedEntry {
  /** Unix seconds. */
  readonly revocation_time: number;
  readonly issuer_id: string;
  /** NotAfter of the certificate, Unix seconds (tidy). */
  readonly not_after: number;
}

/** `crl/<issuer id>`: the current CRL. */
export interface CrlEntry {
  /** DER, base64. */
  readonly der: string;
  readonly number: number;
}

/** `config/urls`. */
export interface UrlsConfig {
  issuing_certificates: string[];
  crl_distribution_points: string[];
  ocsp_servers: string[];
  enable_templating: boolean;
}

/** `config/crl`; expiry in seconds. */
export interface CrlConfig {
  expiry: number;
  disable: boolean;
  auto_rebuild: boolean;
}

/** `tidy/status`: the last tidy run. */
export interface TidyStatus {
  readonly [k: string]: unknown;
}

/** Default `config/crl` (the reference's: a 72h CRL, rebuilt on every revocation). */
const DEFAULT_CRL_CONFIG: CrlConfig = { expiry: 72 * 3600, disable: false, auto_rebuild: false };

/** Where loaded issuer signers are kept between requests: the core's resources (issuers.ts `signerOf`). */
export interface SignerCache {
  readonly resources: EngineResources;
  readonly mountUuid: string;
}

/** Typed access to one PKI mount's storage. */
export class PkiStore {
  /**
   * @param storage the mount's storage view (`req.storage`)
   * @param signers where issuers' parsed keys are kept between requests; absent: loaded each time
   */
  constructor(
    readonly storage: Backend,
    readonly signers?: SignerCache,
  ) {}

  private async get<T>(key: string): Promise<T | undefined> {
    return json.decode<T>(await this.storage.get(key));
  }

  private put(key: string, value: unknown): Promise<void> {
    return this.storage.put(key, json.encode(value));
  }

  /** Issuer `id`, or undefined. */
  issuer(id: string): Promise<IssuerEntry | undefined> {
    return this.get<IssuerEntry>(`issuer/${id}`);
  }

  /** Every issuer id. */
  issuerIds(): Promise<string[]> {
    return this.storage.list('issuer/');
  }

  putIssuer(e: IssuerEntry): Promise<void> {
    return this.put(`issuer/${e.issuer_id}`, e);
  }

  key(id: string): Promise<KeyEntry | undefined> {
    return this.get<KeyEntry>(`key/${id}`);
  }

  /** Every key id. */
  keyIds(): Promise<string[]> {
    return this.storage.list('key/');
  }

  putKey(e: KeyEntry): Promise<void> {
    return this.put(`key/${e.key_id}`, e);
  }

  /** The default issuer's id (`config/issuers`), or undefined when there is none. */
  async defaultIssuerId(): Promise<string | undefined> {
    return (await this.get<{ default: string }>('config/issuers'))?.default || undefined;
  }

  setDefaultIssuer(id: string): Promise<void> {
    return this.put('config/issuers', { default: id });
  }

  cert(serialKey: string): Promise<CertEntry | undefined> {
    return this.get<CertEntry>(`certs/${serialKey}`);
  }

  putCert(serialKey: string, e: CertEntry): Promise<void> {
    return this.put(`certs/${serialKey}`, e);
  }

  /** Stored serials, storage form. */
  certKeys(): Promise<string[]> {
    return this.storage.list('certs/');
  }

  revoked(serialKey: string): Promise<RevokedEntry | undefined> {
    return this.get<RevokedEntry>(`revoked/${serialKey}`);
  }

  putRevoked(serialKey: string, e: RevokedEntry): Promise<void> {
    return this.put(`revoked/${serialKey}`, e);
  }

  /** Revoked serials, storage form. */
  revokedKeys(): Promise<string[]> {
    return this.storage.list('revoked/');
  }

  crl(issuerId: string): Promise<CrlEntry | undefined> {
    return this.get<CrlEntry>(`crl/${issuerId}`);
  }

  putCrl(issuerId: string, e: CrlEntry): Promise<void> {
    return this.put(`crl/${issuerId}`, e);
  }

  async urls(): Promise<UrlsConfig> {
    return (await this.get<UrlsConfig>('config/urls')) ?? { issuing_certificates: [], crl_distribution_points: [], ocsp_servers: [], enable_templating: false };
  }

  putUrls(c: UrlsConfig): Promise<void> {
    return this.put('config/urls', c);
  }

  async crlConfig(): Promise<CrlConfig> {
    return { ...DEFAULT_CRL_CONFIG, ...(await this.get<CrlConfig>('config/crl')) };
  }

  putCrlConfig(c: CrlConfig): Promise<void> {
    return this.put('config/crl', c);
  }

  tidyStatus(): Promise<TidyStatus | undefined> {
    return this.get<TidyStatus>('tidy/status');
  }

  putTidyStatus(s: TidyStatus): Promise<void> {
    return this.put('tidy/status', s);
  }

  role<T>(name: string): Promise<T | undefined> {
    return this.get<T>(`role/${name}`);
  }

  putRole(name: string, r: unknown): Promise<void> {
    return this.put(`role/${name}`, r);
  }

  deleteRole(name: string): Promise<void> {
    return this.storage.delete(`role/${name}`);
  }

  roleNames(): Promise<string[]> {
    return this.storage.list('role/');
  }
}

/** The store of the request's mount, keeping loaded signers in the core's resources. */
export const pkiStoreOf = (req: SecretsRequest): PkiStore => new PkiStore(req.storage, { resources: req.core.resources, mountUuid: req.mount.uuid });
