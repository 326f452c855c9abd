/**
 * The HTTP conventions of spec 000 over real sockets: LIST on the wire and on a reused
 * keep-alive socket, body limits, errors, tokens, periods, help, TLS.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { selfSignedCert } from '../../src/kernel/http/testdata/self-signed.js';
import { call, startTestServer, type TestServer } from '../helpers.js';

const run = promisify(execFile);
let s: TestServer;
before(async () => (s = await startTestServer({ listener: { maxRequestBytes: 0 } })));
after(() => s.close());

/** Sends raw bytes on one socket and collects the text until `count` responses arrived or the socket closed. */
function raw(port: number, bytes: string, count: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1');
    let out = '';
    const done = () => {
      sock.destroy();
      resolve(out);
    };
    sock.on('data', (d) => {
      out += d.toString();
      if ((out.match(/HTTP\/1\.1 \d{3}/g) ?? []).length >= count && /\}\s*$|\r\n\r\n$/.test(out)) setTimeout(done, 50);
    });
    sock.on('end', done);
    sock.on('error', reject);
    sock.write(bytes);
  });
}

const port = () => Number(new URL(s.url).port);

describe('the LIST method', () => {
  it('works from curl', async () => {
    const put = await s.call('POST', '/v1/secret/data/curl/a', { body: { data: { x: 1 } } });
    assert.equal(put.status, 200, put.text);
    // curl is installed by .ci/run: a curl that cannot run or connect fails the test, never skips it.
    // Async: the server runs in this process, a sync child would block it.
    const { stdout } = await run('curl', [
      '-sS',
      '-X',
      'LIST',
      '-H',
      `X-Secrets-Token: ${s.rootToken}`,
      '-w',
      '\n%{http_code}',
      `${s.url}/v1/secret/metadata/curl/`,
    ]);
    const status = stdout.slice(stdout.lastIndexOf('\n') + 1);
    assert.equal(status, '200', stdout);
    assert.deepEqual(JSON.parse(stdout.slice(0, stdout.lastIndexOf('\n'))).data.keys, ['a']);
  });

  it('mixes with POSTs (Content-Length and chunked) on one keep-alive socket', async () => {
    const tok = `X-Secrets-Token: ${s.rootToken}\r\n`;
    const body = JSON.stringify({ data: { note: '\r\n\r\nLIST /v1/evil HTTP/1.1\r\n\r\n' } });
    const chunked = JSON.stringify({ data: { k: 'LIST' } });
    const bytes =
      `POST /v1/secret/data/pipe/one HTTP/1.1\r\nHost: x\r\n${tok}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}` +
      `LIST /v1/secret/metadata/pipe/ HTTP/1.1\r\nHost: x\r\n${tok}\r\n` +
      `PUT /v1/secret/data/pipe/two HTTP/1.1\r\nHost: x\r\n${tok}Transfer-Encoding: chunked\r\n\r\n${chunked.length.toString(16)}\r\n${chunked}\r\n0\r\n\r\n` +
      `GET /v1/secret/metadata/pipe/?list=true HTTP/1.1\r\nHost: x\r\n${tok}\r\n` +
      `LIST /v1/secret/metadata/pipe HTTP/1.1\r\nHost: x\r\n${tok}Connection: close\r\n\r\n`;
    const out = await raw(port(), bytes, 5);
    const statuses = [...out.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => m[1]);
    assert.deepEqual(statuses, ['200', '200', '200', '200', '200']);
    const bodies = [...out.matchAll(/\{"request_id".*?"mount_type":"kv"\}/g)].map((m) => JSON.parse(m[0]));
    assert.deepEqual(bodies[1].data.keys, ['one']);
    assert.deepEqual(bodies[3].data.keys, ['one', 'two']);
    assert.deepEqual(bodies[4].data.keys, ['one', 'two']);
    assert.equal((await s.call('GET', '/v1/secret/data/pipe/one')).json.data.data.note, '\r\n\r\nLIST /v1/evil HTTP/1.1\r\n\r\n');
  });
});

