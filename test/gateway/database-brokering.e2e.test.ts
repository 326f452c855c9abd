/**
 * Issue 28 item 4 end to end with real processes: `cairn dev`, a throwaway PostgreSQL
 * cluster, the secrets service's database engine issuing a PostgreSQL user per read of
 * `database/creds/app`, and a gateway target for the database with a `vault-generic`
 * library on that path. Each `cairn gateway connect` prints a user of its own; `psql`
 * through the worker logs in as it; when the session ends — canceled with Ctrl-C, once its
 * connection limit is used up, or at its `session_max_seconds` — the gateway revokes the
 * lease and the user no longer exists in PostgreSQL.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import pg from 'pg';
import { startPgTestServer, type PgTestServer } from '../../src/kernel/store/testdata/pg-cluster.js';
import { startDevProcess, type DevProcess } from '../dev-process.js';
import type { JsonReply } from '../helpers.js';
import { spawnCairn, until, type CairnRun } from '../processes.js';
import { storePolicy } from './store-policy.js';

const ROOT = 'db-broker-root-token';
const CREATION = [
  `CREATE ROLE "{{name}}" WITH LOGIN PASSWORD '{{password}}' VALID UNTIL '{{expiration}}';`,
  'GRANT CONNECT ON DATABASE postgres TO "{{name}}";',
];

describe('the gateway brokers a PostgreSQL user per session (cairn dev, real processes)', { timeout: 300_000 }, () => {
  let dev: DevProcess;
  let db: PgTestServer;
  let admin: Record<string, string>;
  const runs: CairnRun[] = [];

  /** Whether PostgreSQL has a role named `name`. */
  const roleExists = async (name: string) => {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      return (await c.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [name])).rowCount === 1;
    } finally {
      await c.end();
    }
  };
  const secretsCall = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${dev.printed['Secrets service']}/v1/${path}`, { method, headers: { 'X-Secrets-Token': ROOT }, body: JSON.stringify(body) });
    const text = await r.text();
    assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${text}`);
    return text ? (JSON.parse(text) as { data?: JsonReply; auth?: JsonReply }) : {};
  };
  const gatewayCall = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${dev.printed['Gateway api']}/v1/${path}`, {
      method,
      headers: { Authorization: `Bearer ${admin.GATEWAY_TOKEN}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    assert.equal(r.status, 200, `${method} ${path}: ${text}`);
    return JSON.parse(text) as JsonReply;
  };
  /** Runs `cairn gateway connect` to `target`; resolves with its local port, session and brokered user once it prints them. */
  const connect = async (target: string) => {
    const run = spawnCairn(['gateway', 'connect', `-target-id=${target}`, '-listen-port=0'], admin);
    runs.push(run);
    const info = await until('connect prints its listener and credentials', 60_000, () =>
      /Secret: +\{.*\}\n/.test(run.out.stdout) ? run.out.stdout : undefined,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\nstdout: ${run.out.stdout}\nstderr: ${run.out.stderr}`);
    });
    const secret = JSON.parse(/Secret: +(\{.*\})\n/.exec(info)![1]!) as { username: string; password: string };
    return { run, info, secret, port: Number(/Port: +(\d+)/.exec(info)![1]), sessionId: /Session ID: +(\S+)/.exec(info)![1]! };
  };
  /** `psql` through the local listener on `port` as `user`: what `SELECT current_user` printed. */
  const psql = async (port: number, user: { username: string; password: string }) => {
    const { stdout } = await promisify(execFile)(
      'psql',
      [`host=127.0.0.1 port=${port} dbname=postgres user=${user.username} sslmode=disable`, '-tAc', 'SELECT current_user'],
      { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PGPASSWORD: user.password, PGCONNECT_TIMEOUT: '20' }, timeout: 30_000 },
    );
    return stdout.trim();
  };
  /** A tcp target in the dev project to the database, with the `database/creds/app` library attached. */
  const target = async (library: string, name: string, extra: Record<string, unknown> = {}) => {
    const project = (await gatewayCall('GET', `targets/${dev.printed['Gateway target']}`)).scope_id as string;
    const t = await gatewayCall('POST', 'targets', {
      scope_id: project,
      type: 'tcp',
      name,
      address: '127.0.0.1',
      attributes: { default_port: Number(new URL(db.url).port) },
      ...extra,
    });
    await gatewayCall('POST', `targets/${t.id}:add-credential-sources`, { version: t.version, brokered_credential_source_ids: [library] });
    return t.id as string;
  };
  let library = '';

  before(async () => {
    [dev, db] = await Promise.all([startDevProcess(ROOT), startPgTestServer()]);
    const url = new URL(db.url);
    await secretsCall('POST', 'sys/mounts/database', { type: 'database' });
    await secretsCall('POST', 'database/config/pg', {
      plugin_name: 'postgresql-database-plugin',
      connection_url: `postgresql://{{username}}:{{password}}@${url.host}${url.pathname}?sslmode=disable`,
      username: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      allowed_roles: ['app'],
    });
    await secretsCall('POST', 'database/roles/app', { db_name: 'pg', creation_statements: CREATION, default_ttl: '10m', max_ttl: '1h' });
    await secretsCall('PUT', 'sys/policies/acl/gateway-controller', { policy: storePolicy('database/creds/app') });
    const storeToken = (await secretsCall('POST', 'auth/token/create', { policies: ['gateway-controller'], no_parent: true, period: '20m' })).auth!
      .client_token;

    const gw = { GATEWAY_ADDR: dev.printed['Gateway api']! };
    const login = spawnCairn(
      [
        'gateway',
        'authenticate',
        'password',
        `-auth-method-id=${dev.printed.authMethod}`,
        `-login-name=${dev.printed.loginName}`,
        '-password=env://GW_PASSWORD',
        '-format=json',
      ],
      { ...gw, GW_PASSWORD: dev.printed.password! },
    );
    assert.equal(await login.exited, 0, login.out.stderr);
    admin = { ...gw, GATEWAY_TOKEN: (JSON.parse(login.out.stdout) as { token: string }).token };
    const project = (await gatewayCall('GET', `targets/${dev.printed['Gateway target']}`)).scope_id;
    const store = await gatewayCall('POST', 'credential-stores', {
      scope_id: project,
      type: 'vault',
      name: 'dev-secrets',
      attributes: { address: dev.printed['Secrets service'], token: storeToken },
    });
    library = (
      await gatewayCall('POST', 'credential-libraries', {
        credential_store_id: store.id,
        type: 'vault-generic',
        name: 'db-app',
        credential_type: 'username_password',
        attributes: { path: 'database/creds/app' },
      })
    ).id;
  });
  after(async () => {
    for (const r of runs) r.child.kill('SIGKILL');
    await dev?.close();
    await db?.stop();
  });

  it('each session gets its own user, psql logs in with it through the worker, and canceling the session drops it', async () => {
    const t = await target(library, 'pg-cancel');
    const first = await connect(t);
    const second = await connect(t);
    assert.match(first.secret.username, /^v-/);
    assert.notEqual(first.secret.username, second.secret.username, 'a user per session');
    assert.ok(await roleExists(first.secret.username));
    assert.equal(await psql(first.port, first.secret), first.secret.username);
    assert.equal(await psql(second.port, second.secret), second.secret.username);

    first.run.child.kill('SIGINT'); // Ctrl-C cancels the session
    assert.equal(await first.run.exited, 0, first.run.out.stderr);
    await until('the first session ends', 30_000, async () =>
      (await gatewayCall('GET', `sessions/${first.sessionId}`)).status === 'terminated' ? true : undefined,
    );
    await until("the first session's user is dropped", 30_000, async () => ((await roleExists(first.secret.username)) ? undefined : true));
    assert.ok(await roleExists(second.secret.username), "the other session's user stays");
    second.run.child.kill('SIGINT');
    assert.equal(await second.run.exited, 0);
    await until("the second session's user is dropped", 30_000, async () => ((await roleExists(second.secret.username)) ? undefined : true));
  });

  it('a session whose connection limit is used up ends, and its user is dropped', async () => {
    const t = await target(library, 'pg-once', { session_connection_limit: 1 });
    const s = await connect(t);
    assert.equal(await psql(s.port, s.secret), s.secret.username);
    await until('the session ends after its only connection', 30_000, async () =>
      (await gatewayCall('GET', `sessions/${s.sessionId}`)).status === 'terminated' ? true : undefined,
    );
    await until("the session's user is dropped", 30_000, async () => ((await roleExists(s.secret.username)) ? undefined : true));
  });

  it('a session that reaches its session_max_seconds ends, and its user is dropped', async () => {
    const t = await target(library, 'pg-short', { session_max_seconds: 5 });
    const s = await connect(t);
    assert.equal(await psql(s.port, s.secret), s.secret.username);
    await until('the session ends at its expiration time', 60_000, async () =>
      (await gatewayCall('GET', `sessions/${s.sessionId}`)).status === 'terminated' ? true : undefined,
    );
    await until("the expired session's user is dropped", 30_000, async () => ((await roleExists(s.secret.username)) ? undefined : true));
  });
});
