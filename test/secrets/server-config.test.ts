/**
 * `cairn secrets server -config=FILE` as a real child process: two listeners from one
 * HCL file (plain with `require_request_header`, and TLS with a certificate made here by
 * openssl), clients that verify and that skip verification, and a bad file that exits 2
 * naming file, line and key.
 *
 * The server starts sealed and uninitialised (no token exists yet), so the assertions use
 * answers that need no token: 412 proves the header check, the unauthenticated
 * `sys/seal-status` proves a request reached the service.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { Agent, request } from 'undici';
import { selfSignedCert } from '../../src/kernel/http/testdata/self-signed.js';
import { call } from '../helpers.js';
import { CAIRN_BIN } from '../bin.js';

const dir = mkdtempSync(join(tmpdir(), 'cairn-server-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function cairn(...args: string[]): ChildProcess {
  return spawn(process.execPath, [CAIRN_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Runs to the end; returns exit code and output. */
function runToExit(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

/** Reads the pino log on stderr until `count` listeners have logged their URL. */
function listenerUrls(child: ChildProcess, count: number): Promise<string[]> {
  const urls: string[] = [];
  let log = '';
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${log}`)));
    createInterface({ input: child.stderr! }).on('line', (line) => {
      log += line + '\n';
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === 'secrets service listening' && entry.url) urls.push(entry.url);
      } catch {
        // not a log line
      }
      if (urls.length === count) resolve(urls);
    });
  });
}

/** A GET with two `X-Secrets-Request` header lines (fetch would fold them into one). */
function getWithTwoHeaders(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.setHeader('X-Secrets-Request', ['true', 'true']);
    req.on('error', reject);
    req.end();
  });
}

describe('cairn secrets server -config', () => {
  let child: ChildProcess;
  let plainUrl: string;
  let tlsUrl: string;
  let ca: string;

  before(async () => {
    const cert = join(dir, 'tls.crt');
    const key = join(dir, 'tls.key');
    const tls = selfSignedCert();
    writeFileSync(key, tls.key);
    writeFileSync(cert, tls.cert);
    ca = tls.cert;
    const config = join(dir, 'secrets.hcl');
    writeFileSync(
      config,
      `# two listeners on free ports
storage "sqlite" {
  path = "${join(dir, 'data', 'secrets.db')}"
}

listener "tcp" {
  address                = "127.0.0.1:0"
  tls_disable            = true
  require_request_header = true
}

listener "tcp" {
  address       = "127.0.0.1:0"
  tls_cert_file = "${cert}"
  tls_key_file  = "${key}"
}

log_level = "info"
`,
    );
    child = cairn('secrets', 'server', `-config=${config}`);
    [plainUrl, tlsUrl] = await listenerUrls(child, 2);
  });

  after(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
  });

  it('logs one URL per listener, plain and TLS', () => {
    assert.match(plainUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.match(tlsUrl, /^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('require_request_header: 412 without exactly one X-Secrets-Request: true, passes with it', async () => {
    const missing = await call(plainUrl, 'GET', '/v1/sys/seal-status');
    assert.equal(missing.status, 412);
    assert.deepEqual(missing.json, { errors: ['missing "X-Secrets-Request" header'] });
    const wrong = await call(plainUrl, 'GET', '/v1/secret/data/x', { headers: { 'X-Secrets-Request': 'false' } });
    assert.equal(wrong.status, 412);
    const twice = await getWithTwoHeaders(`${plainUrl}/v1/sys/seal-status`);
    assert.equal(twice.status, 412);
    assert.deepEqual(JSON.parse(twice.body), { errors: ['missing "X-Secrets-Request" header'] });

    const ok = await call(plainUrl, 'GET', '/v1/sys/seal-status', { headers: { 'X-Secrets-Request': 'true' } });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.json.sealed, true);
    // A logical path reaches the service too: refused for lack of a token or while sealed, never 412.
    const logical = await call(plainUrl, 'GET', '/v1/secret/data/x', { headers: { 'X-Secrets-Request': 'true' } });
    assert.ok([403, 503].includes(logical.status), `status ${logical.status}`);
    assert.ok(Array.isArray(logical.json.errors));
  });

  it('TLS listener: a client trusting the CA and a skip-verify client get through; others fail verification', async () => {
    const verifying = new Agent({ connect: { ca } });
    const skipping = new Agent({ connect: { rejectUnauthorized: false } });
    const plainAgent = new Agent();
    try {
      for (const dispatcher of [verifying, skipping]) {
        const res = await request(`${tlsUrl}/v1/sys/seal-status`, { dispatcher });
        assert.equal(res.statusCode, 200);
        const body = (await res.body.json()) as { sealed: boolean };
        assert.equal(body.sealed, true);
      }
      // No require_request_header on this listener.
      const logical = await request(`${tlsUrl}/v1/secret/data/x`, { dispatcher: verifying });
      assert.notEqual(logical.statusCode, 412);
      await logical.body.dump();
      await assert.rejects(request(`${tlsUrl}/v1/sys/seal-status`, { dispatcher: plainAgent }), (err: NodeJS.ErrnoException) => {
        assert.match(String(err.code), /SELF_SIGNED|UNABLE_TO_VERIFY|CERT/);
        return true;
      });
    } finally {
      await Promise.all([verifying.close(), skipping.close(), plainAgent.close()]);
    }
  });

  it('stops cleanly on SIGTERM', async () => {
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
  });
});

describe('cairn secrets server with a bad config file', () => {
  it('exits 2 with one line naming file, line and key', async () => {
    const file = join(dir, 'bad.hcl');
    writeFileSync(file, `storage "sqlite" {\n  path = "${join(dir, 'bad.db')}"\n}\n\nlistener "tcp" {\n  tls_disable = true\n  adress = "127.0.0.1:0"\n}\n`);
    const r = await runToExit(cairn('secrets', 'server', `-config=${file}`));
    assert.equal(r.code, 2);
    assert.equal(r.stderr, `Error: ${file}:7: unknown key "adress" in listener "tcp"\n`);
  });

  it('exits 2 on a wrong type and on a missing file', async () => {
    const file = join(dir, 'wrong.hcl');
    writeFileSync(file, `storage "sqlite" { path = "${join(dir, 'w.db')}" }\nlistener "tcp" {\n  tls_disable = "sometimes"\n}\n`);
    const r = await runToExit(cairn('secrets', 'server', `-config=${file}`));
    assert.equal(r.code, 2);
    assert.equal(r.stderr, `Error: ${file}:3: "tls_disable" must be a boolean\n`);
    const missing = await runToExit(cairn('secrets', 'server', `-config=${join(dir, 'none.hcl')}`));
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /none\.hcl: cannot read the configuration file: no such file/);
  });
});
