/**
 * Every route of the discovery service's own OpenAPI document walked with hostile input
 * (test/route-fuzz.ts): no 2xx for malformed input, no 5xx, no empty 4xx, no hang, most
 * replies the handlers' validation 400s, and after each path's batch the policy list still
 * answers and a known KV entry reads the same. New routes are covered as they land.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertReachedValidation, describeFindings, walkRoutes } from '../route-fuzz.js';
import { call, startAgent, type TestAgent } from './helpers.js';

const ROOT = 'c0ffee00-0000-4000-8000-00000000f022';
/** Body fields the discovery service's routes take (its document declares none). */
const FIELDS = [
  'Name',
  'Description',
  'Rules',
  'Policies',
  'Roles',
  'Type',
  'Config',
  'Node',
  'Address',
  'Service',
  'Check',
  'Checks',
  'TTL',
  'Behavior',
  'LockDelay',
  'ID',
  'Port',
  'Tags',
  'Meta',
  'ExpirationTTL',
  'BindType',
  'Selector',
  'BearerToken',
  'Status',
  'Output',
];

describe('discovery: every documented route, hostile input', { timeout: 600_000 }, () => {
  let a: TestAgent;
  const req = (method: string, p: string, body?: unknown) => call(a.url, method, p, { token: ROOT, body });

  before(async () => {
    a = await startAgent({ initialManagement: ROOT });
    assert.equal((await req('PUT', '/v1/kv/keep', 'kept')).status, 200);
  });
  after(() => a.stop());

  it('answers every hostile request with a 4xx naming the problem, and stays healthy', async () => {
    const keep = (await req('GET', '/v1/kv/keep')).text;
    const doc = (await req('GET', '/v1/openapi.json')).json;
    const result = await walkRoutes({
      base: a.url,
      prefix: '/v1',
      doc,
      headers: { 'X-Mesh-Token': ROOT },
      fields: FIELDS,
      // An unknown ?dc= is the reference's routing answer, 500 `No path to datacenter` (test/mesh/reference-clients.test.ts).
      allow5xx: (status, body) => status === 500 && body === 'No path to datacenter',
      seeds: {
        'PUT /catalog/register': {
          Node: 'n1',
          Address: '10.0.0.1',
          NodeMeta: { rack: 'r1' },
          Service: { ID: 's1', Service: 'redis', Tags: ['a'], Port: 8000, Meta: { v: '1' } },
          Check: { CheckID: 'c1', Name: 'c', ServiceID: 's1', Status: 'passing' },
        },
        'PUT /agent/service/register': {
          ID: 's2',
          Name: 'web',
          Port: 80,
          Tags: ['x'],
          Meta: { a: 'b' },
          Check: { TTL: '10s' },
          Weights: { Passing: 1, Warning: 1 },
        },
        'PUT /agent/check/register': { ID: 'c2', Name: 'ttl', TTL: '30s', Notes: 'n' },
        'PUT /session/create': { Name: 's', TTL: '30s', LockDelay: '15s', Behavior: 'release', Checks: [] },
        'PUT /txn': [{ KV: { Verb: 'set', Key: 'fuzz/t', Value: 'dg==' } }, { KV: { Verb: 'get', Key: 'keep' } }],
        'PUT /acl/token': { Description: 'd', Policies: [{ Name: 'global-management' }], ExpirationTTL: '1h', Local: false },
        'PUT /acl/policy': { Name: 'fuzzp', Rules: 'key_prefix "" { policy = "read" }', Datacenters: ['dc1'] },
        'PUT /acl/policy/{id}': { Name: 'fuzzp', Rules: 'key_prefix "" { policy = "read" }' },
        'PUT /acl/role': { Name: 'fuzzr', Policies: [{ Name: 'global-management' }], ServiceIdentities: [{ ServiceName: 'web' }] },
        'PUT /acl/auth-method': { Name: 'fuzzm', Type: 'jwt', MaxTokenTTL: '1h', Config: { JWTValidationPubKeys: ['x'], ClaimMappings: { a: 'b' } } },
        'PUT /acl/binding-rule': { AuthMethod: 'fuzzm', BindType: 'service', BindName: 'web', Selector: 'value.a == "b"' },
      },
      // A KV value is the raw body; destroying a session takes no body (the reference ignores one).
      bodyNotJson: new Set(['PUT /kv/{key}', 'PUT /session/destroy/{id}']),
      // A KV read of a missing key is an empty 404, as the reference answers.
      allowEmpty4xx: (status, method, path) => status === 404 && method === 'GET' && path === '/kv/{key}',
      healthy: async () => {
        assert.equal((await req('GET', '/v1/acl/policies')).status, 200);
        assert.equal((await req('GET', '/v1/kv/keep')).text, keep);
        assert.equal((await req('GET', '/v1/catalog/services')).status, 200);
      },
    });
    assert.ok(result.operations >= 70, `walked ${result.operations} operations`);
    if (process.env.FUZZ_TIMING) console.error(result.requests, result.statuses, result.validationStatuses);
    assert.deepEqual(result.findings, [], describeFindings(result.findings));
    assertReachedValidation(result);
  });
});
