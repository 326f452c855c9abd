/**
 * What a KV v2 mount answers for paths outside its families (reference/secrets.md
 * §2.11): a 404 envelope with a warning that tells the user the right path, since the
 * most common mistake is a version-1 path on a version-2 mount (§9 item 4).
 *
 * @module
 */
import type { SecretsPath, SecretsResult } from '../../types.js';

const FAMILY_ROOTS = new Set(['data', 'metadata', 'delete', 'undelete', 'destroy', 'subkeys']);

/** 404 for a non-listing operation on a family root such as `metadata/`. */
export function rootWarning(): SecretsResult {
  return { status: 404, data: null, warnings: ['Non-listing operations on the root of a K/V v2 mount are not supported.'] };
}

function invalidPath(op: string): SecretsResult {
  return {
    status: 404,
    data: null,
    warnings: [
      `Invalid path for a versioned K/V secrets engine. See the API docs for the appropriate API endpoints to use. If using the Cairn CLI, use 'cairn kv ${op}' for this operation.`,
    ],
  };
}

/** Matches everything the families did not; declared last. */
export const fallbackPath: SecretsPath = {
  pattern: ':path*',
  synopsis: 'Not a KV v2 path: use data/, metadata/, delete/, undelete/, destroy/, subkeys/ or config',
  params: { path: 'the path that matched no family' },
  operations: {
    read: { summary: 'Invalid path', fields: {}, handle: async (req) => (FAMILY_ROOTS.has(req.params.path) ? rootWarning() : invalidPath('get')) },
    list: { summary: 'Invalid path', fields: {}, handle: async () => invalidPath('list') },
    update: { summary: 'Invalid path', rawBody: true, handle: async (req) => (FAMILY_ROOTS.has(req.params.path) ? rootWarning() : invalidPath('put')) },
    patch: { summary: 'Invalid path', rawBody: true, handle: async () => invalidPath('patch') },
    delete: { summary: 'Invalid path', fields: {}, handle: async () => invalidPath('delete') },
  },
};
