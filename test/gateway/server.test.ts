/**
 * `cairn gateway server -config=FILE` as real child processes on port 0 (URLs read from
 * the pino log): `/health` on the ops listener of a controller, no ops server without an
 * ops listener, the worker's upstream state through `/health?worker_info=1` across a
 * controller restart, the graceful shutdown wait (503, other requests still served, exit
 * after the wait), an immediate exit by default, and config errors (exit 2, one line).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, it } from 'node:test';
import { CAIRN_BIN } from '../bin.js';

const dir = mkdtempSync(join(tmpdir(), 'cairn-gateway-'));
const children: ChildProcess[] = [];
after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

interface Running {
  child: ChildProcess;
  urls: Record<string, string>;
  exited: Promise<number | null>;
}

/** Starts the gateway on `config` text and waits until `count` listeners have logged their URL. */
async function gateway(name: string, config: string, count: number): Promise<Running> {
  const file = join(dir, `${name}.hcl`);
  writeFileSync(file, config);
  const child = spawn(process.execPath, [CAIRN_BIN, 'gateway', 'server', `-config=${file}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, CAIRN_GATEWAY_STATUS_INTERVAL_MS: '200', GW_TOKEN: 'grace-token' },
  });
  children.push(child);
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const urls: Record<string, string> = {};
  let log = '';
  await new Promise<void>((resolve, reject) => {
    let n = 0;
    void exited.then((code) => reject(new Error(`gateway exited with ${code}:\n${log}`)));
    createInterface({ input: child.stderr! }).on('line', (line) => {
      log += `${line}\n`;
      try {
        const e = JSON.parse(line) as { msg?: string; purpose?: string; url?: string };
        if (e.msg === 'gateway listening' && e.purpose && e.url) {
          urls[e.purpose] = e.url;
          if (++n === count) resolve();
        }
      } catch {
        // not a log line
      }
    });
  });
  return { child, urls, exited };
}

async function get(url: string): Promise<{ status: number; body: string }> {
  const r = await fetch(url, { signal: AbortSignal.timeout(5000) });
  return { status: r.status, body: await r.text() };
}

async function waitFor<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 30_000): Promise<T[]> {
  const seen: T[] = [];
  const end = performance.now() + ms;
  for (;;) {
    const v = await read();
    if (JSON.stringify(seen.at(-1)) !== JSON.stringify(v)) seen.push(v);
    if (ok(v)) return seen;
    if (performance.now() > end) assert.fail(`not met within ${ms} ms; seen: ${JSON.stringify(seen)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const listener = (purpose: string, address = '127.0.0.1:0') =>
  `listener "tcp" {\n  purpose = "${purpose}"\n  address = "${address}"\n  tls_disable = true\n}\n`;
const controller = (extra = '') => `controller {\n  name = "c1"\n${extra}}\n`;

// Generous bounds: each test starts one to three processes, and on a loaded 2-core CI
// machine takes seconds each; the bounds only decide how long a real failure takes to show.
describe('cairn gateway server', { timeout: 300_000 }, () => {
  it('controller: GET /health on the ops listener is 200 {}; unknown paths 404; SIGTERM exits at once by default', { timeout: 60_000 }, async () => {
    const g = await gateway('ctl', controller() + listener('api') + listener('cluster') + listener('ops'), 3);
    assert.match(g.urls.ops, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.deepEqual(await get(`${g.urls.ops}/health`), { status: 200, body: '{}' });
    assert.deepEqual(await get(`${g.urls.ops}/health?worker_info=1`), { status: 200, body: '{}' });
    assert.equal((await get(`${g.urls.ops}/v1/nope`)).status, 404);
    assert.equal((await get(`${g.urls.api}/health`)).status, 404, 'not on the api listener');
    const t0 = performance.now();
    g.child.kill('SIGTERM');
    assert.equal(await g.exited, 0);
    assert.ok(performance.now() - t0 < 5000, 'no wait without graceful_shutdown_wait_duration');
  });

  it('no ops listener: no ops server; controller without api listener: /health is 404', { timeout: 120_000 }, async () => {
    const g = await gateway('noops', controller() + listener('api') + listener('cluster'), 2);
    assert.deepEqual(Object.keys(g.urls).sort(), ['api', 'cluster']);
    g.child.kill('SIGTERM');
    assert.equal(await g.exited, 0);
    const h = await gateway('noapi', controller() + listener('cluster') + listener('ops'), 2);
    assert.equal((await get(`${h.urls.ops}/health`)).status, 404);
    h.child.kill('SIGTERM');
    assert.equal(await h.exited, 0);
  });

  it('worker: upstream READY with a controller, not READY while it is gone, READY when it returns on the same port', { timeout: 90_000 }, async () => {
    let ctl = await gateway('up-ctl', controller() + listener('cluster'), 1);
    const cluster = ctl.urls.cluster;
    const w = await gateway('up-w', `worker {\n  name = "w1"\n  initial_upstreams = ["${cluster}"]\n}\n${listener('ops')}`, 1);
    const info = async () => {
      const r = await get(`${w.urls.ops}/health?worker_info=1`);
      assert.equal(r.status, 200, 'a worker-only process always answers 200');
      return (JSON.parse(r.body) as { worker_process_info: { state: string; upstream_connection_state: string } }).worker_process_info;
    };
    await waitFor(info, (i) => i.upstream_connection_state === 'READY');
    assert.deepEqual(await info(), { state: 'active', active_session_count: 0, upstream_connection_state: 'READY' });
    assert.deepEqual(await get(`${w.urls.ops}/health`), { status: 200, body: '{}' });

    ctl.child.kill('SIGKILL');
    await ctl.exited;
    const seen = await waitFor(info, (i) => i.upstream_connection_state === 'TRANSIENT_FAILURE');
    assert.ok(
      seen.every((i) => ['READY', 'IDLE', 'CONNECTING', 'TRANSIENT_FAILURE'].includes(i.upstream_connection_state)),
      JSON.stringify(seen),
    );

    ctl = await gateway('up-ctl2', controller() + listener('cluster', cluster), 1);
    await waitFor(info, (i) => i.upstream_connection_state === 'READY');
    w.child.kill('SIGTERM');
    ctl.child.kill('SIGTERM');
    assert.equal(await w.exited, 0);
    assert.equal(await ctl.exited, 0);
  });

  it('graceful_shutdown_wait_duration: /health 503 at once, an api request still succeeds, exit after the wait', { timeout: 60_000 }, async () => {
    const g = await gateway(
      'grace',
      controller('  graceful_shutdown_wait_duration = "2s"\n  auth_token = "env://GW_TOKEN"\n') +
        'worker {}\n' +
        listener('api') +
        listener('cluster') +
        listener('ops'),
      3,
    );
    const info = async () => get(`${g.urls.ops}/health?worker_info=1`);
    await waitFor(info, (r) => r.status === 200 && r.body.includes('"READY"'));
    const t0 = performance.now();
    g.child.kill('SIGTERM');
    await waitFor(
      () => get(`${g.urls.ops}/health`),
      (r) => r.status === 503,
      2000,
    );
    assert.deepEqual(await get(`${g.urls.ops}/health`), { status: 503, body: '{}' });
    const during = await info();
    assert.equal(during.status, 503);
    assert.deepEqual(JSON.parse(during.body), { worker_process_info: { state: 'active', active_session_count: 0, upstream_connection_state: 'READY' } });
    const api = await fetch(`${g.urls.api}/v1/workers`, { headers: { authorization: 'Bearer grace-token' } });
    assert.equal(api.status, 200, 'api requests are still served during the wait');
    assert.equal(((await api.json()) as { items: { state: string }[] }).items.length, 1);
    assert.equal(await g.exited, 0);
    assert.ok(performance.now() - t0 >= 1900, `exited after ${Math.round(performance.now() - t0)} ms`);
  });

  it('config errors: exit 2 with one line naming file, line and key', { timeout: 60_000 }, async () => {
    const file = join(dir, 'bad.hcl');
    writeFileSync(file, `controller {\n  graceful_shutdown_wait_duration = "soon"\n}\n${listener('cluster')}`);
    const child = spawn(process.execPath, [CAIRN_BIN, 'gateway', 'server', `-config=${file}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const code = await new Promise((r) => child.once('exit', r));
    assert.equal(code, 2);
    assert.match(stderr, new RegExp(`^Error: ${file.replace(/[.]/g, '\\.')}:2: "graceful_shutdown_wait_duration" must be a duration[^\\n]*\\n$`));
  });
});
