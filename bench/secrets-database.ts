/**
 * Database credentials issued per second (issue 28 "Measure"): `GET /v1/database/creds/bench`
 * with the root token against a `database` mount whose connection is a throwaway
 * PostgreSQL cluster started here (pg-cluster.ts; `fsync` off: the figure is the engine's
 * and PostgreSQL's role creation, not the disk). Each request creates a PostgreSQL role
 * (`CREATE ROLE … VALID UNTIL`, one transaction) and registers its lease (a durable write
 * to the secrets service's SQLite). Leases live an hour, so no revocation runs during the rounds.
 */
import { startPgTestServer, type PgTestServer } from '../src/kernel/store/testdata/pg-cluster.js';
import { api, type RequestTemplate, type Scenario } from './harness.js';

/** The cluster of the run; stopped when the bench process exits (pg-cluster.ts removes it on exit). */
let pgServer: PgTestServer | undefined;

export const secretsDatabaseCreds: Scenario = {
  name: 'secrets-database-creds',
  description: 'GET /v1/database/creds/bench, root token: a new PostgreSQL role (CREATE ROLE … VALID UNTIL) and its lease each',
  server: 'secrets',
  async setup(ctx) {
    const server = ctx.servers.secrets;
    pgServer ??= await startPgTestServer();
    const u = new URL(pgServer.url);
    await api(server, 'POST', '/v1/sys/mounts/database', { body: { type: 'database' } });
    await api(server, 'POST', '/v1/database/config/bench', {
      body: {
        plugin_name: 'postgresql-database-plugin',
        connection_url: `postgres://{{username}}:{{password}}@127.0.0.1:${u.port}/postgres`,
        username: decodeURIComponent(u.username),
        password: decodeURIComponent(u.password),
        allowed_roles: 'bench',
        max_open_connections: 8,
      },
    });
    await api(server, 'POST', '/v1/database/roles/bench', {
      body: {
        db_name: 'bench',
        creation_statements: `CREATE ROLE "{{name}}" WITH LOGIN PASSWORD '{{password}}' VALID UNTIL '{{expiration}}';`,
        default_ttl: '1h',
      },
    });
  },
  async check(ctx) {
    const server = ctx.servers.secrets;
    const names = new Set<string>();
    for (let k = 0; k < 2; k++) {
      const r = await api(server, 'GET', '/v1/database/creds/bench');
      const body = r.json as { lease_id?: string; data?: { username?: string; password?: string } };
      const username = body.data?.username ?? '';
      if (!body.lease_id?.startsWith('database/creds/bench/') || !/^v-\w+-bench-/.test(username) || !body.data?.password) {
        throw new Error(`secrets-database-creds check: unexpected reply ${r.text.slice(0, 300)}`);
      }
      names.add(username);
    }
    if (names.size !== 2) throw new Error('secrets-database-creds check: two reads gave the same user');
  },
  requests(ctx): RequestTemplate[] {
    return [{ method: 'GET', path: '/v1/database/creds/bench', headers: { 'X-Secrets-Token': ctx.servers.secrets.token! } }];
  },
};
