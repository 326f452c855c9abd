/**
 * Which route table serves a mount: the registry of engine types (DESIGN.md "Routes are
 * data": namespace → mount → the mounted engine's paths). Tables compile once, at
 * module load, so a malformed pattern stops startup.
 *
 * @module
 */
import { RouteTable } from '../../kernel/http/index.js';
import { AUTH_METHODS } from './auth/methods.js';
import type { CoreEngines } from './core.js';
import { databaseHelp, databaseLeases, databasePaths, databasePeriodic } from './database/routes.js';
import { kvV1Paths } from './kv/v1/passthrough.routes.js';
import { passthroughLeases } from './kv/v1/leases.js';
import type { SecretLeaseHandlers } from './lease/handlers.js';
import { kvV2Paths } from './kv/v2/routes.js';
import type { MountEntry } from './mounts/table.js';
import { pkiLeases } from './pki/leases.js';
import { pkiHelp, pkiPaths } from './pki/routes.js';
import { sysPaths } from './sys/routes.js';
import { tokenHelp, tokenPaths } from './token/token.routes.js';
import { transitPeriodic } from './transit/periodic.js';
import { transitHelp, transitPaths } from './transit/routes.js';
import { cubbyholeHelp, cubbyholePaths } from './wrapping/cubbyhole.routes.js';
import type { Engine, SecretsRequest, SecretsResult } from './types.js';

const engine = (
  paths: ConstructorParameters<typeof RouteTable<SecretsRequest, SecretsResult>>[0],
  description: string,
  leases?: SecretLeaseHandlers,
  options: { periodic?: Engine['periodic'] } = {},
): Engine => ({
  table: new RouteTable(paths),
  description,
  ...(leases ? { leases } : {}),
  ...(options.periodic ? { periodic: options.periodic } : {}),
});

// engineFor is called by the openapi route at request time only, once every engine is compiled.
const SYSTEM = engine(
  sysPaths(engineFor),
  'The system backend is built into the secrets service and cannot be remounted or moved. It configures the service: mounts, tokens and policies.',
);
const TOKEN = engine(tokenPaths(AUTH_METHODS), tokenHelp);
const KV_V1 = engine(
  kvV1Paths,
  'The kv backend reads and writes arbitrary secrets to the storage barrier. This is version 1: no versioning.',
  passthroughLeases,
);
const CUBBYHOLE = engine(cubbyholePaths, cubbyholeHelp);
const KV_V2 = engine(
  kvV2Paths,
  'The kv backend reads and writes versioned secrets. Use data/ to read and write, metadata/ to list and to manage keys, delete/, undelete/ and destroy/ to manage versions, config to set engine defaults.',
);

/** The database engine (PostgreSQL): leased users, static-role rotation on the active server (database/routes.ts). */
const DATABASE = engine(databasePaths, databaseHelp, databaseLeases, { periodic: databasePeriodic });

/** Transit: encryption as a service; `periodic` rotates keys with an `auto_rotate_period`. */
const TRANSIT = engine(transitPaths, transitHelp, undefined, { periodic: transitPeriodic });
/** PKI: an internal certificate authority; leases of certificates issued with `generate_lease`. */
const PKI = engine(pkiPaths, pkiHelp, pkiLeases);

/** Auth method engines (`userpass`, `approle`), enabled through `sys/auth` (reference/secrets.md §3.6). */
const AUTH_ENGINES: ReadonlyMap<string, Engine> = new Map([...AUTH_METHODS].map(([type, m]) => [type, engine(m.paths, m.description)]));

/** Every engine, for compiling each operation's validator at startup. */
export const ALL_ENGINES: readonly Engine[] = [SYSTEM, TOKEN, CUBBYHOLE, KV_V1, KV_V2, TRANSIT, PKI, DATABASE, ...AUTH_ENGINES.values()];

/** What the core needs of the registry (core.ts `CoreEngines`): engine types users may mount through `sys/mounts` (`kv`), and each mount's lease callbacks. */
export const CORE_ENGINES: CoreEngines = {
  leasesFor: (mount) => engineFor(mount).leases,
  periodicFor: (mount) => engineFor(mount).periodic,
  mountable: new Set(['kv', 'transit', 'pki', 'database']),
};

/** The engine serving `mount`. Throws for a type with no engine (a corrupt mount table). */
export function engineFor(mount: MountEntry): Engine {
  switch (mount.type) {
    case 'system':
      return SYSTEM;
    case 'token':
      return TOKEN;
    case 'cubbyhole':
      return CUBBYHOLE;
    case 'kv':
      return mount.options?.version === '2' ? KV_V2 : KV_V1;
    case 'transit':
      return TRANSIT;
    case 'pki':
      return PKI;
    case 'database':
      return DATABASE;
    default: {
      const auth = AUTH_ENGINES.get(mount.type);
      if (auth) return auth;
      throw new Error(`no engine for mount type "${mount.type}" at ${mount.path}`);
    }
  }
}
