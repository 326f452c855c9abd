/**
 * Response wrapping from the CLI (issue 17 scope 2), through the built `bin/cairn.js`
 * (dist/) as a user runs it: `-wrap-ttl` on `read`, `write` and `kv get` prints only the
 * wrap info (`wrapping_token:`, …, as the reference CLI), and `cairn unwrap [TOKEN]`
 * prints the response once.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers.js';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'cairn.js');
let s: TestServer;
let home: string;
before(async () => {
  s = await startTestServer();
  home = mkdtempSync(join(tmpdir(), 'cairn-cli-wrap-'));
  assert.equal((await s.call('POST', '/v1/secret/data/app/db', { body: { data: { password: 'hunter2' } } })).status, 200);
});
after(async () => {
  await s.close();
  rmSync(home, { recursive: true, force: true });
});

/** Runs the built `cairn` with the server's address and `token` (default root). */
function cairn(args: string[], token = s.rootToken): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: process.env.PATH ?? '', HOME: home, SECRETS_ADDR: s.url, SECRETS_TOKEN: token };
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code: code ?? -1, stdout, stderr })));
}

/** The value of `key` in a Key/Value table. */
function row(table: string, key: string): string | undefined {
  const line = table.split('\n').find((l) => l.startsWith(key + ' ') || l === key);
  return line?.slice(key.length).trim();
}

describe('cairn -wrap-ttl and cairn unwrap (built bin)', () => {
  it('read -wrap-ttl prints only the wrap info; unwrap TOKEN prints the secret once', async () => {
    const r = await cairn(['read', '-wrap-ttl=5m', 'secret/data/app/db']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!r.stdout.includes('hunter2'), r.stdout);
    const token = row(r.stdout, 'wrapping_token:');
    assert.match(token ?? '', /^cs\./, r.stdout);
    assert.match(row(r.stdout, 'wrapping_accessor:') ?? '', /^[A-Za-z0-9]{24}$/);
    assert.equal(row(r.stdout, 'wrapping_token_ttl:'), '5m');
    assert.equal(row(r.stdout, 'wrapping_token_creation_path:'), 'secret/data/app/db');

    const u = await cairn(['unwrap', '-format=json', token!]);
    assert.equal(u.code, 0, u.stderr);
    assert.deepEqual(JSON.parse(u.stdout).data.data, { password: 'hunter2' });
    const again = await cairn(['unwrap', token!]);
    assert.equal(again.code, 1, again.stdout);
    assert.match(again.stderr, /wrapping token is not valid or does not exist/);
  });

  it('kv get -wrap-ttl -field=wrapping_token prints the token; unwrap with it as the current token', async () => {
    const r = await cairn(['kv', 'get', '-wrap-ttl=90', '-field=wrapping_token', 'secret/app/db']);
    assert.equal(r.code, 0, r.stderr);
    const token = r.stdout.trim();
    assert.match(token, /^cs\.[A-Za-z0-9]{24}$/);
    const u = await cairn(['unwrap', '-field=data'], token);
    assert.equal(u.code, 0, u.stderr);
    assert.deepEqual(JSON.parse(u.stdout), { password: 'hunter2' }, 'the KV v2 data of the unwrapped envelope');
  });

  it('write -wrap-ttl wraps a token-creating response and shows wrapped_accessor', async () => {
    const r = await cairn(['write', '-wrap-ttl=1m', 'auth/token/create', 'policies=default']);
    assert.equal(r.code, 0, r.stderr);
    const accessor = row(r.stdout, 'wrapped_accessor:');
    assert.match(accessor ?? '', /^[A-Za-z0-9]{24}$/, r.stdout);
    const u = await cairn(['unwrap', '-format=json', row(r.stdout, 'wrapping_token:')!]);
    assert.equal(JSON.parse(u.stdout).auth.accessor, accessor);
  });

  it('a negative -wrap-ttl is refused by the server naming the header', async () => {
    const r = await cairn(['read', '-wrap-ttl=-1m', 'secret/data/app/db']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /error parsing X-Secrets-Wrap-TTL header: requested wrap ttl cannot be negative/);
  });
});
