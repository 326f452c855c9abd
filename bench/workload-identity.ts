/**
 * Workload-identity logins at the secrets service (issue 27 "Measure": "identity logins per
 * second at the secrets service"), scenario `workload-identity-login`: `POST
 * /v1/auth/jwt-workloads/login` with no token and the body `{"jwt": …}` (the mount's
 * `default_role`), every request with the same JWT — a real `vault_default` identity signed by a
 * scheduler server, verified against that scheduler's JWKS (`jwks_url`). Each login verifies the
 * RS256 signature, maps three claims to the alias metadata and issues a new service token, a
 * durable write (group-committed like KV v2 writes).
 *
 * Setup, through the products' own paths: a scheduler server and a discovery agent (bench
 * children, ACLs on) besides the secrets server; `wireDevWorkloads` (src/services/dev-workloads.ts,
 * what `cairn dev` runs) makes the mount `jwt-workloads/`, its role and templated policy
 * `cairn-workloads` (contract of issue 27); a stand-in node (registered with `PUT
 * /v1/node/register`, reporting `vault.accessible`) gets the allocation of a job whose task has a
 * `vault` block (so the submit adds `vault_default`, jobs/vault.ts); the node signs it with `POST
 * /v1/allocation/:id/identities` and its secret, as a client does (client/secrets-token.ts).
 * The scheduler and the discovery agent stay idle during the rounds (the JWKS is cached by the
 * secrets service); only the secrets server's CPU is counted.
 */
import { randomUUID } from 'node:crypto';
import { silentLogger } from '../src/kernel/log/logger.js';
import { MeshClient } from '../src/sdk/mesh.js';
import { SecretsClient } from '../src/sdk/secrets.js';
import { DEV_WORKLOADS, wireDevWorkloads } from '../src/services/dev-workloads.js';
import { api, type RequestTemplate, type Scenario } from './harness.js';
import { startServer, type BenchServer } from './servers.js';

/** The job whose task logs in; its secrets live under `secret/data/default/<JOB>/`. */
const JOB = 'bench-wi';

/** The login request body (set by setup): one scheduler-signed `vault_default` JWT, reused by every request. */
let loginBody: string | undefined;

/** `method path` on the scheduler with `token` (`X-Sched-Token`); the parsed reply. @throws naming the call on any status but 200. */
async function sched<T>(server: BenchServer, method: string, path: string, o: { body?: unknown; token?: string } = {}): Promise<T> {
  const r = await api(server, method, path, { body: o.body, token: o.token ?? server.token, tokenHeader: 'X-Sched-Token' });
  return r.json as T;
}

/** A scheduler-signed `vault_default` identity of the task `t` of {@link JOB}, as its client gets it. */
async function signedVaultIdentity(server: BenchServer): Promise<string> {
  const node = { ID: randomUUID(), SecretID: randomUUID() };
  await sched(server, 'PUT', '/v1/node/register', {
    body: {
      Node: {
        ...node,
        Datacenter: 'dc1',
        Name: 'bench-wi-node',
        HTTPAddr: '127.0.0.1:1',
        Status: 'ready',
        Attributes: { 'kernel.name': 'linux', 'driver.raw_exec': '1', 'vault.accessible': 'true' },
        NodeResources: { Cpu: { CpuShares: 4000 }, Memory: { MemoryMB: 8192 } },
        Drivers: { raw_exec: { Detected: true, Healthy: true, HealthDescription: 'Healthy', Attributes: null } },
      },
    },
  });
  const job = {
    ID: JOB,
    Type: 'service',
    TaskGroups: [
      {
        Name: 'g',
        Count: 1,
        Tasks: [{ Name: 't', Driver: 'raw_exec', Config: { command: '/bin/sleep', args: ['600'] }, Resources: { CPU: 20, MemoryMB: 16 }, Vault: {} }],
      },
    ],
  };
  await sched(server, 'POST', '/v1/jobs', { body: { Job: job } });
  const deadline = Date.now() + 30_000;
  let allocId: string | undefined;
  while (!allocId) {
    if (Date.now() > deadline) throw new Error(`workload-identity-login: ${JOB} not placed within 30 s`);
    allocId = (await sched<{ ID: string; NodeID: string }[]>(server, 'GET', `/v1/job/${JOB}/allocations`)).find((a) => a.NodeID === node.ID)?.ID;
    if (!allocId) await new Promise((r) => setTimeout(r, 25));
  }
  const signed = await sched<{ SignedIdentities: { JWT: string }[] }>(server, 'POST', `/v1/allocation/${allocId}/identities`, {
    body: { Identities: [{ TaskName: 't', IdentityName: 'vault_default' }] },
    token: node.SecretID,
  });
  const jwt = signed.SignedIdentities[0]?.JWT;
  if (!jwt) throw new Error('workload-identity-login: the scheduler signed no vault_default identity');
  return jwt;
}

