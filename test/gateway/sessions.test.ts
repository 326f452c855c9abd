/**
 * Sessions end to end, in-process but over real sockets: a controller and a worker
 * (separate gateways joined by a real gRPC channel), an echo server as the target, the
 * SDK as the client. Covers issue 4 scope 3: a proxied TCP session raises
 * `active_session_count` to 1 and back to 0, connection limits, cancel, expiry, an
 * unreachable target, bad tokens, the worker drain on shutdown, TLS on the proxy
 * listener, `/metrics`, and the API's errors.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../src/kernel/log/logger.js';
import { VERSION } from '../../src/kernel/version/index.js';
import { connectSession, GatewayApiError, GatewayClient, GatewayProxyError } from '../../src/sdk/index.js';
import { parseGatewayServerConfig } from '../../src/services/gateway/config.js';
import { startGateway, type Gateway } from '../../src/services/gateway/server.js';
import { parsePrometheusText } from '../prometheus-text.js';

const TOKEN = 'test-controller-token';
const log = silentLogger();
const dir = mkdtempSync(join(tmpdir(), 'cairn-gw-sessions-'));
const listener = (purpose: string, extra = '') => `listener "tcp" {\n  purpose = "${purpose}"\n  address = "127.0.0.1:0"\n  tls_disable = true\n${extra}}\n`;

async function waitFor<T>(read: () => Promise<T> | T, ok: (v: T) => boolean, ms = 5000): Promise<T> {
  const end = performance.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (performance.now() > end) assert.fail(`not met within ${ms} ms; last value: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Reads from `socket` until what arrived satisfies `done`; resolves with all of it. */
function readUntil(socket: net.Socket, done: (text: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    let got = '';
    const onData = (d: Buffer) => {
      got += d.toString();
      if (done(got)) {
        socket.off('data', onData);
        socket.pause();
        resolve(got);
      }
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.resume();
  });
}

const readBytes = (socket: net.Socket, n: number) => readUntil(socket, (t) => t.length >= n);

const closed = (s: net.Socket) => new Promise<void>((r) => (s.destroyed ? r() : s.once('close', () => r())));

