/**
 * Connection paths of the database engine (reference/secrets-engines.md §5):
 * `config` (LIST), `config/:name` (write, read without the password, delete),
 * `reset/:name` (close the pool; the next use reconnects from the stored configuration)
 * and `rotate-root/:name` (a new root password nobody can read).
 *
 * @module
 */
import { badRequest } from '../../../kernel/http/index.js';
import type { SecretsPath, SecretsRequest } from '../types.js';
import { CONFIG_FIELDS, applyConfigFields, configStore, configView } from './config.js';
import { activeOnly } from './connection.js';
import { dropPool, verifyConnection } from './pool.js';
import { rotateRoot } from './rotation.js';

const nameOf = (req: SecretsRequest) => req.params.name;
const ctxOf = (req: SecretsRequest) => ({ mount: req.mount, storage: req.storage, resources: req.core.resources });

/**
 * Stores a connection after checking it can log in (`verify_connection`, default true):
 * 400 `error creating database object: error verifying connection: <pg message>` and
 * nothing stored when it cannot. The connection's pool is reopened with the new settings.
 */
async function writeConfig(req: SecretsRequest) {
  activeOnly(req.core);
  const store = configStore(req.storage);
  const config = applyConfigFields(req.data, await store.get(nameOf(req)));
  if (config.verify_connection) {
    try {
      await verifyConnection(config);
    } catch (err) {
      throw badRequest(`error creating database object: error verifying connection: ${(err as Error).message}`);
    }
  }
  await store.put(nameOf(req), config);
  await dropPool(req.core.resources, req.mount, nameOf(req));
  return undefined;
}

const configListPath: SecretsPath = {
  pattern: 'config',
  synopsis: 'List the database connections',
  operations: { list: { summary: 'List connections', handle: async (req) => ({ data: { keys: await configStore(req.storage).list() } }) } },
};

const configPath: SecretsPath = {
  pattern: 'config/:name',
  synopsis: 'Configure a connection to a database (PostgreSQL)',
  description:
    'plugin_name must be postgresql-database-plugin. connection_url may hold {{username}} and {{password}}, replaced by username and password. The password is never returned; roles use the connection only when allowed_roles names them (or holds "*").',
  params: { name: 'the connection name' },
  fields: CONFIG_FIELDS,
  exists: async (req) => (await configStore(req.storage).get(nameOf(req))) !== undefined,
  operations: {
    create: { summary: 'Create a connection', handle: writeConfig },
    update: { summary: 'Update a connection (fields not given keep their value)', handle: writeConfig },
    read: {
      summary: 'Read a connection (without its password)',
      handle: async (req) => {
        const c = await configStore(req.storage).get(nameOf(req));
        return c && { data: configView(c) };
      },
    },
    delete: {
      summary: 'Delete a connection and close its pool',
      handle: async (req) => {
        await configStore(req.storage).delete(nameOf(req));
        await dropPool(req.core.resources, req.mount, nameOf(req));
        return undefined;
      },
    },
  },
};

const resetPath: SecretsPath = {
  pattern: 'reset/:name',
  synopsis: 'Close the connection pool; the next use reconnects with the stored configuration',
  params: { name: 'the connection name' },
  operations: {
    update: {
      summary: 'Reset a connection',
      handle: async (req) => {
        activeOnly(req.core);
        if (!(await configStore(req.storage).get(nameOf(req)))) throw badRequest(`failed to find entry for connection with name: "${nameOf(req)}"`);
        await dropPool(req.core.resources, req.mount, nameOf(req));
        return undefined;
      },
    },
  },
};

const rotateRootPath: SecretsPath = {
  pattern: 'rotate-root/:name',
  synopsis: "Rotate the connection's root password; the new one is stored behind the barrier only and never returned",
  params: { name: 'the connection name' },
  operations: {
    update: {
      summary: 'Rotate the root password',
      handle: async (req) => {
        activeOnly(req.core);
        await rotateRoot(ctxOf(req), nameOf(req));
        return undefined;
      },
    },
  },
};

/** Connection paths. */
export const configPaths: readonly SecretsPath[] = [configListPath, configPath, resetPath, rotateRootPath];