describe('errors', () => {
  it('413 for a 33 MiB body, and nothing is written', async () => {
    const big = JSON.stringify({ data: { blob: 'x'.repeat(33 * 1024 * 1024) } });
    const r = await s.call('POST', '/v1/secret/data/huge', { body: big });
    assert.equal(r.status, 413);
    assert.deepEqual(r.json, { errors: ['http: request body too large'] });
    assert.equal((await s.call('GET', '/v1/secret/metadata/huge')).status, 404);
  });

  it('400 naming the problem for malformed JSON', async () => {
    const r = await s.call('POST', '/v1/secret/data/bad', { body: '{"data": {' });
    assert.equal(r.status, 400);
    assert.match(r.json.errors[0], /^failed to parse JSON input: /);
    assert.equal((await s.call('GET', '/v1/secret/metadata/bad')).status, 404);
  });

  it('403 permission denied without a token, with an unknown one, and for Bearer', async () => {
    assert.deepEqual((await s.call('GET', '/v1/secret/data/x', { token: null })).json, { errors: ['permission denied'] });
    const bad = await s.call('GET', '/v1/secret/data/x', { token: 'cs.nope' });
    assert.equal(bad.status, 403);
    assert.deepEqual(bad.json, { errors: ['permission denied'] });
    const bearer = await call(s.url, 'GET', '/v1/sys/mounts', { headers: { Authorization: `Bearer ${s.rootToken}` } });
    assert.equal(bearer.status, 200);
  });

  it('404 for a path parameter ending in a period, unknown mounts and non-/v1 paths', async () => {
    const dot = await s.call('POST', '/v1/secret/data/name.', { body: { data: { a: 1 } } });
    assert.equal(dot.status, 404);
    assert.match(dot.json.errors[0], /unsupported path/);
    assert.equal((await s.call('GET', '/v1/secret/metadata/name.')).status, 404);
    const mount = await s.call('GET', '/v1/nowhere/x');
    assert.equal(mount.status, 404);
    assert.deepEqual(mount.json.errors, ['no handler for route "nowhere/x". route entry not found.']);
    assert.deepEqual((await s.call('GET', '/v2/secret/data/x')).json, { errors: [] });
    assert.equal((await s.call('GET', '/v1/secret//data/x')).status, 404);
  });

  it('405 for a method the path does not support, and for unknown methods', async () => {
    const r = await s.call('GET', '/v1/secret/delete/x');
    assert.equal(r.status, 405);
    assert.deepEqual(r.json, { errors: ['unsupported operation'] });
    assert.equal((await s.call('DELETE', '/v1/secret/config')).status, 405);
    const out = await raw(port(), `PROPFIND /v1/secret/data/x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, 1);
    assert.match(out, /^HTTP\/1\.1 405/);
  });

  it('ignores unknown fields with a warning (clients that send URL params in the body)', async () => {
    const r = await s.call('POST', '/v1/secret/data/warn', { body: { data: { a: 1 }, mount_point: 'secret', name: 'warn' } });
    assert.equal(r.status, 200);
    assert.deepEqual(r.json.warnings, ['Endpoint ignored these unrecognized parameters: [mount_point name]']);
  });

  it('treats JSON null as unset (hvac sends null for unset options)', async () => {
    const r = await s.call('POST', '/v1/secret/data/nulls', { body: { data: { a: 1 }, options: null } });
    assert.equal(r.status, 200);
  });
});

describe('help', () => {
  it('documents a mount and every path beneath it', async () => {
    const r = await s.call('GET', '/v1/secret/?help=1');
    assert.equal(r.status, 200);
    assert.match(r.json.help, /## PATHS/);
    assert.equal(r.json.openapi.openapi, '3.0.2');
    for (const p of ['/config', '/data/{path}', '/metadata/{path}', '/metadata/{path}/', '/destroy/{path}']) assert.ok(p in r.json.openapi.paths, p);
    assert.deepEqual(Object.keys(r.json.openapi.paths['/data/{path}']).sort(), ['delete', 'description', 'get', 'parameters', 'patch', 'post']);
  });

  it('documents a subpath relative to itself', async () => {
    const r = await s.call('GET', '/v1/secret/data/app/db?help=1');
    assert.equal(r.status, 200);
    assert.match(r.json.help, /Matching Route: data\/:path\+/);
    assert.deepEqual(Object.keys(r.json.openapi.paths), ['/']);
    const props = r.json.openapi.paths['/'].post.requestBody.content['application/json'].schema.properties;
    assert.ok(props.data && props.options);
    const family = await s.call('GET', '/v1/secret/metadata?help=1');
    assert.match(family.json.help, /Matching Route: metadata\/:path\*/);
    assert.ok(family.json.openapi.paths['/'].get, 'the family path itself, its param bound to the empty key');
    assert.ok(family.json.openapi.paths['/'].get, 'and its LIST form');
    const sys = await s.call('GET', '/v1/sys/mounts/secret?help=1');
    assert.ok(sys.json.openapi.paths['/tune'], 'paths beneath the queried one, relative to it');
  });

  it('needs a valid token', async () => {
    assert.equal((await s.call('GET', '/v1/secret/?help=1', { token: null })).status, 403);
  });
});

describe('storage', () => {
  it('keeps tokens hashed: the SQLite file holds no token in clear', async () => {
    const created = await s.call('POST', '/v1/auth/token/create', { body: { policies: ['default'] } });
    const token: string = created.json.auth.client_token;
    const db = new Database(s.dbPath, { readonly: true });
    const rows = db.prepare('SELECT k, v FROM kv').all() as { k: string; v: Buffer }[];
    db.close();
    assert.ok(rows.length > 0);
    for (const { k, v } of rows) {
      assert.ok(!k.includes(token) && !k.includes(s.rootToken));
      assert.ok(!Buffer.from(v).includes(token) && !Buffer.from(v).includes(s.rootToken));
    }
  });
});

describe('listener options', () => {
  it('honours max_request_size per listener', async () => {
    const small = await startTestServer({ listener: { maxRequestBytes: 1024 } });
    try {
      const r = await small.call('POST', '/v1/secret/data/x', { body: { data: { blob: 'x'.repeat(2000) } } });
      assert.equal(r.status, 413);
      assert.equal((await small.call('POST', '/v1/secret/data/x', { body: { data: { a: 1 } } })).status, 200);
    } finally {
      await small.close();
    }
  });

  it('serves TLS with a certificate and key', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-tls-'));
    try {
      const { key, cert } = selfSignedCert();
      writeFileSync(join(dir, 'key.pem'), key);
      writeFileSync(join(dir, 'cert.pem'), cert);
    } catch {
      t.skip('openssl not installed');
      return;
    }
    const tls = await startTestServer({ listener: { tls: { certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem') } } });
    try {
      assert.match(tls.url, /^https:/);
      const out = (await run('curl', ['-s', '--cacert', join(dir, 'cert.pem'), '-H', `X-Secrets-Token: ${tls.rootToken}`, `${tls.url}/v1/sys/mounts`])).stdout;
      assert.ok(JSON.parse(out).data['secret/']);
    } finally {
      await tls.close();
    }
  });
});