describe('gateway sessions', { timeout: 60_000 }, () => {
  let echo: net.Server;
  let echoAddress: string;
  let controller: Gateway;
  let worker: Gateway;
  let api: GatewayClient;
  let ops: string;
  let workerOps: string;
  const url = (g: Gateway, purpose: string) => g.listeners.find((l) => l.purpose === purpose)!.url;
  const info = async () => {
    const r = await fetch(`${workerOps}/health?worker_info=1`);
    return ((await r.json()) as { worker_process_info: { active_session_count: number; session_connections?: Record<string, number>; state: string } })
      .worker_process_info;
  };

  before(async () => {
    echo = net.createServer({ allowHalfOpen: true }, (s) => s.pipe(s));
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    echoAddress = `127.0.0.1:${(echo.address() as net.AddressInfo).port}`;
    controller = await startGateway({
      config: parseGatewayServerConfig(`controller {\n  auth_token = "${TOKEN}"\n}\n${listener('api')}${listener('cluster')}${listener('ops')}`, 'c.hcl'),
      log,
      statusIntervalMs: 100,
    });
    worker = await startGateway({
      config: parseGatewayServerConfig(`worker {\n  name = "w1"\n  initial_upstreams = ["${controller.cluster!.address}"]\n}\n${listener('proxy')}${listener('ops')}`, 'w.hcl'),
      log,
      statusIntervalMs: 100,
    });
    api = new GatewayClient({ address: url(controller, 'api'), token: TOKEN });
    ops = url(controller, 'ops');
    workerOps = url(worker, 'ops');
    await waitFor(() => api.listWorkers(), (ws) => ws.some((w) => w.name === 'w1' && w.state === 'active'));
  });

  after(async () => {
    await api?.close();
    await worker?.shutdown();
    await controller?.shutdown();
    echo?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists each worker with its release version, as the reference\'s workers', async () => {
    const w1 = (await api.listWorkers()).find((w) => w.name === 'w1');
    assert.equal(w1?.release_version, `Cairn v${VERSION}`);
  });

  it('a proxied TCP session to an echo server: active_session_count 1 while connected, 0 after; bytes and reason recorded', async () => {
    const s = await api.authorizeSession({ target: echoAddress });
    assert.equal(s.endpoint, `tcp://${echoAddress}`);
    assert.equal(s.connection_limit, -1);
    assert.deepEqual(s.worker_info, [{ address: worker.worker!.proxyAddress }]);
    assert.equal((await api.readSession(s.session_id)).status, 'pending');

    const { socket, sessionId } = await connectSession({ worker: s.worker_info[0].address, token: s.authorization_token });
    assert.equal(sessionId, s.session_id);
    socket.write('hello');
    assert.equal(await readBytes(socket, 5), 'hello');
    assert.deepEqual(await info(), {
      state: 'active',
      active_session_count: 1,
      session_connections: { [s.session_id]: 1 },
      upstream_connection_state: 'READY',
    } as unknown as Awaited<ReturnType<typeof info>>);
    const live = await api.readSession(s.session_id);
    assert.equal(live.status, 'active');
    assert.equal(live.connections[0].status, 'connected');
    assert.equal(live.connections[0].worker_name, 'w1');
    const metrics = await (await fetch(`${workerOps}/metrics`)).text();
    assert.match(metrics, /^cairn_gateway_worker_active_sessions 1$/m);
    assert.match(metrics, /^cairn_gateway_worker_upstream_connection_state\{state="READY"\} 1$/m);

    socket.end();
    await closed(socket);
    await waitFor(info, (i) => i.active_session_count === 0);
    assert.equal((await info()).session_connections, undefined, 'omitted when empty');
    const after = await waitFor(() => api.readSession(s.session_id), (x) => x.connections[0].status === 'closed');
    assert.deepEqual(
      { up: after.connections[0].bytes_up, down: after.connections[0].bytes_down, reason: after.connections[0].closed_reason, status: after.status },
      { up: 5, down: 5, reason: 'closed by client', status: 'active' },
    );
  });

  it('two connections of one session count as one session; bytes sent with the token line reach the target', async () => {
    const s = await api.authorizeSession({ target: echoAddress, ttl: '1h' });
    const a = await connectSession({ worker: s.worker_info[0].address, token: s.authorization_token });
    const raw = net.connect(Number(s.worker_info[0].address.split(':')[1]), '127.0.0.1');
    raw.write(`${s.authorization_token}\nearly`);
    const greeting = await readUntil(raw, (t) => t.endsWith('early'));
    assert.match(greeting, new RegExp(`^OK ${s.session_id} sc_[0-9a-f]+\nearly$`));
    const i = await info();
    assert.equal(i.active_session_count, 1);
    assert.deepEqual(i.session_connections, { [s.session_id]: 2 });
    a.socket.destroy();
    raw.destroy();
    await waitFor(info, (x) => x.active_session_count === 0);
  });

  it('connection_limit 1: a second connection is refused; the session terminates when the first closes', async () => {
    const s = await api.authorizeSession({ target: echoAddress, connection_limit: 1 });
    const first = await connectSession({ worker: s.worker_info[0].address, token: s.authorization_token });
    await assert.rejects(connectSession({ worker: s.worker_info[0].address, token: s.authorization_token }), {
      name: 'GatewayProxyError',
      message: `session ${s.session_id} has used its connection limit of 1`,
    });
    first.socket.destroy();
    const done = await waitFor(() => api.readSession(s.session_id), (x) => x.status === 'terminated');
    assert.equal(done.termination_reason, 'connection limit reached');
  });

  it('cancel: open connections are closed by the worker, new ones refused, the session ends terminated', async () => {
    const s = await api.authorizeSession({ target: echoAddress });
    const { socket } = await connectSession({ worker: s.worker_info[0].address, token: s.authorization_token });
    const canceled = await api.cancelSession(s.session_id);
    assert.equal(canceled.status, 'canceling');
    assert.equal(canceled.termination_reason, 'canceled by user');
    await closed(socket);
    const done = await waitFor(() => api.readSession(s.session_id), (x) => x.status === 'terminated');
    assert.equal(done.connections[0].closed_reason, 'session canceled');
    await assert.rejects(connectSession({ worker: s.worker_info[0].address, token: s.authorization_token }), {
      message: `session ${s.session_id} is terminated`,
    });
    assert.equal((await api.listSessions())[0].id, s.session_id, 'newest first');
  });

  it('expiry: the connection is closed when the session expires', async () => {
    const s = await api.authorizeSession({ target: echoAddress, ttl: 1 });
    const { socket } = await connectSession({ worker: s.worker_info[0].address, token: s.authorization_token });
    await closed(socket);
    const done = await waitFor(() => api.readSession(s.session_id), (x) => x.status === 'terminated');
    assert.equal(done.termination_reason, 'timed out');
    assert.equal(done.connections[0].closed_reason, 'session expired');
  });

  it('refusals: unknown token, empty token, unreachable target (recorded on the session)', async () => {
    const proxy = worker.worker!.proxyAddress!;
    await assert.rejects(connectSession({ worker: proxy, token: 'nope' }), { message: 'unknown session authorization token' });
    await assert.rejects(connectSession({ worker: proxy, token: '' }), { message: 'an authorization token is required' });
    const dead = net.createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const deadAddress = `127.0.0.1:${(dead.address() as net.AddressInfo).port}`;
    await new Promise((r) => dead.close(r));
    const s = await api.authorizeSession({ target: deadAddress });
    await assert.rejects(connectSession({ worker: proxy, token: s.authorization_token }), (err: Error) => {
      assert.ok(err instanceof GatewayProxyError);
      assert.match(err.message, new RegExp(`^cannot reach target ${deadAddress}: .*ECONNREFUSED`));
      return true;
    });
    const after = await waitFor(() => api.readSession(s.session_id), (x) => x.connections[0]?.status === 'closed');
    assert.equal(after.connections[0].closed_reason, 'target unreachable');
    assert.equal((await info()).active_session_count, 0);
  });

  it('api errors: 401 without or with a wrong token, 400 naming the field, 404, 405, malformed JSON', async () => {
    const base = url(controller, 'api');
    const raw = async (method: string, path: string, body?: string, token = TOKEN) => {
      const r = await fetch(base + path, { method, body, headers: token ? { authorization: `Bearer ${token}` } : {} });
      return { status: r.status, body: await r.json() };
    };
    assert.deepEqual(await raw('GET', '/v1/sessions', undefined, ''), { status: 401, body: { kind: 'Unauthenticated', message: 'Unauthenticated, or invalid token.' } });
    assert.equal((await raw('GET', '/v1/sessions', undefined, 'wrong')).status, 401);
    const bad = async (body: unknown) => raw('POST', '/v1/targets:authorize-session', JSON.stringify(body));
    assert.deepEqual(await bad({}), { status: 400, body: { kind: 'InvalidArgument', message: 'missing required field "target"' } });
    assert.match((await bad({ target: 'no-port' })).body.message, /^field "target": must be host:port/);
    assert.match((await bad({ target: echoAddress, ttl: '2d' })).body.message, /ttl/);
    assert.match((await bad({ target: echoAddress, ttl: '25h' })).body.message, /^field "ttl": must be more than 0s and at most 24h/);
    assert.match((await bad({ target: echoAddress, connection_limit: 0 })).body.message, /^field "connection_limit"/);
    assert.match((await bad({ target: echoAddress, connection_limit: -2 })).body.message, /connection_limit/);
    assert.deepEqual((await bad({ target: echoAddress, tagret: 1 })).body, { kind: 'InvalidArgument', message: 'unknown field "tagret"' });
    assert.match((await raw('POST', '/v1/targets:authorize-session', '{"target":')).body.message, /^malformed JSON body/);
    assert.deepEqual(await raw('GET', '/v1/sessions/s_none'), { status: 404, body: { kind: 'NotFound', message: 'session "s_none" not found' } });
    assert.equal((await raw('POST', '/v1/sessions/s_none:cancel', '{}')).status, 404);
    assert.equal((await raw('DELETE', '/v1/sessions')).status, 405);
    assert.equal((await raw('GET', '/v1/nope')).status, 404);
    await assert.rejects(new GatewayClient({ address: base, token: 'x' }).listSessions(), (e: Error) => e instanceof GatewayApiError && e.status === 401);
    const sessions = await api.listSessions();
    assert.ok(sessions.every((s) => s.endpoint.startsWith('tcp://')));
    assert.equal((await raw('GET', '/v1/workers')).body.items[0].address, worker.worker!.proxyAddress);
  });

  it('controller /metrics: sessions by status and workers by state', async () => {
    const r = await fetch(`${ops}/metrics`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await r.text();
    assert.match(text, /^cairn_gateway_controller_workers\{state="active"\} 1$/m);
    assert.match(text, /^cairn_gateway_controller_sessions\{status="terminated"\} [1-9]\d*$/m);
    assert.match(text, /^cairn_gateway_controller_shutting_down 0$/m);
    assert.match(text, /^process_cpu_seconds_total /m);
    // The api listener's requests, by route pattern (kernel metrics), in valid exposition format.
    assert.match(text, /^cairn_http_requests_total\{method="GET",route="workers",status="200"\} [1-9]\d*$/m);
    assert.match(text, /^cairn_http_requests_total\{method="GET",route="sessions\/:id",status="200"\} [1-9]\d*$/m);
    assert.ok(parsePrometheusText(text).length > 0);
  });
});

describe('gateway sessions: no worker, TLS proxy, worker drain', { timeout: 60_000 }, () => {
  it('a controller without workers answers 503 to authorize-session; without auth_token every request is 401', async () => {
    const lone = await startGateway({ config: parseGatewayServerConfig(`controller {\n  auth_token = "${TOKEN}"\n}\n${listener('api')}${listener('cluster')}`, 'c.hcl'), log });
    const open = await startGateway({ config: parseGatewayServerConfig(`controller {}\n${listener('api')}${listener('cluster')}`, 'c.hcl'), log });
    try {
      const client = new GatewayClient({ address: lone.listeners[0].url, token: TOKEN });
      await assert.rejects(client.authorizeSession({ target: '127.0.0.1:1' }), { status: 503, kind: 'Unavailable', message: 'no worker is available to proxy a session' });
      await assert.rejects(new GatewayClient({ address: open.listeners[0].url, token: 'anything' }).listSessions(), {
        status: 401,
        message: 'the controller has no "auth_token" configured: its api refuses every request',
      });
    } finally {
      await lone.shutdown();
      await open.shutdown();
    }
  });

  it('TLS proxy listener; graceful shutdown drains: state shutdown, new connections refused, exit once the last one closes', async () => {
    const tlsDir = mkdtempSync(join(tmpdir(), 'cairn-gw-tls-'));
    const cert = join(tlsDir, 'tls.crt');
    const key = join(tlsDir, 'tls.key');
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert,
    ], { stdio: 'ignore' });
    const echo = net.createServer((s) => s.pipe(s));
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    const target = `127.0.0.1:${(echo.address() as net.AddressInfo).port}`;
    const g = await startGateway({
      config: parseGatewayServerConfig(
        `controller {\n  auth_token = "${TOKEN}"\n}\nworker {}\n${listener('api')}${listener('cluster')}${listener('ops')}` +
          `listener "tcp" {\n  purpose = "proxy"\n  address = "127.0.0.1:0"\n  tls_cert_file = "${cert}"\n  tls_key_file = "${key}"\n}\n`,
        'g.hcl',
      ),
      log,
      statusIntervalMs: 100,
    });
    const client = new GatewayClient({ address: g.listeners.find((l) => l.purpose === 'api')!.url, token: TOKEN });
    try {
      const s = await waitFor(() => client.authorizeSession({ target }).catch(() => undefined), (x) => x !== undefined);
      const tls = { caCert: readFileSync(cert, 'utf8') };
      await assert.rejects(connectSession({ worker: s!.worker_info[0].address, token: s!.authorization_token }), GatewayProxyError, 'plain TCP to a TLS listener');
      const { socket } = await connectSession({ worker: s!.worker_info[0].address, token: s!.authorization_token, tls });
      socket.write('tls!');
      assert.equal(await readBytes(socket, 4), 'tls!');

      let stopped = false;
      const stopping = g.shutdown().then(() => (stopped = true));
      await waitFor(() => g.worker!.state, (st) => st === 'shutdown');
      const ops = g.listeners.find((l) => l.purpose === 'ops')!.url;
      const during = (await (await fetch(`${ops}/health?worker_info=1`)).json()) as { worker_process_info: { state: string; active_session_count: number } };
      assert.deepEqual([during.worker_process_info.state, during.worker_process_info.active_session_count], ['shutdown', 1]);
      await assert.rejects(connectSession({ worker: s!.worker_info[0].address, token: s!.authorization_token, tls, timeoutMs: 2000 }), GatewayProxyError);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(stopped, false, 'waits for the open connection');
      socket.write('still');
      assert.equal(await readBytes(socket, 5), 'still', 'the open connection keeps working while draining');
      socket.end();
      await stopping;
    } finally {
      await client.close();
      await g.shutdown();
      echo.close();
      rmSync(tlsDir, { recursive: true, force: true });
    }
  });
});
