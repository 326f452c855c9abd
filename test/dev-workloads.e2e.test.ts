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
 *   no "wired" log line) and the same JWTs still log in;
 * - with that wiring removed, docs/deploy.md's commands for separate servers (run by bash as
 *   written, the scheduler's address in place of the example's) make the same role, method and
 *   rules, and the same logins pass and fail;
 * - the README tour's job (`vault {}` and a template of a KV secret) prints its secret's digest,
 *   and again after a new version.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
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

  /** The `vault_default` JWT's login: a token that reads its own job's secrets and no other job's; the other JWT refused. */
  const secretsLogins = async () => {
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
  };

  /** The `consul_default` JWT's login: its namespace's role, keys read and not written; the other JWT refused. */
  const meshLogins = async () => {
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
  };

  it("a task's vault_default identity reads its own job's secrets and no other job's", secretsLogins);

  it("a task's consul_default identity gets its namespace's discovery role: keys read, not written", meshLogins);

  it('a keyring rotation keeps identities signed by the old key valid at the secrets service', async () => {
    const kid = (jwt: string) => (JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString('utf8')) as { kid: string }).kid;
    const rotated = await request(`${dev.sched}/v1/operator/keyring/rotate`, { method: 'PUT', headers: { 'X-Sched-Token': ROOT } });
    assert.equal(rotated.status, 200, JSON.stringify(rotated.json));
    const fresh = rotated.json.Key.KeyID as string;
    assert.notEqual(fresh, kid(vaultJwt), 'a new active key');
    const jwks = (await request(`${dev.sched}/.well-known/jwks.json`)).json as { keys: { kid: string }[] };
    assert.ok(jwks.keys.some((k) => k.kid === kid(vaultJwt)) && jwks.keys.some((k) => k.kid === fresh), 'both keys published');
    const login = await request(`${dev.secrets}/v1/auth/jwt-workloads/login`, { method: 'POST', body: { jwt: vaultJwt } });
    assert.equal(login.status, 200, JSON.stringify(login.json));
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
    await secretsLogins();
    await meshLogins();
  });

  it("docs/deploy.md's commands for separate servers configure the same: the identities log in as with cairn dev's wiring", async () => {
    const before = await wired();
    // Remove what cairn dev made (disabling the mount revokes its tokens; deleting the method, its rules).
    assert.equal((await secrets('sys/auth/jwt-workloads', { method: 'DELETE' })).status, 204);
    assert.equal((await secrets('sys/policies/acl/cairn-workloads', { method: 'DELETE' })).status, 204);
    assert.equal((await mesh('acl/auth-method/cairn-workloads', { method: 'DELETE' })).status, 200);
    assert.equal((await mesh(`acl/role/${before.meshRole.ID}`, { method: 'DELETE' })).status, 200);
    assert.equal((await mesh(`acl/policy/${before.meshPolicy.ID}`, { method: 'DELETE' })).status, 200);
    const refused = await request(`${dev.secrets}/v1/auth/jwt-workloads/login`, { method: 'POST', body: { jwt: vaultJwt } });
    assert.notEqual(refused.status, 200, 'nothing left to log in at');
    // The section's shell blocks, as written, with `npx cairn` the built CLI and the scheduler's address.
    const deploy = readFileSync(join(import.meta.dirname, '..', 'docs', 'deploy.md'), 'utf8');
    const section = deploy.slice(deploy.indexOf('#### Workload identities, secrets and discovery for tasks'));
    const blocks = [...section.slice(0, section.indexOf('\n#### ', 10)).matchAll(/```sh\n([^]*?)```/g)].map((m) => m[1]!);
    assert.equal(blocks.length, 2, 'the secrets and the discovery commands');
    const script = `set -euo pipefail\nnpx() { shift; node "${CAIRN_BIN}" "$@"; }\n${blocks.join('\n').replaceAll('https://sched.example.com:4646', dev.sched)}`;
    const cwd = mkdtempSync(join(tmpdir(), 'cairn-deploy-doc-'));
    try {
      const env = { ...process.env, SECRETS_ADDR: dev.secrets, SECRETS_TOKEN: ROOT, MESH_HTTP_ADDR: dev.mesh, MESH_HTTP_TOKEN: ROOT };
      const run = spawnSync('bash', ['-c', script], { cwd, env, encoding: 'utf8' });
      assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
    const after = await wired();
    assert.deepEqual(after.role, before.role);
    assert.deepEqual(after.method.Config, before.method.Config);
    assert.deepEqual(after.rules.map(bindings).sort(), before.rules.map(bindings).sort());
    assert.deepEqual(
      after.meshRole.Policies.map((p: { Name: string }) => p.Name),
      ['cairn-tasks-default'],
    );
    await secretsLogins();
    await meshLogins();
  });

  it("the README tour's job reads its secret through a template, and restarts with the new one", async () => {
    const readme = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');
    const hcl = /cat > tour\.hcl <<'EOF2'\n([^]*?)\nEOF2\n/.exec(readme)?.[1];
    assert.ok(hcl, 'the README writes tour.hcl');
    for (const line of [
      'npx cairn kv put secret/default/tour/db password=s3cr3t',
      'npx cairn sched job run tour.hcl',
      'npx cairn kv put secret/default/tour/db password=rotated',
    ])
      assert.ok(readme.includes(line), line);
    const env = { SECRETS_ADDR: dev.secrets, SECRETS_TOKEN: ROOT, SCHED_ADDR: dev.sched, SCHED_TOKEN: ROOT };
    const cairn = async (...args: string[]) => {
      const run = spawnCairn(args, env);
      assert.equal(await run.exited, 0, `cairn ${args.join(' ')}: ${run.out.stdout}\n${run.out.stderr}`);
      return run.out.stdout;
    };
    const digest = (password: string) => `db password sha256: ${createHash('sha256').update(password).digest('hex').slice(0, 16)}`;
    assert.ok(readme.includes(digest('s3cr3t')), 'the README shows the digest the task prints');
    await cairn('kv', 'put', 'secret/default/tour/db', 'password=s3cr3t');
    const file = join(dataDir, 'tour.hcl');
    writeFileSync(file, hcl);
    await cairn('sched', 'job', 'run', file);
    const allocs = (await request(`${dev.sched}/v1/job/tour/allocations`, { headers: { 'X-Sched-Token': ROOT } })).json as { ID: string }[];
    const id = allocs[0]!.ID;
    // Polled over HTTP (the route `alloc logs` reads), then read once with the CLI: a CLI
    // process every poll would keep a core busy for the whole wait.
    const logs = async () =>
      String((await request(`${dev.sched}/v1/client/fs/logs/${id}?task=app&type=stdout&origin=start&plain=true`, { headers: { 'X-Sched-Token': ROOT } })).json);
    await until('the task printed the digest of its secret', 60_000, async () => ((await logs()).includes(digest('s3cr3t')) ? true : undefined));
    assert.ok((await cairn('sched', 'alloc', 'logs', id, 'app')).includes(digest('s3cr3t')));
    assert.equal(readFileSync(join(dataDir, 'sched', 'alloc', id, 'app', 'secrets', 'db.txt'), 'utf8'), 's3cr3t');
    await cairn('kv', 'put', 'secret/default/tour/db', 'password=rotated');
    await until('the restarted task printed the new digest', 90_000, async () => ((await logs()).includes(digest('rotated')) ? true : undefined));
    assert.ok((await cairn('sched', 'alloc', 'logs', id, 'app')).includes(digest('rotated')));
    await cairn('sched', 'job', 'stop', 'tour');
  });
});

/** What a binding rule binds, and when. */
const bindings = (r: { BindType: string; BindName: string; Selector: string }) => [r.BindType, r.BindName, r.Selector].join(' ');
