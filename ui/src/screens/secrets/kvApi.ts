/** The KV v2 calls the secret screens make (reference/secrets.md, KV v2). */
import { api, ApiError } from '../../api/client';
import { kvApi } from './kvPaths';

interface VersionMeta {
  created_time: string;
  deletion_time: string;
  destroyed: boolean;
}

export interface SecretMeta {
  current_version: number;
  oldest_version: number;
  cas_required: boolean;
  max_versions: number;
  /** A duration as the server formats it (`0s` = never). */
  delete_version_after: string;
  custom_metadata: Record<string, string> | null;
  versions: Record<string, VersionMeta>;
}

export type SecretData = Record<string, unknown>;

export function readMeta(mount: string, path: string): Promise<SecretMeta> {
  return api<{ data: SecretMeta }>('secrets', kvApi(mount, 'metadata', path)).then((r) => r.data);
}

/** One version's data; `null` when it is deleted or destroyed (the API's 404 with metadata). */
export async function readVersion(mount: string, path: string, version: number): Promise<SecretData | null> {
  try {
    const r = await api<{ data: { data: SecretData | null } }>('secrets', `${kvApi(mount, 'data', path)}?version=${version}`);
    return r.data.data;
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

/** Writes a new version; `cas` = the version the user edited (0: create only). */
export function writeSecret(mount: string, path: string, data: SecretData, cas: number): Promise<unknown> {
  return api('secrets', kvApi(mount, 'data', path), { method: 'POST', body: { data, options: { cas } } });
}

export function versionAction(mount: string, path: string, action: 'delete' | 'undelete' | 'destroy', version: number): Promise<unknown> {
  return api('secrets', kvApi(mount, action, path), { method: action === 'destroy' ? 'PUT' : 'POST', body: { versions: [version] } });
}

/** The reference's check-and-set refusal, explained for a person. */
export function explainCas(err: unknown): string | undefined {
  if (!(err instanceof ApiError) || !/check-and-set/.test(err.message)) return undefined;
  return 'Someone saved a newer version while you were editing (check-and-set did not match). Reload to see it, then apply your change again.';
}
