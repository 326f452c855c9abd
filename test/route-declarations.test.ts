/**
 * Every route of every service says who may call it (issue 25, DESIGN.md "Routes are data"):
 * this test lists each service's route table and fails on an operation that declares no
 * access rule, and on any change to the set of operations anyone may call without a token
 * (PUBLIC in the discovery service, the scheduler and the gateway; `unauthenticated` in the
 * secrets service, whose other paths need the operation's capability on the request path).
 * A new open route is a decision, so it changes the lists below; rules that are functions of
 * the request are checked by each service's authorization walk (test/…/auth*-walk.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PUBLIC, type ApiRoute } from '../src/kernel/http/index.js';
import { OPS_ROUTES } from '../src/services/gateway/health.js';
import { GATEWAY_ROUTES } from '../src/services/gateway/routes.js';
import { MESH_ENTERPRISE_ROUTES, MESH_ROUTES } from '../src/services/mesh/routes/index.js';
import { CLIENT_ONLY_ROUTES, SCHED_ROUTES } from '../src/services/sched/routes/index.js';
import { ALL_ENGINES } from '../src/services/secrets/engines.js';
import { sealTable } from '../src/services/secrets/sys/seal.routes.js';

/** One operation of a table: `METHOD pattern` and what its declaration says of access. */
interface Declared {
  readonly op: string;
  readonly access: 'none' | 'public' | 'rule';
}

function apiOperations(routes: readonly ApiRoute<unknown, unknown, unknown>[]): Declared[] {
  return routes.flatMap((r) =>
    Object.entries(r.methods).map(([method, op]) => ({
      op: `${method} ${r.pattern}`,
      access: op?.access === undefined || op.access === null ? 'none' : op.access === PUBLIC ? 'public' : 'rule',
    })),
  );
}

const opsOf = (list: readonly Declared[], access: Declared['access']) => [...new Set(list.filter((d) => d.access === access).map((d) => d.op))].sort();

const TABLES: Readonly<Record<string, { readonly operations: readonly Declared[]; readonly open: readonly string[] }>> = {
  discovery: {
    operations: apiOperations([...MESH_ROUTES, ...MESH_ENTERPRISE_ROUTES] as ApiRoute<unknown, unknown, unknown>[]),
    // The reference's "ACL Required: none" endpoints; login, logout, bootstrap and OIDC take their own credential.
    open: [
      'GET acl/replication',
      'GET catalog/datacenters',
      'GET status/leader',
      'GET status/peers',
      'POST acl/login',
      'POST acl/logout',
      'POST acl/oidc/auth-url',
      'POST acl/oidc/callback',
      'PUT acl/bootstrap',
    ],
  },
  scheduler: {
    operations: apiOperations([...SCHED_ROUTES, ...CLIENT_ONLY_ROUTES] as ApiRoute<unknown, unknown, unknown>[]),
    // Status, regions and metrics as the reference serves them; the nameless ACL paths only answer their 400/404;
    // the identity provider's well-known documents (JWKS, OIDC discovery: verifiers hold no token).
    open: [
      'GET .well-known/jwks.json',
      'GET .well-known/openid-configuration',
      'DELETE acl/auth-method',
      'DELETE acl/binding-rule',
      'GET acl/auth-method',
      'GET acl/binding-rule',
      'GET metrics',
      'GET regions',
      'GET status/leader',
      'GET status/peers',
    ],
  },
  gateway: {
    operations: [
      ...GATEWAY_ROUTES.map((r): Declared => ({
        op: `${r.method} ${r.pattern}`,
        access: r.access === undefined ? 'none' : r.access === PUBLIC ? 'public' : 'rule',
      })),
      ...OPS_ROUTES.map((r): Declared => ({
        op: `${r.method} ops${r.pattern}`,
        access: r.access === undefined ? 'none' : r.access === PUBLIC ? 'public' : 'rule',
      })),
    ],
    // The pages an OIDC login ends on and the provider's redirect (the login's state is its credential); the ops listener.
    open: ['GET /authentication-complete', 'GET /authentication-error', 'GET auth-methods/oidc:authenticate:callback', 'GET ops/health', 'GET ops/metrics'],
  },
  secrets: {
    // Every path of every engine; its capability on the request path is the rule unless it is `unauthenticated`.
    operations: [
      ...ALL_ENGINES.flatMap((e) => e.table.paths),
      ...sealTable.paths.map((p) => ({ spec: { ...p.spec, pattern: `sys/${p.spec.pattern}` } })),
    ].flatMap((p) =>
      Object.keys(p.spec.operations).map((o): Declared => ({ op: `${o} ${p.spec.pattern}`, access: p.spec.unauthenticated ? 'public' : 'rule' })),
    ),
    // Seal, health and status; the login paths of every auth method; unwrapping (the wrapping token is the credential); the OpenAPI document;
    // the PKI engine's CA, CRL and certificate reads (reference/secrets-engines.md §7: public, as relying parties fetch them).
    open: [
      'read ca',
      'read ca/pem',
      'read ca_chain',
      'read cert/:serial',
      'read cert/:serial/raw',
      'read cert/:serial/raw/pem',
      'read crl',
      'read crl/pem',
      'read issuer/:ref',
      'read internal/specs/openapi',
      'read oidc/callback',
      'read sys/health',
      'read sys/init',
      'read sys/leader',
      'read sys/seal-status',
      'read wrapping/lookup',
      'update internal/specs/openapi',
      'update login',
      'update login/:username',
      'update oidc/auth_url',
      'update oidc/callback',
      'update sys/init',
      'update sys/unseal',
      'update wrapping/lookup',
      'update wrapping/unwrap',
    ].sort(),
  },
};

describe('route declarations', () => {
  for (const [service, table] of Object.entries(TABLES)) {
    it(`${service}: every operation declares an access rule, and only the known ones are open to anyone`, () => {
      assert.ok(table.operations.length > 20, `${service}: the table was read (${table.operations.length} operations)`);
      assert.deepEqual(opsOf(table.operations, 'none'), [], `${service}: operations without an access rule`);
      assert.deepEqual(opsOf(table.operations, 'public'), [...table.open].sort(), `${service}: the operations anyone may call`);
    });
  }
});
