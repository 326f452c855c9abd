/**
 * Audit devices (issue 17 scope 1; the reference's `sys/audit`, `sys/audit-hash`, file and
 * socket devices): one JSON line per request and per response with every secret as
 * `hmac-sha256:<hex>`, `log_raw`, fail closed (a device that cannot write refuses the
 * request and leaks nothing; a response entry no device can write replaces the reply with
 * a 500), a request served while one of two devices is broken, SIGHUP rotation and devices
 * surviving a restart (a real `cairn secrets server` process), socket devices on a real TCP
 * listener and a real UDP socket.
 *
 * The reference's rule on failures (Vault's audit device documentation, "Enabling multiple
 * devices" and "Blocked audit devices"; issue 17 scope 1): a request succeeds when at least
 * one enabled device logs it, and fails when none can; a response that cannot be logged
 * gets a 500 `internal error` instead of its reply.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createSocket } from 'node:dgram';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { main } from '../../src/cli/main.js';
import { SecretsClient } from '../../src/sdk/index.js';
import { call, startTestServer, type JsonReply, type TestServer } from '../helpers.js';
import { startCairnProcess, until, type ServerProcess } from '../processes.js';

const SECRET = 'hunter2-very-secret-value';

/** The file's JSON lines. */
function entries(file: string): JsonReply[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

describe('file audit device', () => {
  let s: TestServer;
  let dir: string;
  before(async () => {
    s = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), 'cairn-audit-'));
  });
  after(async () => {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses bad options with 400 naming the option, non-root tokens with 403, and changes nothing', async () => {
    const bad: [unknown, RegExp][] = [
      [{ type: 'file', options: { file_path: join(dir, 'x.log'), format: 'jsonx' } }, /options\.format/],
      [{ type: 'file', options: { file_path: join(dir, 'x.log'), mode: '999' } }, /options\.mode/],
      [{ type: 'file', options: { file_path: join(dir, 'x.log'), log_raw: 'maybe' } }, /options\.log_raw/],
      [{ type: 'file', options: { file_path: join(dir, 'x.log'), elide: 'true' } }, /options\.elide/],
      [{ type: 'file', options: {} }, /options\.file_path/],
      [{ type: 'file', options: { file_path: join(dir, 'no', 'such', 'dir', 'x.log') } }, /options\.file_path.*ENOENT/],
      [{ type: 'socket', options: {} }, /options\.address/],
      [{ type: 'socket', options: { address: '127.0.0.1:1', socket_type: 'sctp' } }, /options\.socket_type/],
      [{ type: 'socket', options: { address: '127.0.0.1:1', write_timeout: 'soon' } }, /options\.write_timeout/],
      [{ type: 'syslog' }, /type: unknown audit device type "syslog"/],
      [{}, /type/],
    ];
    for (const [body, msg] of bad) {
      const r = await s.call('PUT', '/v1/sys/audit/bad', { body });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.match(r.json.errors[0], msg);
    }
    assert.deepEqual((await s.call('GET', '/v1/sys/audit')).json.data, {}, 'nothing enabled');

    await s.call('PUT', '/v1/sys/policies/acl/ops', { body: { policy: 'path "sys/*" { capabilities = ["create", "read", "update", "delete", "list"] }' } });
    const ops = (await s.call('POST', '/v1/auth/token/create', { body: { policies: ['ops'] } })).json.auth.client_token;
    for (const [method, path, body] of [
      ['GET', '/v1/sys/audit', undefined],
      ['PUT', '/v1/sys/audit/file', { type: 'file', options: { file_path: join(dir, 'x.log') } }],
      ['DELETE', '/v1/sys/audit/file', undefined],
      ['PUT', '/v1/sys/audit-hash/file', { input: 'x' }],
    ] as const) {
      const r = await s.call(method, path, { token: ops, body });
      assert.equal(r.status, 403, `${method} ${path} without sudo`);
    }
    assert.equal(existsSync(join(dir, 'x.log')), false);

    assert.equal((await s.call('POST', '/v1/sys/namespaces/ns1')).status, 200);
    const inNs = await s.call('GET', '/v1/sys/audit', { headers: { 'X-Secrets-Namespace': 'ns1' } });
    assert.equal(inNs.status, 400, 'root namespace only, as the reference');
    assert.deepEqual(inNs.json, { errors: ['operation unavailable in namespaces'] });
    const paths = Object.keys((await s.call('GET', '/v1/sys/internal/specs/openapi')).json.paths);
    for (const p of ['/sys/audit', '/sys/audit/{path}', '/sys/audit-hash/{path}']) assert.ok(paths.includes(p), `${p} in the OpenAPI document`);
  });

  it('logs request and response entries with every secret hashed; sys/audit-hash finds a value; list and disable', async () => {
    const file = join(dir, 'audit.log');
    assert.equal((await s.call('PUT', '/v1/sys/audit/file', { body: { type: 'file', description: 'main log', options: { file_path: file } } })).status, 204);
    assert.equal(statSync(file).mode & 0o777, 0o600, 'default mode 0600');
    const again = await s.call('PUT', '/v1/sys/audit/file', { body: { type: 'file', options: { file_path: file } } });
    assert.equal(again.status, 400);
    assert.match(again.json.errors[0], /path already in use/);

    const list = await s.call('GET', '/v1/sys/audit');
    const expected = { 'file/': { type: 'file', description: 'main log', options: { file_path: file }, local: false, path: 'file/' } };
    assert.deepEqual(list.json.data, expected);
    assert.deepEqual(list.json['file/'], expected['file/'], 'at the top level too');

    assert.equal((await s.call('POST', '/v1/secret/data/app/db', { body: { data: { password: SECRET } } })).status, 200);
    const read = await s.call('GET', '/v1/secret/data/app/db');
    assert.equal(read.json.data.data.password, SECRET);
    const missing = await s.call('GET', '/v1/secret/data/app/none');
    assert.equal(missing.status, 404);
    const denied = await s.call('GET', '/v1/secret/data/app/db', { token: 'not-a-token' });
    assert.equal(denied.status, 403);

    const text = readFileSync(file, 'utf8');
    assert.equal(text.includes(SECRET), false, 'the secret never appears in clear');
    assert.equal(text.includes(s.rootToken), false, 'nor the token');
    assert.equal(text.includes('not-a-token'), false, 'nor a wrong token');

    const hash = await s.call('PUT', '/v1/sys/audit-hash/file', { body: { input: SECRET } });
    assert.equal(hash.status, 200);
    assert.match(hash.json.data.hash, /^hmac-sha256:[0-9a-f]{64}$/);
    assert.equal(hash.json.hash, hash.json.data.hash);
    const lines = entries(file);
    const write = lines.find((e) => e.type === 'request' && e.request.path === 'secret/data/app/db' && e.request.operation !== 'read')!;
    assert.equal(write.request.data.data.password, hash.json.data.hash, 'the request data holds the HMAC of the secret');
    const readResp = lines.find((e) => e.type === 'response' && e.request.path === 'secret/data/app/db' && e.request.operation === 'read')!;
    assert.equal(readResp.response.data.data.password, hash.json.data.hash, 'so does the response data');
    assert.equal(readResp.response.mount_type, 'kv');
    const tokenHash = (await s.call('PUT', '/v1/sys/audit-hash/file', { body: { input: s.rootToken } })).json.data.hash;
    assert.equal(readResp.auth.client_token, tokenHash);
    assert.equal(readResp.request.client_token, tokenHash);
    assert.match(readResp.auth.accessor, /^hmac-sha256:/);
    assert.deepEqual(readResp.auth.policies, ['root']);
    assert.deepEqual(readResp.request.namespace, { id: 'root', path: '' });
    assert.equal(readResp.request.remote_address, '127.0.0.1');
    assert.ok(!Number.isNaN(Date.parse(readResp.time)));
    const req = lines.find((e) => e.type === 'request' && e.request.id === readResp.request.id);
    assert.ok(req, 'request and response share the request id');

    const notFound = lines.find((e) => e.type === 'response' && e.request.path === 'secret/data/app/none');
    assert.ok(notFound, 'a 404 is logged');
    assert.equal(notFound.response, undefined, 'nothing was at the path');
    const forbidden = lines.find((e) => e.type === 'request' && e.error === 'permission denied');
    assert.ok(forbidden, 'a 403 is logged with its error');
    assert.match(forbidden.request.client_token, /^hmac-sha256:/);

    assert.equal((await s.call('DELETE', '/v1/sys/audit/file')).status, 204);
    assert.deepEqual((await s.call('GET', '/v1/sys/audit')).json.data, {});
    const before = readFileSync(file, 'utf8').length;
    await s.call('GET', '/v1/secret/data/app/db');
    assert.equal(readFileSync(file, 'utf8').length, before, 'a disabled device logs nothing more');
    const gone = await s.call('PUT', '/v1/sys/audit-hash/file', { body: { input: 'x' } });
    assert.equal(gone.status, 400);
  });

  it('log_raw logs values in clear; hmac_accessor=false leaves accessors; prefix and mode apply', async () => {
    const file = join(dir, 'raw.log');
    const r = await s.call('PUT', '/v1/sys/audit/raw', {
      body: { type: 'file', options: { file_path: file, log_raw: 'true', prefix: 'AUDIT ', mode: '0640' } },
    });
    assert.equal(r.status, 204);
    assert.equal(statSync(file).mode & 0o777, 0o640);
    await s.call('GET', '/v1/secret/data/app/db');
    const text = readFileSync(file, 'utf8');
    assert.ok(text.startsWith('AUDIT {'), 'each line starts with the prefix');
    assert.ok(text.includes(SECRET), 'log_raw: the value in clear');
    await s.call('DELETE', '/v1/sys/audit/raw');

    const acc = join(dir, 'acc.log');
    await s.call('PUT', '/v1/sys/audit/acc', { body: { type: 'file', options: { file_path: acc, hmac_accessor: false } } });
    const self = await s.call('GET', '/v1/auth/token/lookup-self');
    const line = entries(acc).find((e) => e.type === 'request')!;
    assert.equal(line.auth.accessor, self.json.data.accessor, 'the accessor in clear');
    assert.match(line.auth.client_token, /^hmac-sha256:/, 'the token still hashed');
    await s.call('DELETE', '/v1/sys/audit/acc');
  });

  it('fails closed: a device that cannot write refuses requests with 500, runs nothing and returns no secret', async () => {
    const file = join(dir, 'closed.log');
    await s.call('PUT', '/v1/sys/audit/closed', { body: { type: 'file', options: { file_path: file } } });
    // The file becomes a directory and the device reopens (as after a rotation): it cannot write.
    unlinkSync(file);
    mkdirSync(file);
    s.service.node.audit.reopen();
    const read = await s.call('GET', '/v1/secret/data/app/db');
    assert.equal(read.status, 500);
    assert.deepEqual(read.json, { errors: ['internal error'] });
    assert.equal(read.text.includes(SECRET), false);
    const write = await s.call('POST', '/v1/secret/data/app/new', { body: { data: { v: 1 } } });
    assert.equal(write.status, 500);

    // Writable again: the refused write never ran.
    rmSync(file, { recursive: true });
    s.service.node.audit.reopen();
    assert.equal((await s.call('GET', '/v1/secret/data/app/new')).status, 404, 'the refused write was not applied');
    assert.equal((await s.call('GET', '/v1/secret/data/app/db')).status, 200);
    assert.equal((await s.call('DELETE', '/v1/sys/audit/closed')).status, 204);
  });
});

