/**
 * Issue 20's outcome end to end, as an operator and a user run it, every step a real
 * user-side step a real process: `cairn dev` (secrets service, gateway controller and
 * worker, the bootstrapped project, dev target and admin login), `cairn gateway
 * authenticate password`; the admin (through the API) makes a `vault` credential store on
 * the dev secrets service with a periodic orphan token and a `vault-generic` library on a
 * KV v2 path attached to the dev target; then `cairn gateway connect`, which prints the brokered credential — the KV secret's *current*
 * value, a new version seen by the next session — and carries a TCP connection to the
 * target (the secrets API) through the worker. A user without a grant on the target is
 * refused (403) and never sees the credential.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { CAIRN_BIN } from '../bin.js';
import type { JsonReply } from '../helpers.js';
import { spawnCairn, until } from '../processes.js';
import { storePolicy } from './store-policy.js';

const ROOT = 'tour-root-token';
const POLICY = storePolicy('secret/data/db');

/** `cairn <args>` as its own process: its exit code and output. */
async function cairn(args: string[], env: Record<string, string> = {}): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const run = spawnCairn(args, env);
  const code = await run.exited;
  return { code, ...run.out };
}

describe('the access gateway tour on cairn dev (real processes)', () => {
  it('log in, broker the KV secret through a vault credential store, connect through the worker; no grant → 403', { timeout: 300_000 }, async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cairn-gw-tour-'));
    const ports = ['secrets', 'gateway-api', 'gateway-cluster', 'gateway-proxy', 'gateway-ops', 'mesh', 'mesh-dns', 'sched'].map(
      (p) => `-${p}-address=127.0.0.1:0`,
    );
    const dev = spawn(process.execPath, [CAIRN_BIN, 'dev', `-data-dir=${dataDir}`, `-dev-root-token-id=${ROOT}`, ...ports], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    t.after(() => {
      dev.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    });
    const printed: Record<string, string> = {};
    await new Promise<void>((resolve, reject) => {
      dev.once('exit', (c) => reject(new Error(`cairn dev exited with ${c}`)));
      createInterface({ input: dev.stdout! }).on('line', (line) => {
        const m = /^ {4}(Secrets service|Gateway api|Gateway target): +(\S+)/.exec(line);
        if (m) printed[m[1]] = m[2];
        const login = /^ {4}Gateway login: +auth method (\S+), login name "([^"]+)", password "([^"]+)"/.exec(line);
        if (login) [printed.authMethod, printed.loginName, printed.password] = login.slice(1);
        if (line.startsWith('Press Ctrl-C')) resolve();
      });
    });
    const secrets = printed['Secrets service'];
    const secretsCall = async (method: string, path: string, body: unknown) => {
      const r = await fetch(`${secrets}/v1/${path}`, { method, headers: { 'X-Secrets-Token': ROOT }, body: JSON.stringify(body) });
      const text = await r.text();
      assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${text}`);
      return text ? (JSON.parse(text) as { data?: JsonReply; auth?: JsonReply }) : {};
    };
    const gw = { GATEWAY_ADDR: printed['Gateway api'] };

    // The operator: the secret, the controller's policy and its periodic orphan token.
    await secretsCall('POST', 'secret/data/db', { data: { username: 'app', password: 'first-password' } });
    await secretsCall('PUT', 'sys/policies/acl/gateway-controller', { policy: POLICY });
    const storeToken = (await secretsCall('POST', 'auth/token/create', { policies: ['gateway-controller'], no_parent: true, period: '20m' })).auth
      .client_token as string;

    // The admin logs in with the printed login (the CLI, -format=json) ...
    const login = await cairn(
      [
        'gateway',
        'authenticate',
        'password',
        `-auth-method-id=${printed.authMethod}`,
        `-login-name=${printed.loginName}`,
        '-password=env://GW_PASSWORD',
        '-format=json',
      ],
      { ...gw, GW_PASSWORD: printed.password },
    );
    assert.equal(login.code, 0, login.stderr);
    const admin = { ...gw, GATEWAY_TOKEN: (JSON.parse(login.stdout) as { token: string }).token };
    /** The controller's API as the admin (the CLI's own commands are tested in cli-*.test.ts). */
    const api = async (method: string, path: string, body?: unknown) => {
      const r = await fetch(`${printed['Gateway api']}/v1/${path}`, {
        method,
        headers: { Authorization: `Bearer ${admin.GATEWAY_TOKEN}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await r.text();
      assert.equal(r.status, 200, `${method} ${path}: ${text}`);
      return JSON.parse(text) as { id: string; version: number; scope_id: string; status?: string };
    };
    // ... makes the credential store, the library, and attaches it to the dev target.
    const target = printed['Gateway target'];
    const { scope_id: project, version } = await api('GET', `targets/${target}`);
    const store = await api('POST', 'credential-stores', {
      scope_id: project,
      type: 'vault',
      name: 'dev-secrets',
      attributes: { address: secrets, token: storeToken },
    });
    assert.match(store.id, /^csvlt_/);
    const library = await api('POST', 'credential-libraries', {
      credential_store_id: store.id,
      type: 'vault-generic',
      name: 'db',
      credential_type: 'username_password',
      attributes: { path: 'secret/data/db' },
    });
    await api('POST', `targets/${target}:add-credential-sources`, { version, brokered_credential_source_ids: [library.id] });

    /** Runs `connect`, returns its printed information once listening; the caller ends it. */
    const connect = async () => {
      const run = spawnCairn(['gateway', 'connect', `-target-id=${target}`, '-listen-port=0'], admin);
      t.after(() => run.child.kill('SIGKILL'));
      const info = await until('connect prints its listener and credentials', 60_000, () =>
        /Secret: +\{.*\}\n/.test(run.out.stdout) ? run.out.stdout : undefined,
      ).catch((err: Error) => {
        throw new Error(`${err.message}\nstdout: ${run.out.stdout}\nstderr: ${run.out.stderr}`);
      });
      return { run, info, port: Number(/Port: +(\d+)/.exec(info)![1]), sessionId: /Session ID: +(\S+)/.exec(info)![1] };
    };

    const first = await connect();
    assert.match(first.info, new RegExp(`Credential Source ID: +${library.id}\\n`));
    assert.match(first.info, /Credential Type: +username_password\n/);
    assert.match(first.info, /Secret: +\{"password":"first-password","username":"app"\}|Secret: +\{"username":"app","password":"first-password"\}/);
    // The target is the secrets API on 127.0.0.1: an HTTP request through the local listener.
    const sock = net.connect(first.port, '127.0.0.1');
    sock.write('GET /v1/sys/health HTTP/1.0\r\n\r\n');
    // Read until the health body arrived (whether the proxied connection closes after it is the worker's business).
    const reply = await new Promise<string>((resolve, reject) => {
      let got = '';
      sock.on('data', (d) => {
        got += String(d);
        if (/"initialized":(true|false)/.test(got)) resolve(got);
      });
      sock.once('close', () => resolve(got));
      sock.once('error', reject);
    });
    sock.destroy();
    assert.match(reply, /^HTTP\/1\.1 200 /);
    assert.match(reply, /"initialized":true/);
    first.run.child.kill('SIGINT'); // Ctrl-C cancels the session
    assert.equal(await first.run.exited, 0, first.run.out.stderr);
    assert.match((await api('GET', `sessions/${first.sessionId}`)).status!, /^(canceling|terminated)$/);

    // A new version of the secret: the next session gets it.
    await secretsCall('POST', 'secret/data/db', { data: { username: 'app', password: 'second-password' } });
    const second = await connect();
    assert.match(second.info, /"password":"second-password"/);
    assert.doesNotMatch(second.info, /first-password/);
    second.run.child.kill('SIGINT');
    assert.equal(await second.run.exited, 0);

    // A user with no grant on the target (account and user made through the API): refused.
    const account = await api('POST', 'accounts', {
      auth_method_id: printed.authMethod,
      type: 'password',
      attributes: { login_name: 'visitor', password: 'visitor-password' },
    });
    const user = await api('POST', 'users', { scope_id: 'global', name: 'visitor' });
    await api('POST', `users/${user.id}:add-accounts`, { version: user.version, account_ids: [account.id] });
    const visitorLogin = await cairn(
      [
        'gateway',
        'authenticate',
        'password',
        `-auth-method-id=${printed.authMethod}`,
        '-login-name=visitor',
        '-password=env://VISITOR_PASSWORD',
        '-format=json',
      ],
      { ...gw, VISITOR_PASSWORD: 'visitor-password' },
    );
    assert.equal(visitorLogin.code, 0, visitorLogin.stderr);
    const visitor = { ...gw, GATEWAY_TOKEN: (JSON.parse(visitorLogin.stdout) as { token: string }).token };
    const refused = await cairn(['gateway', 'connect', `-target-id=${target}`, '-listen-port=0'], visitor);
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /HTTP 403/);
    assert.doesNotMatch(refused.stdout + refused.stderr, /second-password/);
  });
});
