/**
 * The scheduler's declared request bodies (issue 25 scope 1): every route that reads a JSON
 * body declares it (kernel/util/go-schema.ts), the kernel decodes it with Go's texts
 * (reference/sched.md §1.1) before the access rule, and the OpenAPI document shows it. A body
 * with a field of the wrong kind answers the same 400 text as before its route declared it,
 * one route per family, and changes nothing.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';

/** A request, its body (sent as JSON; a string is sent as it is) and the 400 text it must get. */
type Case = readonly [method: string, path: string, body: unknown, text: string];

const NODE = randomUUID();
const ALLOC = randomUUID();

/** One or more bad bodies per route family, each with the text the reference's decoder gives. */
const CASES: readonly Case[] = [
  // Namespaces.
  ['PUT', '/v1/namespace', { Name: 1 }, 'json: cannot unmarshal number into Go struct field structs.Namespace.Name of type string'],
  ['PUT', '/v1/namespace/x', 'null', 'json: cannot unmarshal null into Go value of type structs.Namespace'],
  ['PUT', '/v1/namespace/x', '', 'Request body is empty'],
  // Nodes: the body's field, and a nested struct that names its own type.
  ['PUT', '/v1/node/register', { Node: 'n' }, 'json: cannot unmarshal string into Go struct field structs.NodeRegisterRequest.Node of type struct'],
  ['PUT', '/v1/node/register', { Node: { ID: 5 } }, 'json: cannot unmarshal number into Go struct field structs.Node.ID of type string'],
  [
    'PUT',
    `/v1/node/${NODE}/eligibility`,
    { Eligibility: true },
    'json: cannot unmarshal bool into Go struct field structs.NodeUpdateEligibilityRequest.Eligibility of type string',
  ],
  [
    'PUT',
    `/v1/node/${NODE}/drain`,
    { MarkEligible: 'yes' },
    'json: cannot unmarshal string into Go struct field api.NodeUpdateDrainRequest.MarkEligible of type bool',
  ],
  [
    'PUT',
    `/v1/node/${NODE}/status`,
    { Status: 'ready', NodeEvent: { Message: 1 } },
    'json: cannot unmarshal number into Go struct field structs.NodeEvent.Message of type string',
  ],
  // Allocations.
  [
    'PUT',
    `/v1/allocation/${ALLOC}/client-status`,
    { ClientStatus: 1 },
    'json: cannot unmarshal number into Go struct field structs.AllocClientUpdate.ClientStatus of type string',
  ],
  [
    'PUT',
    `/v1/client/allocation/${ALLOC}/restart`,
    { AllTasks: 'x' },
    'json: cannot unmarshal string into Go struct field structs.AllocRestartRequest.AllTasks of type bool',
  ],
  // The ACL objects: `structs.` before a whole-value type, bare names in a field path.
  ['PUT', '/v1/acl/policy/p', [], 'json: cannot unmarshal array into Go value of type structs.ACLPolicy'],
  [
    'PUT',
    '/v1/acl/policy/p',
    { Name: 'p', JobACL: { Namespace: 1 } },
    'json: cannot unmarshal number into Go struct field ACLPolicy.JobACL.Namespace of type string',
  ],
  ['PUT', '/v1/acl/role', { Name: 1 }, 'json: cannot unmarshal number into Go struct field ACLRole.Name of type string'],
  [
    'PUT',
    '/v1/acl/role',
    { Name: 'r', Policies: 'p' },
    'json: cannot unmarshal string into Go struct field ACLRole.Policies of type []*structs.ACLRolePolicyLink',
  ],
  ['PUT', '/v1/acl/token', { Policies: 'x' }, 'json: cannot unmarshal string into Go struct field ACLToken.Policies of type []string'],
  [
    'PUT',
    '/v1/acl/token',
    { Type: 'client', Roles: 'x' },
    'json: cannot unmarshal string into Go struct field ACLToken.Roles of type []*structs.ACLTokenRoleLink',
  ],
  ['PUT', '/v1/acl/token', { ExpirationTTL: '1d' }, 'time: unknown unit "d" in duration "1d"'],
  [
    'PUT',
    '/v1/acl/auth-method',
    { Name: 'm', Config: { OIDCScopes: 'a' } },
    'json: cannot unmarshal string into Go struct field ACLAuthMethod.Config.OIDCScopes of type []string',
  ],
  ['PUT', '/v1/acl/binding-rule', { BindName: 1 }, 'json: cannot unmarshal number into Go struct field ACLBindingRule.BindName of type string'],
  ['PUT', '/v1/acl/login', { LoginToken: 1 }, 'json: cannot unmarshal number into Go struct field ACLLoginRequest.LoginToken of type string'],
  ['PUT', '/v1/acl/oidc/auth-url', 7, 'json: cannot unmarshal number into Go value of type structs.ACLOIDCAuthURLRequest'],
  // Jobs.
  ['PUT', '/v1/jobs', { EnforceIndex: 'x' }, 'json: cannot unmarshal string into Go struct field api.JobRegisterRequest.EnforceIndex of type bool'],
  ['PUT', '/v1/jobs/parse', { JobHCL: 1 }, 'json: cannot unmarshal number into Go struct field api.JobsParseRequest.JobHCL of type string'],
  ['PUT', '/v1/job/j/scale', { Count: 'x', Target: { Group: 'g' } }, 'json: cannot unmarshal string into Go struct field ScalingRequest.Count of type int64'],
  ['PUT', '/v1/job/j/scale', { Target: { Group: 1 } }, 'json: cannot unmarshal number into Go struct field api.ScalingRequest.Target.Group of type string'],
  ['PUT', '/v1/job/j/evaluate', { JobID: 'other' }, 'Job ID does not match'],
  ['PUT', '/v1/job/j/evaluate', { JobID: 1 }, 'json: cannot unmarshal number into Go struct field api.JobEvaluateRequest.JobID of type string'],
  ['PUT', '/v1/job/j/plan', { Diff: 'x' }, 'json: cannot unmarshal string into Go struct field structs.JobPlanRequest.Diff of type bool'],
  // CSI volumes and snapshots.
  [
    'PUT',
    '/v1/volumes',
    { Volumes: 'x' },
    'json: cannot unmarshal string into Go struct field structs.CSIVolumeRegisterRequest.Volumes of type []*structs.CSIVolume',
  ],
  ['PUT', '/v1/volumes/snapshot', { Snapshots: [{ Name: 1 }] }, 'json: cannot unmarshal number into Go struct field structs.CSISnapshot.Name of type string'],
];