describe('two file audit devices, one broken', () => {
  let s: TestServer;
  let dir: string;
  before(async () => {
    s = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), 'cairn-audit-two-'));
  });
  after(async () => {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the request while one device can write: every entry in the working one, none lost; both broken → 500', async () => {
    const good = join(dir, 'good.log');
    const broken = join(dir, 'broken.log');
    for (const [path, file] of [
      ['good', good],
      ['broken', broken],
    ])
      assert.equal((await s.call('PUT', `/v1/sys/audit/${path}`, { body: { type: 'file', options: { file_path: file } } })).status, 204);
    // One file becomes a directory and the devices reopen (as after a rotation): that one cannot write.
    unlinkSync(broken);
    mkdirSync(broken);
    s.service.node.audit.reopen();

    const write = await s.call('POST', '/v1/secret/data/two', { body: { data: { password: SECRET } } });
    assert.equal(write.status, 200, write.text);
    const read = await s.call('GET', '/v1/secret/data/two');
    assert.equal(read.status, 200, read.text);
    assert.equal(read.json.data.data.password, SECRET);
    const hash = (await s.call('PUT', '/v1/sys/audit-hash/good', { body: { input: SECRET } })).json.data.hash;
    const logged = entries(good).filter((e) => e.request.path === 'secret/data/two');
    assert.deepEqual(
      logged.map((e) => `${e.type} ${e.request.operation}`),
      ['request create', 'response create', 'request read', 'response read'],
      'both requests and both responses in the working device',
    );
    assert.equal(logged[3].response.data.data.password, hash);
    assert.equal(readFileSync(good, 'utf8').includes(SECRET), false);

    // The working one breaks too: now no device can write, and the request is refused.
    unlinkSync(good);
    mkdirSync(good);
    s.service.node.audit.reopen();
    const refused = await s.call('GET', '/v1/secret/data/two');
    assert.deepEqual([refused.status, refused.json], [500, { errors: ['internal error'] }]);
    assert.equal(refused.text.includes(SECRET), false);
  });
});

