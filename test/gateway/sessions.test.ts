/**
 * Sessions end to end, in-process but over real sockets (issue 20 scope 4): a controller
 * with a SQLite state and a worker (separate gateways joined by a real gRPC channel), an
 * echo server as the target, users logged in with a password, the SDK as the client.
 * Covers `targets/<id>:authorize-session` (grants: allowed on one target, 403 on another;
 * the reply's fields; `egress_worker_filter` over worker tags), proxied connections,
 * `read:self`/`cancel:self`, connection limits, cancel closing connections within one
 * status interval, expiry, and a controller restart keeping the session.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../src/kernel/log/logger.js';
import { connectSession, GatewayClient } from '../../src/sdk/index.js';
import { parseGatewayServerConfig } from '../../src/services/gateway/config.js';
import { startGateway, type Gateway } from '../../src/services/gateway/server.js';
import { putProject, putRole, putTarget } from './target-fixture.js';

const TOKEN = 'test-controller-token';
const STATUS_MS = 200;
const log = silentLogger();
const dir = mkdtempSync(join(tmpdir(), 'cairn-gw-sessions-'));
const listener = (purpose: string, address = '127.0.0.1:0') =>
  `listener "tcp" {\n  purpose = "${purpose}"\n  address = "${address}"\n  tls_disable = true\n}\n`;

async function waitFor<T>(read: () => Promise<T> | T, ok: (v: T) => boolean, ms = 5000): Promise<T> {
  const end = performance.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (performance.now() > end) assert.fail(`not met within ${ms} ms; last value: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function readBytes(socket: net.Socket, n: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let got = '';
    const onData = (d: Buffer) => {
      got += d.toString();
      if (got.length >= n) {
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

const closed = (s: net.Socket) => new Promise<void>((r) => (s.destroyed ? r() : s.once('close', () => r())));

describe('gateway sessions in the state', { timeout: 90_000 }, () => {
  let echo: net.Server;
  let echoPort: number;
  let controller: Gateway;
  let worker: Gateway;
  let clusterAddress: string;
  let admin: GatewayClient;
  let alice: GatewayClient;
  let aliceId: string;
  let projectId: string;
  let allowed: { targetId: string; hostId?: string; hostSetId?: string };
  let denied: string;
  const apiUrl = () => controller.listeners.find((l) => l.purpose === 'api')!.url;
  const controllerConfig = (cluster = '127.0.0.1:0') =>
    parseGatewayServerConfig(
      `controller {\n  auth_token = "${TOKEN}"\n  data_dir = "${join(dir, 'controller')}"\n}\n${listener('api')}${listener('cluster', cluster)}`,
      'c.hcl',
    );
  const startController = (cluster?: string) =>
    startGateway({ config: controllerConfig(cluster), log, statusIntervalMs: STATUS_MS, sessionSweepIntervalMs: 100 });

  before(async () => {
    echo = net.createServer({ allowHalfOpen: true }, (s) => s.pipe(s));
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    echoPort = (echo.address() as net.AddressInfo).port;
    controller = await startController();
    clusterAddress = controller.cluster!.address;
    worker = await startGateway({
      config: parseGatewayServerConfig(
        `worker {\n  name = "w1"\n  initial_upstreams = ["${clusterAddress}"]\n  tags {\n    type = ["dev", "echo"]\n  }\n}\n${listener('proxy')}`,
        'w.hcl',
      ),
      log,
      statusIntervalMs: STATUS_MS,
    });
    admin = new GatewayClient({ address: apiUrl(), token: TOKEN });
    const d = controller.domain!;
    ({ projectId } = await putProject(d));
    allowed = await putTarget(d, { projectId, port: echoPort });
    denied = (await putTarget(d, { projectId, port: echoPort })).targetId;
    // alice: a password account, a user, and a role allowing authorize-session on one target only.
    const am = (await admin.list('auth-methods', { scope_id: 'global' }))[0].id;
    const acct = await admin.create('accounts', { auth_method_id: am, attributes: { login_name: 'alice', password: 'alice-password' } });
    const user = await admin.create('users', { scope_id: 'global', name: 'alice' });
    await admin.action('users', user.id, 'add-accounts', { version: 1, account_ids: [acct.id] });
    aliceId = user.id;
    await putRole(d, projectId, [aliceId], [`ids=${allowed.targetId};actions=read,authorize-session`]);
    const t = await admin.authenticatePassword(am, 'alice', 'alice-password');
    alice = new GatewayClient({ address: apiUrl(), token: t.token! });
    await waitFor(
      () => admin.listWorkers(),
      (ws) => ws.some((w) => w.name === 'w1' && w.state === 'active'),
    );
  });

  after(async () => {
    await alice?.close();
    await admin?.close();
    await worker?.shutdown();
    await controller?.shutdown();
    echo?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('authorize-session: allowed on the granted target with the reference reply, 403 on the other, 404 on none', async () => {
    const s = await alice.authorizeSession(allowed.targetId);
    assert.match(s.session_id, /^s_[0-9A-Za-z]{10}$/);
    assert.deepEqual(
      {
        target: s.target_id,
        user: s.user_id,
        host: s.host_id,
        set: s.host_set_id,
        endpoint: s.endpoint,
        type: s.type,
        limit: s.connection_limit,
        workers: s.worker_info,
        creds: s.credentials,
        scope: s.scope?.id,
      },
      {
        target: allowed.targetId,
        user: aliceId,
        host: allowed.hostId,
        set: allowed.hostSetId,
        endpoint: `tcp://127.0.0.1:${echoPort}`,
        type: 'tcp',
        limit: -1,
        workers: [{ address: worker.worker!.proxyAddress }],
        creds: [],
        scope: projectId,
      },
    );
    assert.ok(Math.abs(Date.parse(s.expiration) - Date.now() - 28800_000) < 60_000, 'session_max_seconds');
    await assert.rejects(alice.authorizeSession(denied), { status: 403, kind: 'PermissionDenied' });
    await assert.rejects(alice.authorizeSession('ttcp_nonexisting'), { status: 404 });
    await assert.rejects(alice.authorizeSession(allowed.targetId, { host_id: 'hst_other' }), { status: 400, message: /host_id/ });
    const stored = controller.domain!.sessions.get(s.session_id)!;
    assert.equal(stored.status, 'pending');
    assert.ok(!JSON.stringify(stored).includes(s.authorization_token.split('.')[1]), 'only the hash is stored');
    const read = await alice.readSession(s.session_id);
    assert.equal((read as unknown as Record<string, unknown>).token_hash, undefined);
  });

  it('a proxied connection: session active, bytes recorded; the user reads and lists only their own sessions', async () => {
    const s = await alice.authorizeSession(allowed.targetId);
    const { socket, sessionId } = await connectSession({ worker: s.worker_info[0].address, token: s.authorization_token });
    assert.equal(sessionId, s.session_id);
    socket.write('hello');
    assert.equal(await readBytes(socket, 5), 'hello');
    const live = await alice.readSession(s.session_id);
    assert.equal(live.status, 'active');
    assert.deepEqual(
      live.states.map((x) => x.status),
      ['active', 'pending'],
    );
    assert.equal(live.connections[0].worker_name, 'w1');
    socket.end();
    await closed(socket);
    const after = await waitFor(
      () => alice.readSession(s.session_id),
      (x) => x.connections[0].status === 'closed',
    );
    assert.deepEqual([after.connections[0].bytes_up, after.connections[0].bytes_down, after.connections[0].closed_reason], [5, 5, 'closed by client']);
    const adminSession = await admin.authorizeSession(allowed.targetId);
    const mine = await alice.listSessions({ scope_id: 'global', recursive: true });
    assert.ok(mine.length > 0 && mine.every((x) => x.user_id === aliceId), 'read:self: only her sessions');
    assert.ok((await admin.listSessions()).some((x) => x.id === adminSession.session_id));
    await assert.rejects(alice.readSession(adminSession.session_id), { status: 403 });
    await assert.rejects(alice.cancelSession(adminSession.session_id), { status: 403 });
  });

  it('a token with the right session id and a wrong secret is refused, and the session gets no connection', async () => {
    const s = await alice.authorizeSession(allowed.targetId);
    const [id, secret] = s.authorization_token.split('.');
    // Same shape and length as the real secret, one character changed: only the secret comparison can refuse it.
    const wrong = `${id}.${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    // A connection made by mistake is closed at once, so that a broken check fails here and does not hang the shutdown.
    const refused = await connectSession({ worker: s.worker_info[0].address, token: wrong }).then(
      (c) => c.socket.destroy(),
      (err: unknown) => err,
    );
    assert.ok(refused instanceof Error, 'the wrong secret must be refused, it connected');
    assert.deepEqual([refused.name, refused.message], ['GatewayProxyError', 'unknown session authorization token']);
    const after = await alice.readSession(s.session_id);
    assert.equal(after.status, 'pending');
    assert.deepEqual(after.connections, []);
    // The real token still connects: the refusal consumed nothing of the session.
    const { socket } = await connectSession({ worker: s.worker_info[0].address, token: s.authorization_token });
    assert.equal((await alice.readSession(s.session_id)).connections.length, 1);
    socket.destroy();
  });

  it('connection limit: a second connection is refused; the session terminates when the first closes', async () => {
    const { targetId } = await putTarget(controller.domain!, { projectId, port: echoPort, connectionLimit: 1 });
    const s = await admin.authorizeSession(targetId);
    assert.equal(s.connection_limit, 1);
    const first = await connectSession({ worker: s.worker_info[0].address, token: s.authorization_token });
    await assert.rejects(connectSession({ worker: s.worker_info[0].address, token: s.authorization_token }), {
      name: 'GatewayProxyError',
      message: `session ${s.session_id} has used its connection limit of 1`,
    });
    first.socket.destroy();
    const done = await waitFor(
      () => admin.readSession(s.session_id),
      (x) => x.status === 'terminated',
    );
    assert.equal(done.termination_reason, 'connection limit reached');
  });

  it('cancel:self closes the open connection within one status interval; new connections are refused', async () => {
    const s = await alice.authorizeSession(allowed.targetId);
    const { socket } = await connectSession({ worker: s.worker_info[0].address, token: s.authorization_token });
    const t0 = performance.now();
    const canceled = await alice.cancelSession(s.session_id);
    assert.equal(canceled.status, 'canceling');
    assert.equal(canceled.termination_reason, 'canceled');
    await closed(socket);
    const took = performance.now() - t0;
    assert.ok(took < 2 * STATUS_MS + 1500, `closed within a status interval (${Math.round(took)} ms)`);
    const done = await waitFor(
      () => alice.readSession(s.session_id),
      (x) => x.status === 'terminated',
    );
    assert.equal(done.connections[0].closed_reason, 'session canceled');
    await assert.rejects(connectSession({ worker: s.worker_info[0].address, token: s.authorization_token }), {
      message: `session ${s.session_id} is terminated`,
    });
  });

  it('expiry: session_max_seconds ends the connection and the session (timed out)', async () => {
    const { targetId } = await putTarget(controller.domain!, { projectId, port: echoPort, maxSeconds: 1 });
    const s = await admin.authorizeSession(targetId);
    const { socket } = await connectSession({ worker: s.worker_info[0].address, token: s.authorization_token });
    await closed(socket);
    const done = await waitFor(
      () => admin.readSession(s.session_id),
      (x) => x.status === 'terminated',
    );
    assert.equal(done.termination_reason, 'timed out');
    const pending = await admin.authorizeSession(targetId);
    const gone = await waitFor(
      () => admin.readSession(pending.session_id),
      (x) => x.status === 'terminated',
      4000,
    );
    assert.equal(gone.termination_reason, 'timed out', 'a session never used expires too');
  });

  it("egress_worker_filter: over the worker's name and tags; no match is 503", async () => {
    const d = controller.domain!;
    const match = await putTarget(d, { projectId, port: echoPort, workerFilter: '"echo" in "/tags/type" and "/name" == "w1"' });
    assert.equal((await admin.authorizeSession(match.targetId)).worker_info.length, 1);
    const none = await putTarget(d, { projectId, port: echoPort, workerFilter: '"prod" in "/tags/type"' });
    await assert.rejects(admin.authorizeSession(none.targetId), { status: 503, kind: 'Unavailable' });
    const direct = await putTarget(d, { projectId, port: echoPort, host: null, address: '127.0.0.1' });
    const s = await admin.authorizeSession(direct.targetId);
    assert.deepEqual([s.endpoint, s.host_id, s.host_set_id], [`tcp://127.0.0.1:${echoPort}`, '', '']);
  });

  it('a controller restart keeps the session: readable, its open connection kept, new connections authorised', async () => {
    const s = await admin.authorizeSession(allowed.targetId);
    const first = await connectSession({ worker: s.worker_info[0].address, token: s.authorization_token });
    await controller.shutdown();
    controller = await startController(clusterAddress);
    await admin.close();
    admin = new GatewayClient({ address: apiUrl(), token: TOKEN });
    const read = await admin.readSession(s.session_id);
    assert.equal(read.status, 'active');
    await waitFor(
      () => admin.listWorkers(),
      (ws) => ws.some((w) => w.name === 'w1'),
    );
    first.socket.write('still');
    assert.equal(await readBytes(first.socket, 5), 'still', 'the worker kept the connection');
    const second = await connectSession({ worker: s.worker_info[0].address, token: s.authorization_token });
    second.socket.write('again');
    assert.equal(await readBytes(second.socket, 5), 'again');
    const now = await admin.readSession(s.session_id);
    assert.equal(now.connections.length, 2);
    first.socket.destroy();
    second.socket.destroy();
  });
});
