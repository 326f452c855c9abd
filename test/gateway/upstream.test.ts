/**
 * A real worker channel against a real controller `Cluster` gRPC server on loopback:
 * `upstream_connection_state` follows the channel (spec 000 "Upstream connection state
 * of a worker"; reference/ecosystem.md §8), the controller tracks workers, a draining
 * worker reports `shutdown`; and the ops `/health` service's reply shapes
 * (reference/gateway.md §4). States are polled with deadlines, never assumed.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, describe, it } from 'node:test';
import { silentLogger } from '../../src/kernel/log/logger.js';
import type { HttpRequest } from '../../src/kernel/http/index.js';
import { startClusterServer, type ClusterServer, type WorkerStatus } from '../../src/services/gateway/cluster.js';
import { opsService } from '../../src/services/gateway/health.js';
import { WorkerDirectory, type SessionAuthority } from '../../src/services/gateway/cluster-authority.js';
import { ConnectionDenied } from '../../src/services/gateway/sessions.js';

/** These tests watch status reports only: a directory of workers and no sessions. */
function noSessions(): { sessions: SessionAuthority; directory: WorkerDirectory } {
  const directory = new WorkerDirectory();
  const sessions: SessionAuthority = {
    authorizeConnection: () => Promise.reject(new ConnectionDenied('unknown session authorization token')),
    connectionClosed: () => Promise.resolve(),
    toClose: (ids) => [...ids],
    workerSeen: (w) => directory.record(w),
  };
  return { sessions, directory };
}
import { Worker } from '../../src/services/gateway/worker.js';

const log = silentLogger();

