/**
 * The discovery service set up for workloads as `cairn dev` sets it up (contract of issue 27,
 * "discovery side"): the JWT auth method `cairn-workloads` trusting the scheduler's JWKS, the
 * `service` and `role` binding rules, and the role `cairn-tasks-default` (key and service read);
 * plus a client token that may only read, so a registration that works was made with the
 * service's own token.
 */
import type { MeshClient } from '../../src/sdk/index.js';

/** The auth method's name. */
export const AUTH_METHOD = 'cairn-workloads';

/** Sets up `admin`'s discovery service for the scheduler at `schedUrl`. */
export async function setUpWorkloadAuth(admin: MeshClient, schedUrl: string): Promise<void> {
  await admin.authMethods.create({
    Name: AUTH_METHOD,
    Type: 'jwt',
    Config: {
      JWKSURL: `${schedUrl}/.well-known/jwks.json`,
      BoundAudiences: ['cairn-discovery'],
      ClaimMappings: { cairn_namespace: 'cairn_namespace', cairn_job_id: 'cairn_job_id', cairn_task: 'cairn_task', cairn_service: 'cairn_service' },
    },
  });
  await admin.bindingRules.create({ AuthMethod: AUTH_METHOD, BindType: 'service', BindName: '${value.cairn_service}', Selector: '"cairn_service" in value' });
  await admin.bindingRules.create({
    AuthMethod: AUTH_METHOD,
    BindType: 'role',
    BindName: 'cairn-tasks-${value.cairn_namespace}',
    Selector: '"cairn_service" not in value',
  });
  const tasksPolicy = await admin.policies.create({ Name: 'cairn-tasks', Rules: 'key_prefix "" { policy = "read" }\nservice_prefix "" { policy = "read" }' });
  await admin.roles.create({ Name: 'cairn-tasks-default', Policies: [{ ID: tasksPolicy.ID }] });
}

/** A client token that reads the agent, nodes and services but writes none. */
export async function readOnlyClientToken(admin: MeshClient): Promise<string> {
  const policy = await admin.policies.create({
    Name: 'client-read',
    Rules: 'agent_prefix "" { policy = "read" }\nnode_prefix "" { policy = "read" }\nservice_prefix "" { policy = "read" }',
  });
  return (await admin.tokens.create({ Policies: [{ ID: policy.ID }] })).SecretID;
}
