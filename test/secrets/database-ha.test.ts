/**
 * The database engine across HA (issue 28 item 1): two real `cairn secrets server`
 * processes sharing one throwaway PostgreSQL cluster (pg-ha.ts), which is also the
 * database the engine manages. `database/creds/:name` read through the performance
 * standby B is served by the active server A (a read with an outside effect: exactly one
 * PostgreSQL user is created, none by B); then A is killed (`kill -9`) before the user's
 * lease falls due, B takes over, and B's expiry loop drops the user.
 *
 * Deterministic: every wait is a poll with a deadline; no timing is asserted.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { call } from '../helpers.js';
import { healthStatus, killAll, startServer, until, type Running } from './testdata/ha-servers.js';
import { startPgHa, type PgHa } from './testdata/pg-ha.js';

const URL_VAR = 'CAIRN_E2E_SECRETS_DATABASE_PG_URL';
const dir = mkdtempSync(join(tmpdir(), 'cairn-db-ha-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('database engine on PostgreSQL HA: creds through a performance standby, revocation after a failover', () => {
  let ha: PgHa;
  const servers: Running[] = [];
  /** The users the role `ha` made so far (their names start `v-root-ha-`). */
  const users = async (): Promise<string[]> => {
    const c = new pg.Client({ connectionString: ha.pg.url });
    await c.connect();
    try {
      return (await c.query<{ rolname: string }>(`SELECT rolname FROM pg_roles WHERE rolname LIKE 'v-root-ha-%' ORDER BY rolname`)).rows.map((r) => r.rolname);
    } finally {
      await c.end();
    }
  };

  before(async () => {
    ha = await startPgHa({ urlVar: URL_VAR, tablePrefix: 'cairn_dbha', dir });
  });
  after(async () => {
    await killAll(servers);
    if (ha) {
      await ha.dropTables();
      await ha.pg.stop();
    }
  });

  it('the standby forwards creds (one user, made by the active server); after kill -9 of the active server the new one revokes it', async () => {
    const a = await startServer(ha.config, ha.env);
    servers.push(a);
    const init = await call(a.url, 'PUT', '/v1/sys/init', { body: { secret_shares: 1, secret_threshold: 1 } });
    assert.equal(init.status, 200, init.text);
    const token = init.json.root_token as string;
    const key = init.json.keys[0] as string;
    assert.equal((await call(a.url, 'PUT', '/v1/sys/unseal', { body: { key } })).status, 200);
    await until('server A active', 10_000, async () => ((await healthStatus(a.url)) === 200 ? true : undefined));
    const u = new URL(ha.pg.url);
    for (const [path, body] of [
      ['sys/mounts/database', { type: 'database' }],
      [
        'database/config/main',
        {
          plugin_name: 'postgresql-database-plugin',
          connection_url: `postgres://{{username}}:{{password}}@127.0.0.1:${u.port}/postgres`,
          username: decodeURIComponent(u.username),
          password: decodeURIComponent(u.password),
          allowed_roles: 'ha',
        },
      ],
      ['database/roles/ha', { db_name: 'main', creation_statements: `CREATE ROLE "{{name}}" WITH LOGIN PASSWORD '{{password}}';`, default_ttl: 8 }],
    ] as const) {
      const r = await call(a.url, 'POST', `/v1/${path}`, { token, body });
      assert.equal(r.status, 204, `${path}: ${r.text}`);
    }

    const b = await startServer(ha.config, ha.env);
    servers.push(b);
    assert.equal((await call(b.url, 'PUT', '/v1/sys/unseal', { body: { key } })).status, 200);
    await until('B a performance standby', 15_000, async () => ((await healthStatus(b.url)) === 473 ? true : undefined));

    const creds = await call(b.url, 'GET', '/v1/database/creds/ha', { token });
    assert.equal(creds.status, 200, creds.text);
    assert.deepEqual(await users(), [creds.json.data.username], 'exactly one user: the standby made none of its own');
    const lookup = await call(b.url, 'PUT', '/v1/sys/leases/lookup', { token, body: { lease_id: creds.json.lease_id } });
    assert.equal(lookup.status, 200, lookup.text);

    a.child.kill('SIGKILL');
    await a.exited;
    await until('server B active', 20_000, async () => ((await healthStatus(b.url)) === 200 ? true : undefined));
    await until("the user dropped by B's expiry loop", 30_000, async () => ((await users()).length === 0 ? true : undefined));
    const gone = await call(b.url, 'PUT', '/v1/sys/leases/lookup', { token, body: { lease_id: creds.json.lease_id } });
    assert.deepEqual(gone.json, { errors: ['invalid lease'] });
  });
});
