/**
 * `cairn dev` runs a gateway controller and one worker in its process (issue 4 scope 6):
 * one ops listener answers `/health` and `/health?worker_info=1`, the worker reaches
 * READY over its gRPC channel, and a session authorised with the printed token proxies
 * TCP through the printed proxy address; the printed gateway login (issue 20 scope 6)
 * logs in. A real child process on free ports.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { connectSession, GatewayClient } from '../../src/sdk/index.js';
import { CAIRN_BIN } from '../bin.js';

describe('cairn dev: the gateway', () => {
  it('one ops listener for /health and worker_info, READY upstream, a proxied session with the printed token', { timeout: 60_000 }, async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cairn-dev-gw-'));
    const ports = ['secrets', 'gateway-api', 'gateway-cluster', 'gateway-proxy', 'gateway-ops', 'mesh', 'mesh-dns', 'sched'].map(
      (p) => `-${p}-address=127.0.0.1:0`,
    );
    const child = spawn(process.execPath, [CAIRN_BIN, 'dev', `-data-dir=${dataDir}`, '-dev-gateway-token=gw-dev', ...ports], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    // Also when an assertion times out mid-way: a live child would keep the runner waiting.
    t.after(() => child.kill('SIGKILL'));
    const echo = net.createServer((s) => s.pipe(s));
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    try {
      const printed: Record<string, string> = {};
      let secretsUrl = '';
      await new Promise<void>((resolve, reject) => {
        child.once('exit', (c) => reject(new Error(`cairn dev exited with ${c}`)));
        createInterface({ input: child.stdout! }).on('line', (line) => {
          const m = /^ {4}Gateway (api|token|proxy|health|target): +(\S+)/.exec(line);
          if (/^ +cairn gateway connect /.test(line)) printed.connect = line.trim();
          if (m) printed[m[1]] = m[2];
          const login = /^ {4}Gateway login: +auth method (\S+), login name "([^"]+)", password "([^"]+)"/.exec(line);
          if (login) [printed.authMethod, printed.loginName, printed.password] = login.slice(1);
          const secrets = /^ {4}Secrets service: +(\S+)/.exec(line);
          if (secrets) secretsUrl = secrets[1];
          if (line.startsWith('Press Ctrl-C')) resolve();
        });
      });
      assert.equal(printed.token, 'gw-dev');
      assert.match(printed.health, /^http:\/\/127\.0\.0\.1:\d+\/health$/);
      const health = await fetch(printed.health);
      assert.deepEqual([health.status, await health.text()], [200, '{}']);
      const deadline = performance.now() + 10_000;
      let info: { worker_process_info?: { state: string; active_session_count: number; upstream_connection_state: string } } = {};
      while (info.worker_process_info?.upstream_connection_state !== 'READY') {
        assert.ok(performance.now() < deadline, `worker not READY: ${JSON.stringify(info)}`);
        await new Promise((r) => setTimeout(r, 100));
        info = (await (await fetch(`${printed.health}?worker_info=1`)).json()) as typeof info;
      }
      assert.deepEqual(info, { worker_process_info: { state: 'active', active_session_count: 0, upstream_connection_state: 'READY' } });

      // The printed login works (issue 20 scope 6: the reference's dev values).
      assert.deepEqual([printed.authMethod, printed.loginName, printed.password], ['ampw_1234567890', 'admin', 'password']);
      const login = new GatewayClient({ address: printed.api });
      const t = await login.authenticatePassword(printed.authMethod, printed.loginName, printed.password);
      assert.match(t.token!, /^at_/);
      const admin = new GatewayClient({ address: printed.api, token: t.token });
      assert.deepEqual(
        (await admin.list('scopes', { scope_id: 'global' })).map((x) => x.id),
        ['o_1234567890'],
      );

      // The dev target: the secrets service on 127.0.0.1, reached through the worker by the admin.
      assert.equal(printed.target, 'ttcp_1234567890');
      assert.equal(printed.connect, `cairn gateway connect -addr=${printed.api} -target-id=ttcp_1234567890   (with GATEWAY_TOKEN from the login)`);
      let s;
      while (!s) s = await admin.authorizeSession(printed.target).catch(async () => void (await new Promise((r) => setTimeout(r, 100))));
      assert.deepEqual([s.worker_info, s.host_id, s.endpoint], [[{ address: printed.proxy }], 'hst_1234567890', `tcp://127.0.0.1:${new URL(secretsUrl).port}`]);
      const { socket } = await connectSession({ worker: printed.proxy, token: s.authorization_token });
      socket.write('GET /v1/sys/health HTTP/1.0\r\n\r\n');
      const got = await new Promise<string>((r) => socket.once('data', (d) => r(String(d))));
      assert.match(got, /^HTTP\/1\.1 200 /);
      const during = (await (await fetch(`${printed.health}?worker_info=1`)).json()) as typeof info;
      assert.equal(during.worker_process_info?.active_session_count, 1);
      socket.destroy();
      await Promise.all([login.close(), admin.close()]);

      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGINT');
      assert.equal(await exited, 0);
    } finally {
      child.kill('SIGKILL');
      echo.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
