/**
 * The stored shapes of the KV version 2 engine (reference/secrets.md §2.4, §2.8): the mount's
 * config and a key's metadata. Apart from versions.ts, which re-exports them, so that the
 * custom-metadata helpers it re-exports too can use them without importing it.
 *
 * @module
 */

/** Mount-wide settings (`<mount>/config`, reference/secrets.md §2.4). `delete_version_after_s`: 0 = unset, negative = disabled. */
export interface KvConfig {
  max_versions: number;
  cas_required: boolean;
  delete_version_after_s: number;
}

/** Per-version metadata (reference/secrets.md §2.8 `versions` map). Times are RFC3339Nano UTC; `deletion_time` `""` = none. */
export interface VersionMeta {
  created_time: string;
  deletion_time: string;
  destroyed: boolean;
}

/** Per-key metadata (reference/secrets.md §2.8). `versions` keys are decimal version numbers. */
export interface KeyMetadata {
  cas_required: boolean;
  created_time: string;
  updated_time: string;
  current_version: number;
  oldest_version: number;
  max_versions: number;
  delete_version_after_s: number;
  custom_metadata: Record<string, string> | null;
  versions: Record<string, VersionMeta>;
}