describe('scheduler: declared request bodies', { timeout: 120_000 }, () => {
  let a: TestAgent;
  before(async () => {
    a = await startAgent();
  });
  after(() => a.stop());

  it("answers a body's bad field with the decoder's 400 text, as before its route declared it, and changes nothing", async () => {
    const index = a.state.index;
    for (const [method, path, body, text] of CASES) {
      const r = await call(a.url, method, path, { token: ROOT, ...(typeof body === 'string' ? { raw: body } : { body }) });
      assert.deepEqual([r.status, r.text], [400, text], `${method} ${path} ${JSON.stringify(body)}`);
    }
    assert.equal(a.state.index, index, 'no write');
  });

  it('reads a null body of the auth-method, binding-rule, login and allocation bodies as {} (Go decodes null into a struct as nothing)', async () => {
    const login = await call(a.url, 'PUT', '/v1/acl/login', { token: ROOT, raw: 'null' });
    assert.equal(login.status, 400);
    assert.match(login.text, /^invalid login request: 2 errors occurred:\n\t\* missing auth method name\n\t\* missing login token/);
    const restart = await call(a.url, 'PUT', `/v1/client/allocation/${ALLOC}/restart`, { token: ROOT, raw: 'null' });
    assert.deepEqual([restart.status, restart.text], [404, 'alloc not found']);
  });

  it('shows the declared body fields in the OpenAPI document', async () => {
    const doc = (await call(a.url, 'GET', '/v1/openapi.json')).json as { paths: Record<string, Record<string, { requestBody?: unknown }>> };
    const fields = (path: string, method: string) => {
      const body = doc.paths[path]?.[method]?.requestBody as { content: Record<string, { schema: { properties: Record<string, unknown> } }> } | undefined;
      return body ? Object.keys(body.content['application/json']!.schema.properties) : undefined;
    };
    assert.deepEqual(fields('/namespace/{name}', 'put'), ['Name', 'Description', 'Meta']);
    assert.deepEqual(fields('/node/{id}/drain', 'post'), ['DrainSpec', 'MarkEligible', 'Meta']);
    assert.deepEqual(fields('/acl/token', 'put'), ['AccessorID', 'Name', 'Type', 'Policies', 'Roles', 'Global', 'ExpirationTTL', 'ExpirationTime']);
    assert.deepEqual(fields('/acl/auth-method/{name}', 'put'), ['Name', 'Type', 'TokenLocality', 'TokenNameFormat', 'MaxTokenTTL', 'Default', 'Config']);
    assert.deepEqual(fields('/jobs', 'put'), ['Job', 'EnforceIndex', 'JobModifyIndex', 'PreserveCounts', 'PolicyOverride']);
    assert.deepEqual(fields('/volumes/snapshot', 'post'), ['Snapshots']);
    assert.equal(fields('/jobs', 'get'), undefined, 'a read declares no body');
  });
});
