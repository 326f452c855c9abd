/**
 * `cairn dev` wires workload identities to the secrets and discovery services (issue 27 scope 7),
 * every step a real process: `cairn dev`, a job run with `cairn sched job run` whose task asks
 * for `vault_default` (aud `cairn-secrets`) and `consul_default` (aud `cairn-discovery`) as files,
 * and the JWTs the dev client wrote to the task's `secrets/`:
 *
 * - at the secrets service's `auth/jwt-workloads/login` (no role: the mount's default role) the
 *   `vault_default` JWT gets a `cairn-workloads` token that reads and lists
 *   `secret/…/default/<job>/*` and nothing of another job; the `consul_default` JWT (another
 *   audience) is refused;
 * - at the discovery service's `cairn-workloads` auth method the `consul_default` JWT gets a token
 *   with role `cairn-tasks-default` (binding rule by namespace) that reads keys and may not write
 *   them; the `vault_default` JWT is refused;
 * - a second start of the same data directory changes none of it (same objects, same indexes,
 *   no "wired" log line) and the same JWTs still log in.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { CAIRN_BIN } from './bin.js';
import { killTasksUnder, spawnCairn, until } from './processes.js';
import type { JsonReply } from './helpers.js';
import { freePort } from './sched/client-helpers.js';

const ROOT = 'dev-workloads-root';

/** The job: its task asks for both workload identities as files (secrets/cairn_<name>.jwt). */
const JOB = `job "tour-db" {
  group "app" {
    task "app" {
      driver = "raw_exec"
      config {
        command = "/bin/sleep"
        args    = ["300"]
      }
      identity {
        name = "vault_default"
        aud  = ["cairn-secrets"]
        file = true
        ttl  = "1h"
      }
      identity {
        name = "consul_default"
        aud  = ["cairn-discovery"]
        file = true
        ttl  = "1h"
      }
      resources {
        cpu    = 50
        memory = 32
      }
    }
  }
}
`;

/** A running `cairn dev`: its printed addresses and its log (stderr lines). */
interface Dev {
  readonly child: ChildProcess;
  readonly secrets: string;
  readonly mesh: string;
  readonly sched: string;
  readonly log: string[];
}

