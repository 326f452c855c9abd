/**
 * The controller API's route table (routes.ts, route-table.ts): a route without an access
 * rule or declared twice stops start-up; the collections' patterns must be their own and
 * name every custom action; only the login pages and the OIDC callback are PUBLIC; every
 * endpoint is found by its literal pattern.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PUBLIC } from '../../kernel/http/index.js';
import { collectionRoutes } from './domain/collection.js';
import { targetCollection } from './domain/targets.js';
import type { GatewayRoute } from './route.js';
import { compileRoutes } from './route-table.js';
import { GATEWAY_ROUTES } from './routes.js';

const handle = async () => ({ status: 204 });

describe('gateway route table', () => {
  it('stops start-up on a route without an access rule, naming it', () => {
    const bare = { method: 'GET', pattern: 'things', summary: 'list things', handle } as unknown as GatewayRoute;
    assert.throws(() => compileRoutes([bare]), /gateway route GET things declares no access rule/);
    assert.throws(() => compileRoutes([{ ...bare, access: { resource: 'x' } } as unknown as GatewayRoute]), /GET things declares no access rule/);
  });

  it('stops start-up on a method and pattern declared twice', () => {
    const r: GatewayRoute = { method: 'GET', pattern: 'things', summary: 'list things', access: PUBLIC, handle };
    assert.throws(() => compileRoutes([r, r]), /GET things is declared twice/);
  });

  it("refuses collection patterns that are not the collection's, or that leave out one of its actions", () => {
    const actions = Object.keys(targetCollection.actions!).map((a) => `targets/:id:${a}`);
    assert.throws(() => collectionRoutes(targetCollection, 'target', 'target/:id', actions), /not its own/);
    assert.throws(() => collectionRoutes(targetCollection, 'targets', 'targets/:id', actions.slice(1)), /are not its actions/);
    assert.equal(collectionRoutes(targetCollection, 'targets', 'targets/:id', actions).length, actions.length + 5);
  });

  it('declares every route with a rule: PUBLIC only for the login pages and the OIDC callback', () => {
    compileRoutes(GATEWAY_ROUTES);
    const open = GATEWAY_ROUTES.filter((r) => r.access === PUBLIC).map((r) => `${r.method} ${r.pattern}`);
    assert.deepEqual(open.sort(), ['GET /authentication-complete', 'GET /authentication-error', 'GET auth-methods/oidc:authenticate:callback']);
  });

  it('finds each endpoint by its literal pattern', () => {
    const declared = new Set(GATEWAY_ROUTES.map((r) => `${r.method} ${r.pattern}`));
    for (const r of [
      'GET targets/:id',
      'PATCH targets/:id',
      'DELETE targets/:id',
      'POST targets',
      'GET targets',
      'POST targets/:id:add-host-sources',
      'POST targets/:id:authorize-session',
      'POST cluster/authorize-connection',
      'GET workers',
    ]) {
      assert.ok(declared.has(r), r);
    }
  });
});
