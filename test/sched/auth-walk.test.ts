/**
 * The scheduler's authorization walk (issue 25 scope 2): every path and method of its own
 * OpenAPI document, called with no token, a made-up token and a token with no rights (ACLs
 * on). None may answer 2xx unless it is one of the operations pinned below as open to
 * everyone or as showing each caller what it holds; no call may change the state (its latest
 * index). The walk is the shared driver's (test/auth-walk.ts). A route whose rule became
 * `PUBLIC` by mistake answers 2xx here and fails the walk; a new open route must be pinned
 * here on purpose.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { describeAuthFindings, walkAuthorization } from '../auth-walk.js';
import { minimalJob } from './jobs-helpers.js';
import { call, clientToken, ROOT, startAgent, type TestAgent } from './helpers.js';
import { until } from './workloads.js';

/** Open to everyone, tokens or not: the reference's unauthenticated endpoints. */
const OPEN = new Set([
  'GET /status/leader',
  'GET /status/peers',
  'GET /regions',
  'GET /metrics',
  'GET /openapi.json',
  // Answer nothing but 400/405 (a trailing slash with no key).
  'GET /acl/auth-method',
  'DELETE /acl/auth-method',
  'GET /acl/binding-rule',
  'DELETE /acl/binding-rule',
  // Without `?type=` the volume list is empty, as the reference's, to anyone.
  'GET /volumes',
]);

/** Admit any token that resolves (the anonymous one too) and show only what it holds. */
const OWN = new Set(['GET /acl/policies', 'GET /acl/roles', 'GET /acl/auth-methods', 'GET /namespaces', 'GET /acl/token/self']);

const VOLUME = { ID: 'walk-volume', Name: 'v', PluginID: 'p', RequestedCapabilities: [{ AccessMode: 'single-node-writer', AttachmentMode: 'file-system' }] };

/** Query strings that get past the query's 400s, so the access rule answers. */
const QUERIES: Record<string, string> = {
  'GET /client/fs/logs/{alloc}': '?task=server',
  'DELETE /volume/csi/{id}/detach': '?node=walk-node',
  'GET /volumes/external': '?plugin_id=p&per_page=1',
  'GET /volumes/snapshot': '?plugin_id=p&per_page=1',
  'DELETE /volumes/snapshot': '?plugin_id=p&snapshot_id=s',
};

/** Request bodies that get past decoding, so the access rule (not a 400) answers. */
const BODIES: Record<string, unknown> = {
  'POST /jobs': { Job: minimalJob('walk-new') },
  'PUT /jobs': { Job: minimalJob('walk-new') },
  'POST /job/{id}': { Job: minimalJob('walk-job') },
  'PUT /job/{id}': { Job: minimalJob('walk-job') },
  'POST /job/{id}/plan': { Job: minimalJob('walk-job') },
  'PUT /job/{id}/plan': { Job: minimalJob('walk-job') },
  'POST /jobs/parse': { JobHCL: 'job "x" {}' },
  'PUT /jobs/parse': { JobHCL: 'job "x" {}' },
  'POST /job/{id}/scale': { Count: 2, Target: { Group: 'app' } },
  'PUT /job/{id}/scale': { Count: 2, Target: { Group: 'app' } },
  'POST /acl/policy/{name}': { Name: 'walk-policy', Rules: 'namespace "default" { policy = "write" }' },
  'PUT /acl/policy/{name}': { Name: 'walk-policy', Rules: 'namespace "default" { policy = "write" }' },
  'POST /acl/token': { Name: 'walk', Type: 'management' },
  'PUT /acl/token': { Name: 'walk', Type: 'management' },
  'POST /namespace/{name}': { Name: 'walk-ns' },
  'PUT /namespace/{name}': { Name: 'walk-ns' },
  'POST /namespace': { Name: 'walk-ns' },
  'PUT /namespace': { Name: 'walk-ns' },
  'PUT /node/register': {
    Node: { ID: randomUUID(), SecretID: randomUUID(), Datacenter: 'dc1', Name: 'walk-node', HTTPAddr: '10.0.0.1:4646', Attributes: { 'os.name': 'ubuntu' } },
  },
  'POST /allocation/{id}/client-status': { ClientStatus: 'running' },
  'PUT /allocation/{id}/client-status': { ClientStatus: 'running' },
  'POST /volumes': { Volumes: [VOLUME] },
  'PUT /volumes': { Volumes: [VOLUME] },
  'PUT /volume/csi/{id}': { Volumes: [VOLUME] },
  'PUT /volume/csi/{id}/create': { Volumes: [VOLUME] },
  'POST /node/{id}/status': { Status: 'ready' },
  'PUT /node/{id}/status': { Status: 'ready' },
  'POST /node/{id}/eligibility': { Eligibility: 'ineligible' },
  'PUT /node/{id}/eligibility': { Eligibility: 'ineligible' },
  'POST /node/{id}/drain': { DrainSpec: null, MarkEligible: true },
  'PUT /node/{id}/drain': { DrainSpec: null, MarkEligible: true },
  'POST /deployment/pause/{id}': { Pause: true },
  'PUT /deployment/pause/{id}': { Pause: true },
  'POST /deployment/promote/{id}': { All: true },
  'PUT /deployment/promote/{id}': { All: true },
  'POST /deployment/fail/{id}': {},
  'PUT /deployment/fail/{id}': {},
  'POST /deployment/allocation-health/{id}': { HealthyAllocationIDs: ['a'] },
  'PUT /deployment/allocation-health/{id}': { HealthyAllocationIDs: ['a'] },
};

