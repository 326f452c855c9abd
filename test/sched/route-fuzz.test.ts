/**
 * Every route of the scheduler's own OpenAPI document walked with hostile input
 * (test/route-fuzz.ts): no 5xx, no empty 4xx, no hang, and after each path's batch the job
 * list still answers and a known job reads the same. New routes are covered as they land.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { describeFindings, walkRoutes } from '../route-fuzz.js';
import { minimalJob } from './jobs-helpers.js';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';

/** Body fields the scheduler's routes take (its document declares none). */
const FIELDS = ['Job', 'JobHCL', 'Count', 'Target', 'Name', 'Rules', 'Type', 'Policies', 'Meta', 'DrainSpec', 'Eligibility', 'Status', 'ID', 'Namespace', 'Canonicalize', 'Diff', 'PolicyOverride', 'Signal', 'Task', 'ExpirationTTL', 'TaskGroups', 'Priority', 'Datacenters', 'Variables'];

describe('scheduler: every documented route, hostile input', { timeout: 600_000 }, () => {
  let a: TestAgent;
  const req = (method: string, p: string, body?: unknown) => call(a.url, method, p, { token: ROOT, body });

  before(async () => {
    a = await startAgent();
    for (const id of ['keep', 'fuzz-job']) {
      const r = await req('POST', '/v1/jobs', { Job: minimalJob(id) });
      assert.equal(r.status, 200, r.text);
    }
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
      plausible: (path, param) => (path.startsWith('/job/') && param === 'id' ? 'fuzz-job' : 'fuzz1'),
      streaming: new Set(['/event/stream']),
      // An unknown ?region= is the reference's routing answer, 500 `No path to region` (reference/sched.md §1.6).
      allow5xx: (status, body) => status === 500 && body === 'No path to region',
      healthy: async () => {
        assert.equal((await req('GET', '/v1/jobs')).status, 200);
        assert.equal((await req('GET', '/v1/job/keep')).text, keep);
        assert.equal((await req('GET', '/v1/acl/policies')).status, 200);
      },
    });
    assert.ok(result.operations >= 100, `walked ${result.operations} operations`);
    assert.deepEqual(result.findings, [], describeFindings(result.findings));
  });
});
