/**
 * The keyring with two servers sharing one state on PostgreSQL (throwaway cluster): the
 * leader makes the one active key and the follower serves the same JWKS from the shared
 * state; a rotation asked of the follower is forwarded and seen by both; when the leader
 * stops, the next leader keeps the active key (no second one) and signs with it, and a token
 * of the first leader's retired key still verifies at the new leader.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { startPgTestServer, type PgTestServer } from '../../src/kernel/store/testdata/pg-cluster.js';
import type { SchedAgentConfig } from '../../src/services/sched/config.js';
import { until } from '../processes.js';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'cairn-sched-keyring-ha-'));
let pg: PgTestServer;
const agents: TestAgent[] = [];
before(async () => {
  pg = await startPgTestServer();
});
after(async () => {
  for (const a of agents) await a.stop();
  await pg?.stop();
  rmSync(work, { recursive: true, force: true });
});

const claims = () => ({ sub: 'ha', aud: 'test.example', iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 600 });

async function verifies(base: string, jwt: string): Promise<boolean> {
  try {
    await jwtVerify(jwt, createRemoteJWKSet(new URL(`${base}/.well-known/jwks.json`)), { audience: 'test.example' });
    return true;
  } catch {
    return false;
  }
}

async function keys(base: string): Promise<{ KeyID: string; State: string }[]> {
  const r = await call(base, 'GET', '/v1/operator/keyring/keys', { token: ROOT });
  assert.equal(r.status, 200, r.text);
  return r.json;
}

describe('scheduler keyring on shared PostgreSQL', () => {
  it('one active key for the region, served by every server, kept across a change of leader', { timeout: 90_000 }, async () => {
    const table = `cairn_sched_${randomBytes(4).toString('hex')}`;
    const config = (name: string): Partial<SchedAgentConfig> => ({ dataDir: join(work, name), storage: { connectionUrl: pg.url, table, maxParallel: 2 } });
    mkdirSync(join(work, 'x'));
    const x = await startAgent(config('x'));
    agents.push(x);
    await until('x leads', 20_000, () => (x.leadership?.isLeader === true ? true : undefined));
    mkdirSync(join(work, 'y'));
    copyFileSync(join(work, 'x', 'sched-state.key'), join(work, 'y', 'sched-state.key'));
    const y = await startAgent(config('y'), { root: null });
    agents.push(y);
    await until('y names the leader', 20_000, () => (y.leadership?.leaderAddress === new URL(x.url).host ? true : undefined));

    const [first] = await keys(x.url);
    assert.equal(first!.State, 'active');
    assert.deepEqual(await keys(y.url), await keys(x.url));
    const old = x.keyring!.sign(claims());
    assert.ok(await verifies(y.url, old.jwt), 'the follower serves the leader-made key');

    const rotated = await call(y.url, 'PUT', '/v1/operator/keyring/rotate', { token: ROOT });
    assert.equal(rotated.status, 200, rotated.text);
    const second = rotated.json.Key.KeyID as string;
    await until('both see the rotation', 10_000, async () =>
      (await keys(x.url)).find((k) => k.KeyID === second)?.State === 'active' && (await keys(y.url)).find((k) => k.KeyID === second)?.State === 'active'
        ? true
        : undefined,
    );

    await x.stop();
    agents.shift();
    await until('y leads', 20_000, () => (y.leadership?.isLeader === true ? true : undefined));
    const after = await keys(y.url);
    assert.deepEqual(
      after.map((k) => [k.KeyID, k.State]),
      [
        [first!.KeyID, 'inactive'],
        [second, 'active'],
      ],
      'the new leader made no key of its own',
    );
    assert.equal(y.keyring!.sign(claims()).keyId, second);
    assert.ok(await verifies(y.url, old.jwt), "a token of the old leader's retired key still verifies");
  });
});
