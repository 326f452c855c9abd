/**
 * Secrets servers started together on one PostgreSQL table before it is initialised
 * (issue 14 item 1), in the order docs/deploy.md gives: three real `cairn secrets server`
 * processes with `storage "postgresql" { ha_enabled = "true" }` on the throwaway cluster,
 * then `sys/init` through one of them.
 *
 * - The other two see the initialisation without a restart: `sys/init` GET
 *   `{"initialized":true}`, `sys/seal-status` `initialized:true` with the threshold and
 *   share count, `sys/health` 503 (sealed, no longer 501), and `sys/init` PUT there answers
 *   400 already initialised (before: they kept answering uninitialised and 400 `secrets
 *   service is not initialized` to the right unseal key, until restarted).
 * - Each accepts unseal key shares (progress counts, threshold unseals); once all three are
 *   unsealed exactly one is active (health 200, `sys/leader` `is_self`), the others are
 *   performance standbys (473) naming it, and a secret written through one standby reads
 *   back through the other.
 * - `sys/init` through two servers at the same moment: one answers the keys, the other 400
 *   (before: both answered 200 and the shares of one opened nothing); a claim left by a
 *   server that died mid-init is taken over once stale, a recent one refused.
 * - A server started after the initialisation is initialised from the start and joins as a
 *   performance standby once unsealed.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { call } from '../helpers.js';
import { healthStatus, killAll, startServer, until, type Running } from './testdata/ha-servers.js';
import { startPgHa, type PgHa } from './testdata/pg-ha.js';

const URL_VAR = 'CAIRN_E2E_SECRETS_INIT_PG_URL';
const dir = mkdtempSync(join(tmpdir(), 'cairn-ha-init-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('secrets servers started together, then initialised through one', () => {
  let ha: PgHa;
  let env: Record<string, string>;
  let config: string;
  const servers: Running[] = [];
  let keys: string[] = [];
  let root = '';

  before(async () => {
    ha = await startPgHa({ urlVar: URL_VAR, tablePrefix: 'cairn_init', dir, storageLines: '  max_parallel   = 4\n' });
    ({ env, config } = ha);
  });
  after(async () => {
    await killAll(servers);
    await ha?.pg.stop();
  });

  const unsealAll = async (s: Running) => {
    const first = await call(s.url, 'PUT', '/v1/sys/unseal', { body: { key: keys[0] } });
    assert.equal(first.status, 200, first.text);
    assert.deepEqual([first.json.sealed, first.json.progress, first.json.t], [true, 1, 2]);
    const second = await call(s.url, 'PUT', '/v1/sys/unseal', { body: { key: keys[2] } });
    assert.equal(second.status, 200, second.text);
    assert.equal(second.json.sealed, false);
  };

  it('the servers that did not take sys/init see it at once, and each unseals; one is active, the others standbys', { timeout: 90_000 }, async () => {
    servers.push(...(await Promise.all([startServer(config, env), startServer(config, env), startServer(config, env)])));
    const [a, b, c] = servers as [Running, Running, Running];
    for (const s of servers) {
      assert.deepEqual((await call(s.url, 'GET', '/v1/sys/init')).json, { initialized: false });
      assert.equal(await healthStatus(s.url), 501);
    }

    const init = await call(a.url, 'PUT', '/v1/sys/init', { body: { secret_shares: 3, secret_threshold: 2 } });
    assert.equal(init.status, 200, init.text);
    keys = init.json.keys;
    root = init.json.root_token;

    for (const s of [b, c]) {
      assert.deepEqual((await call(s.url, 'GET', '/v1/sys/init')).json, { initialized: true });
      const status = await call(s.url, 'GET', '/v1/sys/seal-status');
      assert.deepEqual([status.json.initialized, status.json.sealed, status.json.t, status.json.n, status.json.progress], [true, true, 2, 3, 0]);
      assert.equal(await healthStatus(s.url), 503, 'sealed, not uninitialised');
      const again = await call(s.url, 'PUT', '/v1/sys/init', { body: { secret_shares: 1, secret_threshold: 1 } });
      assert.equal(again.status, 400);
      assert.match(again.text, /already initialized/);
    }

    for (const s of servers) await unsealAll(s);
    const active = await until('one server active', 10_000, async () => {
      const codes = await Promise.all(servers.map((s) => healthStatus(s.url)));
      return codes.filter((x) => x === 200).length === 1 && codes.filter((x) => x === 473).length === 2 ? servers[codes.indexOf(200)] : undefined;
    });
    const standbys = servers.filter((s) => s !== active);
    for (const s of servers) {
      const leader = await until('the leader is named', 5000, async () => {
        const l = await call(s.url, 'GET', '/v1/sys/leader');
        return l.json.leader_address === active!.url ? l : undefined;
      });
      assert.equal(leader.json.is_self, s === active);
      assert.equal(leader.json.performance_standby, s !== active);
    }

    const mount = await call(standbys[0]!.url, 'POST', '/v1/sys/mounts/secret', { token: root, body: { type: 'kv-v2' } });
    assert.ok(mount.status === 200 || mount.status === 204, `mount through a standby: ${mount.status} ${mount.text}`);
    const write = await call(standbys[0]!.url, 'POST', '/v1/secret/data/app', { token: root, body: { data: { v: 'shared' } } });
    assert.equal(write.status, 200, write.text);
    const read = await until('the secret reads back on the other standby', 5000, async () => {
      const r = await call(standbys[1]!.url, 'GET', '/v1/secret/data/app', {
        token: root,
        headers: { 'X-Secrets-Index': write.headers.get('x-secrets-index')! },
      });
      return r.status === 200 ? r : undefined;
    });
    assert.deepEqual(read.json.data.data, { v: 'shared' });
  });

  it(
    'sys/init through two servers at the same moment: exactly one answers keys, and they unseal both; a stale claim is taken over, a live one refused',
    { timeout: 90_000 },
    async () => {
      const raceTable = `cairn_init_race_${randomBytes(4).toString('hex')}`;
      const raceConfig = join(dir, 'race.hcl');
      writeFileSync(raceConfig, readFileSync(config, 'utf8').replace(ha.table, raceTable));
      const pair = await Promise.all([startServer(raceConfig, env), startServer(raceConfig, env)]);
      servers.push(...pair);
      const db = new pg.Client({ connectionString: ha.pg.url });
      await db.connect();
      try {
        // A claim a server left a second ago (it may still be storing its keys): refused, nothing stored.
        const claim = (at: number) => Buffer.from(JSON.stringify({ id: 'other', at }));
        await db.query(`INSERT INTO "${raceTable}" (key, value) VALUES ('core/init-claim', $1)`, [claim(Date.now() - 1000)]);
        const live = await call(pair[0].url, 'PUT', '/v1/sys/init', { body: { secret_shares: 1, secret_threshold: 1 } });
        assert.equal(live.status, 400, live.text);
        assert.match(live.json.errors[0], /being initialized through another server/);
        assert.deepEqual((await call(pair[1].url, 'GET', '/v1/sys/init')).json, { initialized: false });
        // The same claim ten minutes old: its server died before storing keys; the race goes on without it.
        await db.query(`UPDATE "${raceTable}" SET value = $1 WHERE key = 'core/init-claim'`, [claim(Date.now() - 600_000)]);

        const replies = await Promise.all(pair.map((s) => call(s.url, 'PUT', '/v1/sys/init', { body: { secret_shares: 3, secret_threshold: 2 } })));
        const won = replies.filter((r) => r.status === 200);
        assert.equal(won.length, 1, replies.map((r) => `${r.status} ${r.text}`).join('; '));
        const lost = replies.find((r) => r !== won[0])!;
        assert.equal(lost.status, 400);
        assert.match(lost.json.errors[0], /already initialized|being initialized through another server/);
        for (const s of pair) {
          for (const k of [won[0].json.keys[1], won[0].json.keys[2]]) await call(s.url, 'PUT', '/v1/sys/unseal', { body: { key: k } });
          assert.equal((await call(s.url, 'GET', '/v1/sys/seal-status')).json.sealed, false, "the winner's shares unseal every server");
        }
        const active = await until('one of the pair active', 10_000, async () => {
          for (const s of pair) if ((await healthStatus(s.url)) === 200) return s;
          return undefined;
        });
        assert.equal((await call(active.url, 'GET', '/v1/sys/mounts', { token: won[0].json.root_token })).status, 200, "the winner's root token");
      } finally {
        await db.end();
      }
    },
  );

  it('a server started after the initialisation is initialised at once and joins as a standby once unsealed', { timeout: 60_000 }, async () => {
    const d = await startServer(config, env);
    servers.push(d);
    const status = await call(d.url, 'GET', '/v1/sys/seal-status');
    assert.deepEqual([status.json.initialized, status.json.sealed], [true, true]);
    assert.equal(await healthStatus(d.url), 503);
    await unsealAll(d);
    await until('the late server is a performance standby', 10_000, async () => ((await healthStatus(d.url)) === 473 ? true : undefined));
  });
});
