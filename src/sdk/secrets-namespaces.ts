/**
 * Typed helper for namespaces (`sys/namespaces`, `reference/secrets.md` §3.8, §6). Paths are
 * relative to the client's namespace: children are created inside it.
 *
 * @module
 */
import type { SecretsTransport } from './secrets-transport.js';

/** One namespace as the server describes it. */
export interface NamespaceInfo {
  /** Short random ID. */
  id: string;
  /** Path relative to the caller's namespace, with trailing `/` (`ns1/`). */
  path: string;
  custom_metadata: Record<string, string> | null;
  [extra: string]: unknown;
}

/** `data` of `LIST sys/namespaces`: child names (`"ns1/"`) and their descriptions. */
export interface NamespaceList {
  keys: string[];
  key_info: Record<string, NamespaceInfo>;
}

const clean = (name: string) => name.replace(/^\/+|\/+$/g, '');

/**
 * Namespace management. Methods throw `SecretsApiError` on statuses ≥ 400 (400 for a bad
 * name, 403 without permission) and `SecretsConnectionError` without an answer.
 */
export class NamespacesClient {
  /** @param client The connection the requests go through (its token and namespace apply). */
  constructor(private readonly client: SecretsTransport) {}

  /** Creates child namespace `name` (`POST sys/namespaces/<name>`) and returns its description. */
  async create(name: string, customMetadata: Record<string, string> = {}): Promise<NamespaceInfo> {
    const res = await this.client.write<NamespaceInfo>(`sys/namespaces/${clean(name)}`, { custom_metadata: customMetadata });
    const data = res?.data ?? (res as unknown as NamespaceInfo | undefined);
    if (!data) throw new Error('sys/namespaces returned no body');
    return data;
  }

  /** Direct children of the client's namespace; empty when there are none. */
  async list(): Promise<NamespaceList> {
    const res = await this.client.list('sys/namespaces');
    const data = res?.data as Partial<NamespaceList> | null | undefined;
    return { keys: data?.keys ?? [], key_info: data?.key_info ?? {} };
  }

  /** Deletes child namespace `name` and everything in it (`DELETE sys/namespaces/<name>`). */
  async delete(name: string): Promise<void> {
    await this.client.delete(`sys/namespaces/${clean(name)}`);
  }
}
