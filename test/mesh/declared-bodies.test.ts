/**
 * The discovery service's declared request bodies (issue 25 scope 1): the ACL, catalog, agent
 * and session routes declare their JSON bodies (the last three read in any case), which the kernel decodes before the access rule (body-decoding.ts). The
 * texts a client sees for a field of the wrong kind, for a field that keeps its own check,
 * and for a body that is not JSON stay the reference's, per route family; a refused body
 * changes nothing; and the service's OpenAPI document shows the declared fields.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, startAgent, type TestAgent } from './helpers.js';

const ROOT = '7e0b4c2a-5d1f-4a3b-9c8d-2e1f0a9b8c7d';

/** A request body's schema as the OpenAPI document shows it. */
interface BodySchema {
  readonly properties: Record<string, { type?: string; additionalProperties?: { type?: string } }>;
  readonly required?: readonly string[];
}

describe('discovery declared request bodies', () => {
  let a: TestAgent;
  const send = (method: string, path: string, body: unknown) => call(a.url, method, path, { token: ROOT, body });
  const raw = (method: string, path: string, text: string) => call(a.url, method, path, { token: ROOT, raw: text });
  /** The state's ACL indexes: a refused write must leave them as they were. */
  const indexes = async () =>
    Promise.all(
      ['policies', 'roles', 'tokens', 'auth-methods', 'binding-rules'].map(async (p) =>
        (await call(a.url, 'GET', `/v1/acl/${p}`, { token: ROOT })).headers.get('x-mesh-index'),
      ),
    );
  /** Every case answers 400 with exactly `text` (a RegExp: matching it). */
  const refused = async (cases: readonly (readonly [method: string, path: string, body: unknown, text: string | RegExp])[]) => {
    const before = await indexes();
    for (const [method, path, body, text] of cases) {
      const r = typeof body === 'string' ? await raw(method, path, body) : await send(method, path, body);
      const what = `${method} ${path} ${typeof body === 'string' ? body : JSON.stringify(body)}`;
      assert.equal(r.status, 400, what);
      if (typeof text === 'string') assert.equal(r.text, text, what);
      else assert.match(r.text, text, what);
    }
    assert.deepEqual(await indexes(), before, 'a refused body changes nothing');
  };

  before(async () => {
    a = await startAgent({ initialManagement: ROOT }, { enterprise: true });
  });
  after(() => a.stop());

  it('policies and roles: a declared field of the wrong kind, the fields that keep their own texts, a body that is not JSON', async () => {
    const p = await send('PUT', '/v1/acl/policy', { Name: 'decl-p' });
    assert.equal(p.status, 200);
    const r = await send('PUT', '/v1/acl/role', { Name: 'decl-r' });
    assert.equal(r.status, 200);
    await refused([
      ['PUT', '/v1/acl/policy', { Name: 7 }, 'Name must be a string'],
      ['PUT', '/v1/acl/policy', { Name: 'x', Rules: ['acl = "read"'] }, 'Rules must be a string'],
      ['PUT', `/v1/acl/policy/${p.json.ID}`, { Name: 'decl-p', Description: false }, 'Description must be a string'],
      ['PUT', '/v1/acl/policy', { Name: 'x', Datacenters: 'dc1' }, 'Datacenters must be a list'],
      ['PUT', '/v1/acl/policy', { Name: 'x', Datacenters: [1] }, 'Datacenters must be a list of strings'],
      ['PUT', '/v1/acl/policy', { Name: 'x', ID: 5 }, 'Cannot specify the ID when creating a new policy'],
      ['PUT', '/v1/acl/policy', '{"Name":', /^Policy decoding failed: /],
      ['PUT', '/v1/acl/role', { Name: 'x', Description: 1 }, 'Description must be a string'],
      ['PUT', '/v1/acl/role', { Name: 'x', Policies: 'decl-p' }, 'Policies must be a list'],
      ['PUT', `/v1/acl/role/${r.json.ID}`, { Name: 'decl-r', ID: 5 }, 'Role ID in URL and payload do not match'],
      ['PUT', '/v1/acl/role', '[1,', /^Role decoding failed: /],
    ]);
    // Absent and null fields stay absent: an update without Description clears it, as before.
    const renamed = await send('PUT', `/v1/acl/policy/${p.json.ID}`, { Name: 'decl-p2', Description: null, Rules: null });
    assert.deepEqual([renamed.status, renamed.json.Name, renamed.json.Description, renamed.json.Rules], [200, 'decl-p2', '', '']);
  });

  it('tokens: Local a boolean on create, its own text on update; a clone ignores a Description that is not a string', async () => {
    const t = await send('PUT', '/v1/acl/token', { Description: 'decl-t' });
    assert.equal(t.status, 200);
    await refused([
      ['PUT', '/v1/acl/token', { Local: 'yes' }, 'Local must be a boolean'],
      ['PUT', '/v1/acl/token', { Description: 5 }, 'Description must be a string'],
      ['PUT', `/v1/acl/token/${t.json.AccessorID}`, { Local: 'yes' }, `Cannot toggle local mode of ${t.json.AccessorID}`],
      ['PUT', '/v1/acl/token', { SecretID: 5 }, 'Invalid Token: SecretID - not a valid UUID'],
      ['PUT', '/v1/acl/token', { ExpirationTTL: true }, "Token Expiration TTL 'true' is not a duration"],
      ['PUT', '/v1/acl/token', '{"Local":tru', /^Token decoding failed: /],
    ]);
    const clone = await send('PUT', `/v1/acl/token/${t.json.AccessorID}/clone`, { Description: 5 });
    assert.deepEqual([clone.status, clone.json.Description], [200, 'decl-t']);
  });

  it('auth methods, binding rules and namespaces: declared strings, and the update routes keep their URL-mismatch texts', async () => {
    await refused([
      ['PUT', '/v1/acl/auth-method', { Name: 'decl-m', Type: 5 }, 'Type must be a string'],
      ['PUT', '/v1/acl/auth-method', { Name: 'decl-m', Type: 'kubernetes', TokenLocality: 1 }, 'TokenLocality must be a string'],
      ['PUT', '/v1/acl/auth-method/decl-m', { Name: 5, Type: 'kubernetes' }, 'AuthMethod Name in URL and payload do not match'],
      ['PUT', '/v1/acl/auth-method', { Name: 'decl-m', Type: 'kubernetes', MaxTokenTTL: 'soon' }, "Invalid Auth Method: MaxTokenTTL 'soon' is not a duration"],
      ['PUT', '/v1/acl/auth-method', '{', /^AuthMethod decoding failed: /],
      ['PUT', '/v1/acl/binding-rule', { AuthMethod: 'decl-m', BindType: 'service', BindName: 7 }, 'BindName must be a string'],
      ['PUT', '/v1/acl/binding-rule', { AuthMethod: 'decl-m', Selector: {}, BindType: 'service', BindName: 'x' }, 'Selector must be a string'],
      ['PUT', '/v1/acl/binding-rule', '{"x"}', /^BindingRule decoding failed: /],
    ]);
    const before = (await call(a.url, 'GET', '/v1/namespaces', { token: ROOT })).headers.get('x-mesh-index');
    for (const [path, body, text] of [
      ['/v1/namespace', { Name: 5 }, 'Name must be a string'],
      ['/v1/namespace', { Name: 'declns', Description: [] }, 'Description must be a string'],
      ['/v1/namespace/default', { Name: 5 }, 'Namespace name in URL and payload do not match'],
    ] as const) {
      const r = await send('PUT', path, body);
      assert.deepEqual([r.status, r.text], [400, text], JSON.stringify(body));
    }
    const bad = await raw('PUT', '/v1/namespace', 'nope');
    assert.equal(bad.status, 400);
    assert.match(bad.text, /^Namespace decoding failed: /);
    assert.equal((await call(a.url, 'GET', '/v1/namespaces', { token: ROOT })).headers.get('x-mesh-index'), before, 'nothing changed');
  });

  it('login, OIDC and bootstrap: declared strings and maps, their empty-body texts, their not-JSON texts', async () => {
    const open = (path: string, body: unknown) => call(a.url, path === '/v1/acl/bootstrap' ? 'PUT' : 'POST', path, { body });
    for (const [path, body, text] of [
      ['/v1/acl/login', { AuthMethod: 5, BearerToken: 'x' }, 'AuthMethod must be a string'],
      ['/v1/acl/login', { AuthMethod: 'm', BearerToken: 'x', Meta: { a: 1 } }, 'Meta must be a map of strings'],
      ['/v1/acl/login', { AuthMethod: 'm', BearerToken: 'x', Meta: ['a'] }, 'Meta must be a map of strings'],
      ['/v1/acl/login', undefined, 'Invalid Login request: Missing auth parameters'],
      ['/v1/acl/oidc/auth-url', { AuthMethod: 'm', RedirectURI: 5 }, 'RedirectURI must be a string'],
      ['/v1/acl/oidc/callback', { AuthMethod: 'm', State: 's', Code: true }, 'Code must be a string'],
      ['/v1/acl/oidc/callback', undefined, 'Invalid request: Missing auth parameters'],
      ['/v1/acl/bootstrap', { BootstrapSecret: 5 }, 'BootstrapSecret must be a UUID'],
    ] as const) {
      const r = await open(path, body);
      assert.deepEqual([r.status, r.text], [400, text], `${path} ${JSON.stringify(body)}`);
    }
    const login = await call(a.url, 'POST', '/v1/acl/login', { raw: '{"AuthMethod":' });
    assert.equal(login.status, 400);
    assert.match(login.text, /^Failed to decode request body: /);
    const bootstrap = await call(a.url, 'PUT', '/v1/acl/bootstrap', { raw: '{"BootstrapSecret":' });
    assert.equal(bootstrap.status, 400);
    assert.match(bootstrap.text, /^Request decoding failed: /);
  });

  it('the OpenAPI document shows the declared request bodies, every field optional', async () => {
    const doc = (await call(a.url, 'GET', '/v1/openapi.json')).json as { paths: Record<string, Record<string, { requestBody?: unknown }>> };
    const body = (path: string, method: string): BodySchema => {
      const rb = doc.paths[path]?.[method]?.requestBody as { content: Record<string, { schema: BodySchema }> } | undefined;
      assert.ok(rb, `${method} ${path} shows a request body`);
      return rb.content['application/json']!.schema;
    };
    const policy = body('/acl/policy', 'put');
    assert.deepEqual(Object.keys(policy.properties), ['ID', 'Name', 'Description', 'Rules', 'Datacenters', 'Namespace']);
    assert.equal(policy.properties.Rules!.type, 'string');
    assert.equal(policy.required, undefined, 'an absent field stays absent: none is required');
    assert.deepEqual(Object.keys(body('/acl/policy/{id}', 'put').properties), Object.keys(policy.properties));
    assert.equal(body('/acl/token', 'put').properties.Local!.type, 'boolean');
    assert.equal(body('/acl/token/{accessor}', 'put').properties.Local!.type, undefined, 'an update takes any Local and compares it');
    const login = body('/acl/login', 'post');
    assert.deepEqual(Object.keys(login.properties), ['AuthMethod', 'BearerToken', 'Meta', 'Namespace']);
    assert.equal(login.properties.Meta!.type, 'object');
    assert.equal(login.properties.Meta!.additionalProperties?.type, 'string');
    assert.ok(body('/acl/binding-rule', 'put').properties.BindName);
    assert.ok(body('/namespace', 'put').properties.Description);
    assert.ok(body('/acl/bootstrap', 'put').properties.BootstrapSecret);
    assert.equal(doc.paths['/acl/token/{accessor}']!.get!.requestBody, undefined, 'a read declares none');
  });

  /** The catalog's, the sessions' and this agent's state: a refused catalog, agent or session body must leave it as it was. */
  const meshState = async () => {
    const index = async (path: string) => (await call(a.url, 'GET', path, { token: ROOT })).headers.get('x-mesh-index');
    const local = async (path: string) => (await call(a.url, 'GET', path, { token: ROOT })).text;
    return [
      await index('/v1/catalog/nodes'),
      await index('/v1/catalog/services'),
      await index('/v1/session/list'),
      await local('/v1/agent/services'),
      await local('/v1/agent/checks'),
    ];
  };
  /** Every case answers 400 with exactly `text` (a RegExp: matching it), and changes nothing. */
  const refusedHere = async (cases: readonly (readonly [path: string, body: unknown, text: string | RegExp])[]) => {
    const before = await meshState();
    for (const [path, body, text] of cases) {
      const r = typeof body === 'string' ? await raw('PUT', path, body) : await send('PUT', path, body);
      const what = `PUT ${path} ${typeof body === 'string' ? body : JSON.stringify(body)}`;
      assert.equal(r.status, 400, what);
      if (typeof text === 'string') assert.equal(r.text, text, what);
      else assert.match(r.text, text, what);
    }
    assert.deepEqual(await meshState(), before, 'a refused body changes nothing');
  };

  it('catalog register and deregister: the same texts for a field of the wrong kind, at any depth, and names in any case', async () => {
    await refusedHere([
      ['/v1/catalog/register', { Node: 5, Address: '10.0.0.1' }, 'Node must be a string'],
      ['/v1/catalog/register', { node: 'decl-n', address: 7 }, 'Address must be a string'],
      ['/v1/catalog/register', { Node: 'decl-n', Address: '10.0.0.1', SkipNodeUpdate: 'yes' }, 'SkipNodeUpdate must be a boolean'],
      ['/v1/catalog/register', { Node: 'decl-n', Address: '10.0.0.1', Service: ['s'] }, 'Service must be an object'],
      ['/v1/catalog/register', { node: 'decl-n', address: '10.0.0.1', service: { service: 's', port: '80' } }, 'Service.Port must be a number'],
      ['/v1/catalog/register', { Node: 'decl-n', Address: '10.0.0.1', Checks: {} }, 'Checks must be a list'],
      ['/v1/catalog/register', { Node: 'decl-n', Address: '10.0.0.1', NodeMeta: { a: 1 } }, 'NodeMeta must be a map of strings'],
      ['/v1/catalog/register', { Node: '', Address: '10.0.0.1' }, 'Must provide node'],
      ['/v1/catalog/register', '{"Node":', /^Request decode failed: /],
      ['/v1/catalog/register', '[1]', 'Request decode failed: the body must be a JSON object, not an array'],
      ['/v1/catalog/deregister', { Node: 1 }, 'Node must be a string'],
      ['/v1/catalog/deregister', { node: 'decl-n', serviceid: false }, 'ServiceID must be a string'],
      ['/v1/catalog/deregister', {}, 'Must provide node'],
    ]);
    const ok = await send('PUT', '/v1/catalog/register', { node: 'decl-n', address: '10.0.0.9', service: { service: 'decl-s', port: 80, tags: ['t'] } });
    assert.deepEqual([ok.status, ok.json], [200, true]);
    const found = await call(a.url, 'GET', '/v1/catalog/service/decl-s', { token: ROOT });
    assert.deepEqual(
      found.json.map((s: Record<string, unknown>) => [s.Node, s.Address, s.ServicePort, s.ServiceTags]),
      [['decl-n', '10.0.0.9', 80, ['t']]],
    );
    // The exact spelling wins over another one, wherever it stands (as these bodies were always read).
    const both = await raw('PUT', '/v1/catalog/register', '{"Node":"decl-exact","node":"decl-other","Address":"10.0.0.8"}');
    assert.equal(both.status, 200);
    assert.equal((await call(a.url, 'GET', '/v1/catalog/node/decl-exact', { token: ROOT })).json?.Node?.Node, 'decl-exact');
    assert.equal((await call(a.url, 'GET', '/v1/catalog/node/decl-other', { token: ROOT })).json, null);
    const gone = await send('PUT', '/v1/catalog/deregister', { node: 'decl-exact' });
    assert.equal(gone.status, 200);
    assert.equal((await call(a.url, 'GET', '/v1/catalog/node/decl-exact', { token: ROOT })).json, null);
  });

  it("agent service and check registration and a check's update: the same texts, names in any case", async () => {
    await refusedHere([
      ['/v1/agent/service/register', { Name: 5 }, 'Name must be a string'],
      ['/v1/agent/service/register', { name: 'decl-a', port: '80' }, 'Port must be a number'],
      ['/v1/agent/service/register', { Name: 'decl-a', Tags: 'x' }, 'Tags must be a list of strings'],
      ['/v1/agent/service/register', { Name: 'decl-a', Meta: [] }, 'Meta must be a map of strings'],
      ['/v1/agent/service/register', { Name: 'decl-a', Check: { TTL: 'soon' } }, 'Check.TTL: time: invalid duration "soon"'],
      ['/v1/agent/service/register', {}, 'Missing service name'],
      ['/v1/agent/service/register', 'nope', /^Request decode failed: /],
      ['/v1/agent/check/register', { Name: 'decl-c', HTTP: 5 }, 'HTTP must be a string'],
      ['/v1/agent/check/register', { name: 'decl-c', args: ['/bin/true'] }, 'Invalid check: Args checks are not supported'],
      ['/v1/agent/check/register', { Name: 'decl-c', TTL: '10s', Notes: {} }, 'Notes must be a string'],
      ['/v1/agent/check/register', '{"Name":1', /^Request decode failed: /],
    ]);
    const svc = await send('PUT', '/v1/agent/service/register', { name: 'decl-a', port: 81, check: { ttl: '30s' } });
    assert.equal(svc.status, 200);
    const shown = await call(a.url, 'GET', '/v1/agent/service/decl-a', { token: ROOT });
    assert.deepEqual([shown.json.Service, shown.json.Port], ['decl-a', 81]);
    const check = await send('PUT', '/v1/agent/check/register', { name: 'decl-c', ttl: '30s' });
    assert.equal(check.status, 200);
    // The agent syncs its registrations to the catalog after answering: wait for it, or the sync would move the catalog's index below.
    const synced = async () => {
      const all = (await call(a.url, 'GET', '/v1/health/state/any', { token: ROOT })).json as { CheckID: string }[];
      return ['decl-c', 'service:decl-a'].every((id) => all.some((c) => c.CheckID === id));
    };
    for (let tries = 0; !(await synced()); tries++) {
      assert.ok(tries < 200, 'the agent synced its service and check to the catalog within 10 s');
      await new Promise((r) => setTimeout(r, 50));
    }
    await refusedHere([
      ['/v1/agent/check/update/decl-c', { Status: 1 }, 'Status must be a string'],
      ['/v1/agent/check/update/decl-c', { status: 'fine' }, "Invalid check status: 'fine'"],
      ['/v1/agent/check/update/decl-c', '{', /^Request decode failed: /],
    ]);
    const updated = await send('PUT', '/v1/agent/check/update/decl-c', { status: 'passing', output: 'ok' });
    assert.equal(updated.status, 200);
    const checks = (await call(a.url, 'GET', '/v1/agent/checks', { token: ROOT })).json as Record<string, { Status: string; Output: string }>;
    assert.deepEqual([checks['decl-c']?.Status, checks['decl-c']?.Output], ['passing', 'ok']);
  });

  it('session create: the same texts, names in any case', async () => {
    await refusedHere([
      ['/v1/session/create', { Name: 1 }, 'Name must be a string'],
      ['/v1/session/create', { behavior: 'keep' }, "Invalid Behavior setting 'keep'"],
      ['/v1/session/create', { TTL: 10 }, 'TTL must be a string'],
      ['/v1/session/create', { NodeChecks: 'serfHealth' }, 'NodeChecks must be a list of strings'],
      ['/v1/session/create', { ttl: '1s' }, "Invalid Session TTL '1000000000', must be between [10s=24h0m0s]"],
      ['/v1/session/create', '{"Name":', /^Request decode failed: /],
    ]);
    const s = await send('PUT', '/v1/session/create', { name: 'decl-sess', ttl: '15s', behavior: 'delete' });
    assert.equal(s.status, 200);
    const info = await call(a.url, 'GET', `/v1/session/info/${s.json.ID}`, { token: ROOT });
    assert.deepEqual([info.json[0].Name, info.json[0].TTL, info.json[0].Behavior], ['decl-sess', '15s', 'delete']);
  });

  it('the OpenAPI document shows the catalog, agent and session bodies', async () => {
    const doc = (await call(a.url, 'GET', '/v1/openapi.json')).json as { paths: Record<string, Record<string, { requestBody?: unknown }>> };
    const body = (path: string): BodySchema => {
      const rb = doc.paths[path]?.put?.requestBody as { content: Record<string, { schema: BodySchema }> } | undefined;
      assert.ok(rb, `PUT ${path} shows a request body`);
      return rb.content['application/json']!.schema;
    };
    const register = body('/catalog/register');
    assert.deepEqual(Object.keys(register.properties), [
      'Datacenter',
      'Node',
      'SkipNodeUpdate',
      'Address',
      'Service',
      'Check',
      'Checks',
      'ID',
      'TaggedAddresses',
      'NodeMeta',
    ]);
    assert.equal(register.properties.SkipNodeUpdate!.type, 'boolean');
    assert.equal(register.required, undefined);
    assert.deepEqual(Object.keys(body('/catalog/deregister').properties), ['Datacenter', 'Node', 'ServiceID', 'CheckID']);
    assert.ok(body('/agent/service/register').properties.Port);
    assert.equal(body('/agent/check/register').properties.HTTP!.type, 'string');
    assert.equal(body('/agent/check/update/{id}').properties.Status!.type, 'string');
    assert.ok(body('/session/create').properties.LockDelay);
  });
});

describe('discovery declared request bodies with ACLs disabled', () => {
  let a: TestAgent;
  before(async () => {
    a = await startAgent({ enabled: false });
  });
  after(() => a.stop());

  it('an /acl/* write answers 401 ACL support disabled whatever its body, as the reference checks that first', async () => {
    for (const [path, body] of [
      ['/v1/acl/policy', { Name: 7 }],
      ['/v1/acl/token', { Local: 'yes' }],
      ['/v1/acl/role', '{not json'],
    ] as const) {
      const r = await call(a.url, 'PUT', path, typeof body === 'string' ? { raw: body } : { body });
      assert.deepEqual([r.status, r.text], [401, 'ACL support disabled'], path);
    }
  });
});