export const workloadIdentityLogin: Scenario = {
  name: 'workload-identity-login',
  description:
    'POST /v1/auth/jwt-workloads/login, no token, a scheduler-signed vault_default JWT (RS256, jwks_url), role cairn-workloads (3 claim mappings, templated policy); a new token each',
  server: 'secrets',
  async setup(ctx) {
    const secrets = ctx.servers.secrets;
    const schedServer = await startServer('sched');
    const meshServer = await startServer('mesh');
    const mesh = new MeshClient({ address: meshServer.url, token: meshServer.token });
    try {
      await wireDevWorkloads({
        secrets: new SecretsClient({ address: secrets.url, token: secrets.token }),
        mesh,
        jwksUrl: `${schedServer.url}/.well-known/jwks.json`,
        log: silentLogger(),
      });
    } finally {
      await mesh.close();
    }
    loginBody = JSON.stringify({ jwt: await signedVaultIdentity(schedServer) });
    await api(secrets, 'POST', `/v1/secret/data/default/${JOB}/db`, { body: { data: { password: 'own' } } });
    await api(secrets, 'POST', '/v1/secret/data/default/other-job/db', { body: { data: { password: 'other' } } });
  },
  async check(ctx) {
    const server = ctx.servers.secrets;
    const path = `/v1/auth/${DEV_WORKLOADS.secretsAuthPath}/login`;
    const tokens: string[] = [];
    for (let k = 0; k < 2; k++) {
      const r = await api(server, 'POST', path, { body: JSON.parse(loginBody!), token: null });
      const auth = (r.json as { auth?: { client_token?: string; policies?: string[]; metadata?: Record<string, string> } }).auth;
      if (
        !auth?.client_token ||
        auth.metadata?.cairn_job_id !== JOB ||
        auth.metadata?.cairn_task !== 't' ||
        !auth.policies?.includes(DEV_WORKLOADS.secretsRole)
      ) {
        throw new Error(`workload-identity-login check: unexpected reply ${r.text.slice(0, 400)}`);
      }
      tokens.push(auth.client_token);
    }
    if (tokens[0] === tokens[1]) throw new Error('workload-identity-login check: two logins gave the same token');
    const own = await api(server, 'GET', `/v1/secret/data/default/${JOB}/db`, { token: tokens[0] });
    if ((own.json as { data?: { data?: { password?: string } } }).data?.data?.password !== 'own') {
      throw new Error(`workload-identity-login check: the token read ${own.text.slice(0, 300)}`);
    }
    await api(server, 'GET', '/v1/secret/data/default/other-job/db', { token: tokens[0], expect: 403 });
  },
  requests(): RequestTemplate[] {
    return [{ method: 'POST', path: `/v1/auth/${DEV_WORKLOADS.secretsAuthPath}/login`, headers: { 'content-type': 'application/json' }, body: loginBody! }];
  },
};
