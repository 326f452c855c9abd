/**
 * Sessions on a PostgreSQL state shared by two controllers (issue 20 scope 4), on the
 * repo's throwaway PostgreSQL server: the worker reports to the follower, which forwards
 * its status and its connection checks to the leader; a session authorised through the
 * follower proxies an echo server; when the leader crashes (PostgreSQL terminates its lock
 * connection: no graceful step-down), the follower takes over and keeps the session
 * (readable on both controllers, its open connection kept, new connections authorised,
 * cancel closes them).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import pgLib from 'pg';
import { silentLogger } from '../../src/kernel/log/logger.js';
import { startPgTestServer, type PgTestServer } from '../../src/kernel/store/testdata/pg-cluster.js';
import { connectSession, GatewayClient } from '../../src/sdk/index.js';
import { parseGatewayServerConfig } from '../../src/services/gateway/config.js';
import { startGateway, type Gateway } from '../../src/services/gateway/server.js';
import { putProject, putTarget } from './target-fixture.js';

const KEY = randomBytes(32).toString('base64');
const TOKEN = 'pg-recovery-token';
const log = silentLogger();
const listener = (purpose: string) => `listener "tcp" {\n  purpose = "${purpose}"\n  address = "127.0.0.1:0"\n  tls_disable = true\n}\n`;
const controllerHcl = (pgUrl: string) =>
  `controller {\n  auth_token = "${TOKEN}"\n  worker_auth_token = "pg-worker-token"\n  state_key = "${KEY}"\n  database {\n    url = "${pgUrl}"\n    table = "gw_sessions"\n  }\n}\n${listener('api')}${listener('cluster')}`;

async function until<T>(what: string, read: () => Promise<T | undefined | false> | T | undefined | false, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (v) return v;
    assert.ok(Date.now() < end, `not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Ends the connection holding the HA session lock of `table` (kernel/store/pg-lock.ts:
 * `pg_advisory_lock(hashtext('cairn ha ' || table))`, application_name `cairn-ha`) with
 * `pg_terminate_backend`; returns how many it ended.
 */
async function terminateLockHolder(url: string, table: string): Promise<number> {
  const client = new pgLib.Client({ connectionString: url });
  await client.connect();
  try {
    const r = await client.query(
      `SELECT pg_terminate_backend(l.pid) AS ended FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.granted AND a.application_name = 'cairn-ha' AND a.datname = current_database()
          AND l.objid::bigint = (hashtext('cairn ha ' || $1)::bigint & 4294967295)`,
      [table],
    );
    return r.rows.filter((x: { ended: boolean }) => x.ended).length;
  } finally {
    await client.end();
  }
}

const echoBack = (socket: net.Socket, word: string) =>
  new Promise<string>((resolve, reject) => {
    socket.once('data', (d) => resolve(String(d)));
    socket.once('error', reject);
    socket.write(word);
  });

describe('gateway sessions on PostgreSQL: failover keeps them', { timeout: 120_000 }, () => {
  let pg: PgTestServer;
  let echo: net.Server;
  const gws: Gateway[] = [];
  let worker: Gateway | undefined;
  before(async () => {
    pg = await startPgTestServer();
    echo = net.createServer((s) => s.pipe(s));
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
  });
  after(async () => {
    await worker?.shutdown();
    for (const g of gws) await g.shutdown();
    echo?.close();
    await pg?.stop();
  });

  it('a session made through the follower survives a crash of the leader (its PostgreSQL lock connection terminated)', async () => {
    for (let i = 0; i < 2; i++)
      gws.push(
        await startGateway({ config: parseGatewayServerConfig(controllerHcl(pg.url), `c${i}.hcl`), log, statusIntervalMs: 200, sessionSweepIntervalMs: 200 }),
      );
    const leader = await until('a leader', () => gws.find((g) => g.domain!.state.isWritable));
    const follower = gws.find((g) => g !== leader)!;
    worker = await startGateway({
      config: parseGatewayServerConfig(
        `worker {\n  name = "w-pg"\n  initial_upstreams = ["${follower.cluster!.address}"]\n  worker_auth_token = "pg-worker-token"\n}\n${listener('proxy')}`,
        'w.hcl',
      ),
      log,
      statusIntervalMs: 200,
    });
    const { projectId } = await putProject(leader.domain!);
    const { targetId } = await putTarget(leader.domain!, { projectId, port: (echo.address() as net.AddressInfo).port });
    const api = (g: Gateway) => new GatewayClient({ address: g.listeners.find((l) => l.purpose === 'api')!.url, token: TOKEN });
    const viaFollower = api(follower);
    // The leader learns of the worker from the follower's forwarded status reports.
    const s = await until('a session through the follower', () => viaFollower.authorizeSession(targetId).catch(() => undefined));
    assert.deepEqual(s.worker_info, [{ address: worker.worker!.proxyAddress }]);
    const first = await connectSession({ worker: s.worker_info[0].address, token: s.authorization_token });
    assert.equal(await echoBack(first.socket, 'one'), 'one');
    assert.equal(leader.domain!.sessions.get(s.session_id)?.status, 'active', 'the follower forwarded the connection check to the leader');

    // The crash: PostgreSQL ends the leader's lock connection (pg_terminate_backend, what a
    // killed process or a cut network does to it), so its session lock is free at once and
    // the waiting follower takes it; nothing of the old leader steps down gracefully.
    const terminated = await terminateLockHolder(pg.url, 'gw_sessions');
    assert.equal(terminated, 1, 'the leader held the lock on one connection');
    await until('the follower leads', () => follower.domain!.state.isWritable);
    await until('the old leader follows', () => !leader.domain!.state.isWritable);
    for (const via of [viaFollower, api(leader)]) {
      const read = await via.readSession(s.session_id);
      assert.deepEqual([read.status, read.connections.length], ['active', 1], 'both controllers show the session with its connection');
    }
    assert.equal(await echoBack(first.socket, 'still'), 'still', 'the open connection is kept');
    const second = await connectSession({ worker: s.worker_info[0].address, token: s.authorization_token });
    assert.equal(await echoBack(second.socket, 'two'), 'two');
    const closedBoth = Promise.all([first.socket, second.socket].map((x) => new Promise((r) => x.once('close', r))));
    await viaFollower.cancelSession(s.session_id);
    await closedBoth;
    const done = await until('terminated', async () => ((await viaFollower.readSession(s.session_id)).status === 'terminated' ? true : undefined));
    assert.ok(done);
    const again = await viaFollower.readSession(s.session_id);
    assert.equal(again.connections.length, 2, 'the new connection was authorised by the new leader');
    await viaFollower.close();
  });
});
