/**
 * The database secrets engine with the PostgreSQL plugin (issue 28 item 1), end to end
 * over HTTP against a real secrets service (SQLite) and a real PostgreSQL cluster
 * (pg-cluster.ts, one for the file): connections (verify, no password on read, unknown
 * plugin), dynamic credentials that log in and are dropped on revoke, expiry and
 * revoke-prefix, renewal moving `VALID UNTIL`, a user owning objects dropped by custom
 * revocation statements, root rotation (the old password refused), static roles (rotated
 * on create, on demand and by `rotation_period`), a database that cannot be reached (clear
 * errors, the lease kept and revoked once it is back), and revocation after a restart and
 * after a `kill -9` of the server process in the middle of a revocation.
 *
 * Waits are polls with a deadline; TTLs are a few seconds so the expiry loop (every second) acts.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { silentLogger } from '../../src/kernel/log/logger.js';
import { SqliteBackend } from '../../src/kernel/store/index.js';
import { startPgTestServer, type PgTestServer } from '../../src/kernel/store/testdata/pg-cluster.js';
import { startSecretsService, type SecretsService } from '../../src/services/secrets/service.js';
import { SecretsClient } from '../../src/sdk/index.js';
import { main } from '../../src/cli/main.js';
import { startTestServer, type Reply, type TestServer } from '../helpers.js';
import { until } from '../processes.js';
import { startSwitchProxy, type SwitchProxy } from './switch-proxy.js';

let pgs: PgTestServer;
let s: TestServer;
let proxy: SwitchProxy;
/** The superuser URL with `{{username}}`/`{{password}}` in place of its credentials, host and port as given. */
let templated = (_port?: number) => '';
let superPassword = '';

const api = (method: string, path: string, body?: unknown): Promise<Reply> => s.call(method, `/v1/${path}`, { body });
const ok = async (method: string, path: string, body?: unknown): Promise<Reply> => {
  const r = await api(method, path, body);
  assert.ok(r.status === 200 || r.status === 204, `${method} ${path}: ${r.status} ${r.text}`);
  return r;
};

/** Runs `sql` as the superuser. */
async function su<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: pgs.url });
  await c.connect();
  try {
    return (await c.query<T>(sql, params)).rows;
  } finally {
    await c.end();
  }
}
const roleExists = async (name: string) => (await su('SELECT 1 FROM pg_roles WHERE rolname = $1', [name])).length > 0;
/** Logs in as `user` and runs `sql`; rejects when the login is refused. */
async function as(user: string, password: string, sql = 'SELECT current_user AS u'): Promise<pg.QueryResultRow[]> {
  const u = new URL(pgs.url);
  u.username = encodeURIComponent(user);
  u.password = encodeURIComponent(password);
  const c = new pg.Client({ connectionString: u.toString() });
  c.on('error', () => undefined);
  await c.connect();
  try {
    return (await c.query(sql)).rows;
  } finally {
    await c.end();
  }
}
const untilGone = (name: string) => until(`role ${name} dropped`, 20_000, async () => ((await roleExists(name)) ? undefined : true));
const lookup = (leaseId: string) => api('PUT', 'sys/leases/lookup', { lease_id: leaseId });

before(async () => {
  pgs = await startPgTestServer();
  const u = new URL(pgs.url);
  superPassword = decodeURIComponent(u.password);
  templated = (port) => `postgres://{{username}}:{{password}}@127.0.0.1:${port ?? u.port}/postgres`;
  proxy = await startSwitchProxy(Number(u.port));
  s = await startTestServer();
  await ok('POST', 'sys/mounts/database', { type: 'database' });
  await ok('POST', 'database/config/main', {
    plugin_name: 'postgresql-database-plugin',
    connection_url: templated(),
    username: 'postgres',
    password: superPassword,
    allowed_roles: 'app,owner,short,s1,s2',
  });
  await ok('POST', 'database/roles/app', {
    db_name: 'main',
    creation_statements: [
      `CREATE ROLE "{{name}}" WITH LOGIN PASSWORD '{{password}}' VALID UNTIL '{{expiration}}';`,
      'GRANT SELECT ON ALL TABLES IN SCHEMA public TO "{{name}}";',
    ],
    default_ttl: '1h',
    max_ttl: '2h',
  });
});
after(async () => {
  await s?.close();
  await proxy?.close();
  await pgs?.stop();
});

