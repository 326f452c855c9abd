/**
 * Secrets-service performance standbys on PostgreSQL (issue 8 scope 2), end to end with
 * real `cairn secrets server` processes on one throwaway PostgreSQL cluster
 * (src/kernel/store/testdata/pg-cluster.ts, or `CAIRN_TEST_PG_URL`): A and B with
 * performance standbys on (the default), C with `disable_performance_standby = true`.
 *
 * - health: 200 on the active, 473 on a performance standby (200 with `perfstandbyok`),
 *   429 on a plain standby; `sys/leader` reports `performance_standby`;
 * - a performance standby serves reads itself (they succeed while the active server is
 *   stopped with SIGSTOP) and forwards writes, whose replies carry `X-Secrets-Index`;
 * - read-after-write: a state one index ahead of what the standby applied gets 412 (or is
 *   forwarded with `X-Secrets-Inconsistent: forward-active-node`); after one more write on
 *   the active, the same request succeeds with the new value; bad or foreign states → 400;
 *   the SDK client gets read-your-writes through a standby;
 * - cache invalidation from the change feed: a policy rewrite on the active changes what a
 *   token may read on the standby; a mount, an unmount and a namespace show there too;
 * - a cut lock connection (`pg_terminate_backend` of the holder's `cairn-ha` connection)
 *   while writes wait at the fence and the term moves on: every such write answers 503,
 *   never 500, nothing of it is stored, and a server is active again within 5 s;
 * - `kill -9` of the active under concurrent writers: a standby is active within 5 s,
 *   health codes move, every acknowledged write reads back; the restarted server comes
 *   back as a performance standby (473).
 *
 * Deterministic: every wait is a poll with a deadline; the 503 race is made certain by
 * holding the HA row lock while the writes queue behind it.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startPgTestServer, type PgTestServer } from '../../src/kernel/store/testdata/pg-cluster.js';
import { main } from '../../src/cli/main.js';
import { SecretsClient } from '../../src/sdk/index.js';
import { call, type JsonReply, type Reply } from '../helpers.js';
import { healthStatus, killAll, startServer, until, type Running } from './testdata/ha-servers.js';

const URL_VAR = 'CAIRN_E2E_SECRETS_PERF_PG_URL';
const dir = mkdtempSync(join(tmpdir(), 'cairn-perf-pg-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The documented state value: base64 of `v1:<cluster id>:<index>`. */
const decodeState = (v: string | null) => {
  const m = /^v1:([^:]+):(\d+)$/.exec(Buffer.from(v ?? '', 'base64').toString('utf8'));
  assert.ok(m, `a state header, got ${String(v)}`);
  return { cluster: m[1], index: Number(m[2]) };
};
const encodeState = (cluster: string, index: number) => Buffer.from(`v1:${cluster}:${index}`).toString('base64');

/**
 * Whether `err` is fetch failing to reach the server or losing the connection (refused,
 * reset, closed mid-reply): what a client of a server killed with SIGKILL sees. Anything
 * else (an HTTP status, a bug in the test) is not one.
 */
function connectionFailed(err: unknown): boolean {
  const code = (err instanceof TypeError && err.message === 'fetch failed' ? (err.cause as { code?: unknown } | undefined)?.code : undefined) ?? '';
  return ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED'].includes(String(code));
}

