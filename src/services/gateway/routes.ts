/**
 * Every route of the controller's `api` listener, in one table (DESIGN.md "Routes are data";
 * the declaration is route.ts's): its method, its pattern (under `/v1/` unless it starts with
 * `/`), who may call it, where it runs, the fields the dispatcher validates, its handler.
 * The domain collections' create/read/update/delete routes are built by
 * `collectionRoutes` (domain/collection.ts) from the literal patterns given here, with the
 * reference's grant as each operation's access rule.
 *
 * @module
 */
import { PUBLIC } from '../../kernel/http/index.js';
import {
  AUTHORIZE_CONNECTION_FIELDS,
  authorizeForwardedConnection,
  CONNECTION_CLOSED_FIELDS,
  recordConnectionClosed,
  recordWorkerStatus,
  WORKER_STATUS_FIELDS,
} from './cluster-routes.js';
import { accountCollection, authMethodCollection } from './domain/auth-methods.js';
import { authTokenCollection } from './domain/auth-tokens.js';
import { authenticate, authenticateAccess, oidcCallback } from './domain/authenticate.js';
import { authorizeSession, authorizeSessionAccess } from './domain/authorize-session.js';
import { collectionRoutes } from './domain/collection.js';
import { credentialLibraryCollection } from './domain/credential-libraries.js';
import { credentialStoreCollection } from './domain/credential-stores.js';
import { credentialCollection } from './domain/credentials.js';
import { hostCatalogCollection, hostCollection, hostSetCollection } from './domain/hosts.js';
import { authenticationComplete, authenticationError } from './domain/login-pages.js';
import { groupCollection, userCollection } from './domain/principals.js';
import { roleCollection } from './domain/roles.js';
import { scopeCollection } from './domain/scopes.js';
import { cancelAccess, cancelSession, sessionCollection } from './domain/sessions-api.js';
import { targetCollection } from './domain/targets.js';
import { CONTROLLER_TOKEN, ok, WORKER_TOKEN, withFields, type GatewayRoute } from './route.js';
import { compileRoutes } from './route-table.js';

