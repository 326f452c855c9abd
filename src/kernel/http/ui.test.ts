/**
 * The web UI on a listener (ui.ts, ui-files.ts): files with their content type, the strict
 * CSP and caching headers; client routes answered with index.html; a missing asset 404;
 * paths leaving the UI folder refused; `/ui/config.json` naming the sections; the proxy to
 * another service's listener; other paths left to the service.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { silentLogger } from '../log/logger.js';
import type { CairnError } from './errors.js';
import { listen, type HttpService, type Listener } from './server.js';
import { withUi } from './ui.js';
import { UI_CSP } from './ui-files.js';

/** A service answering `<name> <method> <path> <token header>` for every request. */
function echo(name: string): HttpService {
  return {
    handle: async (req) => ({
      status: 200,
      headers: { 'Content-Type': 'text/plain', 'X-Mesh-Index': '7', 'Set-Cookie': 'no=1' },
      body: `${name} ${req.method} ${req.path}?${req.query} ${String(req.headers['x-mesh-token'])} ${req.body.toString()}${req.headers['x-secrets-token'] === undefined ? '' : ' SECRETS-TOKEN-SENT'}`,
    }),
    renderError: (err: CairnError) => ({ status: err.status, body: JSON.stringify({ errors: err.messages }) }),
  };
}

