/**
 * Every route of the scheduler's own OpenAPI document walked with hostile input
 * (test/route-fuzz.ts): no 2xx for malformed input, no 5xx, no empty 4xx, no hang, most
 * replies the handlers' validation 400s, and after each path's batch the job list still
 * answers and a known job reads the same. New routes are covered as they land.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { assertReachedValidation, describeFindings, walkRoutes } from '../route-fuzz.js';
import { minimalJob } from './jobs-helpers.js';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';
import { until } from './workloads.js';

/** Body fields the scheduler's routes take (its document declares none). */
const FIELDS = [
  'Job',
  'JobHCL',
  'Selector',
  'Count',
  'Target',
  'Name',
  'Rules',
  'Type',
  'Policies',
  'Meta',
  'DrainSpec',
  'Eligibility',
  'Status',
  'ID',
  'Namespace',
  'Canonicalize',
  'Diff',
  'PolicyOverride',
  'Signal',
  'Task',
  'ExpirationTTL',
  'TaskGroups',
  'Priority',
  'Datacenters',
  'Variables',
];

describe('scheduler: every documented route, hostile input', { timeout: 600_000 }, () => {
  let a: TestAgent;
  const nodeID = randomUUID();
  const node = {
    ID: nodeID,
    SecretID: randomUUID(),
    Datacenter: 'dc1',
    Name: 'fuzz-node',
    HTTPAddr: '10.0.0.1:4646',
    Attributes: { 'os.name': 'ubuntu' },
    NodeResources: { Cpu: { CpuShares: 4000 } },
    Meta: { rack: 'r1' },
  };
  const req = (method: string, p: string, body?: unknown) => call(a.url, method, p, { token: ROOT, body });
  let deployment = '';

  before(async () => {
    a = await startAgent();
    for (const id of ['keep', 'fuzz-job']) {
      const r = await req('POST', '/v1/jobs', { Job: minimalJob(id) });
      assert.equal(r.status, 200, r.text);
    }
    const n = await req('PUT', '/v1/node/register', { Node: node });
    assert.equal(n.status, 200, n.text);
    // The job's first version has a deployment: the deployment routes are fuzzed on a real one.
    deployment = await until('the deployment of fuzz-job', async () => (await req('GET', '/v1/job/fuzz-job/deployment')).json?.ID);
  });
  after(() => a.stop());

  it('answers every hostile request with a 4xx naming the problem, and stays healthy', async () => {
    const keep = (await req('GET', '/v1/job/keep')).text;
    const doc = (await req('GET', '/v1/openapi.json')).json;
    const result = await walkRoutes({
      base: a.url,
      prefix: '/v1',
      doc,
      headers: { 'X-Sched-Token': ROOT },
      fields: FIELDS,
      seeds: {
        'POST /jobs': { Job: minimalJob('fuzz-job', { Priority: 50, Datacenters: ['dc1'], Meta: { a: 'b' } }) },
        'PUT /job/{id}': { Job: minimalJob('fuzz-job') },
        'POST /job/{id}/plan': { Job: minimalJob('fuzz-job'), Diff: true },
        'POST /jobs/parse': {
          JobHCL: 'job "x" {\n  group "g" {\n    count = 2\n    task "t" {\n      driver = "raw_exec"\n    }\n  }\n}\n',
          Canonicalize: true,
        },
        'POST /job/{id}/scale': { Count: 2, Target: { Group: 'app' }, Message: 'm', PolicyOverride: false },
        'POST /job/{id}/evaluate': { EvalOptions: { ForceReschedule: true } },
        'POST /job/{id}/revert': { JobID: 'fuzz-job', JobVersion: 0, EnforcePriorVersion: 1 },
        'POST /job/{id}/stable': { JobID: 'fuzz-job', JobVersion: 0, Stable: true },
        'POST /node/{id}/drain': { DrainSpec: { Deadline: 60_000_000_000, IgnoreSystemJobs: false }, MarkEligible: false },
        'POST /node/{id}/eligibility': { Eligibility: 'ineligible' },
        'POST /acl/policy/{name}': { Name: 'fuzz1', Rules: 'namespace "default" { policy = "read" }' },
        'POST /acl/token': { Type: 'client', Policies: ['p'], ExpirationTTL: '1h', Name: 'n' },
        'POST /namespace/{name}': { Name: 'fuzz1', Description: 'd', Meta: { a: 'b' } },
        'PUT /volume/csi/{id}': {
          Volumes: [{ ID: 'fuzz1', Name: 'v', PluginID: 'p', RequestedCapabilities: [{ AccessMode: 'single-node-writer', AttachmentMode: 'file-system' }] }],
        },
        'PUT /node/register': { Node: { ...node, ID: randomUUID(), SecretID: randomUUID() } },
        'POST /node/{id}/status': { Status: 'ready' },
        'POST /deployment/promote/{id}': { DeploymentID: '', All: false, Groups: ['app'] },
        'POST /deployment/pause/{id}': { DeploymentID: '', Pause: false },
        'POST /deployment/allocation-health/{id}': { DeploymentID: '', HealthyAllocationIDs: ['a'], UnhealthyAllocationIDs: null },
      },
      plausible: (path, param) =>
        path.startsWith('/job/') && param === 'id' ? 'fuzz-job' : path.startsWith('/node/') ? nodeID : path.startsWith('/deployment/') ? deployment : 'fuzz1',
      streaming: new Set(['/event/stream']),
      // Purging a node and rotating the keyring take no body (the reference's handlers decode none).
      bodyNotJson: new Set(['PUT /node/{id}/purge', 'POST /node/{id}/purge', 'PUT /operator/keyring/rotate', 'POST /operator/keyring/rotate']),
      // An unknown ?region= is the reference's routing answer, 500 `No path to region` (reference/sched.md §1.6).
      allow5xx: (status, body) => status === 500 && body === 'No path to region',
      healthy: async () => {
        assert.equal((await req('GET', '/v1/jobs')).status, 200);
        assert.equal((await req('GET', '/v1/job/keep')).text, keep);
        assert.equal((await req('GET', '/v1/acl/policies')).status, 200);
      },
    });
    assert.ok(result.operations >= 100, `walked ${result.operations} operations`);
    if (process.env.FUZZ_TIMING) console.error(result.requests, result.statuses, result.validationStatuses);
    assert.deepEqual(result.findings, [], describeFindings(result.findings));
    assertReachedValidation(result);
  });
});
