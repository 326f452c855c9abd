/**
 * Typed helper for the KV v2 secrets engine (`reference/secrets.md` §2.3–2.8).
 *
 * @module
 */
import type { SecretsTransport } from './secrets-transport.js';
import type { SecretResponse } from './secrets-types.js';

/** Metadata of one version, as returned by a write and inside a read (`reference/secrets.md` §2.5). */
export interface KvVersionMetadata {
  /** RFC 3339 UTC time with nanoseconds. */
  created_time: string;
  custom_metadata: Record<string, string> | null;
  /** `""` when not deleted, else the RFC 3339 time it was (or will be) deleted. */
  deletion_time: string;
  destroyed: boolean;
  version: number;
}

/** `data` of a KV v2 read: the user's key-value object (`null` when deleted or destroyed) and its version metadata. */
export interface KvSecretData<T = Record<string, unknown>> {
  data: T | null;
  metadata: KvVersionMetadata;
}

/** `data` of a metadata read (`reference/secrets.md` §2.8). */
export interface KvMetadata {
  cas_required: boolean;
  created_time: string;
  current_version: number;
  custom_metadata: Record<string, string> | null;
  /** Go duration string, e.g. `"0s"`, `"3h0m0s"`. */
  delete_version_after: string;
  max_versions: number;
  oldest_version: number;
  updated_time: string;
  /** Keyed by decimal version number. */
  versions: Record<string, { created_time: string; deletion_time: string; destroyed: boolean }>;
  [extra: string]: unknown;
}

/** Options of {@link KvV2Client.put}. */
export interface KvPutOptions {
  /** Check-and-set: the write succeeds only if the key's current version equals this (0 = must not exist). */
  cas?: number;
}

/** Fields of a metadata write; only the ones given are sent and changed. */
export interface KvMetadataFields {
  /** Versions kept per key; 0 = use the mount setting. */
  maxVersions?: number;
  /** Require `cas` on every write to this key. */
  casRequired?: boolean;
  /** Duration string (`"3h"`, `"30m"`) or seconds after which new versions are soft-deleted; 0 = never. */
  deleteVersionAfter?: string | number;
  /** Up to 64 string pairs stored with the key. */
  customMetadata?: Record<string, string>;
}

function joinPath(...parts: string[]): string {
  return parts
    .map((p) => p.replace(/^\/+|\/+$/g, ''))
    .filter((p) => p !== '')
    .join('/');
}

/**
 * KV v2 engine at one mount. Paths are relative to the mount (`app/db`, not `secret/data/app/db`).
 * Every method throws `SecretsApiError` on a status ≥ 400 it does not document and
 * `SecretsConnectionError` when the server cannot be reached.
 */
export class KvV2Client {
  /** Mount path without surrounding `/` (e.g. `secret`). */
  readonly mount: string;

  constructor(
    private readonly client: SecretsTransport,
    mount: string,
  ) {
    this.mount = mount.replace(/^\/+|\/+$/g, '');
  }

  /** The full API path (relative to `/v1/`) of `path` in `family` (`data`, `metadata`, `delete`, …). */
  pathOf(family: 'data' | 'metadata' | 'delete' | 'undelete' | 'destroy', path: string): string {
    return joinPath(this.mount, family, path);
  }

  /** Writes a new version and returns its metadata. See {@link putEnvelope} for the whole answer. */
  async put(path: string, data: Record<string, unknown>, options: KvPutOptions = {}): Promise<KvVersionMetadata> {
    const res = await this.putEnvelope(path, data, options);
    if (!res?.data) throw new Error(`write to ${this.pathOf('data', path)} returned no version metadata`);
    return res.data;
  }

  /**
   * `POST <mount>/data/<path>` `{"data":…,"options":{"cas":N}}`; returns the envelope
   * (`data` = version metadata, `warnings`) or `undefined` if the server answered 204.
   *
   * @throws SecretsApiError 400 when `cas` does not match or is required but missing.
   */
  putEnvelope(path: string, data: Record<string, unknown>, options: KvPutOptions = {}): Promise<SecretResponse<KvVersionMetadata> | undefined> {
    const body: Record<string, unknown> = { data };
    if (options.cas !== undefined) body.options = { cas: options.cas };
    return this.client.write<KvVersionMetadata>(this.pathOf('data', path), body);
  }

  /**
   * Reads the latest version, or `version` when given (0 = latest). Returns `undefined` when
   * the key or version does not exist. A deleted or destroyed version is returned, not thrown:
   * its envelope has `data.data === null` and the deletion shown in `data.metadata`.
   */
  get<T = Record<string, unknown>>(path: string, options: { version?: number } = {}): Promise<SecretResponse<KvSecretData<T>> | undefined> {
    const query = options.version !== undefined ? { version: options.version } : undefined;
    return this.client.read<KvSecretData<T>>(this.pathOf('data', path), query);
  }

  /** Keys directly under folder `path` (`""` = the mount's root); folders end in `/`. `[]` when none. */
  async list(path: string): Promise<string[]> {
    const res = await this.client.list(this.pathOf('metadata', path) + '/');
    return res?.data?.keys ?? [];
  }

  /** Soft-deletes the latest version (`DELETE <mount>/data/<path>`); no error if missing. */
  async delete(path: string): Promise<void> {
    await this.client.delete(this.pathOf('data', path));
  }

  /** Soft-deletes the given version numbers. @throws SecretsApiError 400 when `versions` is empty. */
  async deleteVersions(path: string, versions: number[]): Promise<void> {
    await this.client.write(this.pathOf('delete', path), { versions });
  }

  /** Restores soft-deleted versions. @throws SecretsApiError 400 when `versions` is empty. */
  async undelete(path: string, versions: number[]): Promise<void> {
    await this.client.write(this.pathOf('undelete', path), { versions });
  }

  /** Permanently removes the data of the given versions. @throws SecretsApiError 400 when `versions` is empty. */
  async destroy(path: string, versions: number[]): Promise<void> {
    await this.client.write(this.pathOf('destroy', path), { versions });
  }

  /** Key metadata and the state of every version kept; `undefined` when the key is unknown. */
  async readMetadata(path: string): Promise<KvMetadata | undefined> {
    const res = await this.readMetadataEnvelope(path);
    return res?.data ?? undefined;
  }

  /** Like {@link readMetadata} but returns the whole envelope. */
  readMetadataEnvelope(path: string): Promise<SecretResponse<KvMetadata> | undefined> {
    return this.client.read<KvMetadata>(this.pathOf('metadata', path));
  }

  /**
   * Sets key-level settings, creating the key's metadata if missing. Returns `undefined`
   * (204) or an envelope carrying `warnings` (200).
   *
   * @throws SecretsApiError 400 on invalid values (custom metadata limits, bad durations).
   */
  writeMetadata(path: string, fields: KvMetadataFields): Promise<SecretResponse | undefined> {
    const body: Record<string, unknown> = {};
    if (fields.maxVersions !== undefined) body.max_versions = fields.maxVersions;
    if (fields.casRequired !== undefined) body.cas_required = fields.casRequired;
    if (fields.deleteVersionAfter !== undefined) body.delete_version_after = fields.deleteVersionAfter;
    if (fields.customMetadata !== undefined) body.custom_metadata = fields.customMetadata;
    return this.client.write(this.pathOf('metadata', path), body);
  }

  /** Removes the key, its metadata and all versions permanently; no error if missing. */
  async deleteMetadata(path: string): Promise<void> {
    await this.client.delete(this.pathOf('metadata', path));
  }
}
