/**
 * Typed helper for ACL policies (`sys/policies/acl`, `reference/secrets.md` §3.7).
 *
 * @module
 */
import type { SecretsTransport } from './secrets-transport.js';

/** `data` of `GET sys/policies/acl/<name>`. */
export interface PolicyInfo {
  /** Lower-cased name. */
  name: string;
  /** The policy document (HCL or JSON) as stored. */
  policy: string;
  [extra: string]: unknown;
}

const clean = (name: string) => name.trim().replace(/^\/+|\/+$/g, '');

/**
 * ACL policy management. Methods throw `SecretsApiError` on statuses ≥ 400 (400 for a parse
 * error or `root`, 403 without permission) and `SecretsConnectionError` without an answer.
 */
export class PoliciesClient {
  /** @param client The connection the requests go through (its token and namespace apply). */
  constructor(private readonly client: SecretsTransport) {}

  /** Creates or replaces policy `name` with the HCL or JSON document `policy` (204). */
  async write(name: string, policy: string): Promise<void> {
    await this.client.write(`sys/policies/acl/${clean(name)}`, { policy });
  }

  /** Policy `name`, or `undefined` when there is none (404). */
  async read(name: string): Promise<PolicyInfo | undefined> {
    const res = await this.client.read<PolicyInfo>(`sys/policies/acl/${clean(name)}`);
    return res?.data ?? undefined;
  }

  /** Names of all ACL policies (`root` included, as the server lists it). */
  async list(): Promise<string[]> {
    const res = await this.client.list('sys/policies/acl');
    return res?.data?.keys ?? [];
  }

  /** Deletes policy `name` (204; no error when absent; `root` and `default` cannot be deleted). */
  async delete(name: string): Promise<void> {
    await this.client.delete(`sys/policies/acl/${clean(name)}`);
  }
}
