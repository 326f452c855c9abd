/**
 * A gateway target that follows a discovery service registration (issue 26 scope 5), every
 * step a real process as a user runs it: `cairn dev` (discovery agent, gateway controller
 * and worker); a service registered through the agent's API with an HTTP check against a
 * small HTTP server this test runs; a `consul` plugin host catalog and host set over it; a
 * target over the set; `cairn gateway connect` reaches the server through the worker. The
 * registration then moves (deregistered, another instance on another port with another
 * server): the next `connect` reaches the new server.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { CAIRN_BIN } from '../bin.js';
import { spawnCairn, until } from '../processes.js';

const ROOT = 'plugin-hosts-root-token';

/** An HTTP server on a free loopback port answering every request with `name`. */
async function nameServer(name: string): Promise<{ server: Server; port: number }> {
  const server = createServer((_req, res) => res.end(name));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port };
}

/** `GET /` through a local proxy port, as raw HTTP/1.0; the whole reply. */
async function getThrough(port: number): Promise<string> {
  const sock = net.connect(port, '127.0.0.1');
  sock.write('GET / HTTP/1.0\r\n\r\n');
  return new Promise<string>((resolve, reject) => {
    let got = '';
    sock.on('data', (d) => (got += String(d)));
    sock.once('close', () => resolve(got));
    sock.once('error', reject);
  });
}

describe('a gateway target over a discovery host catalog (real processes)', () => {
  it('cairn gateway connect reaches the registered server, and the new one once the registration moves', { timeout: 300_000 }, async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cairn-gw-plugin-'));
    const ports = ['secrets', 'gateway-api', 'gateway-cluster', 'gateway-proxy', 'gateway-ops', 'mesh', 'mesh-dns', 'sched'].map(
      (p) => `-${p}-address=127.0.0.1:0`,
    );
    const dev = spawn(process.execPath, [CAIRN_BIN, 'dev', `-data-dir=${dataDir}`, `-dev-root-token-id=${ROOT}`, ...ports], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const first = await nameServer('server-one');
    const second = await nameServer('server-two');
    t.after(() => {
      dev.kill('SIGKILL');
      first.server.close();
      second.server.close();
      rmSync(dataDir, { recursive: true, force: true });
    });
    const printed: Record<string, string> = {};
    await new Promise<void>((resolve, reject) => {
      dev.once('exit', (c) => reject(new Error(`cairn dev exited with ${c}`)));
      createInterface({ input: dev.stdout! }).on('line', (line) => {
        const m = /^ {4}(Discovery|Gateway api|Gateway token|Gateway target): +(\S+)/.exec(line);
        if (m) printed[m[1]] = m[2];
        if (line.startsWith('Press Ctrl-C')) resolve();
      });
    });
    const mesh = printed.Discovery;
    const env = { GATEWAY_ADDR: printed['Gateway api'], GATEWAY_TOKEN: printed['Gateway token'] };
    const meshPut = async (path: string, body?: unknown) => {
      const r = await fetch(`${mesh}/v1/${path}`, {
        method: 'PUT',
        headers: { 'X-Mesh-Token': ROOT },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      assert.equal(r.status, 200, `${path}: ${await r.text()}`);
    };
    const api = async (method: string, path: string, body?: unknown) => {
      const r = await fetch(`${env.GATEWAY_ADDR}/v1/${path}`, {
        method,
        headers: { Authorization: `Bearer ${env.GATEWAY_TOKEN}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await r.text();
      assert.equal(r.status, 200, `${method} ${path}: ${text}`);
      return JSON.parse(text) as { id: string; version: number; scope_id: string; host_ids?: string[] };
    };
    const registerAt = (id: string, port: number) =>
      meshPut('agent/service/register', {
        ID: id,
        Name: 'web',
        Address: '127.0.0.1',
        Port: port,
        Check: { HTTP: `http://127.0.0.1:${port}/health`, Interval: '1s' },
      });
    /** The passing instances' ports in the discovery service. */
    const passingPorts = async () => {
      const r = await fetch(`${mesh}/v1/health/service/web?passing`, { headers: { 'X-Mesh-Token': ROOT } });
      return ((await r.json()) as Array<{ Service: { Port: number } }>).map((e) => e.Service.Port);
    };

    await registerAt('web-one', first.port);
    await until('the first instance passes its HTTP check', 30_000, async () => ((await passingPorts()).join() === String(first.port) ? true : undefined));

    const { scope_id: project } = await api('GET', `targets/${printed['Gateway target']}`);
    const catalog = await api('POST', 'host-catalogs', {
      scope_id: project,
      type: 'plugin',
      plugin_name: 'consul',
      name: 'discovery',
      attributes: { address: mesh },
      secrets: { token: ROOT },
    });
    const set = await api('POST', 'host-sets', { host_catalog_id: catalog.id, name: 'web', attributes: { service_name: 'web' } });
    const target = await api('POST', 'targets', { scope_id: project, type: 'tcp', name: 'web', attributes: { default_port: 1 } });
    await api('POST', `targets/${target.id}:add-host-sources`, { version: target.version, host_source_ids: [set.id] });
    /** The set's hosts' ports once they are `want`. */
    const setPorts = (want: number[]) =>
      until(`the host set holds ports ${want.join()}`, 30_000, async () => {
        const ids = (await api('GET', `host-sets/${set.id}`)).host_ids ?? [];
        const hosts = await Promise.all(ids.map((id) => api('GET', `hosts/${id}`) as Promise<unknown> as Promise<{ attributes: { port: number } }>));
        return hosts.map((h) => h.attributes.port).join() === want.join() ? true : undefined;
      });
    await setPorts([first.port]);

    /** `cairn gateway connect` to the target: what one HTTP request through it answers. */
    const connectAndGet = async () => {
      const run = spawnCairn(['gateway', 'connect', `-target-id=${target.id}`, '-listen-port=0'], env);
      t.after(() => run.child.kill('SIGKILL'));
      const info = await until('connect prints its listener', 60_000, () => (/Port: +\d+/.test(run.out.stdout) ? run.out.stdout : undefined)).catch(
        (err: Error) => {
          throw new Error(`${err.message}\nstdout: ${run.out.stdout}\nstderr: ${run.out.stderr}`);
        },
      );
      const reply = await getThrough(Number(/Port: +(\d+)/.exec(info)![1]));
      run.child.kill('SIGINT');
      assert.equal(await run.exited, 0, run.out.stderr);
      return reply;
    };
    assert.match(await connectAndGet(), /^HTTP\/1\.1 200 [^]*\r\n\r\nserver-one$/);

    // The registration moves: the first instance leaves, a second one on another port with another server comes.
    await meshPut('agent/service/deregister/web-one');
    await registerAt('web-two', second.port);
    await until('the second instance passes its HTTP check', 30_000, async () => ((await passingPorts()).join() === String(second.port) ? true : undefined));
    await setPorts([second.port]);
    assert.match(await connectAndGet(), /^HTTP\/1\.1 200 [^]*\r\n\r\nserver-two$/);
  });
});
