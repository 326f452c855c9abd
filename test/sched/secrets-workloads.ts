/**
 * Test fixture: a real `cairn secrets server` process (SQLite under the test's directory),
 * initialised with one key share and unsealed, restartable on the same address (an outage),
 * and the secrets side of workload identities set up as `cairn dev` sets it
 * (src/services/dev-workloads.ts): a KV v2 mount `secret/`, the JWT auth mount `jwt-workloads/`
 * trusting a scheduler's JWKS with the default role `cairn-workloads`, and the policy
 * `cairn-workloads` templated on the mount's accessor (`secret/data/<namespace>/<job>/*`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SecretsClient } from '../../src/sdk/secrets.js';
import { startCairnProcess, type ServerProcess } from '../processes.js';

/** The role `cairn-workloads` (contract of issue 27): what other test roles start from. */
export const WORKLOADS_ROLE = {
  role_type: 'jwt',
  bound_audiences: ['cairn-secrets'],
  user_claim: 'cairn_job_id',
  claim_mappings: { cairn_namespace: 'cairn_namespace', cairn_job_id: 'cairn_job_id', cairn_task: 'cairn_task' },
  token_policies: ['cairn-workloads'],
  token_type: 'service',
} as const;

/** A secrets server process under `root` (module doc). */
export class SecretsServer {
  private process: ServerProcess | undefined;
  private unsealKey = '';
  private readonly clients: SecretsClient[] = [];
  /** The root token's client, once {@link start}ed the first time. */
  admin!: SecretsClient;
  url = '';

  constructor(private readonly root: string) {}

  /** Starts the server on `address` (port 0 the first time; `host` of {@link url} to come back after {@link kill}), initialised once and unsealed. */
  async start(address = '127.0.0.1:0'): Promise<void> {
    const config = join(this.root, 'secrets.hcl');
    writeFileSync(
      config,
      `storage "sqlite" {\n  path = "${join(this.root, 'secrets.db')}"\n}\nlistener "tcp" {\n  address = "${address}"\n  tls_disable = true\n}\n`,
    );
    this.process = await startCairnProcess(['secrets', 'server', `-config=${config}`], {}, 'secrets service listening');
    this.url = this.process.url;
    const sys = this.client();
    if (this.unsealKey === '') {
      const init = await sys.sys.init({ secretShares: 1, secretThreshold: 1 });
      this.unsealKey = init.keys[0]!;
      this.admin = this.client(init.root_token);
    }
    await sys.sys.unseal(this.unsealKey);
  }

  /** SIGKILLs the server (an outage); {@link start} with `new URL(url).host` brings it back. */
  async kill(): Promise<void> {
    await this.process?.kill();
  }

  /** Sets the workload side up for the scheduler at `schedUrl` (module doc). */
  async wireWorkloads(schedUrl: string): Promise<void> {
    const admin = this.admin;
    await admin.sys.enableMount('secret', { type: 'kv', options: { version: '2' } });
    await admin.sys.enableAuth('jwt-workloads', { type: 'jwt' });
    const accessor = (await admin.sys.listAuth())['jwt-workloads/']!.accessor as string;
    await admin.write('auth/jwt-workloads/config', { jwks_url: `${schedUrl}/.well-known/jwks.json`, default_role: 'cairn-workloads' });
    await admin.write('auth/jwt-workloads/role/cairn-workloads', { ...WORKLOADS_ROLE, token_ttl: '1h', token_period: '1h' });
    const meta = (key: string) => `{{identity.entity.aliases.${accessor}.metadata.${key}}}`;
    await admin.policies.write(
      'cairn-workloads',
      `path "secret/data/${meta('cairn_namespace')}/${meta('cairn_job_id')}/*" {\n  capabilities = ["read"]\n}\n` +
        `path "secret/metadata/${meta('cairn_namespace')}/${meta('cairn_job_id')}/*" {\n  capabilities = ["list", "read"]\n}\n`,
    );
  }

  /** Kills the server and closes every client made. */
  async close(): Promise<void> {
    await this.kill();
    for (const c of this.clients) await c.close();
  }

  private client(token?: string): SecretsClient {
    const c = new SecretsClient({ address: this.url, ...(token && { token }) });
    this.clients.push(c);
    return c;
  }
}