/** The deployment of `walk-job` (found once the scheduler made it). */
let walkDeployment = '';

/** A value for a path parameter: objects that exist where the walk made them, else a fresh id. */
function substitute(path: string, param: string): string {
  if (path.startsWith('/job/{id}') && param === 'id') return 'walk-job';
  if (path.startsWith('/deployment/') && param === 'id') return walkDeployment;
  if (path.startsWith('/namespace/{name}') && param === 'name') return 'default';
  if (path.startsWith('/acl/policy/{name}') && param === 'name') return 'walk-policy';
  if (path.startsWith('/volume/csi/{id}') && param === 'id') return 'walk-volume';
  return randomUUID();
}

describe('scheduler: the authorization walk', { timeout: 300_000 }, () => {
  let a: TestAgent;
  let noRights: string;

  before(async () => {
    a = await startAgent();
    const made = await call(a.url, 'POST', '/v1/jobs', { token: ROOT, body: { Job: minimalJob('walk-job') } });
    assert.equal(made.status, 200, made.text);
    const policy = await call(a.url, 'PUT', '/v1/acl/policy/walk-policy', {
      token: ROOT,
      body: { Name: 'walk-policy', Rules: 'namespace "default" { policy = "read" }' },
    });
    assert.equal(policy.status, 200, policy.text);
    noRights = (await clientToken(a.url, 'walk-nothing', 'namespace "elsewhere" { policy = "read" }')).secret;
    // The job's first version has a deployment (nothing placed: no node): the deployment routes walk a real one.
    walkDeployment = await until('the deployment of walk-job', async () => (await call(a.url, 'GET', '/v1/job/walk-job/deployment', { token: ROOT })).json?.ID);
    // The scheduler's own writes (the job's evaluation) settle before the walk counts writes.
    for (let last = -1; last !== a.state.index;) {
      last = a.state.index;
      await new Promise((r) => setTimeout(r, 500));
    }
  });
  after(() => a.stop());

  it('answers no 2xx where the declaration admits none of these callers, and changes nothing', async () => {
    const doc = (await call(a.url, 'GET', '/v1/openapi.json')).json as { paths: Record<string, Record<string, unknown>> };
    /** Callers whose token resolves (the anonymous one included) see what they hold. */
    const resolves = new Set(['no token', 'a token with no rights']);
    const json = { 'Content-Type': 'application/json' };
    const result = await walkAuthorization({
      base: a.url,
      prefix: '/v1',
      doc,
      callers: [
        { name: 'no token', headers: json },
        { name: 'a made-up token', headers: { ...json, 'X-Sched-Token': randomUUID() } },
        { name: 'a token with no rights', headers: { ...json, 'X-Sched-Token': noRights } },
      ],
      open: (method, path, caller) => OPEN.has(`${method} ${path}`) || (resolves.has(caller) && OWN.has(`${method} ${path}`)),
      plausible: substitute,
      body: (method, path) => BODIES[`${method} ${path}`],
      query: (method, path) => QUERIES[`${method} ${path}`] ?? '',
      // A stream that opened would never end: its status is all the walk needs.
      streaming: new Set(Object.keys(doc.paths)),
      openWritesNothing: true,
      fingerprint: () => String(a.state.index),
    });
    assert.ok(result.requests >= 3 * 90, `walked ${result.requests} calls`);
    assert.deepEqual(result.findings, [], describeAuthFindings(result.findings));
  });
});
