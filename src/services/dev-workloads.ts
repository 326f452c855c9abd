/**
 * What `cairn dev` configures so that a job's tasks reach secrets and discovery with their
 * workload identities and nothing in the job file (issue 27 scope 7; reference/integration.md §4,
 * the reference's recommended Vault and Consul configuration under Cairn's names; docs/deploy.md
 * shows the same for separate servers). Through the SDK only, with the dev root token, once the
 * services run:
 *
 * - secrets: a `jwt` auth method at `jwt-workloads/` trusting the scheduler's JWKS
 *   (`default_role = "cairn-workloads"`); role `cairn-workloads` (audience `cairn-secrets`, user
 *   claim `cairn_job_id`, the claims mapped to alias metadata, policy `cairn-workloads`, service
 *   tokens with a 1 h period); policy `cairn-workloads`: read `secret/data/<namespace>/<job>/*`
 *   and list/read its metadata, templated on the mount's accessor;
 * - discovery: auth method `cairn-workloads` (`jwt`, audience `cairn-discovery`, the claims
 *   mapped); a binding rule per kind: service identities (`cairn_service` claim) get that service,
 *   task identities the role `cairn-tasks-<namespace>`; role `cairn-tasks-default` with policy
 *   `cairn-tasks-default` (read keys, services and nodes).
 *
 * Every start of a data directory runs it: what exists is kept as it is (a user may have edited
 * it), what is missing is made, and the two JWKS URLs are rewritten only when the scheduler's
 * address changed. Nothing else (no KV secret: the tour writes its own).
 *
 * @module
 */
import type { Logger } from '../kernel/log/logger.js';
import { MeshApiError, type MeshClient } from '../sdk/mesh.js';
import type { SecretsClient } from '../sdk/secrets.js';

/** The names `cairn dev` wires (contract of issue 27; the client's `vault`/`consul` settings name them). */
export const DEV_WORKLOADS = {
  /** The secrets service's JWT auth mount (client `vault { jwt_auth_backend_path }`). */
  secretsAuthPath: 'jwt-workloads',
  /** Its default role, and the policy the role's tokens carry. */
  secretsRole: 'cairn-workloads',
  /** The discovery service's JWT auth method (client `consul { service_auth_method task_auth_method }`). */
  meshAuthMethod: 'cairn-workloads',
  /** The discovery role (and its policy) of tasks of the `default` namespace. */
  meshTasksRole: 'cairn-tasks-default',
} as const;

/** The identity claims both services map (keyring/identity.ts). */
const TASK_CLAIMS = ['cairn_namespace', 'cairn_job_id', 'cairn_task'] as const;

/** Options of {@link wireDevWorkloads}. */
export interface DevWorkloadsOptions {
  /** The secrets service, with the root token. */
  readonly secrets: SecretsClient;
  /** The discovery service, with its management token. */
  readonly mesh: MeshClient;
  /** The scheduler's `/.well-known/jwks.json` URL (served without a token). */
  readonly jwksUrl: string;
  readonly log: Logger;
}

/**
 * Configures both services (module doc); idempotent.
 * @throws SecretsApiError / MeshApiError when a service refuses a write (the JWKS URL not answering is a 400).
 */
export async function wireDevWorkloads(o: DevWorkloadsOptions): Promise<void> {
  const made = [...(await wireSecrets(o.secrets, o.jwksUrl)), ...(await wireMesh(o.mesh, o.jwksUrl))];
  if (made.length > 0) o.log.info({ made }, 'dev: workload identities wired to secrets and discovery');
}

/** The secrets side; returns what it made or changed. */
async function wireSecrets(secrets: SecretsClient, jwksUrl: string): Promise<string[]> {
  const { secretsAuthPath: path, secretsRole: role } = DEV_WORKLOADS;
  const made: string[] = [];
  if (!(await secrets.sys.listAuth())[`${path}/`]) {
    await secrets.sys.enableAuth(path, { type: 'jwt', description: 'workload identities of the scheduler (cairn dev)' });
    made.push(`auth ${path}/`);
  }
  const config = await secrets.read<{ jwks_url?: string }>(`auth/${path}/config`);
  if (config?.data?.jwks_url !== jwksUrl) {
    // The reference's recommended config: the scheduler signs RS256 and publishes EdDSA keys too.
    await secrets.write(`auth/${path}/config`, { jwks_url: jwksUrl, jwt_supported_algs: ['RS256', 'EdDSA'], default_role: role });
    made.push(`auth/${path}/config`);
  }
  if (!(await secrets.read(`auth/${path}/role/${role}`))) {
    await secrets.write(`auth/${path}/role/${role}`, {
      role_type: 'jwt',
      bound_audiences: ['cairn-secrets'],
      user_claim: 'cairn_job_id',
      claim_mappings: Object.fromEntries(TASK_CLAIMS.map((c) => [c, c])),
      token_policies: [role],
      token_type: 'service',
      // Renewable for ever (no explicit max TTL), as the reference's clients need.
      token_period: '1h',
      token_ttl: '1h',
    });
    made.push(`auth/${path}/role/${role}`);
  }
  if (!(await secrets.policies.read(role))) {
    const accessor = (await secrets.sys.listAuth())[`${path}/`]?.accessor;
    if (!accessor) throw new Error(`the secrets service shows no accessor for auth/${path}/`);
    await secrets.policies.write(role, workloadsPolicy(accessor));
    made.push(`policy ${role}`);
  }
  return made;
}

