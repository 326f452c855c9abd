/**
 * A namespace and a mount of its parent must not share a first path segment: the
 * request `/v1/<name>/…` goes to the deepest namespace (reference/secrets.md §6), so a
 * mount named like a child namespace could never be reached, and creating the namespace
 * would silently cut off the mount's data. Both orders are refused with a 400.
 *
 * @module
 */
import { badRequest } from '../../../kernel/http/index.js';
import type { NamespaceEntry, NamespaceRegistry } from './registry.js';
import type { NamespaceScope } from './scope.js';

/**
 * Refuses a mount at `mountPath` (relative to namespace `ns`, with or without the
 * trailing `/`) whose first segment is the name of a child namespace of `ns`.
 * Error (400): `path "<p>" is already in use by namespace "<ns path>"`.
 */
export function checkMountNotShadowed(registry: NamespaceRegistry, ns: NamespaceEntry, mountPath: string): void {
  const first = mountPath.replace(/^\/+/, '').split('/')[0];
  const child = registry.get(`${ns.path}${first}/`);
  if (child) throw badRequest(`path "${mountPath}" is already in use by namespace "${child.path}"`);
}

/**
 * Refuses a child namespace `name` of `scope` when one of the scope's mounts starts with
 * `name/`. Error (400): `namespace "<p>" conflicts with the mount at "<mount>"`.
 */
export function checkNamespaceNotShadowing(scope: NamespaceScope, name: string): void {
  const mount = scope.mounts.list().find((m) => m.path.startsWith(`${name}/`));
  if (mount) throw badRequest(`namespace "${scope.path}${name}/" conflicts with the mount at "${mount.path}"`);
}