describe('a socket audit device that can write the request entry but not the response entry', () => {
  let s: TestServer;
  before(async () => (s = await startTestServer()));
  after(() => s.close());

  it('the reply becomes a 500 with nothing of it; the request entry was logged; small replies still served', async () => {
    // A secret whose response entry (a hash per field, about 90 bytes each) passes the
    // largest UDP datagram (65,507 bytes): sending it fails with EMSGSIZE, while the
    // request entry of its read is small. Written before the device exists.
    const big = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${String(i).padStart(4, '0')}`, `${SECRET}-${i}`]));
    assert.equal((await s.call('POST', '/v1/secret/data/big', { body: { data: big } })).status, 200);
    assert.equal((await s.call('POST', '/v1/secret/data/small', { body: { data: { password: SECRET } } })).status, 200);

    const received: JsonReply[] = [];
    const udp = createSocket('udp4');
    udp.on('message', (m) => received.push(JSON.parse(m.toString('utf8'))));
    await new Promise<void>((r) => udp.bind(0, '127.0.0.1', r));
    try {
      const address = `127.0.0.1:${udp.address().port}`;
      const enabled = await s.call('PUT', '/v1/sys/audit/udp', { body: { type: 'socket', options: { address, socket_type: 'udp' } } });
      assert.equal(enabled.status, 204, enabled.text);

      const failed = await s.call('GET', '/v1/secret/data/big');
      assert.deepEqual([failed.status, failed.json], [500, { errors: ['internal error'] }]);
      assert.equal(failed.text.includes(SECRET), false, 'nothing of the reply');

      // A small read after it is served and logged whole; once its response entry is in, every earlier datagram is too.
      const small = await s.call('GET', '/v1/secret/data/small');
      assert.equal(small.status, 200);
      assert.equal(small.json.data.data.password, SECRET);
      const smallResponse = await until('the small read logged', 5000, () =>
        received.find((e) => e.type === 'response' && e.request.path === 'secret/data/small' && e.request.operation === 'read'),
      );
      const bigEntries = received.filter((e) => e.request.path === 'secret/data/big');
      assert.deepEqual(
        bigEntries.map((e) => `${e.type} ${e.request.operation}`),
        ['request read'],
        'the request entry of the failed read was logged; its response entry never was',
      );
      assert.notEqual(bigEntries[0].request.id, smallResponse.request.id);
      assert.equal(JSON.stringify(received).includes(SECRET), false);
    } finally {
      udp.close();
    }
  });
});

describe('socket audit device', () => {
  let s: TestServer;
  before(async () => (s = await startTestServer()));
  after(() => s.close());

  it('sends entries to a TCP listener on loopback; once the peer is gone, requests fail with 500', async () => {
    let received = '';
    const conns = new Set<Socket>();
    const server = createServer((c) => {
      conns.add(c);
      c.on('data', (d) => (received += d));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    assert.equal(
      (
        await s.call('PUT', '/v1/sys/audit/sock', {
          body: { type: 'socket', options: { address: `127.0.0.1:${port}`, socket_type: 'tcp', write_timeout: '1s' } },
        })
      ).status,
      204,
    );
    await s.call('POST', '/v1/secret/data/sock', { body: { data: { password: SECRET } } });
    const read = await s.call('GET', '/v1/secret/data/sock');
    assert.equal(read.status, 200);
    await until('entries on the socket', 5000, () => (received.split('\n').filter(Boolean).length >= 4 ? true : undefined));
    assert.equal(received.includes(SECRET), false);
    const hash = (await s.call('PUT', '/v1/sys/audit-hash/sock', { body: { input: SECRET } })).json.data.hash;
    assert.ok(received.includes(hash), 'the HMAC is there');
    assert.ok(
      received
        .split('\n')
        .filter(Boolean)
        .every((l) => ['request', 'response'].includes(JSON.parse(l).type)),
    );

    // The peer goes away: no connection can be made, so nothing is audited and nothing served.
    await new Promise<void>((r) => {
      server.close(() => r());
      for (const c of conns) c.destroy();
    });
    const failed = await until('requests refused', 5000, async () => {
      const r = await s.call('GET', '/v1/secret/data/sock');
      return r.status === 500 ? r : undefined;
    });
    assert.deepEqual(failed.json, { errors: ['internal error'] });
    assert.equal(failed.text.includes(SECRET), false);
  });
});

describe('cairn secrets server with a file audit device', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-audit-server-'));
  const config = join(dir, 'secrets.hcl');
  const file = join(dir, 'audit.log');
  let server: ServerProcess | undefined;
  let unsealKey = '';
  let root = '';
  writeFileSync(config, `storage "sqlite" {\n  path = "${join(dir, 'secrets.db')}"\n}\nlistener "tcp" {\n  address = "127.0.0.1:0"\n  tls_disable = true\n}\n`);
  const start = () => startCairnProcess(['secrets', 'server', `-config=${config}`], {}, 'secrets service listening');
  after(async () => {
    await server?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reopens the file on SIGHUP (rotation) and keeps its devices and salt across a restart', { timeout: 60_000 }, async () => {
    server = await start();
    const init = await call(server.url, 'PUT', '/v1/sys/init', { body: { secret_shares: 1, secret_threshold: 1 } });
    unsealKey = init.json.keys[0];
    root = init.json.root_token;
    assert.equal((await call(server.url, 'PUT', '/v1/sys/unseal', { body: { key: unsealKey } })).json.sealed, false);
    assert.equal((await call(server.url, 'POST', '/v1/sys/mounts/kv', { token: root, body: { type: 'kv-v2' } })).status, 204);
    assert.equal((await call(server.url, 'PUT', '/v1/sys/audit/file', { token: root, body: { type: 'file', options: { file_path: file } } })).status, 204);
    await call(server.url, 'POST', '/v1/kv/data/a', { token: root, body: { data: { password: SECRET } } });
    const hash = (await call(server.url, 'PUT', '/v1/sys/audit-hash/file', { token: root, body: { input: SECRET } })).json.data.hash;

    renameSync(file, file + '.1');
    await call(server.url, 'GET', '/v1/kv/data/a', { token: root });
    assert.equal(existsSync(file), false, 'before SIGHUP the renamed file still gets the entries');
    const rotatedSize = statSync(file + '.1').size;
    server.child.kill('SIGHUP');
    await until('a new file at file_path', 10_000, () => (existsSync(file) ? true : undefined));
    await call(server.url, 'GET', '/v1/kv/data/a', { token: root });
    assert.ok(
      entries(file).some((e) => e.type === 'response' && e.response?.data?.data?.password === hash),
      'new entries in the new file: ' + readFileSync(file, 'utf8'),
    );
    const rotatedAfter = statSync(file + '.1').size;
    await call(server.url, 'GET', '/v1/kv/data/a', { token: root });
    assert.equal(statSync(file + '.1').size, rotatedAfter, 'the rotated file gets nothing more');
    assert.ok(rotatedAfter >= rotatedSize);

    await server.kill();
    server = await start();
    await call(server.url, 'PUT', '/v1/sys/unseal', { body: { key: unsealKey } });
    const list = await call(server.url, 'GET', '/v1/sys/audit', { token: root });
    assert.deepEqual(Object.keys(list.json.data), ['file/'], 'the device survived the restart');
    assert.equal((await call(server.url, 'PUT', '/v1/sys/audit-hash/file', { token: root, body: { input: SECRET } })).json.data.hash, hash, 'with its salt');
    const n = entries(file).length;
    await call(server.url, 'GET', '/v1/kv/data/a', { token: root });
    assert.ok(entries(file).length > n, 'and it logs');
    // The store runs in WAL mode: recent writes are in secrets.db-wal until a checkpoint, so every file is read.
    const db = join(dir, 'secrets.db');
    const files = [db, `${db}-wal`, `${db}-shm`].filter(existsSync);
    assert.ok(files.includes(db));
    for (const f of files)
      assert.equal(readFileSync(f).includes('"salt"'), false, `${f}: the device table (with its salt) is stored behind the barrier, never in clear`);
  });
});

describe('cairn audit enable|list|disable and the SDK', () => {
  let s: TestServer;
  let dir: string;
  before(async () => {
    s = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), 'cairn-audit-cli-'));
  });
  after(async () => {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs `cairn` in-process against the test server with the root token. */
  async function cairn(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = '';
    let stderr = '';
    const code = await main(
      argv,
      { SECRETS_ADDR: s.url, SECRETS_TOKEN: s.rootToken },
      {
        stdout: (x) => (stdout += x),
        stderr: (x) => (stderr += x),
        readStdin: async () => '',
        promptSecret: async () => '',
      },
    );
    return { code, stdout, stderr };
  }

  it('enables with the reference CLI syntax, lists (also -detailed), disables; the SDK does the same and hashes', async () => {
    const file = join(dir, 'cli.log');
    const e = await cairn('audit', 'enable', '-path=main', '-description=the log', 'file', `file_path=${file}`, 'log_raw=false');
    assert.equal(e.code, 0, e.stderr);
    assert.equal(e.stdout, 'Success! Enabled the file audit device at: main/\n');
    const bad = await cairn('audit', 'enable', 'file', `file_path=${file}`, 'format=yaml');
    assert.equal(bad.code, 1, 'an API error');
    assert.match(bad.stderr, /options\.format/);

    const l = await cairn('audit', 'list');
    assert.match(l.stdout, /^Path\s+Type\s+Description$/m);
    assert.match(l.stdout, /^main\/\s+file\s+the log$/m);
    const d = await cairn('audit', 'list', '-detailed');
    assert.match(d.stdout, /^Path\s+Type\s+Description\s+Replication\s+Options$/m);
    assert.match(d.stdout, new RegExp(`^main/\\s+file\\s+the log\\s+replicated\\s+file_path=${file} log_raw=false$`, 'm'));

    const sdk = new SecretsClient({ address: s.url, token: s.rootToken });
    try {
      await sdk.audit.enable('second', { type: 'file', options: { file_path: join(dir, 'sdk.log') } });
      const listed = await sdk.audit.list();
      assert.deepEqual(Object.keys(listed).sort(), ['main/', 'second/']);
      assert.equal(listed['main/'].options.file_path, file);
      const h = await sdk.audit.hash('main', SECRET);
      assert.equal(h, (await s.call('PUT', '/v1/sys/audit-hash/main', { body: { input: SECRET } })).json.data.hash);
      await sdk.audit.disable('second');
      assert.deepEqual(Object.keys(await sdk.audit.list()), ['main/']);
    } finally {
      await sdk.close();
    }

    const off = await cairn('audit', 'disable', 'main');
    assert.equal(off.stdout, 'Success! Disabled audit device (if it was enabled) at: main/\n');
    assert.equal((await cairn('audit', 'list')).stdout, 'No audit devices are enabled.\n');
  });
});
