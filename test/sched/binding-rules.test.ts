/**
 * The scheduler's binding-rule endpoints over HTTP (reference/sched.md §2.4): create, read,
 * list stubs, update (path ID, merge of BindName/BindType/AuthMethod, immutable AuthMethod),
 * delete; every validation text with the go-multierror format; management only; 404 texts;
 * blocking reads; ACLs disabled.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { T } from '../../src/services/sched/state.js';
import { makeToken } from '../../src/services/sched/token.js';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';

const PUB_KEY = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }) as string;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const one = (e: string) => `binding rule 0 invalid: 1 error occurred:\n\t* ${e}\n\n`;

describe('scheduler binding rules over HTTP', () => {
  let a: TestAgent;
  let off: TestAgent;
  let client: string;
  /** `token` null: no token (the anonymous token). */
  const req = (method: string, path: string, body?: unknown, token: string | null = ROOT) => call(a.url, method, path, { token: token ?? undefined, body });
  let ruleId: string;

  before(async () => {
    [a, off] = await Promise.all([startAgent(), startAgent({ acl: { enabled: false } })]);
    const t = makeToken({ Name: 'reader', Type: 'client', Policies: ['readonly'] }, Date.now());
    await a.state.txn((tx) => tx.put(T.tokens, t.AccessorID, t));
    client = t.SecretID;
    for (const name of ['ci', 'gh']) {
      const r = await req('POST', '/v1/acl/auth-method', {
        Name: name,
        Type: 'JWT',
        TokenLocality: 'local',
        MaxTokenTTL: '10m',
        Config: { JWTValidationPubKeys: [PUB_KEY], ClaimMappings: { sub: 'user' }, ListClaimMappings: { groups: 'groups' } },
      });
      assert.equal(r.status, 200, r.text);
    }
  });
  after(async () => {
    await Promise.all([a.stop(), off.stop()]);
  });

  it('lists nothing as [] with an index of at least 1', async () => {
    const r = await req('GET', '/v1/acl/binding-rules');
    assert.deepEqual([r.status, r.text, r.headers.get('x-sched-index')], [200, '[]', '1']);
  });

  it('creates: a generated ID, Hash, times and indexes, X-Sched-Index', async () => {
    const r = await req('POST', '/v1/acl/binding-rule', {
      Description: 'devs',
      AuthMethod: 'ci',
      Selector: '"dev" in list.groups',
      BindType: 'role',
      BindName: 'dev-${value.user}',
    });
    assert.equal(r.status, 200, r.text);
    const rule = r.json;
    assert.match(rule.ID, UUID);
    ruleId = rule.ID;
    assert.deepEqual(
      [rule.Description, rule.AuthMethod, rule.Selector, rule.BindType, rule.BindName],
      ['devs', 'ci', '"dev" in list.groups', 'role', 'dev-${value.user}'],
    );
    assert.equal(typeof rule.Hash, 'string');
    assert.equal(rule.CreateTime, rule.ModifyTime);
    assert.equal(r.headers.get('x-sched-index'), String(rule.ModifyIndex));
    const got = await req('GET', `/v1/acl/binding-rule/${ruleId}`);
    assert.deepEqual([got.status, got.json], [200, rule]);
    assert.equal(got.headers.get('x-sched-index'), String(rule.ModifyIndex));
    const mgmt = await req('PUT', '/v1/acl/binding-rule', { authmethod: 'gh', bindtype: 'management' });
    assert.deepEqual([mgmt.status, mgmt.json.BindType, mgmt.json.BindName], [200, 'management', '']);
  });

  it('lists stubs {ID, Description, AuthMethod, Hash, CreateIndex, ModifyIndex}', async () => {
    const r = await req('GET', '/v1/acl/binding-rules');
    assert.equal(r.status, 200);
    assert.equal(r.json.length, 2);
    for (const s of r.json) assert.deepEqual(Object.keys(s).sort(), ['AuthMethod', 'CreateIndex', 'Description', 'Hash', 'ID', 'ModifyIndex']);
    assert.equal(r.headers.get('x-sched-index'), String(a.state.tableIndex(T.bindingRules)));
  });

  it("refuses each invalid rule with the reference's text", async () => {
    const cases: [string, unknown, string | RegExp][] = [
      ['auth method missing', { BindType: 'management' }, one('auth method is missing')],
      ['description too long', { AuthMethod: 'ci', BindType: 'management', Description: 'd'.repeat(257) }, one('description longer than 256')],
      ['bind type missing', { AuthMethod: 'ci' }, one('bind type is missing')],
      ['bind name missing', { AuthMethod: 'ci', BindType: 'policy' }, one('bind name is missing')],
      ['management without name', { AuthMethod: 'ci', BindType: 'management', BindName: 'x' }, one('bind name should be empty')],
      ['unsupported bind type', { AuthMethod: 'ci', BindType: 'service', BindName: 'x' }, one('unsupported bind type: "service"')],
      [
        'bad selector',
        { AuthMethod: 'ci', BindType: 'management', Selector: 'value.user ==' },
        /^binding rule 0 invalid: 1 error occurred:\n\t\* selector is invalid: .+\n\n$/,
      ],
      [
        'bind name using an unmapped claim',
        { AuthMethod: 'ci', BindType: 'role', BindName: '${value.team}' },
        one('error interpreting template: unknown variable accessed: value.team'),
      ],
      [
        'several at once',
        { Description: 'd'.repeat(300), BindType: 'role' },
        'binding rule 0 invalid: 3 errors occurred:\n\t* auth method is missing\n\t* description longer than 256\n\t* bind name is missing\n\n',
      ],
      ['unknown auth method', { AuthMethod: 'nope', BindType: 'management' }, 'ACL auth method nope not found'],
      [
        'unknown ID',
        { ID: '6a1c3a7e-0000-4000-8000-000000000000', AuthMethod: 'ci', BindType: 'management' },
        'cannot find binding rule 6a1c3a7e-0000-4000-8000-000000000000',
      ],
      [
        'wrong JSON kind',
        { AuthMethod: 'ci', BindType: 'policy', BindName: 7 },
        'json: cannot unmarshal number into Go struct field ACLBindingRule.BindName of type string',
      ],
    ];
    for (const [rule, body, text] of cases) {
      const r = await req('POST', '/v1/acl/binding-rule', body);
      assert.equal(r.status, 400, `${rule}: ${r.text}`);
      if (typeof text === 'string') assert.equal(r.text, text, rule);
      else assert.match(r.text, text, rule);
    }
    const empty = await req('POST', '/v1/acl/binding-rule');
    assert.deepEqual([empty.status, empty.text], [400, 'Request body is empty']);
    assert.equal(a.state.list(T.bindingRules).length, 2, 'nothing stored');
  });

  it('update: the path ID fills the body, a different one is 400; BindName/BindType/AuthMethod merge from the stored rule', async () => {
    const before = (await req('GET', `/v1/acl/binding-rule/${ruleId}`)).json;
    const r = await req('PUT', `/v1/acl/binding-rule/${ruleId}`, { Description: 'all devs', Selector: '' });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      [r.json.ID, r.json.Description, r.json.Selector, r.json.AuthMethod, r.json.BindType, r.json.BindName],
      [ruleId, 'all devs', '', 'ci', 'role', 'dev-${value.user}'],
    );
    assert.deepEqual([r.json.CreateTime, r.json.CreateIndex], [before.CreateTime, before.CreateIndex]);
    assert.ok(r.json.ModifyIndex > before.ModifyIndex);
    assert.notEqual(r.json.Hash, before.Hash);

    const other = '0d6a1c3a-0000-4000-8000-000000000000';
    const mismatch = await req('POST', `/v1/acl/binding-rule/${ruleId}`, { ID: other, AuthMethod: 'ci' });
    assert.deepEqual([mismatch.status, mismatch.text], [400, 'ACL binding rule ID does not match request path']);
    const moved = await req('POST', `/v1/acl/binding-rule/${ruleId}`, { AuthMethod: 'gh' });
    assert.deepEqual([moved.status, moved.text], [400, 'cannot update auth method for binding rule, create a new rule instead']);
    const missing = await req('POST', `/v1/acl/binding-rule/${other}`, { AuthMethod: 'ci', BindType: 'management' });
    assert.deepEqual([missing.status, missing.text], [400, `cannot find binding rule ${other}`]);
    // a create naming an existing ID updates it, as the reference's upsert
    const viaCreate = await req('POST', '/v1/acl/binding-rule', { ID: ruleId, Description: 'via create', BindName: 'devs' });
    assert.deepEqual([viaCreate.status, viaCreate.json.Description, viaCreate.json.BindName], [200, 'via create', 'devs']);
  });

  it('management only: list, read, create, update, delete are 403 for a client token and for anonymous', async () => {
    for (const [method, path, body] of [
      ['GET', '/v1/acl/binding-rules', undefined],
      ['GET', `/v1/acl/binding-rule/${ruleId}`, undefined],
      ['POST', '/v1/acl/binding-rule', { AuthMethod: 'ci', BindType: 'management' }],
      ['PUT', `/v1/acl/binding-rule/${ruleId}`, { Description: 'x' }],
      ['DELETE', `/v1/acl/binding-rule/${ruleId}`, undefined],
    ] as const) {
      for (const token of [client, null]) {
        const r = await req(method, path, body, token);
        assert.deepEqual([r.status, r.text], [403, 'Permission denied'], `${method} ${path}`);
      }
    }
  });

  it('blocks a read with ?index= until a rule changes', async () => {
    const index = a.state.tableIndex(T.bindingRules);
    const waiting = req('GET', `/v1/acl/binding-rule/${ruleId}?index=${index}&wait=5s`);
    await new Promise((r) => setTimeout(r, 100));
    await req('PUT', `/v1/acl/binding-rule/${ruleId}`, { Description: 'changed' });
    const r = await waiting;
    assert.equal(r.json.Description, 'changed');
    assert.ok(Number(r.headers.get('x-sched-index')) > index);
  });

  it('reads and deletes a missing rule 404 `ACL binding rule not found`; an ID-less path 400; delete answers empty', async () => {
    const nf = await req('GET', '/v1/acl/binding-rule/0d6a1c3a-0000-4000-8000-000000000000');
    assert.deepEqual([nf.status, nf.text], [404, 'ACL binding rule not found']);
    const noId = await req('DELETE', '/v1/acl/binding-rule/');
    assert.deepEqual([noId.status, noId.text], [400, 'missing ACL binding rule ID']);
    const del = await req('DELETE', `/v1/acl/binding-rule/${ruleId}`);
    assert.deepEqual([del.status, del.text, del.headers.get('content-type')], [200, '', null]);
    assert.equal(del.headers.get('x-sched-index'), String(a.state.tableIndex(T.bindingRules)));
    const again = await req('DELETE', `/v1/acl/binding-rule/${ruleId}`);
    assert.deepEqual([again.status, again.text], [404, 'ACL binding rule not found']);
  });

  it('answers every route 400 `ACL support disabled` when ACLs are off', async () => {
    for (const [method, path] of [
      ['GET', '/v1/acl/binding-rules'],
      ['POST', '/v1/acl/binding-rule'],
      ['GET', `/v1/acl/binding-rule/${ruleId}`],
      ['PUT', `/v1/acl/binding-rule/${ruleId}`],
      ['DELETE', `/v1/acl/binding-rule/${ruleId}`],
    ] as const) {
      const r = await call(off.url, method, path, { body: method === 'GET' ? undefined : { AuthMethod: 'ci', BindType: 'management' } });
      assert.deepEqual([r.status, r.text], [400, 'ACL support disabled'], `${method} ${path}`);
    }
  });
});
