/**
 * `GET sys/ha-status` (the reference's HA status) with two real `cairn secrets server`
 * processes on one throwaway PostgreSQL table (`ha_enabled`, performance standbys, the
 * default), as ha-postgres.test.ts sets them up:
 *
 * - the active server lists itself (`active_node: true`, `last_echo: null`, its address)
 *   and the standby once the standby has echoed (`active_node: false`, `last_echo` a time);
 * - asked on the standby, the request is forwarded: the same list, the active one first;
 * - the SDK's `sys.haStatus()` and `cairn operator members` show the same;
 * - ACL: a token without `read` on `sys/ha-status` gets 403, one with it 200; a namespace
 *   header gets 400 (root namespace only);
 * - a standby that stops echoing (`kill -9`) leaves the list once its echo expires;
 * - without HA (SQLite), the one server alone, active.
 *
 * Deterministic: every wait is a poll with a deadline.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startPgTestServer, type PgTestServer } from '../../src/kernel/store/testdata/pg-cluster.js';
import { VERSION } from '../../src/kernel/version/index.js';
import { SecretsClient } from '../../src/sdk/index.js';
import { call, startTestServer } from '../helpers.js';
import { spawnCairn } from '../processes.js';
import { healthStatus, killAll, startServer, until, type Running } from './testdata/ha-servers.js';

const URL_VAR = 'CAIRN_E2E_SECRETS_HA_STATUS_PG_URL';
const dir = mkdtempSync(join(tmpdir(), 'cairn-ha-status-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Node {
  hostname: string;
  api_address: string;
  cluster_address: string;
  active_node: boolean;
  last_echo: string | null;
  version: string;
}

describe('sys/ha-status: the active server and the standbys it heard from', () => {
  const table = `cairn_hs_${randomBytes(4).toString('hex')}`;
  let pgServer: PgTestServer;
  let env: Record<string, string>;
  let config: string;
  const servers: Running[] = [];
  let a: Running;
  let b: Running;
  let rootToken = '';

  before(async () => {
    pgServer = await startPgTestServer();
    // Echoes every 5 × 200 ms = 1 s; a standby is listed for 3 s after its last one.
    env = { [URL_VAR]: pgServer.url, CAIRN_SECRETS_HA_RETRY_MS: '200' };
    config = join(dir, 'secrets.hcl');
    writeFileSync(
      config,
      `storage "postgresql" {
  connection_url = "env://${URL_VAR}"
  table          = "${table}"
  ha_enabled     = "true"
  max_parallel   = 4
}
listener "tcp" {
  address     = "127.0.0.1:0"
  tls_disable = true
}
cluster_addr = "https://127.0.0.1:8201"
`,
    );
    a = await startServer(config, env);
    servers.push(a);
    const init = await call(a.url, 'PUT', '/v1/sys/init', { body: { secret_shares: 1, secret_threshold: 1 } });
    assert.equal(init.status, 200, init.text);
    rootToken = init.json.root_token;
    const key = init.json.keys[0];
    assert.equal((await call(a.url, 'PUT', '/v1/sys/unseal', { body: { key } })).status, 200);
    await until('server A active', 10_000, async () => ((await healthStatus(a.url)) === 200 ? true : undefined));
    b = await startServer(config, env);
    servers.push(b);
    assert.equal((await call(b.url, 'PUT', '/v1/sys/unseal', { body: { key } })).status, 200);
    await until('server B a standby', 10_000, async () => ([429, 473].includes(await healthStatus(b.url)) ? true : undefined));
  });

  after(async () => {
    await killAll(servers);
    if (pgServer) {
      if (!pgServer.throwaway) {
        const client = new pg.Client({ connectionString: pgServer.url });
        await client.connect();
        await client.query(`DROP TABLE IF EXISTS "${table}", "${table}_ha", "${table}_ha_nodes", "${table}_index"`).finally(() => client.end());
      }
      await pgServer.stop();
    }
  });

  const nodesOn = async (url: string, token = rootToken) => {
    const res = await call(url, 'GET', '/v1/sys/ha-status', { token });
    assert.equal(res.status, 200, res.text);
    // The reference's client reads `nodes` at the top level; the envelope's `data` has it too.
    assert.deepEqual(res.json.data.nodes, res.json.nodes);
    return res.json.nodes as Node[];
  };

  it('on the active server: itself first, then the standby once it has echoed', async () => {
    const nodes = await until('the standby listed', 10_000, async () => {
      const n = await nodesOn(a.url);
      return n.length === 2 ? n : undefined;
    });
    const [active, standby] = nodes;
    assert.equal(active.active_node, true);
    assert.equal(active.api_address, a.url);
    assert.equal(active.cluster_address, 'https://127.0.0.1:8201');
    assert.equal(active.last_echo, null);
    assert.equal(active.version, VERSION);
    assert.ok(active.hostname.length > 0);
    assert.equal(standby.active_node, false);
    assert.equal(standby.api_address, b.url);
    assert.equal(standby.version, VERSION);
    assert.ok(standby.last_echo !== null && Math.abs(Date.parse(standby.last_echo) - Date.now()) < 60_000, `last_echo ${standby.last_echo}`);
  });

  it('on the standby: forwarded to the active server, the same list', async () => {
    const nodes = await nodesOn(b.url);
    assert.deepEqual(
      nodes.map((n) => [n.api_address, n.active_node]),
      [
        [a.url, true],
        [b.url, false],
      ],
    );
  });

  it('the SDK and `cairn operator members` show both servers', async () => {
    const client = new SecretsClient({ address: b.url, token: rootToken });
    try {
      const status = await client.sys.haStatus();
      assert.deepEqual(
        status.nodes.map((n) => [n.api_address, n.active_node]),
        [
          [a.url, true],
          [b.url, false],
        ],
      );
    } finally {
      await client.close();
    }
    const run = spawnCairn(['operator', 'members'], { SECRETS_ADDR: a.url, SECRETS_TOKEN: rootToken });
    assert.equal(await run.exited, 0, run.out.stderr);
    const lines = run.out.stdout.trim().split('\n');
    assert.match(lines[0], /^Host Name\s+API Address\s+Cluster Address\s+Active Node\s+Version\s+Last Echo$/);
    assert.equal(lines.length, 4, run.out.stdout);
    assert.match(lines[2], new RegExp(`${a.url.replace(/[.:/]/g, '\\$&')}\\s+https://127\\.0\\.0\\.1:8201\\s+true\\s+\\S+\\s+n/a$`));
    assert.match(lines[3], new RegExp(`${b.url.replace(/[.:/]/g, '\\$&')}\\s+https://127\\.0\\.0\\.1:8201\\s+false\\s+\\S+\\s+\\d{4}-`));
  });

  it('ACL: read on sys/ha-status is needed; root namespace only', async () => {
    const policy = await call(a.url, 'PUT', '/v1/sys/policies/acl/ha-reader', {
      token: rootToken,
      body: { policy: 'path "sys/ha-status" { capabilities = ["read"] }' },
    });
    assert.equal(policy.status, 204, policy.text);
    const make = async (policies: string[]) => {
      const t = await call(a.url, 'POST', '/v1/auth/token/create', { token: rootToken, body: { policies } });
      assert.equal(t.status, 200, t.text);
      return t.json.auth.client_token as string;
    };
    const reader = await make(['ha-reader']);
    const other = await make(['default']);
    assert.equal((await nodesOn(a.url, reader)).length >= 1, true);
    const denied = await call(a.url, 'GET', '/v1/sys/ha-status', { token: other });
    assert.equal(denied.status, 403, denied.text);
    const created = await call(a.url, 'POST', '/v1/sys/namespaces/team', { token: rootToken });
    assert.equal(created.status, 200, created.text);
    const ns = await call(a.url, 'GET', '/v1/sys/ha-status', { token: rootToken, headers: { 'X-Secrets-Namespace': 'team' } });
    assert.equal(ns.status, 400, ns.text);
    assert.deepEqual(ns.json, { errors: ['operation unavailable in namespaces'] });
  });

  it('a standby that stops echoing leaves the list when its echo expires', async () => {
    await b.kill();
    await until('the standby gone', 15_000, async () => ((await nodesOn(a.url)).length === 1 ? true : undefined));
    const [only] = await nodesOn(a.url);
    assert.equal(only.api_address, a.url);
    assert.equal(only.active_node, true);
  });
});

describe('sys/ha-status without HA', () => {
  it('lists the one server, active, at its listener address', async (t) => {
    const server = await startTestServer();
    t.after(() => server.close());
    const res = await server.call('GET', '/v1/sys/ha-status');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.nodes.length, 1);
    const [n] = res.json.nodes as Node[];
    assert.deepEqual([n.active_node, n.api_address, n.last_echo, n.cluster_address, n.version], [true, server.url, null, '', VERSION]);
    assert.equal((await server.call('GET', '/v1/sys/ha-status', { token: '' })).status, 403);
  });
});