/** The routes; see the module doc. */
export const GATEWAY_ROUTES: readonly GatewayRoute[] = [
  // The pages an OIDC login ends on, outside /v1/ (the browser lands there: no token).
  {
    method: 'GET',
    pattern: '/authentication-complete',
    summary: 'the page a successful OIDC login ends on',
    access: PUBLIC,
    forward: 'local',
    handle: authenticationComplete,
  },
  {
    method: 'GET',
    pattern: '/authentication-error',
    summary: 'the page a failed OIDC login ends on',
    access: PUBLIC,
    forward: 'local',
    handle: authenticationError,
  },

  // The leader's side of the workers' session calls a follower controller forwards (cluster-authority.ts).
  withFields({
    method: 'POST',
    pattern: 'cluster/worker-status',
    summary: 'a worker status a follower received',
    access: WORKER_TOKEN,
    forward: 'local',
    writerOnly: true,
    fields: WORKER_STATUS_FIELDS,
    handle: ({ deps, fields }) => recordWorkerStatus(deps.cluster, fields),
  }),
  withFields({
    method: 'POST',
    pattern: 'cluster/authorize-connection',
    summary: 'authorize a connection a worker of a follower asks for',
    access: WORKER_TOKEN,
    forward: 'local',
    writerOnly: true,
    fields: AUTHORIZE_CONNECTION_FIELDS,
    handle: ({ deps, fields }) => authorizeForwardedConnection(deps.cluster, fields),
  }),
  withFields({
    method: 'POST',
    pattern: 'cluster/connection-closed',
    summary: 'a connection a worker of a follower closed',
    access: WORKER_TOKEN,
    forward: 'local',
    writerOnly: true,
    fields: CONNECTION_CLOSED_FIELDS,
    handle: ({ deps, fields }) => recordConnectionClosed(deps.cluster, fields),
  }),

  // Cairn-only: the workers this controller knows, and this API's OpenAPI document (the reference publishes none; docs/compatibility.md).
  {
    method: 'GET',
    pattern: 'workers',
    summary: 'list workers',
    synopsis: 'List the workers that reported to this controller',
    access: CONTROLLER_TOKEN,
    forward: 'local',
    fields: {},
    handle: async ({ deps }) =>
      ok({
        items: [...deps.workers().values()].map((w) => ({
          name: w.name,
          address: w.address,
          state: w.state,
          active_session_count: w.sessionCount,
          last_status_time: new Date(w.lastStatusMs).toISOString(),
          release_version: w.releaseVersion,
        })),
      }),
  },
  {
    method: 'GET',
    pattern: 'openapi.json',
    summary: 'read the OpenAPI document of this API',
    synopsis: 'This OpenAPI document',
    access: CONTROLLER_TOKEN,
    forward: 'local',
    fields: {},
    handle: async () => ok(GATEWAY_TABLE.openapi),
  },

  // The domain model. `:authenticate` needs the `authenticate` grant (the anonymous user's through the bootstrap role);
  // the OIDC provider's redirect needs none (the login's state is its credential) and completes on the leader, which holds the pending logins.
  ...collectionRoutes(scopeCollection, 'scopes', 'scopes/:id'),
  {
    method: 'GET',
    pattern: 'auth-methods/oidc:authenticate:callback',
    summary: "the OIDC provider's redirect: completes a login",
    access: PUBLIC,
    forward: 'leader',
    handlerDecodes: true,
    handle: oidcCallback,
  },
  {
    method: 'POST',
    pattern: 'auth-methods/:id:authenticate',
    summary: 'log in with an auth method',
    access: authenticateAccess,
    handlerDecodes: true,
    handle: authenticate,
  },
  ...collectionRoutes(authMethodCollection, 'auth-methods', 'auth-methods/:id', ['auth-methods/:id:change-state']),
  ...collectionRoutes(accountCollection, 'accounts', 'accounts/:id', ['accounts/:id:set-password', 'accounts/:id:change-password']),
  ...collectionRoutes(userCollection, 'users', 'users/:id', ['users/:id:add-accounts', 'users/:id:set-accounts', 'users/:id:remove-accounts']),
  ...collectionRoutes(groupCollection, 'groups', 'groups/:id', ['groups/:id:add-members', 'groups/:id:set-members', 'groups/:id:remove-members']),
  ...collectionRoutes(roleCollection, 'roles', 'roles/:id', [
    'roles/:id:add-principals',
    'roles/:id:set-principals',
    'roles/:id:remove-principals',
    'roles/:id:add-grants',
    'roles/:id:set-grants',
    'roles/:id:remove-grants',
    'roles/:id:add-grant-scopes',
    'roles/:id:set-grant-scopes',
    'roles/:id:remove-grant-scopes',
  ]),
  ...collectionRoutes(authTokenCollection, 'auth-tokens', 'auth-tokens/:id'),
  ...collectionRoutes(hostCatalogCollection, 'host-catalogs', 'host-catalogs/:id'),
  ...collectionRoutes(hostCollection, 'hosts', 'hosts/:id'),
  ...collectionRoutes(hostSetCollection, 'host-sets', 'host-sets/:id', ['host-sets/:id:add-hosts', 'host-sets/:id:set-hosts', 'host-sets/:id:remove-hosts']),
  ...collectionRoutes(targetCollection, 'targets', 'targets/:id', [
    'targets/:id:add-host-sources',
    'targets/:id:set-host-sources',
    'targets/:id:remove-host-sources',
    'targets/:id:add-credential-sources',
    'targets/:id:set-credential-sources',
    'targets/:id:remove-credential-sources',
  ]),
  {
    method: 'POST',
    pattern: 'targets/:id:authorize-session',
    summary: 'authorize a session to a target',
    access: authorizeSessionAccess,
    handlerDecodes: true,
    handle: authorizeSession,
  },
  ...collectionRoutes(credentialStoreCollection, 'credential-stores', 'credential-stores/:id'),
  ...collectionRoutes(credentialLibraryCollection, 'credential-libraries', 'credential-libraries/:id'),
  ...collectionRoutes(credentialCollection, 'credentials', 'credentials/:id'),
  { method: 'POST', pattern: 'sessions/:id:cancel', summary: 'cancel a session', access: cancelAccess, handlerDecodes: true, handle: cancelSession },
  ...collectionRoutes(sessionCollection, 'sessions', 'sessions/:id'),
];

/** {@link GATEWAY_ROUTES} compiled once; a route without an access rule stops the controller here, at start-up. */
export const GATEWAY_TABLE = compileRoutes(GATEWAY_ROUTES);