describe('database engine: connections', () => {
  it('stores a connection and reads it back without the password; lists and refuses bad input', async () => {
    const r = await ok('GET', 'database/config/main');
    assert.equal(r.json.data.plugin_name, 'postgresql-database-plugin');
    assert.deepEqual(r.json.data.allowed_roles, ['app', 'owner', 'short', 's1', 's2']);
    assert.equal(r.json.data.connection_details.username, 'postgres');
    assert.equal(r.json.data.connection_details.max_open_connections, 4);
    assert.equal(r.text.includes(superPassword), false, 'the password is never returned');
    assert.equal('password' in r.json.data.connection_details, false);
    assert.deepEqual((await api('LIST', 'database/config')).json.data.keys, ['main']);

    await ok('POST', 'database/config/literal', {
      plugin_name: 'postgresql-database-plugin',
      connection_url: pgs.url,
      allowed_roles: 'none',
    });
    const literal = await ok('GET', 'database/config/literal');
    assert.equal(literal.json.data.connection_details.connection_url, pgs.url.replace(`:${encodeURIComponent(superPassword)}@`, ':*****@'));
    assert.equal(literal.text.includes(superPassword), false, 'a password written into the URL is not shown either');
    await ok('DELETE', 'database/config/literal');
    const mysql = await api('POST', 'database/config/other', { plugin_name: 'mysql-database-plugin', connection_url: 'x' });
    assert.equal(mysql.status, 400);
    assert.match(mysql.json.errors[0], /^plugin_name: unsupported plugin "mysql-database-plugin"/);
    const noUrl = await api('POST', 'database/config/other', { plugin_name: 'postgresql-database-plugin' });
    assert.equal(noUrl.status, 400);
    assert.match(noUrl.json.errors[0], /^connection_url:/);
    const policy = await api('POST', 'database/config/other', {
      plugin_name: 'postgresql-database-plugin',
      connection_url: templated(),
      password_policy: 'strong',
    });
    assert.equal(policy.status, 400);
    assert.match(policy.json.errors[0], /^password_policy:/);
    const tmpl = await api('POST', 'database/config/other', {
      plugin_name: 'postgresql-database-plugin',
      connection_url: templated(),
      username_template: '{{ nope 3 }}',
      verify_connection: false,
    });
    assert.equal(tmpl.status, 400);
    assert.match(tmpl.json.errors[0], /^username_template: function "nope" not defined/);
    const wrong = await api('POST', 'database/config/other', {
      plugin_name: 'postgresql-database-plugin',
      connection_url: templated(),
      username: 'postgres',
      password: 'wrong',
    });
    assert.equal(wrong.status, 400);
    assert.match(wrong.json.errors[0], /^error creating database object: error verifying connection: .*password authentication failed/);
    assert.equal((await api('GET', 'database/config/other')).status, 404, 'nothing stored after a refused write');
  });
});

