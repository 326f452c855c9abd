/**
 * The database secrets engine driven by the reference product's own client library
 * (issue 28 "Tests"): Debian's `python3-hvac` (0.11) runs
 * `test/secrets/testdata/python_hvac_database.py` through the header-renaming proxy
 * (vault-header-proxy.ts) in front of a real secrets service with a `database` mount and
 * a real PostgreSQL cluster (pg-cluster.ts). Every call is one of hvac's
 * `client.secrets.database` methods (`configure`, `read_connection`, `list_connections`,
 * `create_role`, `read_role`, `list_roles`, `generate_credentials`, `create_static_role`,
 * `get_static_credentials`, `list_static_roles`, `rotate_root_credentials`,
 * `reset_connection`, `delete_static_role`, `delete_role`, `delete_connection`), except the
 * static rotation, which hvac 0.11 lacks (its generic `write`). The values are what hvac
 * returns; the users it was given log in with `pg`, and the old root password is refused.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import pg from 'pg';
import { startPgTestServer, type PgTestServer } from '../../src/kernel/store/testdata/pg-cluster.js';
import { startTestServer, type TestServer } from '../helpers.js';
import { startVaultHeaderProxy, type VaultHeaderProxy } from './vault-header-proxy.js';

const PYTHON = '/usr/bin/python3';
const SCRIPT = new URL('./testdata/python_hvac_database.py', import.meta.url).pathname;

describe('python3-hvac: the database engine', () => {
  let pgs: PgTestServer;
  let s: TestServer;
  let proxy: VaultHeaderProxy;
  let out: Record<string, unknown>;
  /** Logs in as `user` and returns `current_user`; rejects when refused. */
  const login = async (user: string, password: string) => {
    const u = new URL(pgs.url);
    u.username = user;
    u.password = encodeURIComponent(password);
    const c = new pg.Client({ connectionString: u.toString() });
    await c.connect();
    try {
      return (await c.query<{ u: string }>('SELECT current_user AS u')).rows[0].u;
    } finally {
      await c.end();
    }
  };

  before(async () => {
    pgs = await startPgTestServer();
    const su = new pg.Client({ connectionString: pgs.url });
    await su.connect();
    await su.query(`CREATE ROLE hvacroot WITH SUPERUSER LOGIN PASSWORD 'hvac-root-pw'`);
    await su.query(`CREATE ROLE hvac_static WITH LOGIN PASSWORD 'static-pw'`);
    await su.end();
    s = await startTestServer();
    assert.equal((await s.call('POST', '/v1/sys/mounts/database', { body: { type: 'database' } })).status, 204);
    proxy = await startVaultHeaderProxy(s.url);
    // python3-hvac is installed by .ci/run: a script that cannot run fails the suite, never skips it.
    const { stdout } = await promisify(execFile)(PYTHON, [SCRIPT], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        PROXY_PORT: String(proxy.port),
        SECRETS_TOKEN: s.rootToken,
        PG_PORT: new URL(pgs.url).port,
        ROOT_PASSWORD: 'hvac-root-pw',
      },
      timeout: 60_000,
    });
    out = JSON.parse(stdout) as Record<string, unknown>;
  });
  after(async () => {
    await proxy?.close();
    await s?.close();
    await pgs?.stop();
  });

  it('connections: configure, read (no password), list, an unknown plugin refused, rotate the root, reset, delete', async () => {
    assert.deepEqual(out.read_connection, {
      plugin_name: 'postgresql-database-plugin',
      allowed_roles: ['readonly', 'static'],
      connection_url: `postgresql://{{username}}:{{password}}@127.0.0.1:${new URL(pgs.url).port}/postgres`,
      username: 'hvacroot',
      has_password: false,
    });
    assert.deepEqual(out.list_connections, ['pg']);
    const [cls, errors] = out.configure_refused as [string, string[]];
    assert.equal(cls, 'InvalidRequest');
    assert.match(errors[0], /unsupported plugin "mysql-database-plugin"/);
    await assert.rejects(login('hvacroot', 'hvac-root-pw'), /password authentication failed/, 'rotate_root_credentials changed the root password');
    assert.match(out.after_root_rotation as string, /^v-root-readonly-/, 'the engine works after root rotation and reset');
    assert.deepEqual(out.list_after_delete, ['InvalidPath', []]);
  });

  it('dynamic roles: create, read, list, generate credentials that log in; an unknown role refused; delete', async () => {
    assert.deepEqual(out.read_role, {
      db_name: 'pg',
      creation_statements: [`CREATE ROLE "{{name}}" WITH LOGIN PASSWORD '{{password}}' VALID UNTIL '{{expiration}}';`],
      default_ttl: 3600,
      max_ttl: 7200,
      revocation_statements: [],
    });
    assert.deepEqual(out.list_roles, ['readonly']);
    const creds = out.generate_credentials as { lease_id: string; lease_duration: number; renewable: boolean; username: string; password: string };
    assert.match(creds.lease_id, /^database\/creds\/readonly\/\w+$/);
    assert.equal(creds.lease_duration, 3600);
    assert.equal(creds.renewable, true);
    assert.match(creds.username, /^v-root-readonly-[A-Za-z0-9]{20}-\d+$/);
    assert.equal(await login(creds.username, creds.password), creds.username);
    assert.deepEqual(out.generate_refused, ['InvalidRequest', ['unknown role: nope']]);
    assert.deepEqual(out.read_deleted_role, ['InvalidPath', []]);
  });

  it('static roles: create rotates at once, get credentials, list, rotate-role changes the password', async () => {
    const first = out.get_static_credentials as { username: string; password: string; rotation_period: number; ttl: number; last_vault_rotation: string };
    assert.equal(first.username, 'hvac_static');
    assert.equal(first.rotation_period, 3600);
    assert.ok(first.ttl > 3500 && first.ttl <= 3600);
    assert.notEqual(first.password, 'static-pw');
    assert.deepEqual(out.list_static_roles, ['static']);
    const rotated = out.rotated_static_password as string;
    assert.notEqual(rotated, first.password);
    assert.equal(await login('hvac_static', rotated), 'hvac_static');
    await assert.rejects(login('hvac_static', first.password), /password authentication failed/);
  });
});
