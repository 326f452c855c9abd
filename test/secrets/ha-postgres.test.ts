/**
 * Secrets-service HA on PostgreSQL (issue 8 scope 2), end to end with two real
 * `cairn secrets server` processes on one throwaway PostgreSQL cluster
 * (src/kernel/store/testdata/pg-cluster.ts, or `CAIRN_TEST_PG_URL`) and
 * `storage "postgresql" { ha_enabled = "true" }` with `disable_performance_standby = true`
 * (plain standbys; performance standbys: ha-perf-standby.test.ts):
 *
 * - the first unsealed server takes the advisory lock and is active: `sys/health` 200,
 *   `sys/leader` `is_self: true` with its own address;
 * - the second, unsealed on its own with the same share, is a standby: `sys/health` 429
 *   (200 with `?standbyok=true`), `sys/leader` names the active server, and client
 *   requests are forwarded to the active server (a write and a read sent to the standby
 *   are served by the active one; 404 and 403 pass through, never a 307);
 * - a third server with `disable_clustering = true` answers 307 to the same path on the
 *   active server instead;
 * - a standby whose active server cannot be reached answers 503 `{"errors":[…]}`;
 * - `kill -9` of the active server while writes sent to the standby are in flight (test/
 *   shared-agents.ts `killLeaderUnderLoad`): the standby is active within 5 s, every write
 *   is acknowledged but for a 503 (cannot forward, or becoming active) while no server is active, and every
 *   acknowledged write reads back from the new active server.
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
import type { HttpRequest } from '../../src/kernel/http/index.js';
import { silentLogger } from '../../src/kernel/log/logger.js';
import { CANNOT_FORWARD, SecretsHttp } from '../../src/services/secrets/handler.js';
import type { SecretsNode } from '../../src/services/secrets/node.js';
import { call } from '../helpers.js';
import { killLeaderUnderLoad } from '../shared-agents.js';
import { healthStatus, killAll, startServer, until, type Running } from './testdata/ha-servers.js';

const URL_VAR = 'CAIRN_E2E_SECRETS_HA_PG_URL';
const dir = mkdtempSync(join(tmpdir(), 'cairn-ha-pg-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('secrets service HA on PostgreSQL: one active, one standby, failover on kill -9', () => {
  const table = `cairn_ha_${randomBytes(4).toString('hex')}`;
  const secret = `ha-${randomBytes(8).toString('hex')}`;
  let pgServer: PgTestServer;
  let env: Record<string, string>;
  let config: string;
  let redirectConfig: string;
  const servers: Running[] = [];
  let a: Running;
  let b: Running;
  let rootToken = '';
  let unsealKey = '';

  before(async () => {
    pgServer = await startPgTestServer();
    env = { [URL_VAR]: pgServer.url, CAIRN_SECRETS_HA_RETRY_MS: '200' };
    config = join(dir, 'secrets.hcl');
    redirectConfig = join(dir, 'secrets-redirect.hcl');
    const text = `storage "postgresql" {
  connection_url = "env://${URL_VAR}"
  table          = "${table}"
  ha_enabled     = "true"
  max_parallel   = 4
}

listener "tcp" {
  address     = "127.0.0.1:0"
  tls_disable = true
}

log_level = "info"
disable_performance_standby = true
`;
    writeFileSync(config, text);
    writeFileSync(redirectConfig, `${text}disable_clustering = true\n`);
  });

  after(async () => {
    await killAll(servers);
    if (pgServer) {
      if (!pgServer.throwaway) {
        const client = new pg.Client({ connectionString: pgServer.url });
        await client.connect();
        await client.query(`DROP TABLE IF EXISTS "${table}", "${table}_ha"`).finally(() => client.end());
      }
      await pgServer.stop();
    }
  });

  it('the first unsealed server is active: health 200, leader is_self with its own address', async () => {
    a = await startServer(config, env);
    servers.push(a);
    const init = await call(a.url, 'PUT', '/v1/sys/init', { body: { secret_shares: 1, secret_threshold: 1 } });
    assert.equal(init.status, 200, init.text);
    rootToken = init.json.root_token;
    unsealKey = init.json.keys[0];
    assert.equal((await call(a.url, 'PUT', '/v1/sys/unseal', { body: { key: unsealKey } })).status, 200);
    await until('server A active', 5000, async () => ((await healthStatus(a.url)) === 200 ? true : undefined));
    const leader = await call(a.url, 'GET', '/v1/sys/leader');
    assert.equal(leader.status, 200, leader.text);
    assert.equal(leader.json.ha_enabled, true);
    assert.equal(leader.json.is_self, true);
    assert.equal(leader.json.leader_address, a.url);
    assert.notEqual(leader.json.active_time, '0001-01-01T00:00:00Z');

    const mount = await call(a.url, 'POST', '/v1/sys/mounts/secret', { token: rootToken, body: { type: 'kv-v2' } });
    assert.ok(mount.status === 200 || mount.status === 204, `mount: ${mount.status} ${mount.text}`);
    const write = await call(a.url, 'POST', '/v1/secret/data/app/db', { token: rootToken, body: { data: { password: secret } } });
    assert.equal(write.status, 200, write.text);
  });

  it('the second server, unsealed on its own, is a standby: 429 (200 with standbyok), leader names A, requests forwarded to A', async () => {
    b = await startServer(config, env);
    servers.push(b);
    assert.equal(await healthStatus(b.url), 503, 'sealed first');
    const unseal = await call(b.url, 'PUT', '/v1/sys/unseal', { body: { key: unsealKey } });
    assert.equal(unseal.status, 200, unseal.text);
    assert.equal(unseal.json.sealed, false);
    await until('server B knows the leader', 5000, async () => {
      const l = await call(b.url, 'GET', '/v1/sys/leader');
      return l.json.leader_address === a.url ? l : undefined;
    });
    const health = await fetch(`${b.url}/v1/sys/health`);
    assert.equal(health.status, 429);
    assert.equal(((await health.json()) as { standby: boolean }).standby, true);
    assert.equal(await healthStatus(b.url, '?standbyok=true'), 200);
    const leader = await call(b.url, 'GET', '/v1/sys/leader');
    assert.deepEqual([leader.json.ha_enabled, leader.json.is_self, leader.json.leader_address], [true, false, a.url]);
    assert.equal(leader.json.active_time, '0001-01-01T00:00:00Z');

    // Forwarded, not redirected: fetch is told not to follow, so a 307 would show.
    const send = (method: string, path: string, o: { token?: string; body?: unknown } = {}) =>
      fetch(`${b.url}${path}`, {
        method,
        redirect: 'manual',
        headers: { 'X-Secrets-Token': o.token ?? rootToken, ...(o.body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        body: o.body === undefined ? undefined : JSON.stringify(o.body),
      });
    const read = await send('GET', '/v1/secret/data/app/db?version=1');
    assert.equal(read.status, 200);
    assert.equal(read.headers.get('location'), null);
    assert.deepEqual(((await read.json()) as { data: { data: unknown } }).data.data, { password: secret });

    const written = await send('POST', '/v1/secret/data/app/forwarded', { body: { data: { via: 'standby' } } });
    assert.equal(written.status, 200, await written.clone().text());
    assert.equal(((await written.json()) as { data: { version: number } }).data.version, 1);
    // A has it (it served the write), and a read through B shows A's data.
    const onA = await call(a.url, 'GET', '/v1/secret/data/app/forwarded', { token: rootToken });
    assert.equal(onA.status, 200, onA.text);
    assert.deepEqual(onA.json.data.data, { via: 'standby' });
    const viaB = await send('GET', '/v1/secret/data/app/forwarded');
    assert.equal(viaB.status, 200);
    assert.deepEqual(((await viaB.json()) as { data: { data: unknown } }).data.data, { via: 'standby' });

    // Status codes and error bodies pass through.
    const missing = await send('GET', '/v1/secret/data/app/missing');
    assert.equal(missing.status, 404);
    const badToken = await send('GET', '/v1/secret/data/app/db', { token: 'not-a-token' });
    assert.equal(badToken.status, 403);
    assert.deepEqual(await badToken.json(), { errors: ['permission denied'] });
    const list = await send('LIST', '/v1/secret/metadata/app');
    assert.equal(list.status, 200);
    assert.deepEqual(((await list.json()) as { data: { keys: string[] } }).data.keys.sort(), ['db', 'forwarded']);
    assert.equal(await healthStatus(a.url), 200, 'A is still the active one');
  });

  it('with disable_clustering = true a standby answers 307 to the active server instead', async () => {
    const c = await startServer(redirectConfig, env);
    servers.push(c);
    try {
      assert.equal((await call(c.url, 'PUT', '/v1/sys/unseal', { body: { key: unsealKey } })).status, 200);
      await until('server C knows the leader', 5000, async () => {
        const l = await call(c.url, 'GET', '/v1/sys/leader');
        return l.json.leader_address === a.url ? l : undefined;
      });
      const res = await fetch(`${c.url}/v1/secret/data/app/db?version=1`, { headers: { 'X-Secrets-Token': rootToken }, redirect: 'manual' });
      assert.equal(res.status, 307);
      assert.equal(res.headers.get('location'), `${a.url}/v1/secret/data/app/db?version=1`);
      // Followed (fetch's default), the request is served by A.
      const followed = await call(c.url, 'GET', '/v1/secret/data/app/db', { token: rootToken });
      assert.equal(followed.status, 200, followed.text);
      assert.deepEqual(followed.json.data.data, { password: secret });
    } finally {
      // Out of the way of the failover below: B must be the one that takes over.
      c.child.kill('SIGKILL');
      await c.exited;
    }
  });

  it('kill -9 of the active with writes in flight through the standby: the standby is active within 5 s, every acknowledged write reads back', async (t) => {
    // The helper writes through B (forwarded to A), kills A once writes flow, fails unless B
    // leads within 5 s, and judges every write's answer: 200, but for a 503 "cannot
    // forward" while A is gone, or "becoming the active one" while B steps up.
    const { acknowledged, answers } = await killLeaderUnderLoad({
      leader: a,
      followers: [b],
      write: (p, name) => call(p.url, 'POST', `/v1/secret/data/load/${name}`, { token: rootToken, body: { data: { name } } }),
      failover: [
        { status: 503, text: /^\{"errors":\["cannot forward request; no connection or address not known"\]\}$/ },
        { status: 503, text: /^\{"errors":\["this server is becoming the active one; retry"\]\}$/ },
      ],
      // The leader as a client meets it: a server naming itself leads once it serves (health
      // 200), not while it steps up (it has the lock and answers 503 "becoming the active one").
      leaderOf: async (p) => {
        const named = (await call(p.url, 'GET', '/v1/sys/leader')).json.leader_address as string;
        if (named !== p.url) return named ? new URL(named).host : '';
        return (await healthStatus(p.url)) === 200 ? new URL(p.url).host : '';
      },
    });
    t.diagnostic(`write answers: ${JSON.stringify(answers)}`);
    assert.equal(await healthStatus(b.url), 200);
    const leader = await call(b.url, 'GET', '/v1/sys/leader');
    assert.deepEqual([leader.json.is_self, leader.json.leader_address], [true, b.url]);
    const missing: string[] = [];
    for (const name of acknowledged) {
      const read = await call(b.url, 'GET', `/v1/secret/data/load/${name}`, { token: rootToken });
      if (read.status !== 200 || read.json.data.data.name !== name) missing.push(`${name}: ${read.status} ${read.text}`);
    }
    assert.deepEqual(missing, [], `every acknowledged write (${acknowledged.length}) reads back from the new active server`);
    const read = await call(b.url, 'GET', '/v1/secret/data/app/db', { token: rootToken });
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.json.data.data, { password: secret });
    const write = await call(b.url, 'POST', '/v1/secret/data/app/db', { token: rootToken, body: { data: { password: 'after' } } });
    assert.equal(write.status, 200, write.text);
    assert.equal(write.json.data.version, 2);
  });
});

describe('secrets service HA: a standby whose active server cannot be reached', () => {
  const request = (over: Partial<HttpRequest> = {}): HttpRequest => ({
    id: 'r1',
    method: 'GET',
    path: '/v1/secret/data/app/db',
    query: new URLSearchParams(),
    headers: { 'x-secrets-token': 'tok' },
    body: Buffer.alloc(0),
    remoteAddress: '127.0.0.1',
    tls: false,
    ...over,
  });
  const standby = (leaderAddress: string, refreshLeader = async () => undefined) =>
    ({ standby: true, activating: false, leaderAddress, core: undefined, refreshLeader }) as unknown as SecretsNode;
  /** A port nothing listens on: bind one, note it, close it. */
  const closedPort = async () => {
    const { createServer } = await import('node:net');
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as { port: number }).port;
    await new Promise((r) => srv.close(r));
    return port;
  };

  it('answers 503 with the reference error text', async () => {
    const port = await closedPort();
    const http = new SecretsHttp(standby(`http://127.0.0.1:${port}`), { log: silentLogger() });
    await assert.rejects(http.handle(request()), (err: { status: number; messages: string[] }) => {
      const res = http.renderError(err as never);
      assert.equal(res.status, 503);
      assert.deepEqual(JSON.parse(String(res.body)), { errors: [CANNOT_FORWARD] });
      return true;
    });
  });

  it('a refused connection to the known active server: reads who is active now and forwards there (right after a failover)', async () => {
    const { createServer } = await import('node:http');
    const active = createServer((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ served: req.url })));
    await new Promise<void>((r) => active.listen(0, '127.0.0.1', r));
    try {
      const node = standby(`http://127.0.0.1:${await closedPort()}`, async () => {
        (node as unknown as { leaderAddress: string }).leaderAddress = `http://127.0.0.1:${(active.address() as { port: number }).port}`;
      });
      const res = await new SecretsHttp(node, { log: silentLogger() }).handle(request());
      assert.equal(res.status, 200);
      assert.deepEqual(JSON.parse(String(res.body)), { served: '/v1/secret/data/app/db' });
    } finally {
      await new Promise((r) => active.close(r));
    }
  });

  it('never forwards to itself, nor a request another standby forwarded', async () => {
    const self = new SecretsHttp(standby('http://127.0.0.1:8200/'), { selfAddresses: () => ['http://127.0.0.1:8200'] });
    await assert.rejects(self.handle(request()), { status: 503 });
    const again = new SecretsHttp(standby('http://127.0.0.1:8200'), {});
    await assert.rejects(again.handle(request({ headers: { 'x-cairn-forwarded': '1' } })), { status: 503 });
  });
});