describe('database engine: dynamic credentials', () => {
  it('issues a user that logs in, with the default username form and VALID UNTIL at the lease expiry; revoke drops it', async () => {
    const r = await ok('GET', 'database/creds/app');
    const { username, password } = r.json.data as { username: string; password: string };
    assert.match(username, /^v-root-app-[A-Za-z0-9]{20}-\d{10}$/);
    assert.match(password, /^[A-Za-z0-9-]{20}$/);
    assert.match(r.json.lease_id, /^database\/creds\/app\/[A-Za-z0-9]+$/);
    assert.equal(r.json.renewable, true);
    assert.equal(r.json.lease_duration, 3600);
    assert.deepEqual(await as(username, password), [{ u: username }]);
    const [{ until: validUntil }] = await su<{ until: Date }>('SELECT rolvaliduntil AS until FROM pg_roles WHERE rolname = $1', [username]);
    const expire = Date.parse((await lookup(r.json.lease_id)).json.data.expire_time);
    assert.ok(Math.abs(validUntil.getTime() - expire) < 2000, `VALID UNTIL ${validUntil.toISOString()} vs lease expiry ${new Date(expire).toISOString()}`);

    const renewed = await ok('PUT', 'sys/leases/renew', { lease_id: r.json.lease_id, increment: 7000 });
    assert.equal(renewed.json.lease_duration, 7000);
    const [{ until: moved }] = await su<{ until: Date }>('SELECT rolvaliduntil AS until FROM pg_roles WHERE rolname = $1', [username]);
    assert.ok(moved.getTime() - validUntil.getTime() > 3000_000, 'renewal moved VALID UNTIL');
    const capped = await ok('PUT', 'sys/leases/renew', { lease_id: r.json.lease_id, increment: 99999 });
    assert.ok(capped.json.lease_duration <= 7200, "the role's max_ttl caps a renewal");

    await ok('PUT', 'sys/leases/revoke', { lease_id: r.json.lease_id });
    assert.equal(await roleExists(username), false);
    await assert.rejects(as(username, password));
  });

  it('expiry and revoke-prefix drop the users', async () => {
    await ok('POST', 'database/roles/short', {
      db_name: 'main',
      creation_statements: `CREATE ROLE "{{name}}" WITH LOGIN PASSWORD '{{password}}';`,
      default_ttl: 2,
    });
    const short = (await ok('GET', 'database/creds/short')).json;
    assert.equal(short.lease_duration, 2);
    assert.equal(await roleExists(short.data.username), true);
    await untilGone(short.data.username);
    assert.equal((await lookup(short.lease_id)).status, 400, 'the lease is gone with the user');

    const a = (await ok('GET', 'database/creds/app')).json.data.username;
    const b = (await ok('GET', 'database/creds/app')).json.data.username;
    await ok('PUT', 'sys/leases/revoke-prefix/database/creds/app');
    assert.equal(await roleExists(a), false);
    assert.equal(await roleExists(b), false);
  });

  it('drops a user owning objects with custom revocation statements', async () => {
    await ok('POST', 'database/roles/owner', {
      db_name: 'main',
      creation_statements: `CREATE ROLE "{{name}}" WITH LOGIN PASSWORD '{{password}}' VALID UNTIL '{{expiration}}'; GRANT CREATE ON SCHEMA public TO "{{name}}";`,
      revocation_statements: Buffer.from('REASSIGN OWNED BY "{{name}}" TO postgres; DROP OWNED BY "{{name}}"; DROP ROLE "{{name}}";').toString('base64'),
    });
    const read = await ok('GET', 'database/roles/owner');
    assert.deepEqual(read.json.data.revocation_statements, ['REASSIGN OWNED BY "{{name}}" TO postgres; DROP OWNED BY "{{name}}"; DROP ROLE "{{name}}";']);
    const r = (await ok('GET', 'database/creds/owner')).json;
    const table = `t_${Date.now()}`;
    await as(r.data.username, r.data.password, `CREATE TABLE ${table} (id int)`);
    const [{ owner }] = await su<{ owner: string }>('SELECT tableowner AS owner FROM pg_tables WHERE tablename = $1', [table]);
    assert.equal(owner, r.data.username);
    await ok('PUT', 'sys/leases/revoke', { lease_id: r.lease_id });
    assert.equal(await roleExists(r.data.username), false);
    const [{ owner: after }] = await su<{ owner: string }>('SELECT tableowner AS owner FROM pg_tables WHERE tablename = $1', [table]);
    assert.equal(after, 'postgres', 'the table was reassigned');
  });

  it('password_authentication = "scram-sha-256": PostgreSQL stores a SCRAM verifier, and the password logs in', async () => {
    await ok('POST', 'database/config/scram', {
      plugin_name: 'postgresql-database-plugin',
      connection_url: templated(),
      username: 'postgres',
      password: superPassword,
      allowed_roles: 'scram',
      password_authentication: 'scram-sha-256',
    });
    // With md5 as the session's encryption, PostgreSQL would store a plain password as md5:
    // a SCRAM verifier stored means the engine sent one.
    await ok('POST', 'database/roles/scram', {
      db_name: 'scram',
      creation_statements: `SET LOCAL password_encryption = 'md5'; CREATE ROLE "{{name}}" WITH LOGIN PASSWORD '{{password}}';`,
    });
    const r = (await ok('GET', 'database/creds/scram')).json;
    const [{ pw }] = await su<{ pw: string }>('SELECT rolpassword AS pw FROM pg_authid WHERE rolname = $1', [r.data.username]);
    assert.match(pw, /^SCRAM-SHA-256\$4096:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/);
    assert.deepEqual(await as(r.data.username, r.data.password), [{ u: r.data.username }]);
    await ok('PUT', 'sys/leases/revoke', { lease_id: r.lease_id });
  });

  it('refuses an unknown role, a role the connection does not allow, and bad role input', async () => {
    assert.deepEqual((await api('GET', 'database/creds/nope')).json.errors, ['unknown role: nope']);
    await ok('POST', 'database/roles/stranger', { db_name: 'main', creation_statements: 'CREATE ROLE "{{name}}";' });
    assert.deepEqual((await api('GET', 'database/creds/stranger')).json.errors, ['"stranger" is not an allowed role']);
    const noDb = await api('POST', 'database/roles/bad', { creation_statements: 'x' });
    assert.deepEqual(noDb.json.errors, ['db_name: empty database name attribute']);
    const noStmt = await api('POST', 'database/roles/bad', { db_name: 'main' });
    assert.deepEqual(noStmt.json.errors, ['creation_statements: empty creation statements']);
    assert.equal((await api('GET', 'database/roles/bad')).status, 404);
    assert.deepEqual((await api('LIST', 'database/roles')).json.data.keys, ['app', 'owner', 'scram', 'short', 'stranger']);
    await ok('DELETE', 'database/roles/stranger');
  });
});