/** Polls `read` every 20 ms until `ok(value)`; fails after `ms` naming the values seen. */
async function waitFor<T>(read: () => T, ok: (v: T) => boolean, ms = 10_000): Promise<T[]> {
  const seen: T[] = [];
  const end = performance.now() + ms;
  for (;;) {
    const v = read();
    if (seen.at(-1) !== v) seen.push(v);
    if (ok(v)) return seen;
    if (performance.now() > end) assert.fail(`condition not met within ${ms} ms; values seen: ${seen.join(' → ')}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('worker upstream connection', { timeout: 15_000 }, () => {
  const cleanup: Array<() => Promise<void>> = [];
  after(async () => {
    for (const c of cleanup.reverse()) await c();
  });

  it('IDLE → CONNECTING → READY; READY → IDLE → CONNECTING → TRANSIENT_FAILURE when the controller stops; retried by itself; READY when it returns', async () => {
    let controller: ClusterServer = await startClusterServer({ address: '127.0.0.1:0', ...noSessions() });
    cleanup.push(() => controller.close(0));
    const transitions: string[] = [];
    const worker = new Worker({
      name: 'w1',
      upstream: controller.address,
      log,
      statusIntervalMs: 200,
      onUpstreamStateChange: (from, to) => transitions.push(`${from}→${to}`),
    });
    cleanup.push(() => worker.shutdown());
    assert.equal(worker.state, 'unknown');
    assert.equal(worker.upstreamConnectionState(), 'IDLE', 'no call yet');
    await worker.start();
    assert.equal(worker.state, 'active');

    await waitFor(
      () => worker.upstreamConnectionState(),
      (s) => s === 'READY',
    );
    assert.deepEqual(transitions, ['IDLE→CONNECTING', 'CONNECTING→READY']);
    await waitFor(
      () => controller.workers.get('w1')?.state,
      (s) => s === 'active',
    );
    assert.equal(controller.workers.get('w1')?.sessionCount, 0);

    // A lost READY connection goes IDLE; the next status call drives it to CONNECTING, and
    // the refused connection to TRANSIENT_FAILURE (reference/ecosystem.md §8).
    const port = controller.port;
    await controller.close(0);
    await waitFor(
      () => worker.upstreamConnectionState(),
      (s) => s === 'TRANSIENT_FAILURE',
    );
    assert.deepEqual(transitions.slice(2), ['READY→IDLE', 'IDLE→CONNECTING', 'CONNECTING→TRANSIENT_FAILURE']);

    // While the controller is away the channel keeps trying to connect on its own (spec
    // 000: TRANSIENT_FAILURE → CONNECTING, automatic): a listener on the controller's port
    // that drops every connection sees attempt after attempt. grpc-js reports the channel
    // as TRANSIENT_FAILURE throughout (sticky TRANSIENT_FAILURE, docs/compatibility.md).
    let attempts = 0;
    const dropper = net.createServer((socket) => {
      attempts++;
      socket.destroy();
    });
    await new Promise<void>((r) => dropper.listen(port, '127.0.0.1', r));
    await waitFor(
      () => attempts,
      (n) => n >= 3,
      8000,
    );
    assert.equal(worker.upstreamConnectionState(), 'TRANSIENT_FAILURE');
    assert.equal(transitions.length, 5, `no other transition while down: ${transitions.join(', ')}`);
    await new Promise((r) => dropper.close(r));

    controller = await startClusterServer({ address: `127.0.0.1:${port}`, ...noSessions() });
    await waitFor(
      () => worker.upstreamConnectionState(),
      (s) => s === 'READY',
    );
    assert.equal(transitions.at(-1)?.endsWith('→READY'), true, transitions.join(', '));
    await waitFor(
      () => controller.workers.has('w1'),
      (x) => x,
    );
  });

  it('worker_auth_token: a worker with the wrong token is refused (UNAUTHENTICATED, never registered); the right one is registered', async () => {
    const controller = await startClusterServer({ address: '127.0.0.1:0', ...noSessions(), workerAuthToken: 'k1' });
    cleanup.push(() => controller.close(0));
    const impostor = new Worker({ name: 'impostor', upstream: controller.address, log, statusIntervalMs: 100, authToken: 'wrong' });
    const anonymous = new Worker({ name: 'anonymous', upstream: controller.address, log, statusIntervalMs: 100 });
    const genuine = new Worker({ name: 'genuine', upstream: controller.address, log, statusIntervalMs: 100, authToken: 'k1' });
    for (const w of [impostor, anonymous, genuine]) {
      cleanup.push(() => w.shutdown());
      await w.start();
    }
    await waitFor(
      () => controller.workers.has('genuine'),
      (x) => x,
    );
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual([...controller.workers.keys()], ['genuine']);
  });

  it('graceful shutdown: state shutdown, one last report with state "shutdown", channel SHUTDOWN', async () => {
    const reports: WorkerStatus[] = [];
    const controller = await startClusterServer({ address: '127.0.0.1:0', ...noSessions(), onStatus: (s) => reports.push(s) });
    cleanup.push(() => controller.close(0));
    const worker = new Worker({ name: 'w2', upstream: controller.address, log, statusIntervalMs: 200 });
    await worker.start();
    await waitFor(
      () => worker.upstreamConnectionState(),
      (s) => s === 'READY',
    );
    const draining = worker.gracefulShutdown();
    assert.equal(worker.state, 'shutdown');
    assert.equal(worker.healthInfo().state, 'shutdown');
    await draining;
    assert.equal(reports.at(-1)?.state, 'shutdown');
    assert.equal(controller.workers.get('w2')?.state, 'shutdown');
    assert.equal(worker.upstreamConnectionState(), 'SHUTDOWN');
  });
});

const get = (path: string, method = 'GET'): HttpRequest => {
  const url = new URL(path, 'http://x');
  return { id: '1', method, path: url.pathname, query: url.searchParams, headers: {}, body: Buffer.alloc(0), remoteAddress: '', tls: false };
};
const INFO = { state: 'active', active_session_count: 0, upstream_connection_state: 'READY' } as const;

describe('ops /health service', () => {
  it('controller: {} with 200, 503 once shutting down; worker_info only with an in-process worker', async () => {
    let down = false;
    const alone = opsService({ enabled: true, controllerShuttingDown: () => down });
    assert.deepEqual(await alone.handle(get('/health')), { status: 200, headers: { 'Content-Type': 'application/json' }, body: '{}' });
    assert.equal((await alone.handle(get('/health?worker_info=1'))).body, '{}');
    down = true;
    assert.equal((await alone.handle(get('/health'))).status, 503);
    const combined = opsService({ enabled: true, controllerShuttingDown: () => down, workerInfo: () => INFO });
    const r = await combined.handle(get('/health?worker_info=true'));
    assert.equal(r.status, 503);
    assert.equal(r.body, '{"worker_process_info":{"state":"active","active_session_count":0,"upstream_connection_state":"READY"}}');
    assert.equal((await combined.handle(get('/health?worker_info=0'))).body, '{}');
  });

  it('worker only: always 200; bad worker_info is 400; other paths and disabled health are 404', async () => {
    const w = opsService({ enabled: true, workerInfo: () => ({ ...INFO, state: 'shutdown' }) });
    assert.deepEqual(JSON.parse(String((await w.handle(get('/health?worker_info=1'))).body)), { worker_process_info: { ...INFO, state: 'shutdown' } });
    assert.equal((await w.handle(get('/health'))).body, '{}');
    await assert.rejects(w.handle(get('/health?worker_info=maybe')), (err: { status: number }) => err.status === 400);
    await assert.rejects(w.handle(get('/health', 'POST')), (err: { status: number }) => err.status === 405);
    for (const p of ['/health/', '/health/x', '/metricz', '/']) assert.equal((await w.handle(get(p))).status, 404, p);
    assert.equal((await opsService({ enabled: false, controllerShuttingDown: () => false }).handle(get('/health'))).status, 404);
  });
});
