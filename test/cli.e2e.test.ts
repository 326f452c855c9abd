/**
 * The `cairn` CLI end to end against a real secrets service (through the SDK, as a user
 * runs it), and `cairn dev` as a real child process.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { main } from '../src/cli/main.js';
import { call, startTestServer, type TestServer } from './helpers.js';
import { CAIRN_BIN } from './bin.js';

let s: TestServer;
before(async () => (s = await startTestServer()));
after(() => s.close());

async function cairn(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(
    argv,
    { SECRETS_ADDR: s.url, SECRETS_TOKEN: s.rootToken },
    {
      stdout: (x) => (stdout += x),
      stderr: (x) => (stderr += x),
    },
  );
  return { code, stdout, stderr };
}

describe('cairn CLI against a real server', () => {
  it('kv put / get / list / metadata / delete / undelete / destroy', async () => {
    assert.equal((await cairn('kv', 'put', 'secret/app/api', 'key=abc', 'env=prod')).code, 0);
    assert.equal((await cairn('kv', 'put', '-mount=secret', 'app/api', 'key=def')).code, 0);
    const got = await cairn('kv', 'get', '-format=json', 'secret/app/api');
    assert.equal(got.code, 0, got.stderr);
    assert.deepEqual(JSON.parse(got.stdout).data.data, { key: 'def' });
    const v1 = await cairn('kv', 'get', '-version=1', '-field=env', 'secret/app/api');
    assert.equal(v1.stdout.trim(), 'prod');
    const table = await cairn('kv', 'get', 'secret/app/api');
    assert.match(table.stdout, /key\s+def/);
    const list = await cairn('kv', 'list', '-format=json', 'secret/app');
    assert.deepEqual(JSON.parse(list.stdout), ['api']);
    assert.equal((await cairn('kv', 'metadata', 'put', '-max-versions=3', '-custom-metadata=owner=team-a', 'secret/app/api')).code, 0);
    const meta = await cairn('kv', 'metadata', 'get', '-format=json', 'secret/app/api');
    assert.equal(JSON.parse(meta.stdout).data.max_versions, 3);
    assert.equal((await cairn('kv', 'delete', 'secret/app/api')).code, 0);
    assert.equal((await call(s.url, 'GET', '/v1/secret/data/app/api', { token: s.rootToken })).status, 404);
    assert.equal((await cairn('kv', 'undelete', '-versions=2', 'secret/app/api')).code, 0);
    assert.equal((await call(s.url, 'GET', '/v1/secret/data/app/api', { token: s.rootToken })).status, 200);
    assert.equal((await cairn('kv', 'destroy', '-versions=1', 'secret/app/api')).code, 0);
    assert.equal((await call(s.url, 'GET', '/v1/secret/metadata/app/api', { token: s.rootToken })).json.data.versions['1'].destroyed, true);
    assert.equal((await cairn('kv', 'metadata', 'delete', 'secret/app/api')).code, 0);
    const gone = await cairn('kv', 'get', 'secret/app/api');
    assert.equal(gone.code, 2);
    assert.match(gone.stderr + gone.stdout, /No value found at/);
  });

  it('read / write / list / delete on a KV v1 mount', async () => {
    await call(s.url, 'POST', '/v1/sys/mounts/kv1', { token: s.rootToken, body: { type: 'kv' } });
    assert.equal((await cairn('write', 'kv1/legacy', 'user=alice')).code, 0);
    const r = await cairn('read', '-format=json', 'kv1/legacy');
    assert.deepEqual(JSON.parse(r.stdout).data, { user: 'alice' });
    assert.deepEqual(JSON.parse((await cairn('list', '-format=json', 'kv1/')).stdout), ['legacy']);
    assert.equal((await cairn('delete', 'kv1/legacy')).code, 0);
  });

  it('kv commands on a KV version 1 mount use the plain paths', async () => {
    await call(s.url, 'POST', '/v1/sys/mounts/legacy', { token: s.rootToken, body: { type: 'kv', options: { version: '1' } } });
    assert.equal((await cairn('kv', 'put', 'legacy/app', 'user=bob')).code, 0);
    assert.deepEqual((await call(s.url, 'GET', '/v1/legacy/app', { token: s.rootToken })).json.data, { user: 'bob' });
    const got = await cairn('kv', 'get', '-format=json', 'legacy/app');
    assert.deepEqual(JSON.parse(got.stdout).data, { user: 'bob' });
    assert.equal((await cairn('kv', 'get', '-field=user', 'legacy/app')).stdout.trim(), 'bob');
    assert.deepEqual(JSON.parse((await cairn('kv', 'list', '-format=json', 'legacy')).stdout), ['app']);
    const undelete = await cairn('kv', 'undelete', '-versions=1', 'legacy/app');
    assert.equal(undelete.code, 2);
    assert.match(undelete.stderr, /KV version 2/);
    assert.equal((await cairn('kv', 'delete', 'legacy/app')).code, 0);
    assert.equal((await call(s.url, 'GET', '/v1/legacy/app', { token: s.rootToken })).status, 404);
  });

  it('token create and lookup', async () => {
    const c = await cairn('token', 'create', '-policy=default', '-ttl=1h', '-format=json');
    assert.equal(c.code, 0, c.stderr);
    const token = JSON.parse(c.stdout).auth.client_token;
    let out = '';
    const code = await main(
      ['token', 'lookup', '-format=json'],
      { SECRETS_ADDR: s.url, SECRETS_TOKEN: token },
      { stdout: (x) => (out += x), stderr: () => {} },
    );
    assert.equal(code, 0);
    const ttl = JSON.parse(out).data.ttl;
    assert.ok(ttl > 3500 && ttl <= 3600, String(ttl));
  });

  it('prints one clear line with the server message on errors', async () => {
    let err = '';
    const code = await main(['kv', 'get', 'secret/x'], { SECRETS_ADDR: s.url, SECRETS_TOKEN: 'wrong' }, { stdout: () => {}, stderr: (x) => (err += x) });
    assert.equal(code, 1);
    assert.equal(err.trim().split('\n').length, 1);
    assert.match(err, /permission denied/);
    assert.match(err, /403/);
  });
});

/** `cairn dev` flags that put the gateway, discovery and scheduler listeners on free ports. */
const FREE_PORTS = [
  ...['api', 'cluster', 'proxy', 'ops'].map((p) => `-gateway-${p}-address=127.0.0.1:0`),
  '-mesh-address=127.0.0.1:0',
  '-mesh-dns-address=127.0.0.1:0',
  '-sched-address=127.0.0.1:0',
];

