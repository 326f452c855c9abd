/**
 * Two gateway controllers sharing one PostgreSQL state (issue 20 scope 1: `controller {
 * database { url } }`) on the repo's throwaway PostgreSQL server: one leads and makes the
 * initial resources once; a login and a write sent to the follower are forwarded to the
 * leader, and the follower reads them back; a token used only through the follower still
 * has its use recorded (so it does not idle out).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../src/kernel/log/logger.js';
import { startPgTestServer, type PgTestServer } from '../../src/kernel/store/testdata/pg-cluster.js';
import { parseGatewayServerConfig } from '../../src/services/gateway/config.js';
import { startGateway, type Gateway } from '../../src/services/gateway/server.js';

const dir = mkdtempSync(join(tmpdir(), 'cairn-gw-pg-'));
let offsetMs = 0;
const now = () => Date.now() + offsetMs;
const KEY = randomBytes(32).toString('base64');

const config = (pgUrl: string) => `
controller {
  state_key = "${KEY}"
  database {
    url   = "${pgUrl}"
    table = "gw_shared"
  }
}
listener "tcp" {
  purpose = "api"
  address = "127.0.0.1:0"
  tls_disable = true
}
listener "tcp" {
  purpose = "cluster"
  address = "127.0.0.1:0"
}
`;

async function until<T>(what: string, read: () => T | undefined | false, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = read();
    if (v) return v;
    assert.ok(Date.now() < end, `not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('gateway controllers on one PostgreSQL state', { timeout: 120_000 }, () => {
  let pg: PgTestServer;
  const gws: Gateway[] = [];
  before(async () => {
    pg = await startPgTestServer();
  });
  after(async () => {
    for (const g of gws) await g.shutdown();
    await pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("bootstraps once on the leader and forwards a follower's login and writes to it", async () => {
    for (let i = 0; i < 2; i++) gws.push(await startGateway({ config: parseGatewayServerConfig(config(pg.url), `c${i}.hcl`), log: silentLogger(), now }));
    const leader = await until('a leader', () => gws.find((g) => g.domain!.state.isWritable));
    const follower = gws.find((g) => g !== leader)!;
    const login = await until('the bootstrap login', () => leader.bootstrapLogin);
    assert.equal(follower.bootstrapLogin, undefined, 'only the leader bootstrapped');
    const url = (g: Gateway) => g.listeners.find((l) => l.purpose === 'api')!.url;
    const auth = await fetch(`${url(follower)}/v1/auth-methods/${login.authMethodId}:authenticate`, {
      method: 'POST',
      body: JSON.stringify({ attributes: { login_name: 'admin', password: login.password } }),
    });
    assert.equal(auth.status, 200, 'the follower forwarded the login');
    const token = ((await auth.json()) as { attributes: { token: string } }).attributes.token;
    const made = await fetch(`${url(follower)}/v1/scopes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: JSON.stringify({ scope_id: 'global', name: 'shared' }),
    });
    assert.equal(made.status, 200);
    const id = ((await made.json()) as { id: string }).id;
    for (const g of gws) {
      const r = await fetch(`${url(g)}/v1/scopes/${id}`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(r.status, 200, `readable on ${g === leader ? 'the leader' : 'the follower'}`);
      assert.equal(((await r.json()) as { name: string }).name, 'shared');
    }
    // Two minutes on, a read through the follower records the token's use (on the leader).
    offsetMs += 120_000;
    const tokenId = token.split('_').slice(0, 2).join('_');
    const seen = await fetch(`${url(follower)}/v1/auth-tokens/${tokenId}`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(seen.status, 200);
    const used = Date.parse(((await seen.json()) as { approximate_last_used_time: string }).approximate_last_used_time);
    assert.ok(now() - used < 60_000, `last use recorded through the follower (${now() - used} ms ago)`);
  });
});
