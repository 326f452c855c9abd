/** URLs of the KV v2 API and of the UI's KV screens for a mount and a path in it. */

/** Encodes each segment of a KV path, keeping its slashes. */
export function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/** `/v1/<mount>/<kind>/<path>` (kind: data, metadata, delete, undelete, destroy). */
export function kvApi(mount: string, kind: string, path: string): string {
  return `/v1/${encodeURIComponent(mount)}/${kind}/${encodePath(path)}`;
}

/** The UI route of a folder (ending `/`) or secret. */
export function kvRoute(mount: string, path: string): string {
  return `/secrets/kv/${encodeURIComponent(mount)}/${encodePath(path)}`;
}