describe('cairn dev', () => {
  it(
    'starts with a fixed root token, prints it, serves secret/ as KV v2 and the discovery and scheduler services with that token (the scheduler with a hostpath CSI plugin), and stops on SIGINT',
    { timeout: 60_000 },
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'cairn-dev-'));
      const child = spawn(
        process.execPath,
        [CAIRN_BIN, 'dev', `-data-dir=${dataDir}`, '-dev-root-token-id=devroot', '-secrets-address=127.0.0.1:0', ...FREE_PORTS],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      try {
        let banner = '';
        const url = await new Promise<string>((resolve, reject) => {
          child.once('exit', (c) => reject(new Error(`cairn dev exited with ${c}`)));
          createInterface({ input: child.stdout! }).on('line', (line) => {
            banner += line + '\n';
            // The whole banner first: the addresses of every service are in it.
            if (line.startsWith('Press Ctrl-C')) resolve(/SECRETS_ADDR='([^']+)'/.exec(banner)![1]);
          });
        });
        assert.match(banner, /devroot/);
        const w = await call(url, 'POST', '/v1/secret/data/hello', { token: 'devroot', body: { data: { a: 1 } } });
        assert.equal(w.status, 200);
        assert.equal(w.json.mount_type, 'kv');
        // The discovery service has ACLs on and the root token as its management token.
        const mesh = /MESH_HTTP_ADDR='([^']+)'/.exec(banner)?.[1];
        assert.ok(mesh, banner);
        const self = await fetch(`${mesh}/v1/acl/token/self`, { headers: { 'X-Mesh-Token': 'devroot' } });
        assert.equal(self.status, 200);
        assert.deepEqual(((await self.json()) as { Policies: unknown[] }).Policies, [
          { ID: '00000000-0000-0000-0000-000000000001', Name: 'global-management' },
        ]);
        assert.equal((await fetch(`${mesh}/v1/acl/tokens`)).status, 403, 'ACLs on, default deny');
        // So has the scheduler: its URL is in the banner and in the SCHED_ADDR line.
        const sched = /SCHED_ADDR='([^']+)' SCHED_TOKEN='devroot'/.exec(banner)?.[1];
        assert.ok(sched, banner);
        assert.match(banner, new RegExp(`^ {4}Scheduler: +${sched.replace(/[.]/g, '\\.')} `, 'm'));
        const schedSelf = await fetch(`${sched}/v1/acl/token/self`, { headers: { 'X-Sched-Token': 'devroot' } });
        assert.equal(schedSelf.status, 200);
        assert.equal(((await schedSelf.json()) as { Type: string }).Type, 'management');
        assert.deepEqual(await fetch(`${sched}/v1/regions`).then((r) => r.json()), ['global']);
        // …with a hostpath CSI plugin under the data dir, so the volume commands work at once.
        const socket = join(dataDir, 'csi', 'hostpath.sock');
        assert.match(banner, new RegExp(`^ {4}CSI plugin: +hostpath \\(monolith\\) at ${socket.replace(/[.]/g, '\\.')}$`, 'm'));
        const node = new RegExp(
          `^ {4}CSI volumes: +${join(dataDir, 'csi', 'volumes').replace(/[.]/g, '\\.')} +\\(served on dev node ([0-9a-f-]{36})\\)$`,
          'm',
        ).exec(banner)?.[1];
        assert.ok(node && existsSync(socket), banner);
        const schedCli = async (...argv: string[]) => {
          let out = '';
          let err = '';
          const code = await main(argv, { SCHED_ADDR: sched, SCHED_TOKEN: 'devroot' }, { stdout: (x) => (out += x), stderr: (x) => (err += x) });
          assert.equal(code, 0, `cairn ${argv.join(' ')}: ${err}`);
          return out;
        };
        assert.match(await schedCli('sched', 'plugin', 'status'), /^hostpath +\S+ +1\/1 +1\/1$/m);
        const spec = join(dataDir, 'vol.hcl');
        writeFileSync(
          spec,
          'id = "scratch"\ntype = "csi"\nplugin_id = "hostpath"\ncapacity_min = "1MiB"\ncapability {\n  access_mode = "single-node-writer"\n  attachment_mode = "file-system"\n}\n',
        );
        assert.match(await schedCli('sched', 'volume', 'create', spec), /^Created external volume \S+ with ID scratch\n$/);
        const vol = JSON.parse(await schedCli('sched', 'volume', 'status', '-json', 'scratch'));
        assert.deepEqual([vol.Schedulable, vol.ControllersHealthy, vol.NodesHealthy, vol.Capacity >= 2 ** 20], [true, 1, 1, true]);
        assert.match(await schedCli('sched', 'volume', 'snapshot', 'create', 'scratch', 'first'), /\n\S+ +scratch +/);
        assert.equal(JSON.parse(await schedCli('sched', 'volume', 'snapshot', 'list', '-plugin=hostpath', '-json')).Snapshots.length, 1);
        assert.equal(await schedCli('sched', 'volume', 'detach', 'scratch', node), `Successfully detached volume "scratch" from node "${node}"\n`);
        assert.equal(await schedCli('sched', 'volume', 'delete', 'scratch'), 'Successfully deleted volume "scratch"!\n');
        const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
        child.kill('SIGINT');
        assert.equal(await exited, 0);
        assert.ok(!existsSync(socket), 'the plugin removed its socket');
      } finally {
        child.kill('SIGKILL');
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );
});
