/**
 * The gateway client commands (`cairn gateway targets authorize-session`, `sessions
 * list|read|cancel`, `connect`) against a real controller and worker on loopback with an
 * echo server as the target (put into the state: tests/gateway/target-fixture.ts); most
 * run in-process, `connect` as a real `bin/cairn.js` process.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { main } from '../../src/cli/main.js';
import { silentLogger } from '../../src/kernel/log/logger.js';
import { devGatewayConfig } from '../../src/services/gateway/dev-config.js';
import { startGateway, type Gateway } from '../../src/services/gateway/server.js';
import { CAIRN_BIN } from '../bin.js';
import { putProject, putTarget } from './target-fixture.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('cairn gateway client commands', { timeout: 60_000 }, () => {
  let gateway: Gateway;
  let echo: net.Server;
  let target: string;
  let targetId: string;
  let env: Record<string, string>;
  const run = async (argv: string[], extraEnv: Record<string, string> = {}, shutdown?: AbortSignal, onOut?: (s: string) => void): Promise<Run> => {
    let stdout = '';
    let stderr = '';
    const code = await main(
      argv,
      { ...env, ...extraEnv },
      {
        stdout: (s) => {
          stdout += s;
          onOut?.(stdout);
        },
        stderr: (s) => (stderr += s),
        shutdown,
      },
    );
    return { code, stdout, stderr };
  };

  before(async () => {
    const port0 = { api: '127.0.0.1:0', cluster: '127.0.0.1:0', proxy: '127.0.0.1:0', ops: '127.0.0.1:0' };
    gateway = await startGateway({ config: devGatewayConfig(port0, 'cli-token'), log: silentLogger(), statusIntervalMs: 100 });
    env = { GATEWAY_ADDR: gateway.listeners.find((l) => l.purpose === 'api')!.url, GATEWAY_TOKEN: 'cli-token' };
    echo = net.createServer((s) => s.pipe(s));
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    target = `127.0.0.1:${(echo.address() as net.AddressInfo).port}`;
    const { projectId } = await putProject(gateway.domain!);
    ({ targetId } = await putTarget(gateway.domain!, { projectId, port: (echo.address() as net.AddressInfo).port }));
    const deadline = Date.now() + 5000;
    while ((await run(['gateway', 'workers'])).stdout.indexOf('active') < 0) {
      assert.ok(Date.now() < deadline, 'worker never reported');
      await new Promise((r) => setTimeout(r, 50));
    }
  });

  after(async () => {
    gateway.force();
    await gateway.shutdown();
    echo.close();
  });

  it('targets authorize-session, sessions list|read|cancel, in table and JSON form', async () => {
    const a = await run(['gateway', 'targets', 'authorize-session', `-id=${targetId}`, '-format=json']);
    assert.equal(a.code, 0, a.stderr);
    const s = JSON.parse(a.stdout) as { session_id: string; target_id: string; endpoint: string; authorization_token: string };
    assert.deepEqual([s.target_id, s.endpoint], [targetId, `tcp://${target}`]);
    assert.match(s.authorization_token, new RegExp(`^${s.session_id}\\.`));
    const table = await run(['gateway', 'targets', 'authorize-session', `-id=${targetId}`]);
    assert.match(table.stdout, /^Target information:\n  Authorization Token: s_/);
    const list = await run(['gateway', 'sessions', 'list', '-recursive']);
    assert.match(list.stdout, /^ID +STATUS +TARGET +USER +ENDPOINT +CONNECTIONS +EXPIRATION\n/);
    assert.match(list.stdout, new RegExp(`^${s.session_id} +pending +${targetId} +u_recovery +tcp://${target} +0 `, 'm'));
    const read = await run(['gateway', 'sessions', 'read', `-id=${s.session_id}`]);
    assert.match(read.stdout, /^  Status: +pending$/m);
    const c = await run(['gateway', 'sessions', 'cancel', `-id=${s.session_id}`]);
    assert.equal(c.code, 0, c.stderr);
    assert.match(c.stdout, /^  Status: +terminated$/m);
    assert.match(c.stdout, /^  Termination Reason: +canceled$/m);
  });

  it('connect (a real process): carries connections to the target; a cancel ends the connection and the command', async () => {
    const child = spawn(process.execPath, [CAIRN_BIN, 'gateway', 'connect', `-target-id=${targetId}`, '-listen-port=0'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const info = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        out += d;
        if (/Session ID: +s_\S+\n/.test(out)) resolve(out);
      });
      void exited.then((code) => reject(new Error(`connect exited ${code}: ${err}`)));
    });
    assert.match(
      info,
      /^Proxy listening information:\n  Address: +127\.0\.0\.1\n  Connection Limit: +-1\n  Expiration: +\S+\n  Port: +\d+\n  Protocol: +tcp\n  Session ID: +s_/,
    );
    const port = Number(/Port: +(\d+)/.exec(info)![1]);
    const sessionId = /Session ID: +(\S+)/.exec(info)![1];
    for (const word of ['one', 'two']) {
      const sock = net.connect(port, '127.0.0.1');
      sock.write(word);
      assert.equal(await new Promise<string>((r) => sock.once('data', (d) => r(String(d)))), word);
      sock.destroy();
    }
    const held = net.connect(port, '127.0.0.1');
    held.write('x');
    await new Promise((r) => held.once('data', r));
    const heldClosed = new Promise<void>((r) => held.once('close', () => r()));
    const c = await run(['gateway', 'sessions', 'cancel', `-id=${sessionId}`]);
    assert.equal(c.code, 0, c.stderr);
    await heldClosed;
    assert.equal(await exited, 0, err);
    assert.match(err, new RegExp(`Session ${sessionId} ended: canceled\\.`));
    const json = JSON.parse((await run(['gateway', 'sessions', 'read', `-id=${sessionId}`, '-format=json'])).stdout) as { connections: unknown[] };
    assert.equal(json.connections.length, 3);
  });

  it('errors: a wrong token (exit 1, one line), a missing id and a bad address (exit 2), an unknown target (exit 1)', async () => {
    const bad = await run(['gateway', 'sessions', 'list'], { GATEWAY_TOKEN: 'wrong' });
    assert.deepEqual([bad.code, bad.stderr], [1, 'Error: Unauthenticated, or invalid token. (HTTP 401)\n']);
    const noTarget = await run(['gateway', 'targets', 'authorize-session']);
    assert.deepEqual([noTarget.code, noTarget.stderr], [2, 'Error: missing -id=TARGET_ID\n']);
    const noConnectTarget = await run(['gateway', 'connect']);
    assert.deepEqual([noConnectTarget.code, noConnectTarget.stderr], [2, 'Error: missing -target-id=TARGET_ID\n']);
    const unknown = await run(['gateway', 'targets', 'authorize-session', '-id=ttcp_none']);
    assert.deepEqual([unknown.code, unknown.stderr], [1, 'Error: Resource not found. (HTTP 404)\n']);
    const addr = await run(['gateway', 'sessions', 'list', '-addr=127.0.0.1:9200']);
    assert.deepEqual([addr.code, addr.stderr], [2, 'Error: invalid gateway address "127.0.0.1:9200": expected http(s)://host:port\n']);
  });
});
