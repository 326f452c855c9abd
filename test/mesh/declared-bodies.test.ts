/**
 * The discovery service's declared request bodies (issue 25 scope 1): the ACL routes declare
 * their JSON bodies, which the kernel decodes before the access rule (body-decoding.ts). The
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
