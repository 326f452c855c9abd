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

/** Which mount a store is of, and where loaded issuer signers are kept between requests (the core's resources; issuers.ts `signerOf`). */
export interface MountScope {
  readonly mountUuid: string;
  /** Absent (the lease manager's revocations): signers are loaded each time. */
  readonly resources?: EngineResources;
}

/** Typed access to one PKI mount's storage. */
export class PkiStore {
  /**
   * @param storage the mount's storage view (`req.storage`)
   * @param scope the mount's uuid (it keys the CRL lock) and the core's resources
   */
  constructor(
    readonly storage: Backend,
    readonly scope: MountScope,
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

  /** Stores issuer `e` under its id. */
  putIssuer(e: IssuerEntry): Promise<void> {
    return this.put(`issuer/${e.issuer_id}`, e);
  }

  /** Key `id`, or undefined. */
  key(id: string): Promise<KeyEntry | undefined> {
    return this.get<KeyEntry>(`key/${id}`);
  }

  /** Every key id. */
  keyIds(): Promise<string[]> {
    return this.storage.list('key/');
  }

  /** Stores key `e` under its id. */
  putKey(e: KeyEntry): Promise<void> {
    return this.put(`key/${e.key_id}`, e);
  }

  /** The default issuer's id (`config/issuers`), or undefined when there is none. */
  async defaultIssuerId(): Promise<string | undefined> {
    return (await this.get<{ default: string }>('config/issuers'))?.default || undefined;
  }

  /** Makes issuer `id` the default (`config/issuers`). */
  setDefaultIssuer(id: string): Promise<void> {
    return this.put('config/issuers', { default: id });
  }

  /** The stored certificate with storage serial `serialKey` (`39-dd-…`), or undefined. */
  cert(serialKey: string): Promise<CertEntry | undefined> {
    return this.get<CertEntry>(`certs/${serialKey}`);
  }

  /** Stores an issued certificate under its storage serial. */
  putCert(serialKey: string, e: CertEntry): Promise<void> {
    return this.put(`certs/${serialKey}`, e);
  }

  /** Stored serials, storage form. */
  certKeys(): Promise<string[]> {
    return this.storage.list('certs/');
  }

  /** The revocation of storage serial `serialKey`, or undefined. */
  revoked(serialKey: string): Promise<RevokedEntry | undefined> {
    return this.get<RevokedEntry>(`revoked/${serialKey}`);
  }

  /** Records a revocation under its storage serial. */
  putRevoked(serialKey: string, e: RevokedEntry): Promise<void> {
    return this.put(`revoked/${serialKey}`, e);
  }

  /** Revoked serials, storage form. */
  revokedKeys(): Promise<string[]> {
    return this.storage.list('revoked/');
  }

  /** The current CRL of issuer `issuerId`, or undefined before its first build. */
  crl(issuerId: string): Promise<CrlEntry | undefined> {
    return this.get<CrlEntry>(`crl/${issuerId}`);
  }

  /** Stores the current CRL of issuer `issuerId`. */
  putCrl(issuerId: string, e: CrlEntry): Promise<void> {
    return this.put(`crl/${issuerId}`, e);
  }

  /** `config/urls` (empty lists when never written). */
  async urls(): Promise<UrlsConfig> {
    return (await this.get<UrlsConfig>('config/urls')) ?? { issuing_certificates: [], crl_distribution_points: [], ocsp_servers: [], enable_templating: false };
  }

  /** Stores `config/urls`. */
  putUrls(c: UrlsConfig): Promise<void> {
    return this.put('config/urls', c);
  }

  /** `config/crl` over the defaults (72h, enabled, no auto-rebuild). */
  async crlConfig(): Promise<CrlConfig> {
    return { ...DEFAULT_CRL_CONFIG, ...(await this.get<CrlConfig>('config/crl')) };
  }

  /** Stores `config/crl`. */
  putCrlConfig(c: CrlConfig): Promise<void> {
    return this.put('config/crl', c);
  }

  /** The last tidy's status, or undefined before the first. */
  tidyStatus(): Promise<TidyStatus | undefined> {
    return this.get<TidyStatus>('tidy/status');
  }

  /** Stores the last tidy's status. */
  putTidyStatus(s: TidyStatus): Promise<void> {
    return this.put('tidy/status', s);
  }

  /** Role `name`, or undefined. */
  role<T>(name: string): Promise<T | undefined> {
    return this.get<T>(`role/${name}`);
  }

  /** Stores role `name` (the whole role). */
  putRole(name: string, r: unknown): Promise<void> {
    return this.put(`role/${name}`, r);
  }

  /** Deletes role `name` (no error when absent). */
  deleteRole(name: string): Promise<void> {
    return this.storage.delete(`role/${name}`);
  }

  /** Every role name, sorted. */
  roleNames(): Promise<string[]> {
    return this.storage.list('role/');
  }
}

/** The store of the request's mount, keeping loaded signers in the core's resources. */
export const pkiStoreOf = (req: SecretsRequest): PkiStore => new PkiStore(req.storage, { mountUuid: req.mount.uuid, resources: req.core.resources });