describe('database engine: SDK and CLI', () => {
  it('the SDK configures, issues and reads through its typed methods', async () => {
    const client = new SecretsClient({ address: s.url, token: s.rootToken });
    try {
      const db = client.database();
      await db.configure('sdk', {
        plugin_name: 'postgresql-database-plugin',
        connection_url: templated(),
        username: 'postgres',
        password: superPassword,
        allowed_roles: ['sdk'],
      });
      assert.equal((await db.readConnection('sdk'))?.plugin_name, 'postgresql-database-plugin');
      assert.ok((await db.listConnections()).includes('sdk'));
      await db.writeRole('sdk', { db_name: 'sdk', creation_statements: [`CREATE ROLE "{{name}}" WITH LOGIN PASSWORD '{{password}}';`], default_ttl: '10m' });
      assert.equal((await db.readRole('sdk'))?.default_ttl, 600);
      const creds = await db.credentials('sdk');
      assert.equal(creds.lease_duration, 600);
      assert.deepEqual(await as(creds.data!.username, creds.data!.password), [{ u: creds.data!.username }]);
      await client.leases.revoke(creds.lease_id);
      assert.equal(await roleExists(creds.data!.username), false);
      await db.deleteRole('sdk');
      await db.deleteConnection('sdk');
      assert.equal(await db.readConnection('sdk'), undefined);
    } finally {
      await client.close();
    }
  });

  it('`cairn write database/roles/…` takes statements as key=value; `cairn read database/creds/app` prints a new user and its lease', async () => {
    let stdout = '';
    let stderr = '';
    const env = { SECRETS_ADDR: s.url, SECRETS_TOKEN: s.rootToken };
    const write = await main(
      [
        'write',
        'database/roles/cli',
        'db_name=main',
        'default_ttl=1h',
        `creation_statements=CREATE ROLE "{{name}}" WITH LOGIN PASSWORD '{{password}}' VALID UNTIL '{{expiration}}';`,
      ],
      env,
      { stdout: () => undefined, stderr: (t) => (stderr += t) },
    );
    assert.equal(write, 0, stderr);
    assert.deepEqual((await ok('GET', 'database/roles/cli')).json.data.creation_statements, [
      `CREATE ROLE "{{name}}" WITH LOGIN PASSWORD '{{password}}' VALID UNTIL '{{expiration}}';`,
    ]);
    await ok('DELETE', 'database/roles/cli');
    const code = await main(['read', '-format=json', 'database/creds/app'], env, {
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
    });
    assert.equal(code, 0, stderr);
    const out = JSON.parse(stdout) as { lease_id: string; data: { username: string; password: string } };
    assert.match(out.lease_id, /^database\/creds\/app\//);
    assert.deepEqual(await as(out.data.username, out.data.password), [{ u: out.data.username }]);
    await ok('PUT', 'sys/leases/revoke', { lease_id: out.lease_id });
  });
});

describe('database engine: root rotation and static roles', () => {
  it('rotate-root: the engine keeps working, the old root password is refused, the new one is never shown', async () => {
    await su(`CREATE ROLE cairnroot WITH SUPERUSER LOGIN PASSWORD 'first-root-pw'`);
    await ok('POST', 'database/config/rot', {
      plugin_name: 'postgresql-database-plugin',
      connection_url: templated(),
      username: 'cairnroot',
      password: 'first-root-pw',
      allowed_roles: ['rot-app'],
    });
    await ok('POST', 'database/roles/rot-app', { db_name: 'rot', creation_statements: `CREATE ROLE "{{name}}" WITH LOGIN PASSWORD '{{password}}';` });
    assert.equal((await ok('GET', 'database/creds/rot-app')).status, 200);
    await ok('POST', 'database/rotate-root/rot');
    await assert.rejects(as('cairnroot', 'first-root-pw'), /password authentication failed/);
    const r = await ok('GET', 'database/creds/rot-app');
    assert.deepEqual(await as(r.json.data.username, r.json.data.password), [{ u: r.json.data.username }], 'the pool reconnected with the new password');
    assert.equal((await ok('GET', 'database/config/rot')).text.includes('first-root-pw'), false);
    await ok('POST', 'database/reset/rot');
    assert.equal((await ok('GET', 'database/creds/rot-app')).status, 200, 'works after a reset too');
  });

  it('static roles: rotated on create, by rotate-role and every rotation_period; old passwords refused', async () => {
    await su(`CREATE ROLE static_user WITH LOGIN PASSWORD 'initial-pw'`);
    await ok('POST', 'database/static-roles/s1', { db_name: 'main', username: 'static_user', rotation_period: '1h' });
    const c1 = (await ok('GET', 'database/static-creds/s1')).json.data;
    assert.equal(c1.username, 'static_user');
    assert.equal(c1.rotation_period, 3600);
    assert.ok(c1.ttl > 3590 && c1.ttl <= 3600, String(c1.ttl));
    assert.match(c1.last_vault_rotation, /^\d{4}-\d{2}-\d{2}T/);
    await assert.rejects(as('static_user', 'initial-pw'), /password authentication failed/);
    assert.deepEqual(await as('static_user', c1.password), [{ u: 'static_user' }]);

    await ok('POST', 'database/rotate-role/s1');
    const c2 = (await ok('GET', 'database/static-creds/s1')).json.data;
    assert.notEqual(c2.password, c1.password);
    await assert.rejects(as('static_user', c1.password), /password authentication failed/);
    assert.deepEqual(await as('static_user', c2.password), [{ u: 'static_user' }]);
    const role = (await ok('GET', 'database/static-roles/s1')).json.data;
    assert.equal(role.username, 'static_user');
    assert.equal('password' in role, false);

    await su(`CREATE ROLE static_fast WITH LOGIN PASSWORD 'initial-pw'`);
    await ok('POST', 'database/static-roles/s2', { db_name: 'main', username: 'static_fast', rotation_period: 5 });
    const f1 = (await ok('GET', 'database/static-creds/s2')).json.data;
    const f2 = await until('the periodic rotation', 20_000, async () => {
      const c = (await ok('GET', 'database/static-creds/s2')).json.data;
      return c.password !== f1.password ? c : undefined;
    });
    assert.notEqual(f2.last_vault_rotation, f1.last_vault_rotation);
    assert.deepEqual(await as('static_fast', f2.password), [{ u: 'static_fast' }]);
    await assert.rejects(as('static_fast', f1.password), /password authentication failed/);
    await ok('DELETE', 'database/static-roles/s2');
    assert.equal(await roleExists('static_fast'), true, 'deleting a static role keeps the user');

    const short = await api('POST', 'database/static-roles/s3', { db_name: 'main', username: 'x', rotation_period: 2 });
    assert.equal(short.status, 400);
    assert.match(short.json.errors[0], /^rotation_period:/);
    assert.deepEqual((await api('LIST', 'database/static-roles')).json.data.keys, ['s1']);
  });
});

describe('database engine: a database that cannot be reached', () => {
  it('answers clear errors, keeps the lease and revokes it once the database is back', async () => {
    await ok('POST', 'database/config/flaky', {
      plugin_name: 'postgresql-database-plugin',
      connection_url: templated(proxy.port),
      username: 'postgres',
      password: superPassword,
      allowed_roles: '*',
    });
    await ok('POST', 'database/roles/flaky', {
      db_name: 'flaky',
      creation_statements: `CREATE ROLE "{{name}}" WITH LOGIN PASSWORD '{{password}}';`,
      default_ttl: 3,
    });
    const r = (await ok('GET', 'database/creds/flaky')).json;
    proxy.mode = 'down';
    try {
      const creds = await api('GET', 'database/creds/flaky');
      assert.equal(creds.status, 500);
      assert.match(creds.json.errors[0], /^unable to get connection: /);
      const verify = await api('POST', 'database/config/flaky', { verify_connection: true });
      assert.equal(verify.status, 400);
      assert.match(verify.json.errors[0], /^error creating database object: error verifying connection: /);
      const revoke = await api('PUT', 'sys/leases/revoke', { lease_id: r.lease_id });
      assert.equal(revoke.status, 400);
      assert.match(revoke.json.errors[0], /^failed to revoke entry: unable to get connection: /);
      // Past its expiry the expiry loop tries (and fails) again: the lease stays.
      await until('the lease falls due', 10_000, async () => ((await lookup(r.lease_id)).json.data?.ttl === 0 ? true : undefined));
      assert.equal((await lookup(r.lease_id)).status, 200, 'no lease lost while the database is down');
      assert.equal(await roleExists(r.data.username), true);
    } finally {
      proxy.mode = 'up';
    }
    await untilGone(r.data.username);
    await until('the lease is gone', 10_000, async () => ((await lookup(r.lease_id)).status === 400 ? true : undefined));
  });
});

describe('database engine: restart', () => {
  it('revokes a lease that fell due while the server was down', async () => {
    // A server of its own on a file that outlives it.
    const open = (path: string) => startSecretsService({ backend: SqliteBackend.open({ path }), listeners: [{ address: '127.0.0.1:0' }], log: silentLogger() });
    const path = `${s.dataDir}/restart.db`;
    let svc: SecretsService = await open(path);
    const init = await svc.node.initialize(1, 1);
    await svc.node.unseal(init.keys[0]);
    const call = (method: string, p: string, body?: unknown) =>
      fetch(`${svc.listeners[0].url}/v1/${p}`, {
        method,
        headers: { 'X-Secrets-Token': init.root_token },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    assert.equal((await call('POST', 'sys/mounts/db', { type: 'database' })).status, 204);
    const conf = { plugin_name: 'postgresql-database-plugin', connection_url: templated(), username: 'postgres', password: superPassword, allowed_roles: '*' };
    assert.equal((await call('POST', 'db/config/main', conf)).status, 204);
    const role = { db_name: 'main', creation_statements: `CREATE ROLE "{{name}}" WITH LOGIN PASSWORD '{{password}}';`, default_ttl: 2 };
    assert.equal((await call('POST', 'db/roles/r', role)).status, 204);
    const issued = (await (await call('GET', 'db/creds/r')).json()) as { data: { username: string } };
    await svc.close();
    // Down past the lease's expiry: nothing revoked it.
    await new Promise((r) => setTimeout(r, 2500));
    assert.equal(await roleExists(issued.data.username), true);
    svc = await open(path);
    try {
      await svc.node.unseal(init.keys[0]);
      await untilGone(issued.data.username);
    } finally {
      await svc.close();
    }
  });
});

/** The dev server (every service, SQLite in `dataDir`, root token `crash-root`) as a child process, as the crash test starts it. */
function startChild(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'testdata', 'dev-server.ts'), dataDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => resolve({ child, url: JSON.parse(line).url }));
    child.once('exit', (code) => reject(new Error(`dev server exited early with ${code}`)));
  });
}

