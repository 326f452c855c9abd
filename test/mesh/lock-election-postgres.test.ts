/**
 * Leader election with `cairn mesh lock` across three `cairn mesh agent` processes sharing
 * one state on a throwaway PostgreSQL (issue 16 "Tests and measurements"): each agent has a
 * `cairn mesh lock` process on the same prefix whose child writes its agent's name to a
 * file; exactly one child runs. Then the holder's `cairn mesh lock`, its child and its
 * agent are killed with SIGKILL (nothing releases the lock or destroys the session): the
 * leader sees the agent's member lock gone (local/liveness.ts), sets its `serfHealth`
 * critical, which invalidates the lock's session at once (before its TTL could run out),
 * and another lock holds the key once the lock delay passed. The bounds asserted are
 * generous (a correctness test, not a speed test); the times taken are printed.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startPgTestServer, type PgTestServer } from '../../src/kernel/store/testdata/pg-cluster.js';
import { spawnCairn, until, type CairnRun, type ServerProcess } from '../processes.js';
import { startSharedAgent, untilLeader } from '../shared-agents.js';
import { call } from './helpers.js';

/** The lock session's lock delay (the service's default) and the retry pause after a refused acquire, ms. */
const LOCK_DELAY_MS = 15_000;
const RETRY_MS = 5000;

describe('leader election with cairn mesh lock on agents sharing PostgreSQL', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-mesh-election-'));
  const table = `cairn_mesh_lock_${randomBytes(4).toString('hex')}`;
  const leaders = join(dir, 'leaders.txt');
  let pg: PgTestServer;
  const agents = new Map<string, ServerProcess>();
  const locks = new Map<string, CairnRun>();
  const childPids: number[] = [];

  before(async () => {
    pg = await startPgTestServer();
  });
  after(async () => {
    for (const l of locks.values()) if (l.child.exitCode === null && l.child.signalCode === null) l.child.kill('SIGKILL');
    for (const pid of childPids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    for (const p of agents.values()) await p.kill();
    await pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** `[name, pid]` of each child that held the lock, in order. */
  const holders = () =>
    (existsSync(leaders) ? readFileSync(leaders, 'utf8') : '')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => l.split(' ') as [string, string]);

  it(
    "one holder at a time; a killed holder's agent is seen gone, its session invalidated, and it is replaced after the lock delay",
    { timeout: 240_000 },
    async () => {
      for (const name of ['a', 'b', 'c']) {
        const p = await startSharedAgent({
          service: 'mesh',
          dir,
          name,
          pgUrl: pg.url,
          table,
          keyFrom: name === 'a' ? undefined : 'a',
          extra: `node_name = "${name}"\n`,
        });
        agents.set(name, p);
        if (name === 'a') await untilLeader('agent a leads', 10_000, p, p);
      }
      const a = agents.get('a')!;
      await until('every agent node is in the catalog', 30_000, async () => {
        const nodes = ((await call(a.url, 'GET', '/v1/catalog/nodes')).json as { Node: string }[]).map((n) => n.Node);
        return nodes.join() === 'a,b,c' ? true : undefined;
      });

      for (const [name, p] of agents) {
        // The child's shell replaces itself with sleep, so `$$` is the pid to kill later.
        locks.set(
          name,
          spawnCairn(['mesh', 'lock', '-verbose', 'service/election', `echo "${name} $$" >> ${leaders}; exec sleep 600`], { MESH_HTTP_ADDR: p.url }),
        );
      }
      const [first] = await until('one lock holds and runs its child', 30_000, () => (holders().length > 0 ? holders() : undefined));
      const [holder, pid] = first!;
      childPids.push(Number(pid));
      await new Promise((r) => setTimeout(r, 2000));
      assert.equal(holders().length, 1, 'the other locks wait');
      const key = (await call(a.url, 'GET', '/v1/kv/service/election/.lock')).json[0];
      const [session] = (await call(a.url, 'GET', `/v1/session/info/${key.Session}`)).json;
      assert.equal(session.Node, holder, "the lock is held by a session on the holder's node");

      // kill -9 the holder's lock process, its child and its agent: nothing releases anything.
      const killedAt = Date.now();
      locks.get(holder)!.child.kill('SIGKILL');
      process.kill(Number(pid), 'SIGKILL');
      await agents.get(holder)!.kill();
      await locks.get(holder)!.exited;
      const survivors = [...agents.keys()].filter((n) => n !== holder);

      // The leader finds the killed agent's member lock gone: its serfHealth goes critical and
      // the session tied to it is invalidated in the same write (not by its TTL running out).
      const watcher = agents.get(survivors[0]!)!;
      const heldBy = (await call(watcher.url, 'GET', '/v1/kv/service/election/.lock')).json[0].Session as string;
      const serf = await until("the killed agent's serfHealth critical", 60_000, async () => {
        const checks = (await call(watcher.url, 'GET', `/v1/health/node/${holder}`)).json as { CheckID: string; Status: string; Output: string }[];
        const c = checks.find((x) => x.CheckID === 'serfHealth');
        return c?.Status === 'critical' ? c : undefined;
      });
      assert.equal(serf.Output, 'Agent not live or unreachable');
      assert.deepEqual((await call(watcher.url, 'GET', `/v1/session/info/${heldBy}`)).json, [], 'the session went with the check');
      const detectedMs = Date.now() - killedAt;

      const bound = LOCK_DELAY_MS + RETRY_MS + 60_000;
      const second = await until('another lock holds', bound, () => (holders().length > 1 ? holders()[1] : undefined));
      const tookMs = Date.now() - killedAt;
      console.log(
        `agent gone seen after ${(detectedMs / 1000).toFixed(1)} s; another holder after ${(tookMs / 1000).toFixed(1)} s (lock delay ${LOCK_DELAY_MS / 1000} s + retry ${RETRY_MS / 1000} s)`,
      );
      const [next, nextPid] = second;
      childPids.push(Number(nextPid));
      assert.ok(survivors.includes(next), `the new holder (${next}) is one of the survivors`);
      assert.ok(tookMs >= LOCK_DELAY_MS, 'not before the lock delay of the invalidated session passed');
      const on = agents.get(survivors[0]!)!;
      const now = (await call(on.url, 'GET', '/v1/kv/service/election/.lock')).json[0];
      const [nextSession] = (await call(on.url, 'GET', `/v1/session/info/${now.Session}`)).json;
      assert.equal(nextSession.Node, next);
      await new Promise((r) => setTimeout(r, 1000));
      assert.equal(holders().length, 2, 'still one holder');

      // SIGTERM to the other locks: each kills its child (or stops waiting), releases and exits 0.
      for (const name of survivors) locks.get(name)!.child.kill('SIGTERM');
      for (const name of survivors) {
        const l = locks.get(name)!;
        const code = await l.exited;
        assert.ok(code === 0 || code === 1, `lock ${name} ended with ${String(code)}: ${l.out.stderr}`);
      }
      assert.match(locks.get(next)!.out.stdout, /Shutdown triggered, killing child/);
      assert.equal(await locks.get(next)!.exited, 0);
      assert.throws(() => process.kill(Number(nextPid), 0), /ESRCH/, "the new holder's child was killed");
      const left = await call(on.url, 'GET', '/v1/kv/service/election/.lock');
      assert.equal(left.status, 404, 'the lock key was cleaned up');
    },
  );
});
