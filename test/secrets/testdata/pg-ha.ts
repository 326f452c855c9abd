/**
 * The PostgreSQL HA set-up of the secrets suites that run several real servers on one
 * table (ha-init.test.ts, leases-ha-postgres.test.ts): the repo's throwaway PostgreSQL
 * cluster (or `CAIRN_TEST_PG_URL`), a fresh table name, the servers' HCL file with
 * `storage "postgresql" { ha_enabled = "true" }` reading the connection URL from an
 * environment variable (so the password is in no file), and that environment.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { startPgTestServer, type PgTestServer } from '../../../src/kernel/store/testdata/pg-cluster.js';

/** Options of {@link startPgHa}. */
export interface PgHaOptions {
  /** The environment variable the config's `connection_url = "env://…"` names. */
  readonly urlVar: string;
  /** The table name's prefix; a random hex suffix makes it fresh. */
  readonly tablePrefix: string;
  /** The directory to write `secrets.hcl` into (the caller removes it). */
  readonly dir: string;
  /** Lines added at the end of the `storage` block, each ending in a newline (e.g. `  max_parallel   = 4\n`). */
  readonly storageLines?: string;
  /** Top-level HCL added after the listener block (e.g. `disable_performance_standby = true`). */
  readonly extra?: string;
}

/** A started cluster and the config and environment of the servers sharing its table. */
export interface PgHa {
  readonly pg: PgTestServer;
  /** The table the servers share (unquoted). */
  readonly table: string;
  /** Path of the servers' HCL file. */
  readonly config: string;
  /** The servers' environment: the connection URL, and a 200 ms HA lock retry. */
  readonly env: Record<string, string>;
  /** Drops the table and its `_ha` side table, unless the cluster is a throwaway one (it goes as a whole). */
  dropTables(): Promise<void>;
}

/** Starts the cluster and writes the servers' config (TCP listener on port 0, no TLS). */
export async function startPgHa(o: PgHaOptions): Promise<PgHa> {
  const server = await startPgTestServer();
  const table = `${o.tablePrefix}_${randomBytes(4).toString('hex')}`;
  const config = join(o.dir, 'secrets.hcl');
  writeFileSync(
    config,
    `storage "postgresql" {
  connection_url = "env://${o.urlVar}"
  table          = "${table}"
  ha_enabled     = "true"
${o.storageLines ?? ''}}

listener "tcp" {
  address     = "127.0.0.1:0"
  tls_disable = true
}
${o.extra === undefined ? '' : `\n${o.extra}\n`}`,
  );
  return {
    pg: server,
    table,
    config,
    env: { [o.urlVar]: server.url, CAIRN_SECRETS_HA_RETRY_MS: '200' },
    dropTables: async () => {
      if (server.throwaway) return;
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      await client.query(`DROP TABLE IF EXISTS "${table}", "${table}_ha"`).finally(() => client.end());
    },
  };
}