/** GET `path` sent as written (fetch would fold `..` before sending). */
function rawGet(url: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { path }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the web UI on a listener', () => {
  let ui: Listener;
  let mesh: Listener;
  /** Everything the UI listener logged, at trace level. */
  let logged = '';
  before(async () => {
    const root = mkdtempSync(join(tmpdir(), 'cairn-ui-'));
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'index.html'), '<!doctype html><title>Cairn</title>');
    writeFileSync(join(root, 'assets', 'index-abc123.js'), 'console.log(1)');
    writeFileSync(join(root, 'assets', 'index-abc123.css'), 'body{}');
    writeFileSync(join(root, '..', 'secret-beside-ui.txt'), 'not for the web');
    mesh = await listen({ address: '127.0.0.1:0' }, echo('mesh'), silentLogger());
    const address = new URL(mesh.url).host;
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        logged += chunk.toString();
        done();
      },
    });
    // sched: a configured address where nothing listens (a port just freed).
    const gone = await listen({ address: '127.0.0.1:0' }, echo('gone'), silentLogger());
    const goneAddress = new URL(gone.url).host;
    await gone.close();
    ui = await listen(
      { address: '127.0.0.1:0', maxRequestBytes: 1024 },
      withUi(echo('secrets'), { self: 'secrets', root, others: () => ({ mesh: address, sched: goneAddress }) }),
      pino({ level: 'trace' }, sink),
    );
  });
  after(async () => {
    await ui.close();
    await mesh.close();
  });

  it('serves index.html at /ui/ with the strict CSP, never cached', async () => {
    const res = await fetch(`${ui.url}/ui/`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(res.headers.get('content-security-policy'), UI_CSP);
    assert.match(UI_CSP, /script-src 'self'(;|$)/);
    assert.doesNotMatch(UI_CSP, /unsafe-inline|unsafe-eval/);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    assert.match(await res.text(), /<title>Cairn/);
  });

  it('serves hashed assets with their type, cached for good', async () => {
    const js = await fetch(`${ui.url}/ui/assets/index-abc123.js`);
    assert.equal(js.status, 200);
    assert.equal(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(js.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(await js.text(), 'console.log(1)');
    const css = await fetch(`${ui.url}/ui/assets/index-abc123.css`);
    assert.equal(css.headers.get('content-type'), 'text/css; charset=utf-8');
  });

  it('answers client routes with index.html, and a missing asset with 404', async () => {
    const route = await fetch(`${ui.url}/ui/secrets/kv/secret/app/db`);
    assert.equal(route.status, 200);
    assert.match(await route.text(), /<title>Cairn/);
    const missing = await fetch(`${ui.url}/ui/assets/gone-123.js`);
    assert.equal(missing.status, 404);
    assert.equal((await fetch(`${ui.url}/ui/robots.txt`)).status, 404);
  });

  it('refuses paths that leave the UI folder or name dot files', async () => {
    for (const path of [
      '/ui/../secret-beside-ui.txt',
      '/ui/%2e%2e/secret-beside-ui.txt',
      '/ui/assets/..%2f..%2fsecret-beside-ui.txt',
      '/ui/..%5csecret-beside-ui.txt',
      '/ui/.env',
    ]) {
      const res = await rawGet(ui.url, path);
      assert.equal(res.status, 400, path);
      assert.doesNotMatch(res.body, /not for the web/, path);
    }
  });

  it('answers only GET and HEAD for UI files; /ui redirects to /ui/', async () => {
    assert.equal((await fetch(`${ui.url}/ui/`, { method: 'POST' })).status, 405);
    const head = await fetch(`${ui.url}/ui/assets/index-abc123.js`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    const bare = await fetch(`${ui.url}/ui`, { redirect: 'manual' });
    assert.equal(bare.status, 301);
    assert.equal(bare.headers.get('location'), '/ui/');
  });

  it('names this service and the proxied ones in /ui/config.json', async () => {
    const res = await fetch(`${ui.url}/ui/config.json`);
    assert.deepEqual(await res.json(), { sections: { secrets: '', mesh: '/ui/proxy/mesh', sched: '/ui/proxy/sched' } });
    assert.equal(res.headers.get('content-security-policy'), UI_CSP);
  });

  it("reads the gateway's metrics from its ops listener only when gateway_ops is configured, passing on nothing of the request", async () => {
    const withOps = await listen(
      { address: '127.0.0.1:0' },
      withUi(echo('secrets'), { self: 'secrets', root: mkdtempSync(join(tmpdir(), 'cairn-ui-')), others: () => ({ gateway_ops: new URL(mesh.url).host }) }),
      silentLogger(),
    );
    try {
      assert.deepEqual(await (await fetch(`${withOps.url}/ui/config.json`)).json(), { sections: { secrets: '' }, gatewayMetrics: '/ui/gateway/metrics' });
      const res = await fetch(`${withOps.url}/ui/gateway/metrics?x=1`, {
        headers: { 'X-Mesh-Token': 'tok', 'X-Secrets-Token': 's', Authorization: 'Bearer b' },
      });
      assert.equal(res.status, 200);
      assert.equal(await res.text(), 'mesh GET /metrics? undefined ');
      assert.equal(res.headers.get('x-mesh-index'), null);
      assert.equal((await fetch(`${withOps.url}/ui/gateway/metrics`, { method: 'POST' })).status, 405);
    } finally {
      await withOps.close();
    }
    const absent = await fetch(`${ui.url}/ui/gateway/metrics`);
    assert.equal(absent.status, 404);
    assert.deepEqual(await absent.json(), { errors: ["the gateway's metrics are not reachable through this UI (ui_services { gateway_ops })"] });
  });

  it('proxies /ui/proxy/<section>/… to that service with its token, method, query and body', async () => {
    const res = await fetch(`${ui.url}/ui/proxy/mesh/v1/kv/a%20b?index=3`, {
      method: 'PUT',
      headers: { 'X-Mesh-Token': 'tok', 'Content-Type': 'application/json' },
      body: '{"x":1}',
    });
    assert.equal(res.status, 200);
    assert.equal(await res.text(), 'mesh PUT /v1/kv/a b?index=3 tok {"x":1}');
    assert.equal(res.headers.get('x-mesh-index'), '7');
    // Only the services' own headers come back.
    assert.equal(res.headers.get('set-cookie'), null);
    const unknown = await fetch(`${ui.url}/ui/proxy/gateway/v1/workers`);
    assert.equal(unknown.status, 404);
    assert.deepEqual(await unknown.json(), { errors: ['no service "gateway" is reachable through this UI'] });
    for (const name of ['constructor', '__proto__', 'toString', 'secrets']) {
      assert.equal((await fetch(`${ui.url}/ui/proxy/${name}/v1/x`)).status, 404, name);
    }
  });

  it("proxies only the service's API (/v1/…) and only its own headers", async () => {
    for (const path of ['/ui/proxy/mesh', '/ui/proxy/mesh/', '/ui/proxy/mesh/ui/', '/ui/proxy/mesh/metrics', '/ui/proxy/mesh/v1']) {
      const res = await fetch(`${ui.url}${path}`, { headers: { 'X-Mesh-Token': 'tok' } });
      assert.equal(res.status, 404, path);
      assert.deepEqual(await res.json(), { errors: ["only the mesh service's API (/v1/…) is reachable through this UI"] }, path);
    }
    // Another service's token header is not passed on.
    const res = await fetch(`${ui.url}/ui/proxy/mesh/v1/agent/self`, { headers: { 'X-Mesh-Token': 'tok', 'X-Secrets-Token': 'secrets-tok' } });
    assert.equal(await res.text(), 'mesh GET /v1/agent/self? tok ');
  });

  it("bounds request bodies by the listener's limit, answers 502 for an unreachable service, and logs no token", async () => {
    const big = await fetch(`${ui.url}/ui/proxy/mesh/v1/kv/big`, { method: 'PUT', headers: { 'X-Mesh-Token': 'proxy-token-1' }, body: 'x'.repeat(2048) });
    assert.equal(big.status, 413);
    const down = await fetch(`${ui.url}/ui/proxy/sched/v1/jobs?prefix=a`, { headers: { 'X-Sched-Token': 'proxy-token-2' } });
    assert.equal(down.status, 502);
    assert.match(((await down.json()) as { errors: string[] }).errors[0], /^the sched service cannot be reached: rpc error making call: ECONNREFUSED/);
    await fetch(`${ui.url}/ui/proxy/mesh/v1/kv/x`, { headers: { 'X-Mesh-Token': 'proxy-token-3', Authorization: 'Bearer proxy-token-4' } });
    assert.doesNotMatch(logged, /proxy-token-\d/);
  });

  it('leaves every other path to the service', async () => {
    const res = await fetch(`${ui.url}/v1/sys/health`);
    assert.equal(await res.text(), 'secrets GET /v1/sys/health? undefined ');
    assert.equal(res.headers.get('content-security-policy'), null);
  });
});
