/**
 * The secrets service's whole OpenAPI document, `GET /v1/sys/internal/specs/openapi`
 * (reference/secrets.md §1.12; the reference's `pathInternalOpenAPI`): the paths of every
 * mount of the request's namespace that the caller may use, at their mount paths, generated
 * from the engines' route tables (DESIGN.md "Routes are data").
 *
 * Which mounts: as the reference, a mount is shown to a token that holds some capability on
 * it or on a path below it ({@link SecretsCore.mountVisible}); without a token, only the
 * mounts the reference would list to anyone (`listing_visibility = "unauth"`), which Cairn
 * has no setting for: none. The system mount includes the seal's own paths (`sys/init`,
 * `sys/seal-status`, …) in the root namespace.
 *
 * `generic_mount_paths`: each mount other than the singletons (`sys/`, `auth/token/`)
 * appears as `{<type>_mount_path}` with that path parameter (its default the actual mount
 * path), so that the document describes engine types rather than this server's mounts;
 * of two mounts of one type, the first by path documents it.
 *
 * @module
 */
import { serviceOpenapiDocument, type CompiledPath, type OpenApiInfo } from '../../kernel/http/index.js';
import { VERSION } from '../../kernel/version/index.js';
import type { MountEntry } from './mounts/table.js';
import { rootOnly } from './sys/root-only.js';
import { sealTable } from './sys/seal.routes.js';
import type { EngineLookup, SecretsRequest } from './types.js';

/** `info` of the secrets service's documents (the `?help=1` fragments too). */
export const SECRETS_OPENAPI_INFO: OpenApiInfo = {
  title: 'Cairn secrets service API',
  description: 'HTTP API of the secrets service. All API routes are prefixed with `/v1/`.',
  version: VERSION,
};

/** Mounts that exist once per namespace: never made generic. */
const SINGLETONS = new Set(['sys/', 'auth/token/']);

// Any path, read for its declaration only: its handlers take nothing and return anything.
type AnyPath = CompiledPath<never, unknown>;

/**
 * The document for the request's namespace and token (see the module doc); `generic`:
 * `generic_mount_paths`; `engineOf`: the engine serving a mount (engines.ts `engineFor`).
 */
export async function secretsOpenapi(req: SecretsRequest, generic: boolean, engineOf: EngineLookup): Promise<unknown> {
  const { ns, token, core } = req;
  const rootNs = ns.entry.path === '';
  const mounts = [...ns.mounts.list()].sort((a, b) => a.path.localeCompare(b.path));
  const tables: { prefix: string; paths: readonly AnyPath[]; parameters?: unknown[] }[] = [];
  for (const mount of mounts) {
    if (!token || !(await core.mountVisible(token, mount.path, ns.entry))) continue;
    let paths: readonly AnyPath[] = engineOf(mount).table.paths;
    if (mount.type === 'system') {
      paths = rootNs ? [...sealTable.paths, ...paths] : paths.filter((p) => !rootOnly(mount.path + p.spec.pattern));
    }
    tables.push({ ...mountPrefix(mount, generic), paths });
  }
  return serviceOpenapiDocument(SECRETS_OPENAPI_INFO, tables);
}

/** Where a mount's paths go: `/secret/`, or `/{kv_mount_path}/` with its parameter when generic. */
function mountPrefix(mount: MountEntry, generic: boolean): { prefix: string; parameters?: unknown[] } {
  if (!generic || SINGLETONS.has(mount.path)) return { prefix: `/${mount.path}` };
  const auth = mount.path.startsWith('auth/');
  const name = `${mount.type}_mount_path`;
  const actual = mount.path.slice(auth ? 5 : 0, -1);
  return {
    prefix: `/${auth ? 'auth/' : ''}{${name}}/`,
    parameters: [{ name, in: 'path', required: true, description: 'Path that the backend was mounted at', schema: { type: 'string', default: actual } }],
  };
}
