/**
 * Leases across a failover (issue 17 scope 3): two real `cairn secrets server` processes
 * on one throwaway PostgreSQL cluster with `ha_enabled`. A lease is created on the active
 * server A with a short TTL; A is killed (`kill -9`) before the lease falls due, so A can
 * no longer revoke it; the standby B takes over and its expiry loop (leader-only) revokes
 * the stored lease. The standby's loop never runs: before the failover the lease is still
 * there when looked up through B (forwarded to A).
 *
 * Deterministic: every wait is a poll with a deadline; no timing is asserted.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call } from '../helpers.js';
import { healthStatus, killAll, startServer, until, type Running } from './testdata/ha-servers.js';
import { startPgHa, type PgHa } from './testdata/pg-ha.js';

const URL_VAR = 'CAIRN_E2E_SECRETS_LEASE_PG_URL';
const dir = mkdtempSync(join(tmpdir(), 'cairn-lease-ha-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('leases on PostgreSQL HA: the new active server revokes a lease that falls due after the failover', () => {
  let ha: PgHa;
  let env: Record<string, string>;
  let config: string;
  const servers: Running[] = [];

  before(async () => {
    ha = await startPgHa({ urlVar: URL_VAR, tablePrefix: 'cairn_lease', dir, extra: 'disable_performance_standby = true' });
    ({ env, config } = ha);
  });

  after(async () => {
    await killAll(servers);
    if (ha) {
      await ha.dropTables();
      await ha.pg.stop();
    }
  });

  it('kill -9 of the active server before the lease is due: the standby becomes active and its loop revokes it', async () => {
    const a = await startServer(config, env);
    servers.push(a);
    const init = await call(a.url, 'PUT', '/v1/sys/init', { body: { secret_shares: 1, secret_threshold: 1 } });
    assert.equal(init.status, 200, init.text);
    const token = init.json.root_token as string;
    const key = init.json.keys[0] as string;
    assert.equal((await call(a.url, 'PUT', '/v1/sys/unseal', { body: { key } })).status, 200);
    await until('server A active', 10_000, async () => ((await healthStatus(a.url)) === 200 ? true : undefined));
    const mount = await call(a.url, 'POST', '/v1/sys/mounts/leased', { token, body: { type: 'kv', options: { leased_passthrough: 'true' } } });
    assert.equal(mount.status, 204, mount.text);
    assert.equal((await call(a.url, 'POST', '/v1/leased/app', { token, body: { password: 'p', ttl: '8s' } })).status, 204);

    const b = await startServer(config, env);
    servers.push(b);
    assert.equal((await call(b.url, 'PUT', '/v1/sys/unseal', { body: { key } })).status, 200);
    await until('server B knows the leader', 10_000, async () =>
      (await call(b.url, 'GET', '/v1/sys/leader')).json?.leader_address === a.url ? true : undefined,
    );

    const read = await call(a.url, 'GET', '/v1/leased/app', { token });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.json.renewable, true);
    assert.equal(read.json.lease_duration, 8);
    const leaseId = read.json.lease_id as string;
    const lookup = (url: string) => call(url, 'PUT', '/v1/sys/leases/lookup', { token, body: { lease_id: leaseId } });
    const before = await lookup(b.url);
    assert.equal(before.status, 200, `through the standby, before the failover: ${before.text}`);

    a.child.kill('SIGKILL');
    await a.exited;
    await until('server B active', 15_000, async () => ((await healthStatus(b.url)) === 200 ? true : undefined));
    const gone = await until("the lease revoked by B's expiry loop", 20_000, async () => {
      const r = await lookup(b.url);
      return r.status === 400 ? r : undefined;
    });
    assert.deepEqual(gone.json, { errors: ['invalid lease'] });
  });
});
