/**
 * The scheduler service's route table: every route of every file of this folder, in one
 * array ({@link SCHED_ROUTES}) that the agent serves and that tests list (each operation
 * declares its access rule, access.ts), and the smaller table of a client-only agent.
 *
 * @module
 */
import type { SchedRoute } from '../access.js';
import { aclPolicyRoutes } from './acl-policies.js';
import { aclRoleRoutes } from './acl-roles.js';
import { aclTokenRoutes } from './acl-tokens.js';
import { allocationRoutes } from './allocations.js';
import { allocIdentityRoutes } from './alloc-identities.js';
import { clientAllocationRoutes } from './client-allocation.js';
import { clientFsRoutes } from './client-fs.js';
import { nodeAllocationRoutes } from './node-allocations.js';
import { nodeVolumeRoutes } from './node-volumes.js';
import { authMethodRoutes } from './auth-methods.js';
import { bindingRuleRoutes } from './binding-rules.js';
import { eventRoutes } from './events.js';
import { evaluationRoutes } from './evaluations.js';
import { jobCrudRoutes, jobRoutes } from './jobs.js';
import { jobVersionRoutes } from './job-versions.js';
import { jobDispatchRoutes } from './job-dispatch.js';
import { jobPeriodicRoutes } from './job-periodic.js';
import { jobPlanRoutes } from './job-plan.js';
import { deploymentRoutes } from './deployments.js';
import { keyringRoutes } from './keyring.js';
import { loginRoutes } from './login.js';
import { metricsRoutes } from './metrics.js';
import { namespaceRoutes } from './namespaces.js';
import { nodeRoutes } from './nodes.js';
import { pluginRoutes } from './plugins.js';
import { replicationRoutes } from './replication.js';
import { restartPermitRoutes } from './restart-permits.js';
import { statusRoutes } from './status.js';
import { volumeSnapshotRoutes } from './volume-snapshots.js';
import { volumeRoutes } from './volumes.js';
import { clientWellKnownRoutes, wellKnownRoutes } from './well-known.js';

/** Every route of the scheduler service. */
export const SCHED_ROUTES: readonly SchedRoute[] = [
  ...statusRoutes,
  ...aclTokenRoutes,
  ...aclPolicyRoutes,
  ...aclRoleRoutes,
  ...authMethodRoutes,
  ...bindingRuleRoutes,
  ...loginRoutes,
  ...namespaceRoutes,
  ...nodeAllocationRoutes,
  ...nodeVolumeRoutes,
  ...nodeRoutes,
  ...allocationRoutes,
  ...allocIdentityRoutes,
  ...restartPermitRoutes,
  ...jobRoutes,
  ...jobVersionRoutes,
  ...jobDispatchRoutes,
  ...jobPeriodicRoutes,
  ...deploymentRoutes,
  ...evaluationRoutes,
  ...clientFsRoutes,
  ...clientAllocationRoutes,
  ...jobPlanRoutes,
  ...pluginRoutes,
  ...volumeRoutes,
  ...volumeSnapshotRoutes,
  ...eventRoutes,
  ...replicationRoutes,
  ...metricsRoutes,
  ...keyringRoutes,
  ...wellKnownRoutes,
  // Last: a job's ID may hold `/`, so every `job/:id/<action>` route must be tried first.
  ...jobCrudRoutes,
];

/**
 * The routes of a client-only agent (`server.enabled = false`): the client endpoints about
 * the allocations its client runs, which the servers forward to it (routes/client-locate.ts),
 * and the JWKS it copies from its servers.
 */
export const CLIENT_ONLY_ROUTES: readonly SchedRoute[] = [...clientFsRoutes, ...clientAllocationRoutes, ...clientWellKnownRoutes];
