/**
 * The gateway client commands (`cairn gateway authorize-session|sessions|cancel-session|
 * workers|connect`) run in-process against a real controller and worker on loopback,
 * with an echo server as the target.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { main } from '../../src/cli/main.js';
import { silentLogger } from '../../src/kernel/log/logger.js';
import { devGatewayConfig } from '../../src/services/gateway/config.js';
import { startGateway, type Gateway } from '../../src/services/gateway/server.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('cairn gateway client commands', { timeout: 30_000 }, () => {
  let gateway: Gateway;
  let echo: net.Server;
  let target: string;
  let env: Record<string, string>;
  const run = async (argv: string[], extraEnv: Record<string, string> = {}, shutdown?: AbortSignal, onOut?: (s: string) => void): Promise<Run> => {
    let stdout = '';
    let stderr = '';
    const code = await main(argv, { ...env, ...extraEnv }, {
      stdout: (s) => {
        stdout += s;
        onOut?.(stdout);
      },
      stderr: (s) => (stderr += s),
      shutdown,
    });
    return { code, stdout, stderr };
  };

  before(async () => {
    const port0 = { api: '127.0.0.1:0', cluster: '127.0.0.1:0', proxy: '127.0.0.1:0', ops: '127.0.0.1:0' };
    gateway = await startGateway({ config: devGatewayConfig(port0, 'cli-token'), log: silentLogger(), statusIntervalMs: 100 });
    env = { GATEWAY_ADDR: gateway.listeners.find((l) => l.purpose === 'api')!.url, GATEWAY_TOKEN: 'cli-token' };
    echo = net.createServer((s) => s.pipe(s));
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    target = `127.0.0.1:${(echo.address() as net.AddressInfo).port}`;
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

  it('authorize-session, sessions and cancel-session, in table and JSON form', async () => {
    const a = await run(['gateway', 'authorize-session', `-target=${target}`, '-ttl=10m', '-connection-limit=2', '-format=json']);
    assert.equal(a.code, 0, a.stderr);
    const s = JSON.parse(a.stdout) as { session_id: string; connection_limit: number; authorization_token: string };
    assert.equal(s.connection_limit, 2);
    assert.ok(s.authorization_token.length >= 40);
    const list = await run(['gateway', 'sessions']);
    assert.match(list.stdout, /^ID +STATUS +ENDPOINT +CONNECTIONS +EXPIRATION\n/);
    assert.match(list.stdout, new RegExp(`^${s.session_id} +pending +tcp://${target} +0 `, 'm'));
    const c = await run(['gateway', 'cancel-session', s.session_id]);
    assert.deepEqual([c.code, c.stdout], [0, `Session ${s.session_id} is terminated.\n`]);
  });

  it('connect: a local listener carries connections to the target; Ctrl-C cancels the session', async () => {
    const stop = new AbortController();
    let listening: (addr: string) => void;
    const addr = new Promise<string>((r) => (listening = r));
    const running = run(['gateway', 'connect', `-target=${target}`], {}, stop.signal, (out) => {
      const m = /^Proxy listening on (\S+)$/m.exec(out);
      if (m) listening(m[1]);
    });
    let finished = false;
    void running.then(() => (finished = true));
    const [host, port] = (await addr).split(':');
    for (const word of ['one', 'two']) {
      const sock = net.connect(Number(port), host);
      sock.write(word);
      const got = await new Promise<string>((r) => sock.once('data', (d) => r(String(d))));
      assert.equal(got, word);
      sock.destroy();
    }
    assert.equal(finished, false, 'connect runs until stopped');
    stop.abort();
    const r = await running;
    assert.equal(r.code, 0, r.stderr);
    const sessionId = /^Session ID +(\S+)$/m.exec(r.stdout)![1];
    const json = JSON.parse((await run(['gateway', 'sessions', '-format=json'])).stdout) as { id: string; status: string; connections: unknown[] }[];
    const mine = json.find((x) => x.id === sessionId)!;
    assert.equal(mine.connections.length, 2);
    assert.ok(['canceling', 'terminated'].includes(mine.status), mine.status);
  });

  it('errors: a wrong token (exit 1, one line), a missing target and a bad address (exit 2)', async () => {
    const bad = await run(['gateway', 'sessions'], { GATEWAY_TOKEN: 'wrong' });
    assert.deepEqual([bad.code, bad.stderr], [1, 'Error: Unauthenticated, or invalid token. (HTTP 401)\n']);
    const noTarget = await run(['gateway', 'authorize-session']);
    assert.deepEqual([noTarget.code, noTarget.stderr], [2, 'Error: missing -target=HOST:PORT\n']);
    const badTarget = await run(['gateway', 'authorize-session', '-target=nope']);
    assert.equal(badTarget.code, 1);
    assert.match(badTarget.stderr, /^Error: field "target": must be host:port/);
    const addr = await run(['gateway', 'sessions', '-addr=127.0.0.1:9200']);
    assert.deepEqual([addr.code, addr.stderr], [2, 'Error: invalid gateway address "127.0.0.1:9200": expected http(s)://host:port\n']);
  });
});
