/**
 * The discovery service's route table: every route of every family, each operation with its
 * access rule (access.ts) and where it runs. The architecture test lists them from here.
 *
 * @module
 */
import type { MeshRouteSpec } from '../access.js';
import { agentRoutes } from './agent.js';
import { authMethodRoutes } from './auth-methods.js';
import { bindingRuleRoutes } from './binding-rules.js';
import { catalogRoutes } from './catalog.js';
import { healthRoutes } from './health.js';
import { kvRoutes } from './kv.js';
import { loginRoutes } from './login.js';
import { metricsRoutes } from './metrics.js';
import { namespaceRoutes } from './namespaces.js';
import { oidcRoutes } from './oidc.js';
import { policyRoutes } from './policies.js';
import { roleRoutes } from './roles.js';
import { sessionRoutes } from './sessions.js';
import { systemRoutes } from './system.js';
import { tokenRoutes } from './tokens.js';
import { txnRoutes } from './txn.js';

/** Every route of the discovery service without the enterprise switch. */
export const MESH_ROUTES: readonly MeshRouteSpec[] = [
  ...systemRoutes,
  ...tokenRoutes,
  ...policyRoutes,
  ...roleRoutes,
  ...authMethodRoutes,
  ...bindingRuleRoutes,
  ...loginRoutes,
  ...metricsRoutes,
  ...kvRoutes,
  ...txnRoutes,
  ...sessionRoutes,
  ...catalogRoutes,
  ...healthRoutes,
  ...agentRoutes,
];

/** Routes of the enterprise switch (`enterprise = true`: OIDC, namespaces); without it they answer 404 like any unknown path. */
export const MESH_ENTERPRISE_ROUTES: readonly MeshRouteSpec[] = [...oidcRoutes, ...namespaceRoutes];
