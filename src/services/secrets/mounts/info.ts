/**
 * The wire shape of one mount (reference/secrets.md §3.5 `mountInfo`): `sys/mounts`,
 * `sys/auth`, `sys/internal/ui/mounts`.
 *
 * @module
 */
import type { MountEntry } from './table.js';

/** The wire shape of one mount (reference/secrets.md §3.5 `mountInfo`). */
export function mountInfo(e: MountEntry): Record<string, unknown> {
  return {
    type: e.type,
    description: e.description,
    accessor: e.accessor,
    config: { ...e.config },
    local: e.local,
    seal_wrap: e.seal_wrap,
    external_entropy_access: e.external_entropy_access,
    options: e.options,
    uuid: e.uuid,
    plugin_version: '',
    running_plugin_version: '',
    running_sha256: '',
  };
}
