/**
 * `cairn secrets server -config=FILE` with `storage "postgresql"`, end to end, as a real
 * child process against a throwaway PostgreSQL cluster (src/kernel/store/testdata/pg-cluster.ts,
 * or the database of `CAIRN_TEST_PG_URL`):
 *
 * - `connection_url = "env://VAR"` resolves from the server's environment; the table is
 *   created on first start;
 * - operator init and unseal over HTTP, a KV v2 mount and a secret written through it;
 * - `sys/seal-status` reports `storage_type: "postgresql"`;
 * - a stop (SIGTERM, exit 0) and a second server on the same table: it starts sealed and
 *   initialised, unseals with the same share, and reads the secret back;
 * - the raw table rows (read with `pg`, not through Cairn) never hold the secret's
 *   plaintext, the root token or the unseal key: only barrier ciphertext is stored;
 * - a `connection_url` to a closed port: exit 1 with one line naming `user@host:port/db`,
 *   never the password.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startPgTestServer, type PgTestServer } from '../../src/kernel/store/testdata/pg-cluster.js';
import { call } from '../helpers.js';
import { CAIRN_BIN } from '../bin.js';

const URL_VAR = 'CAIRN_E2E_SECRETS_PG_URL';
const dir = mkdtempSync(join(tmpdir(), 'cairn-server-pg-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function cairn(env: Record<string, string>, ...args: string[]): ChildProcess {
  return spawn(process.execPath, [CAIRN_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
}

/** Runs to the end; returns exit code and output. */
function runToExit(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

/** A running server: its first listener's URL, its stdout so far, and a SIGTERM stop that resolves to the exit code. */
interface Running {
  readonly child: ChildProcess;
  readonly url: string;
  readonly stdout: () => string;
  stop(): Promise<number | null>;
}

/** Starts the server and waits for its listener to log its URL (rejects with the log when it exits first). */
function startServer(config: string, env: Record<string, string>): Promise<Running> {
  const child = cairn(env, 'secrets', 'server', `-config=${config}`);
  let stdout = '';
  child.stdout!.on('data', (d) => (stdout += d));
  let log = '';
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return new Promise((resolve, reject) => {
    exited.then((code) => reject(new Error(`server exited with ${code}:\n${log}`)));
    createInterface({ input: child.stderr! }).on('line', (line) => {
      log += line + '\n';
      let entry: { msg?: string; url?: string } = {};
      try {
        entry = JSON.parse(line) as typeof entry;
      } catch {
        return; // not a log line
      }
      if (entry.msg === 'secrets service listening' && entry.url) {
        resolve({
          child,
          url: entry.url,
          stdout: () => stdout,
          stop: async () => {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
  });
}

/** A loopback port nobody listens on (taken and released again). */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Every row of `table`, read with `pg` directly. */
async function rawRows(url: string, table: string): Promise<{ key: string; value: Buffer }[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const res = await client.query<{ key: string; value: Buffer }>(`SELECT key, value FROM "${table}" ORDER BY key`);
    return res.rows;
  } finally {
    await client.end();
  }
}

/** Asserts that no row's key or value contains `needle` (as UTF-8, or as the base64/hex of its bytes where given). */
function assertNotStored(rows: { key: string; value: Buffer }[], needle: string, what: string): void {
  const forms = [Buffer.from(needle, 'utf8'), Buffer.from(Buffer.from(needle, 'utf8').toString('base64'), 'utf8')];
  for (const row of rows) {
    assert.ok(!row.key.includes(needle), `${what} appears in the key ${row.key}`);
    for (const form of forms) assert.equal(row.value.indexOf(form), -1, `${what} appears in the value of ${row.key}`);
  }
}

describe('cairn secrets server with storage "postgresql"', () => {
  const table = `cairn_e2e_${randomBytes(4).toString('hex')}`;
  const secret = `plaintext-${randomBytes(16).toString('hex')}`;
  let pgServer: PgTestServer;
  let config: string;
  let env: Record<string, string>;
  let running: Running | undefined;
  let rootToken = '';
  let unsealKey = '';

  before(async () => {
    pgServer = await startPgTestServer();
    env = { [URL_VAR]: pgServer.url };
    config = join(dir, 'secrets.hcl');
    writeFileSync(
      config,
      `storage "postgresql" {
  connection_url = "env://${URL_VAR}"
  table          = "${table}"
  max_parallel   = 4
}

listener "tcp" {
  address     = "127.0.0.1:0"
  tls_disable = true
}

log_level = "info"
`,
    );
  });

  after(async () => {
    if (running && running.child.exitCode === null && running.child.signalCode === null) {
      const exited = new Promise((r) => running!.child.once('exit', r));
      running.child.kill('SIGKILL');
      await exited;
    }
    if (pgServer) {
      if (!pgServer.throwaway) {
        const client = new pg.Client({ connectionString: pgServer.url });
        await client.connect();
        await client.query(`DROP TABLE IF EXISTS "${table}"`).finally(() => client.end());
      }
      await pgServer.stop();
    }
  });

  it('first start: creates the table, init and unseal over HTTP, seal status says postgresql, a KV v2 secret is written', async () => {
    running = await startServer(config, env);
    assert.match(running.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const banner = running.stdout();
    assert.match(banner, new RegExp(`storage postgresql postgres@127\\.0\\.0\\.1:\\d+/postgres table ${table}\\)`));
    const password = new URL(pgServer.url).password;
    if (password) assert.ok(!banner.includes(password), 'the banner holds the password');

    const url = running.url;
    let st = await call(url, 'GET', '/v1/sys/seal-status');
    assert.equal(st.status, 200, st.text);
    assert.equal(st.json.initialized, false);
    assert.equal(st.json.sealed, true);
    assert.equal(st.json.storage_type, 'postgresql');

    const init = await call(url, 'PUT', '/v1/sys/init', { body: { secret_shares: 1, secret_threshold: 1 } });
    assert.equal(init.status, 200, init.text);
    rootToken = init.json.root_token;
    unsealKey = init.json.keys[0];
    assert.ok(rootToken && unsealKey);

    const unseal = await call(url, 'PUT', '/v1/sys/unseal', { body: { key: unsealKey } });
    assert.equal(unseal.status, 200, unseal.text);
    assert.equal(unseal.json.sealed, false);
    st = await call(url, 'GET', '/v1/sys/seal-status');
    assert.deepEqual([st.json.initialized, st.json.sealed, st.json.storage_type], [true, false, 'postgresql']);

    const mount = await call(url, 'POST', '/v1/sys/mounts/secret', { token: rootToken, body: { type: 'kv-v2' } });
    assert.ok(mount.status === 200 || mount.status === 204, `mount: ${mount.status} ${mount.text}`);
    const write = await call(url, 'POST', '/v1/secret/data/app/db', { token: rootToken, body: { data: { password: secret } } });
    assert.equal(write.status, 200, write.text);
    assert.equal(write.json.data.version, 1);
    const read = await call(url, 'GET', '/v1/secret/data/app/db', { token: rootToken });
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.json.data.data, { password: secret });
  });

  it('the raw rows hold neither the plaintext, nor the root token, nor the unseal key (server running)', async () => {
    assert.ok(rootToken, 'needs the first test');
    const rows = await rawRows(pgServer.url, table);
    assert.ok(rows.length > 0, 'the table holds the data');
    assertNotStored(rows, secret, 'the secret plaintext');
    assertNotStored(rows, rootToken, 'the root token');
    assertNotStored(rows, unsealKey, 'the unseal key');
  });

  it('stops on SIGTERM with exit 0', async () => {
    assert.ok(running);
    assert.equal(await running.stop(), 0);
  });

  it('second start on the same table: sealed and initialised, unseals with the same share, reads the secret back', async () => {
    assert.ok(rootToken, 'needs the first test');
    running = await startServer(config, env);
    const url = running.url;
    let st = await call(url, 'GET', '/v1/sys/seal-status');
    assert.equal(st.status, 200, st.text);
    assert.deepEqual([st.json.initialized, st.json.sealed, st.json.storage_type], [true, true, 'postgresql']);
    const sealedRead = await call(url, 'GET', '/v1/secret/data/app/db', { token: rootToken });
    assert.equal(sealedRead.status, 503, sealedRead.text);

    const unseal = await call(url, 'PUT', '/v1/sys/unseal', { body: { key: unsealKey } });
    assert.equal(unseal.status, 200, unseal.text);
    assert.equal(unseal.json.sealed, false);
    st = await call(url, 'GET', '/v1/sys/seal-status');
    assert.deepEqual([st.json.sealed, st.json.storage_type], [false, 'postgresql']);

    const read = await call(url, 'GET', '/v1/secret/data/app/db', { token: rootToken });
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.json.data.data, { password: secret });
    assert.equal(read.json.data.metadata.version, 1);

    assert.equal(await running.stop(), 0);
  });

  it('the raw rows still hold neither the plaintext, nor the root token, nor the unseal key (after both runs)', async () => {
    assert.ok(rootToken, 'needs the first test');
    const rows = await rawRows(pgServer.url, table);
    assert.ok(rows.length > 0);
    assertNotStored(rows, secret, 'the secret plaintext');
    assertNotStored(rows, rootToken, 'the root token');
    assertNotStored(rows, unsealKey, 'the unseal key');
  });
});

describe('cairn secrets server with storage "postgresql" on a closed port', () => {
  it('exits 1 with one line naming user@host:port/database, never the password', async () => {
    const port = await closedPort();
    const password = `pw-${randomBytes(8).toString('hex')}`;
    const file = join(dir, 'closed.hcl');
    writeFileSync(
      file,
      `storage "postgresql" {\n  connection_url = "env://${URL_VAR}"\n}\n\nlistener "tcp" {\n  address     = "127.0.0.1:0"\n  tls_disable = true\n}\n`,
    );
    const r = await runToExit(cairn({ [URL_VAR]: `postgres://cairn:${password}@127.0.0.1:${port}/secrets` }, 'secrets', 'server', `-config=${file}`));
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, '');
    assert.ok(!r.stderr.includes(password), `the password leaked: ${r.stderr}`);
    // Besides the JSON log lines (the version line every server logs first), one error line.
    const lines = r.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('{'));
    assert.equal(lines.length, 1, r.stderr);
    assert.match(r.stderr, /"msg":"starting Cairn"/);
    assert.match(
      lines[0],
      new RegExp(`^Error: cannot open storage "postgresql": PostgreSQL cairn@127\\.0\\.0\\.1:${port}/secrets: cannot connect: .*ECONNREFUSED`),
    );
  });
});
