/**
 * `delete/`, `undelete/` and `destroy/<path>`: the version lifecycle of spec 000 "KV v2
 * version lifecycle" (reference/secrets.md §2.7). An unknown key is a 204 no-op.
 *
 * @module
 */
import { Type } from '@sinclair/typebox';
import type { SecretsPath, SecretsRequest } from '../../types.js';
import { kvStore } from './store-of.js';
import { destroyVersions, parseVersions, requireVersions, softDeleteVersions, undeleteVersions } from './versions.js';

const versionsField = {
  versions: Type.Union([Type.Array(Type.Integer()), Type.String(), Type.Integer()], {
    description: 'version numbers: a JSON array, or a comma-separated string',
  }),
};

type Family = 'delete' | 'undelete' | 'destroy';

/** One family: parse and require versions first (400 changes nothing), then apply under the key's lock. */
function family(name: Family, synopsis: string, summary: string): SecretsPath {
  const handle = async (req: SecretsRequest) => {
    const versions = parseVersions(req.data.versions);
    requireVersions(versions, name);
    await kvStore(req).update(req.params.path, (current, config) => {
      if (!current) return { result: undefined };
      if (name === 'delete') return { metadata: softDeleteVersions(current, versions, req.now).length ? current : undefined, result: undefined };
      if (name === 'undelete') return { metadata: undeleteVersions(current, versions, config, req.now).length ? current : undefined, result: undefined };
      const destroyed = destroyVersions(current, versions);
      return { metadata: destroyed.length ? current : undefined, deletes: destroyed, result: undefined };
    });
    return undefined;
  };
  return {
    pattern: `${name}/:path+`,
    synopsis,
    params: { path: 'location of the secret' },
    fields: versionsField,
    operations: { update: { summary, handle } },
  };
}

/** The `delete/`, `undelete/` and `destroy/` families. */
export const versionPaths: readonly SecretsPath[] = [
  family('delete', 'Mark versions as deleted; their data stays until destroyed', 'Soft-delete versions'),
  family('undelete', 'Restore soft-deleted versions', 'Undelete versions'),
  family('destroy', 'Permanently remove the data of versions', 'Destroy versions'),
];