describe('database engine: kill -9 mid-revocation', () => {
  it('revokes the user after the server process is killed while revoking it and started again', { timeout: 120_000 }, async () => {
    const dataDir = join(s.dataDir, 'crash');
    let run = await startChild(dataDir);
    const call = (method: string, p: string, body?: unknown) =>
      fetch(`${run.url}/v1/${p}`, { method, headers: { 'X-Secrets-Token': 'crash-root' }, body: body === undefined ? undefined : JSON.stringify(body) });
    try {
      assert.equal((await call('POST', 'sys/mounts/database', { type: 'database' })).status, 204);
      const conf = {
        plugin_name: 'postgresql-database-plugin',
        connection_url: templated(proxy.port),
        username: 'postgres',
        password: superPassword,
        allowed_roles: '*',
      };
      assert.equal((await call('POST', 'database/config/main', conf)).status, 204);
      const role = { db_name: 'main', creation_statements: `CREATE ROLE "{{name}}" WITH LOGIN PASSWORD '{{password}}';`, default_ttl: 2 };
      assert.equal((await call('POST', 'database/roles/r', role)).status, 204);
      const issued = (await (await call('GET', 'database/creds/r')).json()) as { data: { username: string } };
      // The database stops answering: the expiry loop's revocation connects and waits.
      proxy.mode = 'hang';
      await until('a revocation in flight', 20_000, () => (proxy.connections > 0 ? true : undefined));
      run.child.kill('SIGKILL');
      await new Promise((r) => (run.child.exitCode !== null || run.child.signalCode ? r(null) : run.child.once('exit', r)));
      proxy.mode = 'up';
      assert.equal(await roleExists(issued.data.username), true, 'killed before the user was dropped');
      run = await startChild(dataDir);
      await untilGone(issued.data.username);
    } finally {
      proxy.mode = 'up';
      run.child.kill('SIGKILL');
    }
  });
});
