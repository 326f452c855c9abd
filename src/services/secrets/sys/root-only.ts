/**
 * System paths served only in the root namespace (reference/secrets.md §1.1): the seal's
 * own and the service-wide configuration.
 *
 * @module
 */

const ROOT_ONLY = [
  'sys/init',
  'sys/seal',
  'sys/unseal',
  'sys/seal-status',
  'sys/health',
  'sys/leader',
  'sys/config/cors',
  'sys/metrics',
  'sys/audit',
  'sys/audit-hash',
  'sys/ha-status',
];

/** Whether `path` (relative to `/v1/` and to its namespace) is one of them or below one. */
export function rootOnly(path: string): boolean {
  return ROOT_ONLY.some((p) => path === p || path.startsWith(p + '/'));
}