/** Starts `cairn dev` on `dataDir` with the scheduler on `schedPort` (the JWKS URL both services trust); resolves once its banner is printed. */
function startDev(dataDir: string, schedPort: number): Promise<Dev> {
  const ports = ['secrets', 'gateway-api', 'gateway-cluster', 'gateway-proxy', 'gateway-ops', 'mesh', 'mesh-dns'].map((p) => `-${p}-address=127.0.0.1:0`);
  const child = spawn(
    process.execPath,
    [CAIRN_BIN, 'dev', `-data-dir=${dataDir}`, `-dev-root-token-id=${ROOT}`, ...ports, `-sched-address=127.0.0.1:${schedPort}`],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const log: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => log.push(line));
  const printed: Record<string, string> = {};
  return new Promise((resolve, reject) => {
    child.once('exit', (c) => reject(new Error(`cairn dev exited with ${c}:\n${log.join('\n')}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /^ {4}(Secrets service|Discovery|Scheduler): +(\S+)/.exec(line);
      if (m) printed[m[1]!] = m[2]!;
      if (line.startsWith('Press Ctrl-C')) resolve({ child, secrets: printed['Secrets service']!, mesh: printed.Discovery!, sched: printed.Scheduler!, log });
    });
  });
}

/** Stops `dev` with Ctrl-C; asserts it exits 0. */
async function stopDev(dev: Dev): Promise<void> {
  const exited = new Promise<number | null>((r) => dev.child.once('exit', (code) => r(code)));
  dev.child.kill('SIGINT');
  assert.equal(await exited, 0, dev.log.join('\n'));
}

/** One JSON request; status and parsed body (null when empty; the text when not JSON: the discovery service's errors). */
async function request(
  url: string,
  o: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<{ status: number; json: JsonReply }> {
  const r = await fetch(url, { method: o.method ?? 'GET', headers: o.headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
  const text = await r.text();
  try {
    return { status: r.status, json: text ? JSON.parse(text) : null };
  } catch {
    return { status: r.status, json: text };
  }
}

describe('cairn dev: workload identities log in at the secrets and discovery services (real processes)', { timeout: 300_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cairn-dev-wi-'));
  let dev: Dev;
  let schedPort: number;
  let vaultJwt: string;
  let consulJwt: string;
  const secrets = (path: string, o: { method?: string; token?: string; body?: unknown } = {}) =>
    request(`${dev.secrets}/v1/${path}`, { method: o.method, headers: { 'X-Secrets-Token': o.token ?? ROOT }, body: o.body });
  const mesh = (path: string, o: { method?: string; token?: string; body?: unknown } = {}) =>
    request(`${dev.mesh}/v1/${path}`, { method: o.method, headers: { 'X-Mesh-Token': o.token ?? ROOT }, body: o.body });

  /** What `cairn dev` wired, as both services show it to the root token. */
  const wired = async () => ({
    auth: (await secrets('sys/auth')).json.data['jwt-workloads/'],
    config: (await secrets('auth/jwt-workloads/config')).json.data,
    role: (await secrets('auth/jwt-workloads/role/cairn-workloads')).json.data,
    policy: (await secrets('sys/policies/acl/cairn-workloads')).json.data,
    method: (await mesh('acl/auth-method/cairn-workloads')).json,
    rules: (await mesh('acl/binding-rules?authmethod=cairn-workloads')).json,
    meshPolicy: (await mesh('acl/policy/name/cairn-tasks-default')).json,
    meshRole: (await mesh('acl/role/name/cairn-tasks-default')).json,
  });

  before(async () => {
    schedPort = await freePort();
    dev = await startDev(dataDir, schedPort);
    const file = join(dataDir, 'tour-db.hcl');
    writeFileSync(file, JOB);
    const run = spawnCairn(['sched', 'job', 'run', file], { SCHED_ADDR: dev.sched, SCHED_TOKEN: ROOT });
    assert.equal(await run.exited, 0, `${run.out.stdout}\n${run.out.stderr}`);
    const allocs = (await request(`${dev.sched}/v1/job/tour-db/allocations`, { headers: { 'X-Sched-Token': ROOT } })).json as { ID: string }[];
    const secretsDir = join(dataDir, 'sched', 'alloc', allocs[0]!.ID, 'app', 'secrets');
    [vaultJwt, consulJwt] = await until('the task identities written', 30_000, () => {
      try {
        const both = [readFileSync(join(secretsDir, 'cairn_vault_default.jwt'), 'utf8'), readFileSync(join(secretsDir, 'cairn_consul_default.jwt'), 'utf8')];
        return both.every((j) => j.split('.').length === 3) ? both : undefined;
      } catch {
        return undefined;
      }
    });
    for (const [path, password] of [
      ['default/tour-db/x', 'mine'],
      ['default/other/x', 'theirs'],
    ]) {
      assert.equal((await secrets(`secret/data/${path}`, { method: 'POST', body: { data: { password } } })).status, 200);
    }
    assert.equal((await mesh('kv/tour/greeting', { method: 'PUT', body: 'hello' })).status, 200);
  });
  after(async () => {
    if (dev.child.exitCode === null) dev.child.kill('SIGKILL');
    killTasksUnder(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("a task's vault_default identity reads its own job's secrets and no other job's", async () => {
    const login = await request(`${dev.secrets}/v1/auth/jwt-workloads/login`, { method: 'POST', body: { jwt: vaultJwt } });
    assert.equal(login.status, 200, JSON.stringify(login.json));
    const auth = login.json.auth;
    assert.deepEqual(auth.token_policies, ['cairn-workloads', 'default']);
    assert.deepEqual(auth.metadata, { cairn_namespace: 'default', cairn_job_id: 'tour-db', cairn_task: 'app', role: 'cairn-workloads' });
    assert.equal(auth.renewable, true);
    const token = auth.client_token as string;
    const own = await secrets('secret/data/default/tour-db/x', { token });
    assert.equal(own.status, 200, JSON.stringify(own.json));
    assert.equal(own.json.data.data.password, 'mine');
    const list = await secrets('secret/metadata/default/tour-db/?list=true', { token });
    assert.deepEqual(list.json?.data?.keys, ['x']);
    for (const path of ['secret/data/default/other/x', 'secret/metadata/default/other/?list=true']) {
      assert.equal((await secrets(path, { token })).status, 403, path);
    }
    assert.equal(
      (await secrets('secret/data/default/tour-db/x', { method: 'POST', token, body: { data: { password: 'overwritten' } } })).status,
      403,
      'read only',
    );
    // The discovery identity is for another audience.
    const wrongAud = await request(`${dev.secrets}/v1/auth/jwt-workloads/login`, { method: 'POST', body: { jwt: consulJwt } });
    assert.ok(wrongAud.status === 400 || wrongAud.status === 403, `${wrongAud.status} ${JSON.stringify(wrongAud.json)}`);
  });

  it("a task's consul_default identity gets its namespace's discovery role: keys read, not written", async () => {
    const login = await mesh('acl/login', { method: 'POST', token: '', body: { AuthMethod: 'cairn-workloads', BearerToken: consulJwt } });
    assert.equal(login.status, 200, JSON.stringify(login.json));
    assert.deepEqual(
      login.json.Roles.map((r: { Name: string }) => r.Name),
      ['cairn-tasks-default'],
    );
    assert.equal(login.json.ServiceIdentities ?? null, null, 'a task identity binds no service');
    const token = login.json.SecretID as string;
    const read = await mesh('kv/tour/greeting?raw', { token });
    assert.equal(read.status, 200);
    assert.equal(read.json, 'hello');
    assert.equal((await mesh('kv/tour/greeting', { method: 'PUT', token, body: 'changed' })).status, 403);
    assert.equal((await mesh('acl/logout', { method: 'POST', token })).status, 200);
    // The secrets identity is for another audience.
    const wrongAud = await mesh('acl/login', { method: 'POST', token: '', body: { AuthMethod: 'cairn-workloads', BearerToken: vaultJwt } });
    assert.equal(wrongAud.status, 403, JSON.stringify(wrongAud.json));
  });

  it("wires the service identities' binding rule too", async () => {
    const { rules } = await wired();
    assert.deepEqual((rules as { BindType: string; BindName: string; Selector: string }[]).map((r) => [r.BindType, r.BindName, r.Selector]).sort(), [
      ['role', 'cairn-tasks-${value.cairn_namespace}', '"cairn_service" not in value'],
      ['service', '${value.cairn_service}', '"cairn_service" in value'],
    ]);
  });

  it('a second start of the same data directory changes nothing and fails nothing', async () => {
    const before = await wired();
    assert.ok(
      dev.log.some((l) => l.includes('workload identities wired')),
      'the first start says what it made',
    );
    await stopDev(dev);
    dev = await startDev(dataDir, schedPort);
    assert.deepEqual(await wired(), before);
    assert.ok(!dev.log.some((l) => l.includes('workload identities wired')), dev.log.join('\n'));
    assert.ok(!dev.log.some((l) => /"level":(50|60)/.test(l)), dev.log.join('\n'));
    const login = await request(`${dev.secrets}/v1/auth/jwt-workloads/login`, { method: 'POST', body: { jwt: vaultJwt } });
    assert.equal(login.status, 200, JSON.stringify(login.json));
    const meshLogin = await mesh('acl/login', { method: 'POST', token: '', body: { AuthMethod: 'cairn-workloads', BearerToken: consulJwt } });
    assert.equal(meshLogin.status, 200, JSON.stringify(meshLogin.json));
    await stopDev(dev);
  });
});
