/**
 * Typed helper for the PKI secrets engine (reference/secrets-engines.md §7; issue 28 item 3):
 * CAs, roles, issuing and signing, revocation, the CA and CRL. Serials are the colon form
 * `39:dd:…`; times are Unix seconds; certificates and keys are PEM unless `format` says
 * otherwise.
 *
 * @module
 */
import { SecretsApiError } from './secrets-errors.js';
import type { SecretsTransport } from './secrets-transport.js';

/** `data` of `issue/:role`, `sign/:role`, `sign-verbatim` and `root/sign-intermediate`. */
export interface IssuedCertificate {
  certificate: string;
  issuing_ca: string;
  ca_chain: string[];
  serial_number: string;
  /** NotAfter, Unix seconds. */
  expiration: number;
  /** `issue/:role` only: the new private key, returned this once and never stored. */
  private_key?: string;
  private_key_type?: string;
  [extra: string]: unknown;
}

/** `data` of `root/generate/:type`. */
export interface GeneratedRoot {
  certificate: string;
  issuing_ca: string;
  serial_number: string;
  expiration: number;
  issuer_id: string;
  issuer_name: string;
  key_id: string;
  key_name: string;
  /** `exported` only. */
  private_key?: string;
  private_key_type?: string;
  [extra: string]: unknown;
}

/** `data` of `revoke`. */
export interface Revocation {
  /** Unix seconds. */
  revocation_time: number;
  revocation_time_rfc3339: string;
  state: string;
}

/** `data` of `cert/:serial`. */
export interface StoredCertificate {
  certificate: string;
  /** Unix seconds; 0 when not revoked. */
  revocation_time: number;
  issuer_id?: string;
  [extra: string]: unknown;
}

/** Fields of a request: the reference's names (`common_name`, `alt_names`, `ttl`, `key_type`…). */
export type PkiFields = Record<string, unknown>;

/**
 * The PKI engine mounted at `mount`. Methods throw `SecretsApiError` on statuses ≥ 400 (400
 * with the reference's texts: `common name <n> not allowed by this role`, `unknown role:
 * <n>`, …; 403 without permission) and `SecretsConnectionError` without an answer.
 */
export class PkiClient {
  /**
   * @param client The connection the requests go through (its token and namespace apply).
   * @param mount The mount path, e.g. `pki`.
   */
  constructor(
    private readonly client: SecretsTransport,
    readonly mount: string,
  ) {}

  private path(p: string): string {
    return `${this.mount.replace(/^\/+|\/+$/g, '')}/${p}`;
  }

  private async data<T>(p: string, body: unknown): Promise<T> {
    return (await this.client.write<T>(this.path(p), body))!.data!;
  }

  /** `root/generate/internal|exported`: a self-signed root (the key in the reply only when `exported`). */
  generateRoot(type: 'internal' | 'exported', fields: PkiFields & { common_name: string }): Promise<GeneratedRoot> {
    return this.data(`root/generate/${type}`, fields);
  }

  /** `intermediate/generate/internal|exported`: a key kept in the mount and its CSR (`data.csr`, `data.key_id`). */
  generateIntermediate(
    type: 'internal' | 'exported',
    fields: PkiFields & { common_name: string },
  ): Promise<{ csr: string; key_id: string; private_key?: string }> {
    return this.data(`intermediate/generate/${type}`, fields);
  }

  /** `root/sign-intermediate`: this mount's issuer signs another CA's CSR. */
  signIntermediate(csr: string, fields: PkiFields = {}): Promise<IssuedCertificate> {
    return this.data('root/sign-intermediate', { ...fields, csr });
  }

  /** `intermediate/set-signed`: imports the signed certificate (PEM, optionally its chain after it); `imported_issuers`, `mapping`… */
  setSignedIntermediate(certificate: string): Promise<Record<string, unknown>> {
    return this.data('intermediate/set-signed', { certificate });
  }

  /** `roles/:name` (POST replaces the whole role). */
  async writeRole(name: string, fields: PkiFields): Promise<void> {
    await this.client.write(this.path(`roles/${encodeURIComponent(name)}`), fields);
  }

  /** `roles/:name`, or undefined when there is none. */
  async readRole(name: string): Promise<Record<string, unknown> | undefined> {
    return (await this.client.read(this.path(`roles/${encodeURIComponent(name)}`)))?.data ?? undefined;
  }

  /** Role names; `[]` when none. */
  async listRoles(): Promise<string[]> {
    return (await this.client.list(this.path('roles')))?.data?.keys ?? [];
  }

  /** `issue/:role`: a certificate and a new private key. */
  issue(role: string, fields: PkiFields & { common_name?: string }): Promise<IssuedCertificate> {
    return this.data(`issue/${encodeURIComponent(role)}`, fields);
  }

  /** `sign/:role`: a certificate for a PEM CSR under the role's rules. */
  sign(role: string, csr: string, fields: PkiFields = {}): Promise<IssuedCertificate> {
    return this.data(`sign/${encodeURIComponent(role)}`, { ...fields, csr });
  }

  /** `revoke` by serial (`39:dd:…` or `39-dd-…`). */
  revoke(serialNumber: string): Promise<Revocation> {
    return this.data('revoke', { serial_number: serialNumber });
  }

  /** `cert/:serial`, or undefined when the mount did not store it. */
  async readCertificate(serial: string): Promise<StoredCertificate | undefined> {
    return (await this.client.read<StoredCertificate>(this.path(`cert/${serial}`)))?.data ?? undefined;
  }

  /** Serials of stored certificates; `[]` when none. */
  async listCertificates(): Promise<string[]> {
    return (await this.client.list(this.path('certs')))?.data?.keys ?? [];
  }

  /** The default issuer's certificate, PEM; `''` when the mount has none. */
  caPem(): Promise<string> {
    return this.text('ca/pem');
  }

  /** The default issuer's CRL, PEM; `''` when the mount has none. */
  crlPem(): Promise<string> {
    return this.text('crl/pem');
  }

  /** `crl/rotate`: rebuilds the CRLs. */
  async rotateCrl(): Promise<void> {
    await this.client.read(this.path('crl/rotate'));
  }

  /** `config/urls`: AIA and CRL distribution point URLs for certificates issued afterwards. */
  async setUrls(urls: { issuing_certificates?: string[]; crl_distribution_points?: string[]; ocsp_servers?: string[] }): Promise<void> {
    await this.client.write(this.path('config/urls'), urls);
  }

  /** `tidy` (`tidy_cert_store`, `tidy_revoked_certs`, `safety_buffer`); finished when it returns. */
  async tidy(fields: { tidy_cert_store?: boolean; tidy_revoked_certs?: boolean; safety_buffer?: string | number }): Promise<void> {
    await this.client.write(this.path('tidy'), fields);
  }

  private async text(p: string): Promise<string> {
    const r = await this.client.raw('GET', this.path(p));
    if (r.status >= 400) {
      const errors = (r.body as { errors?: string[] } | undefined)?.errors ?? [];
      throw new SecretsApiError(r.status, errors, { method: 'GET', path: `/v1/${this.path(p)}` });
    }
    return typeof r.body === 'string' ? r.body : '';
  }
}