/** A request to `url` from the local address `from` (a loopback address other than the standbys' 127.0.0.1). */
function callFrom(
  { from, url }: { from: string; url: string },
  method: string,
  path: string,
  o: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; text: string; json: JsonReply }> {
  const body = o.body === undefined ? undefined : JSON.stringify(o.body);
  const headers: Record<string, string> = { ...o.headers, ...(o.token ? { 'X-Secrets-Token': o.token } : {}) };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}${path}`, { method, headers, localAddress: from }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, text, json });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('secrets service performance standbys on PostgreSQL', () => {
  const table = `cairn_perf_${randomBytes(4).toString('hex')}`;
  let pgServer: PgTestServer;
  let env: Record<string, string>;
  let perfConfig: string;
  let plainConfig: string;
  const servers: Running[] = [];
  let a: Running;
  let b: Running;
  let c: Running;
  let root = '';
  let unsealKey = '';

  const get = (s: Running, path: string, headers: Record<string, string> = {}, token = root) => call(s.url, 'GET', path, { token, headers });
  const put = (s: Running, path: string, body: unknown, token = root) => call(s.url, 'POST', path, { token, body });
  /** GET on `s` with `state` until it is not 412 (a standby catching up). */
  const readAt = (s: Running, path: string, state: string, token = root) =>
    until(`${path} at the state`, 5000, async () => {
      const r = await get(s, path, { 'X-Secrets-Index': state }, token);
      return r.status === 412 ? undefined : r;
    });
  const stateOf = (r: Reply) => {
    const v = r.headers.get('x-secrets-index');
    assert.ok(v, `X-Secrets-Index on a ${r.status} write reply`);
    return v;
  };
  const unseal = async (s: Running) => assert.equal((await call(s.url, 'PUT', '/v1/sys/unseal', { body: { key: unsealKey } })).status, 200);
  /** The one running server answering health 200. */
  const activeServer = (among: readonly Running[]) =>
    until('an active server', 5000, async () => {
      const codes = await Promise.all(among.map((s) => healthStatus(s.url).catch(() => 0)));
      const i = codes.indexOf(200);
      return i >= 0 && codes.filter((x) => x === 200).length === 1 ? among[i] : undefined;
    });

  before(async () => {
    pgServer = await startPgTestServer();
    env = { [URL_VAR]: pgServer.url, CAIRN_SECRETS_HA_RETRY_MS: '200' };
    perfConfig = join(dir, 'perf.hcl');
    plainConfig = join(dir, 'plain.hcl');
    const text = `storage "postgresql" {
  connection_url = "env://${URL_VAR}"
  table          = "${table}"
  ha_enabled     = true
  max_parallel   = 4
}
listener "tcp" {
  address     = "127.0.0.1:0"
  tls_disable = true
}
`;
    writeFileSync(perfConfig, text);
    writeFileSync(plainConfig, `${text}disable_performance_standby = true\n`);
  });

  after(async () => {
    for (const s of servers) if (s.child.signalCode === null && s.child.exitCode === null) s.child.kill('SIGCONT');
    await killAll(servers);
    if (pgServer) {
      if (!pgServer.throwaway) {
        const client = new pg.Client({ connectionString: pgServer.url });
        await client.connect();
        await client.query(`DROP TABLE IF EXISTS "${table}", "${table}_ha", "${table}_index"`).finally(() => client.end());
      }
      await pgServer.stop();
    }
  });

  it('health: 200 active, 473 performance standby (200 with perfstandbyok), 429 with disable_performance_standby; sys/leader says which', async () => {
    a = await startServer(perfConfig, env);
    servers.push(a);
    const init = await call(a.url, 'PUT', '/v1/sys/init', { body: { secret_shares: 1, secret_threshold: 1 } });
    assert.equal(init.status, 200, init.text);
    root = init.json.root_token;
    unsealKey = init.json.keys[0];
    await unseal(a);
    await until('A active', 5000, async () => ((await healthStatus(a.url)) === 200 ? true : undefined));
    const mount = await put(a, '/v1/sys/mounts/secret', { type: 'kv-v2' });
    assert.equal(mount.status, 204, mount.text);
    stateOf(mount);

    b = await startServer(perfConfig, env);
    c = await startServer(plainConfig, env);
    servers.push(b, c);
    await unseal(b);
    await unseal(c);
    await until('B a performance standby', 5000, async () => ((await healthStatus(b.url)) === 473 ? true : undefined));
    const health = await fetch(`${b.url}/v1/sys/health`);
    const body = (await health.json()) as Record<string, unknown>;
    assert.deepEqual([body.standby, body.performance_standby, body.sealed], [true, true, false]);
    assert.equal(await healthStatus(b.url, '?perfstandbyok=true'), 200);
    const leaderB = await call(b.url, 'GET', '/v1/sys/leader');
    assert.deepEqual([leaderB.json.is_self, leaderB.json.leader_address, leaderB.json.performance_standby], [false, a.url, true]);
    assert.ok(leaderB.json.performance_standby_last_remote_wal > 0, leaderB.text);

    await until('C a plain standby that knows A', 5000, async () => {
      const l = await call(c.url, 'GET', '/v1/sys/leader');
      return l.json.leader_address === a.url && (await healthStatus(c.url)) === 429 ? l : undefined;
    });
    assert.equal((await call(c.url, 'GET', '/v1/sys/leader')).json.performance_standby, false);
    const leaderA = await call(a.url, 'GET', '/v1/sys/leader');
    assert.deepEqual([leaderA.json.is_self, leaderA.json.performance_standby], [true, false]);
  });

  it('a performance standby serves reads itself (the active is stopped) and forwards writes, whose replies carry the state', async () => {
    const written = await put(b, '/v1/secret/data/app/db', { data: { password: 'one' } });
    assert.equal(written.status, 200, written.text);
    const state = stateOf(written);
    assert.equal((await readAt(b, '/v1/secret/data/app/db', state)).json.data.data.password, 'one');
    a.child.kill('SIGSTOP');
    try {
      const read = await fetch(`${b.url}/v1/secret/data/app/db`, { headers: { 'X-Secrets-Token': root }, signal: AbortSignal.timeout(3000) });
      assert.equal(read.status, 200);
      assert.equal(read.headers.get('x-secrets-index'), null, 'a read carries no state');
      assert.deepEqual(((await read.json()) as { data: { data: unknown } }).data.data, { password: 'one' });
      const list = await fetch(`${b.url}/v1/secret/metadata/app`, { method: 'LIST', headers: { 'X-Secrets-Token': root }, signal: AbortSignal.timeout(3000) });
      assert.equal(list.status, 200);
      const head = await fetch(`${b.url}/v1/secret/data/app/db`, { method: 'HEAD', headers: { 'X-Secrets-Token': root }, signal: AbortSignal.timeout(3000) });
      assert.equal(head.status, 200);
    } finally {
      a.child.kill('SIGCONT');
    }
  });

  it('a wrapped read on a performance standby is wrapped by the active, never served in clear; its token unwraps once through the standby', async () => {
    const written = await put(a, '/v1/secret/data/handoff', { data: { password: 'wrapped-secret' } });
    assert.equal(written.status, 200, written.text);
    await readAt(b, '/v1/secret/data/handoff', stateOf(written));
    const r = await get(b, '/v1/secret/data/handoff', { 'X-Secrets-Wrap-TTL': '5m' });
    assert.equal(r.status, 200, r.text);
    assert.ok(!r.text.includes('wrapped-secret'), r.text);
    assert.equal(r.json.data, null);
    const token = r.json.wrap_info.token as string;
    const first = await put(b, '/v1/sys/wrapping/unwrap', { token });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.json.data.data.password, 'wrapped-secret');
    const second = await put(b, '/v1/sys/wrapping/unwrap', { token });
    assert.deepEqual([second.status, second.json], [400, { errors: ['wrapping token is not valid or does not exist'] }]);
  });

  it('read-after-write: 412 for a state ahead of the standby, success once one more write is applied; bad states 400', async () => {
    const first = await put(a, '/v1/secret/data/raw/key', { data: { v: 'first' } });
    assert.equal(first.status, 200, first.text);
    const { cluster, index } = decodeState(stateOf(first));
    assert.equal((await readAt(b, '/v1/secret/data/raw/key', stateOf(first))).json.data.data.v, 'first');

    const ahead = encodeState(cluster, index + 1);
    const refused = await get(b, '/v1/secret/data/raw/key', { 'X-Secrets-Index': ahead });
    assert.equal(refused.status, 412, refused.text);
    assert.match(refused.json.errors[0], /retry with backoff/);
    const forwarded = await get(b, '/v1/secret/data/raw/key', { 'X-Secrets-Index': ahead, 'X-Secrets-Inconsistent': 'forward-active-node' });
    assert.equal(forwarded.status, 200, forwarded.text);
    assert.equal((await get(a, '/v1/secret/data/raw/key', { 'X-Secrets-Index': ahead })).status, 200, 'the active server always satisfies a state');

    const second = await put(a, '/v1/secret/data/raw/key', { data: { v: 'second' } });
    assert.ok(decodeState(stateOf(second)).index >= index + 1);
    const retried = await readAt(b, '/v1/secret/data/raw/key', ahead);
    assert.equal(retried.status, 200, retried.text);
    assert.equal(retried.json.data.data.v, 'second');

    const garbage = await get(b, '/v1/secret/data/raw/key', { 'X-Secrets-Index': 'not a state' });
    assert.equal(garbage.status, 400);
    assert.match(garbage.json.errors[0], /X-Secrets-Index/);
    const foreign = await get(a, '/v1/secret/data/raw/key', { 'X-Secrets-Index': encodeState('another-cluster', 1) });
    assert.equal(foreign.status, 400);
    assert.match(foreign.json.errors[0], /X-Secrets-Index header is from another cluster/);

    // The SDK client remembers the state of its write (forwarded by B) and reads its own write from B.
    const client = new SecretsClient({ address: b.url, token: root });
    try {
      for (let i = 0; i < 5; i++) {
        await client.write('secret/data/sdk/own', { data: { n: i } });
        assert.equal((await client.read<{ data: { n: number } }>('secret/data/sdk/own'))?.data?.data.n, i);
      }
    } finally {
      await client.close();
    }
  });

  it('the standby sees policy, mount and namespace changes made on the active (cache invalidation)', async () => {
    const policy = (paths: string[]) => paths.map((p) => `path "${p}" { capabilities = ["read"] }`).join('\n');
    assert.equal((await put(a, '/v1/sys/policies/acl/reader', { policy: policy(['secret/data/app/*']) })).status, 204);
    const token = (await put(a, '/v1/auth/token/create', { policies: ['reader'] })).json.auth.client_token as string;
    const other = await put(a, '/v1/secret/data/other/y', { data: { v: 'y' } });
    // Reads on B fill its ACL cache for this token.
    assert.equal((await readAt(b, '/v1/secret/data/app/db', stateOf(other), token)).status, 200);
    assert.equal((await get(b, '/v1/secret/data/other/y', {}, token)).status, 403);

    const rewritten = await put(a, '/v1/sys/policies/acl/reader', { policy: policy(['secret/data/other/*']) });
    assert.equal(rewritten.status, 204);
    assert.equal((await readAt(b, '/v1/secret/data/app/db', stateOf(rewritten), token)).status, 403);
    assert.equal((await get(b, '/v1/secret/data/other/y', {}, token)).status, 200);

    const mounted = await put(a, '/v1/sys/mounts/kv1', { type: 'kv' });
    assert.equal(mounted.status, 204);
    const v1 = await put(a, '/v1/kv1/thing', { colour: 'blue' });
    assert.equal((await readAt(b, '/v1/kv1/thing', stateOf(v1))).json.data.colour, 'blue');
    const unmounted = await call(a.url, 'DELETE', '/v1/sys/mounts/kv1', { token: root });
    assert.equal(unmounted.status, 204);
    const gone = await readAt(b, '/v1/kv1/thing', stateOf(unmounted));
    assert.equal(gone.status, 404);
    assert.match(gone.json.errors[0], /no handler for route/);

    const ns = await put(a, '/v1/sys/namespaces/team', {});
    assert.equal(ns.status, 200, ns.text);
    const list = await until('namespace on B', 5000, async () => {
      const r = await call(b.url, 'LIST', '/v1/sys/namespaces', { token: root, headers: { 'X-Secrets-Index': stateOf(ns) } });
      return r.status === 412 ? undefined : r;
    });
    assert.deepEqual(list.json.data.keys, ['team/']);
  });

  it('cairn secrets move through a standby: the move is forwarded; its status and the moved data are read on the standby', async () => {
    assert.equal((await put(a, '/v1/sys/mounts/before-move', { type: 'kv' })).status, 204);
    assert.equal((await put(a, '/v1/before-move/thing', { colour: 'green' })).status, 204);
    let stdout = '';
    let stderr = '';
    const io = { stdout: (x: string) => (stdout += x), stderr: (x: string) => (stderr += x) };
    // The CLI's client sends the move's state with the status read, which B answers itself once it has applied it.
    const code = await main(['secrets', 'move', 'before-move', 'after-move'], { SECRETS_ADDR: b.url, SECRETS_TOKEN: root }, io);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /^Success! Finished moving secrets engine before-move\/ to after-move\/, with migration ID \S+$/m);
    const moved = await until('the moved mount on B', 5000, async () => {
      const r = await get(b, '/v1/after-move/thing');
      return r.status === 200 ? r : undefined;
    });
    assert.equal(moved.json.data.colour, 'green');
    assert.equal((await get(b, '/v1/before-move/thing')).status, 404);
  });

  it('audit devices enabled on the active are used by the standby for the reads it serves, until disabled there (issue 17)', async () => {
    const file = join(dir, 'audit.log');
    const lines = () =>
      existsSync(file)
        ? readFileSync(file, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l))
        : [];
    const served = (path: string) => lines().filter((e) => e.type === 'response' && e.request.path === path);
    /** A read on B while A is stopped (SIGSTOP): B serves it itself, so only B can log it. */
    const readOnB = async (path: string) => {
      a.child.kill('SIGSTOP');
      try {
        return await get(b, `/v1/${path}`);
      } finally {
        a.child.kill('SIGCONT');
      }
    };
    const enabled = await put(a, '/v1/sys/audit/file', { type: 'file', options: { file_path: file } });
    assert.equal(enabled.status, 204, enabled.text);
    const secret = await put(a, '/v1/secret/data/audited', { data: { password: 'standby-secret' } });
    assert.equal((await readAt(b, '/v1/secret/data/audited', stateOf(secret))).status, 200);
    const before = served('secret/data/audited').length;
    assert.equal((await readOnB('secret/data/audited')).status, 200);
    const mine = served('secret/data/audited');
    assert.equal(mine.length, before + 1, 'the standby logged the read it served');
    const hash = (await put(a, '/v1/sys/audit-hash/file', { input: 'standby-secret' })).json.data.hash;
    assert.equal(mine.at(-1).response.data.data.password, hash, 'hashed with the same salt');
    assert.equal(readFileSync(file, 'utf8').includes('standby-secret'), false);

    const disabled = await call(a.url, 'DELETE', '/v1/sys/audit/file', { token: root });
    assert.equal(disabled.status, 204);
    const marker = await put(a, '/v1/secret/data/unaudited', { data: { v: 1 } });
    assert.equal((await readAt(b, '/v1/secret/data/unaudited', stateOf(marker))).status, 200);
    const count = served('secret/data/unaudited').length;
    assert.equal((await readOnB('secret/data/unaudited')).status, 200);
    assert.equal(served('secret/data/unaudited').length, count, 'the standby stopped logging with the device disabled');
  });

  it("CIDR-bound logins and tokens through a standby are checked against the client's address, which a client cannot forge", async () => {
    assert.equal((await put(a, '/v1/sys/auth/approle', { type: 'approle' })).status, 204);
    const cidrs = { secret_id_bound_cidrs: ['127.0.0.2/32'], token_bound_cidrs: ['127.0.0.2/32'], token_policies: ['default'] };
    const role = await put(a, '/v1/auth/approle/role/edge', cidrs);
    assert.equal(role.status, 204, role.text);
    const roleId = (await get(a, '/v1/auth/approle/role/edge/role-id')).json.data.role_id as string;
    const secretId = (await put(a, '/v1/auth/approle/role/edge/secret-id', {})).json.data.secret_id as string;
    const login = { role_id: roleId, secret_id: secretId };

    // From 127.0.0.1, the standby's own address: refused, though the standby is the one connecting to the active server.
    const outside = await callFrom({ from: '127.0.0.1', url: b.url }, 'POST', '/v1/auth/approle/login', { body: login });
    assert.equal(outside.status, 400, outside.text);
    assert.match(outside.json.errors[0], /source address "127\.0\.0\.1" unauthorized/);
    // A client cannot claim another address: the header is signed by the standby with a key only the cluster has.
    const forged = await callFrom({ from: '127.0.0.1', url: a.url }, 'POST', '/v1/auth/approle/login', {
      body: login,
      headers: { 'X-Cairn-Forwarded': '1', 'X-Cairn-Forwarded-For': `127.0.0.2 ${Date.now()} ${randomBytes(32).toString('base64url')}` },
    });
    assert.equal(forged.status, 400, forged.text);
    const spoofedViaStandby = await callFrom({ from: '127.0.0.1', url: b.url }, 'POST', '/v1/auth/approle/login', {
      body: login,
      headers: { 'X-Cairn-Forwarded-For': `127.0.0.2 ${Date.now()} x` },
    });
    assert.equal(spoofedViaStandby.status, 400, spoofedViaStandby.text);

    // From 127.0.0.2, through the standby (a login writes, so it is forwarded): allowed, and so is the token.
    const inside = await callFrom({ from: '127.0.0.2', url: b.url }, 'POST', '/v1/auth/approle/login', { body: login });
    assert.equal(inside.status, 200, inside.text);
    const token = inside.json.auth.client_token as string;
    // renew-self writes (forwarded to the active server); lookup-self is a read the standby serves itself.
    const renewed = await callFrom({ from: '127.0.0.2', url: b.url }, 'POST', '/v1/auth/token/renew-self', { token, body: {} });
    assert.equal(renewed.status, 200, renewed.text);
    assert.equal((await callFrom({ from: '127.0.0.2', url: b.url }, 'GET', '/v1/auth/token/lookup-self', { token })).status, 200);
    for (const method of ['POST', 'GET']) {
      const path = method === 'POST' ? '/v1/auth/token/renew-self' : '/v1/auth/token/lookup-self';
      const r = await callFrom({ from: '127.0.0.1', url: b.url }, method, path, { token, body: method === 'POST' ? {} : undefined });
      assert.equal(r.status, 403, `${method} ${path} from outside the token's block: ${r.text}`);
    }
  });

  it('while its change feed is cut, a standby serves no reads of its own (health 429, requests forwarded); it serves again after the resync', async () => {
    const admin = new pg.Client({ connectionString: pgServer.url });
    admin.on('error', () => undefined);
    await admin.connect();
    try {
      assert.equal(await healthStatus(b.url), 473);
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'cairn-listen'");
      // The feed reconnects after about a second: meanwhile B must not answer from caches that may be missing changes.
      await until('B stops serving as a performance standby', 2000, async () => ((await healthStatus(b.url)) === 429 ? true : undefined));
      const written = await put(a, '/v1/secret/data/feed/cut', { data: { v: 'while the feed was down' } });
      assert.equal(written.status, 200);
      const read = await get(b, '/v1/secret/data/feed/cut', { 'X-Secrets-Index': stateOf(written) });
      assert.equal(read.status, 200, 'forwarded to the active server, not a 412 or a stale read');
      assert.equal(read.json.data.data.v, 'while the feed was down');
      await until('B is a performance standby again', 5000, async () => ((await healthStatus(b.url)) === 473 ? true : undefined));
      assert.equal((await readAt(b, '/v1/secret/data/feed/cut', stateOf(written))).json.data.data.v, 'while the feed was down');
    } finally {
      await admin.end();
    }
  });

  it('a cut lock connection demotes the active; writes waiting at the fence when the term moves on get 503, never 500', async (t) => {
    const active = await activeServer(servers);
    const db = new pg.Client({ connectionString: pgServer.url });
    await db.connect();
    // pg_stat_activity is snapshotted once per transaction: polled inside `db`'s transaction
    // it would show the writes' state at the first poll forever (seen in CI), so another
    // connection watches.
    const watch = new pg.Client({ connectionString: pgServer.url });
    await watch.connect();
    const keys = Array.from({ length: 4 }, (_, i) => `cut/k${i}`);
    try {
      // Hold the HA row: every write transaction of the active waits at its fence check.
      await db.query('BEGIN');
      await db.query(`SELECT term FROM "${table}_ha" WHERE id = 1 FOR UPDATE`);
      const writes = keys.map((k) => put(active, `/v1/secret/data/${k}`, { data: { v: k } }));
      let settled = 0;
      for (const w of writes)
        void w.then(
          () => settled++,
          () => settled++,
        );
      const seen = await until('writes waiting at the fence, or answered', 20_000, async () => {
        // (pg_stat_activity's `query` of a prepared statement is not reliable; the wait is.)
        const r = await watch.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND application_name = 'cairn'");
        if (r.rows[0].n > 0) return 'waiting';
        return settled === writes.length ? 'answered' : undefined;
      });
      if (seen === 'answered') {
        // On a saturated machine the active can lose its lock connection before the writes
        // queue: then they are refused at once. Still 503, never 500, and (below) nothing stored.
        t.diagnostic('the active was demoted before the writes reached the fence');
      } else {
        const cut = await watch.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'cairn-ha'
             AND pid IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted)`,
        );
        assert.equal(cut.rowCount, 1, "the lock holder's connection");
        // The term moves on, as when another server takes over, before the waiting writes go on.
        await db.query(`UPDATE "${table}_ha" SET term = term + 1 WHERE id = 1`);
        await db.query('COMMIT');
      }
      for (const r of await Promise.all(writes)) {
        assert.equal(r.status, 503, r.text);
        assert.deepEqual(r.json.errors, ['this server is no longer the active one; retry the request']);
      }
    } finally {
      await db.query('ROLLBACK').catch(() => undefined);
      await db.end();
      await watch.end();
    }
    const next = await activeServer(servers);
    for (const k of keys) assert.equal((await get(next, `/v1/secret/data/${k}`)).status, 404, `${k} was refused, so it is not stored`);
    assert.equal((await put(next, '/v1/secret/data/cut/after', { data: { v: 1 } })).status, 200);
  });

  it('kill -9 of the active under concurrent writers: a standby is active within 5 s, codes move, every acknowledged write reads back', async () => {
    const active = await activeServer(servers);
    const others = servers.filter((s) => s !== active && s.child.exitCode === null && s.child.signalCode === null);
    const acked = new Map<string, string>();
    // Every reply is recorded and judged after the load (an assertion thrown in a writer
    // would only stop that writer, unseen until the load is awaited); only the killed server
    // may fail to answer at all, anything else thrown is a failure recorded in `wrong`.
    const statuses: Record<string, number> = {};
    const wrong: string[] = [];
    let stop = false;
    const writer = async (w: number, via: Running) => {
      for (let i = 0; !stop; i++) {
        const key = `load/w${w}/k${i}`;
        const value = randomBytes(6).toString('hex');
        let r: Reply;
        try {
          r = await put(via, `/v1/secret/data/${key}`, { data: { value } });
        } catch (err) {
          if (via === active && connectionFailed(err)) statuses['no connection'] = (statuses['no connection'] ?? 0) + 1;
          else wrong.push(`write ${key} via ${via === active ? 'the killed active' : 'a standby'}: ${String(err)} ${String((err as Error).cause)}`);
          await new Promise((done) => setTimeout(done, 20)); // the killed server refuses connections
          continue;
        }
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        if (r.status === 200) acked.set(key, value);
        else if (r.status !== 503) wrong.push(`write ${key} via ${via === active ? 'the killed active' : 'a standby'}: ${r.status} ${r.text}`);
      }
    };
    // Four writers on the active itself, two through a standby (forwarded).
    const load = [0, 1, 2, 3].map((w) => writer(w, active)).concat([4, 5].map((w) => writer(w, others[0])));
    await until('writes under way', 5000, async () => (acked.size >= 40 ? true : undefined));
    const before = acked.size;
    active.child.kill('SIGKILL');
    await active.exited;
    const killed = Date.now();
    const next = await activeServer(others);
    const failoverMs = Date.now() - killed;
    assert.ok(failoverMs < 5000, `failover took ${failoverMs} ms`);
    // The writers through the standby reach the new active (or write on it, when it is that standby).
    const atFailover = acked.size;
    await until('a write acknowledged by the new active', 10_000, async () => (acked.size > atFailover ? true : undefined));
    stop = true;
    await Promise.all(load);
    assert.deepEqual(wrong, [], `every write answered 200, or 503 while no server was active: ${JSON.stringify(statuses)}`);
    for (const s of others.filter((o) => o !== next)) assert.ok([429, 473].includes(await healthStatus(s.url)));
    assert.equal(await healthStatus(next.url), 200);
    let checked = 0;
    for (const [key, value] of acked) {
      const r = await get(next, `/v1/secret/data/${key}`);
      assert.equal(r.status, 200, `${key} was acknowledged: ${r.text}`);
      assert.equal(r.json.data.data.value, value);
      checked++;
    }
    console.log(`# failover ${failoverMs} ms; ${before} writes acknowledged before the kill, ${checked} read back; replies ${JSON.stringify(statuses)}`);

    // The killed server comes back as a performance standby of the new active.
    const back = await startServer(perfConfig, env);
    servers.push(back);
    await unseal(back);
    await until('the restarted server a performance standby', 5000, async () => ((await healthStatus(back.url)) === 473 ? true : undefined));
  });
});