/**
 * The secrets policy of workloads: a job reads its own secrets, `secret/data/<namespace>/<job>/*`
 * (the reference's templated policy: claim mappings are the entity alias's metadata).
 */
function workloadsPolicy(accessor: string): string {
  const claim = (key: string) => `{{identity.entity.aliases.${accessor}.metadata.${key}}}`;
  const own = `${claim('cairn_namespace')}/${claim('cairn_job_id')}`;
  return [
    '# cairn dev: each job reads the secrets under secret/data/<namespace>/<job>/ (its workload identity, auth/jwt-workloads).',
    `path "secret/data/${own}/*" {`,
    '  capabilities = ["read"]',
    '}',
    `path "secret/metadata/${own}/*" {`,
    '  capabilities = ["list", "read"]',
    '}',
    '',
  ].join('\n');
}

/** Whether `err` is the discovery service's 404. */
const notFound = (err: unknown) => err instanceof MeshApiError && err.status === 404;

/** The discovery side; returns what it made or changed. */
async function wireMesh(mesh: MeshClient, jwksUrl: string): Promise<string[]> {
  const { meshAuthMethod: name, meshTasksRole: tasksRole } = DEV_WORKLOADS;
  const made: string[] = [];
  const method = await mesh.authMethods.read(name).catch((err: unknown) => (notFound(err) ? undefined : Promise.reject(err)));
  if (method?.Config?.JWKSURL !== jwksUrl) {
    await mesh.authMethods.create({
      Name: name,
      Type: 'jwt',
      DisplayName: 'Cairn workloads',
      Description: 'workload identities of the scheduler (cairn dev)',
      Config: {
        JWKSURL: jwksUrl,
        JWTSupportedAlgs: ['RS256'],
        BoundAudiences: ['cairn-discovery'],
        ClaimMappings: Object.fromEntries([...TASK_CLAIMS, 'cairn_service'].map((c) => [c, c])),
      },
    });
    made.push(`auth method ${name}`);
  }
  const rules = (await mesh.bindingRules.list({ authMethod: name })).items;
  for (const rule of [
    { BindType: 'service', BindName: '${value.cairn_service}', Selector: '"cairn_service" in value', Description: 'service identities: their service' },
    {
      BindType: 'role',
      BindName: 'cairn-tasks-${value.cairn_namespace}',
      Selector: '"cairn_service" not in value',
      Description: "tasks: their namespace's role",
    },
  ]) {
    if (rules.some((r) => r.BindType === rule.BindType && r.BindName === rule.BindName)) continue;
    await mesh.bindingRules.create({ AuthMethod: name, ...rule });
    made.push(`binding rule ${rule.BindType} ${rule.BindName}`);
  }
  const orMissing = (err: unknown) => (notFound(err) ? undefined : Promise.reject(err));
  if (!(await mesh.policies.readByName(tasksRole).catch(orMissing))) {
    await mesh.policies.create({
      Name: tasksRole,
      Description: 'tasks of the default namespace: read keys, services and nodes (cairn dev)',
      Rules: 'key_prefix "" {\n  policy = "read"\n}\nservice_prefix "" {\n  policy = "read"\n}\nnode_prefix "" {\n  policy = "read"\n}\n',
    });
    made.push(`policy ${tasksRole}`);
  }
  if (!(await mesh.roles.readByName(tasksRole).catch(orMissing))) {
    await mesh.roles.create({ Name: tasksRole, Description: 'tasks of the default namespace (cairn dev)', Policies: [{ Name: tasksRole }] });
    made.push(`role ${tasksRole}`);
  }
  return made;
}
