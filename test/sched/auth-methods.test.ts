/**
 * The scheduler's auth-method endpoints over HTTP (spec 002 "ACL auth methods";
 * reference/sched.md §2.1–§2.3): every validation rule of §2.3 with its exact text and the
 * go-multierror format, update semantics (merge, `Default` not merged, `Config` replaced
 * whole, a redacted secret PUT back kept), list stubs, the read shape (secrets redacted,
 * unset `DiscoveryCaPem` / `SigningAlgs` null), privileges, 404 texts, blocking reads, and
 * ACLs disabled.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { AuthMethod } from '../../src/services/sched/auth/auth-method.js';
import { T } from '../../src/services/sched/state.js';
import { makeToken } from '../../src/services/sched/token.js';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';

const PUB_KEY = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }) as string;
const OIDC_CONFIG = {
  OIDCDiscoveryURL: 'https://idp.example.com',
  OIDCClientID: 'cairn',
  OIDCClientSecret: 's3cret',
  AllowedRedirectURIs: ['http://localhost:4649/oidc/callback'],
  OIDCScopes: ['groups'],
};
const oidc = (over: Record<string, unknown> = {}) => ({ Name: 'okta', Type: 'OIDC', TokenLocality: 'global', MaxTokenTTL: '1h', Config: OIDC_CONFIG, ...over });
const jwt = (over: Record<string, unknown> = {}) => ({
  Name: 'ci',
  Type: 'JWT',
  TokenLocality: 'local',
  MaxTokenTTL: '10m',
  Config: { JWTValidationPubKeys: [PUB_KEY] },
  ...over,
});
const one = (e: string) => `auth method 0 invalid: 1 error occurred:\n\t* ${e}\n\n`;

describe('scheduler auth methods over HTTP', () => {
  let a: TestAgent;
  let off: TestAgent;
  let client: string;
  /** `token` null: no token (the anonymous token). */
  const req = (method: string, path: string, body?: unknown, token: string | null = ROOT) => call(a.url, method, path, { token: token ?? undefined, body });
  const stored = (name: string) => a.state.get<AuthMethod>(T.authMethods, name)!;

  before(async () => {
    [a, off] = await Promise.all([startAgent(), startAgent({ acl: { enabled: false } })]);
    // A client token (the policy routes are another file's; the token is written directly).
    const t = makeToken({ Name: 'reader', Type: 'client', Policies: ['readonly'] }, Date.now());
    await a.state.txn((tx) => tx.put(T.tokens, t.AccessorID, t));
    client = t.SecretID;
  });
  after(async () => {
    await Promise.all([a.stop(), off.stop()]);
  });

  it('lists nothing as [] with an index of at least 1, without a token', async () => {
    const r = await req('GET', '/v1/acl/auth-methods', undefined, null);
    assert.deepEqual([r.status, r.text, r.headers.get('x-sched-index')], [200, '[]', '1']);
    assert.equal(r.headers.get('x-sched-knownleader'), 'true');
  });

  it('creates: the read shape with secrets redacted, MaxTokenTTL first, unset DiscoveryCaPem/SigningAlgs null, X-Sched-Index only', async () => {
    const r = await req('POST', '/v1/acl/auth-method', oidc());
    assert.equal(r.status, 200, r.text);
    const m = r.json;
    assert.equal(Object.keys(m)[0], 'MaxTokenTTL');
    assert.equal(m.MaxTokenTTL, '1h0m0s');
    assert.deepEqual([m.Name, m.Type, m.TokenLocality, m.Default], ['okta', 'OIDC', 'global', false]);
    assert.equal(m.TokenNameFormat, '${auth_method_type}-${auth_method_name}');
    assert.equal(m.Config.OIDCClientSecret, 'redacted');
    assert.equal(m.Config.DiscoveryCaPem, null);
    assert.equal(m.Config.SigningAlgs, null);
    assert.deepEqual(m.Config.OIDCScopes, ['groups']);
    assert.match(m.CreateTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    assert.equal(m.CreateTime, m.ModifyTime);
    assert.equal(typeof m.Hash, 'string');
    assert.equal(m.CreateIndex, m.ModifyIndex);
    assert.equal(r.headers.get('x-sched-index'), String(m.ModifyIndex));
    assert.equal(r.headers.get('x-sched-knownleader'), null, 'ACL writes set only the index');
    assert.equal(stored('okta').Config!.OIDCClientSecret, 's3cret', 'stored in clear, shown redacted');

    const got = await req('GET', '/v1/acl/auth-method/okta');
    assert.equal(got.status, 200);
    assert.deepEqual(got.json, m);
    assert.equal(got.headers.get('x-sched-index'), String(m.ModifyIndex));
    // PUT also creates, and set lists come back as lists
    const put = await req('PUT', '/v1/acl/auth-method', jwt({ Config: { JWTValidationPubKeys: [PUB_KEY], SigningAlgs: ['ES256'] } }));
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.json.Config.SigningAlgs, ['ES256']);
    assert.equal(put.json.Config.OIDCClientSecret, '', 'an unset secret is not shown as redacted');
  });

  it('lists stubs {Name, Type, Default, Hash, CreateIndex, ModifyIndex} by name', async () => {
    const r = await req('GET', '/v1/acl/auth-methods', undefined, null);
    assert.equal(r.status, 200);
    assert.deepEqual(
      r.json.map((s: Record<string, unknown>) => Object.keys(s).sort()),
      [
        ['CreateIndex', 'Default', 'Hash', 'ModifyIndex', 'Name', 'Type'],
        ['CreateIndex', 'Default', 'Hash', 'ModifyIndex', 'Name', 'Type'],
      ],
    );
    assert.deepEqual(
      r.json.map((s: { Name: string; Type: string }) => `${s.Name}:${s.Type}`),
      ['ci:JWT', 'okta:OIDC'],
    );
    assert.equal(r.headers.get('x-sched-index'), String(a.state.tableIndex(T.authMethods)));
  });

  it("refuses each invalid field with the reference's text (sched.md §2.3)", async () => {
    // A new name: on an existing one a create merges like an update (next test).
    const oidc = (over: Record<string, unknown> = {}) => ({
      Name: 'fresh',
      Type: 'OIDC',
      TokenLocality: 'global',
      MaxTokenTTL: '1h',
      Config: OIDC_CONFIG,
      ...over,
    });
    const jwt = (over: Record<string, unknown> = {}) => ({
      Name: 'fresh',
      Type: 'JWT',
      TokenLocality: 'local',
      MaxTokenTTL: '10m',
      Config: { JWTValidationPubKeys: [PUB_KEY] },
      ...over,
    });
    const cases: [string, unknown, string][] = [
      ['name pattern', oidc({ Name: 'bad_name' }), one(`invalid name 'bad_name'`)],
      ['name empty', oidc({ Name: '' }), one(`invalid name ''`)],
      ['name longer than 128', oidc({ Name: 'a'.repeat(129) }), one(`invalid name '${'a'.repeat(129)}'`)],
      ['token locality', oidc({ TokenLocality: 'regional' }), one(`invalid token locality 'regional'`)],
      ['token locality required on create', oidc({ TokenLocality: undefined }), one(`invalid token locality ''`)],
      ['type case-sensitive', oidc({ Type: 'oidc' }), one(`invalid token type 'oidc'`)],
      ['type required on create', oidc({ Type: undefined }), one(`invalid token type ''`)],
      ['config required', oidc({ Config: undefined }), one('invalid config: missing auth method Config')],
      ['OIDC discovery URL', oidc({ Config: { ...OIDC_CONFIG, OIDCDiscoveryURL: '' } }), one('invalid config: missing OIDCDiscoveryURL')],
      ['OIDC client ID', oidc({ Config: { ...OIDC_CONFIG, OIDCClientID: '' } }), one('invalid config: missing OIDCClientID')],
      ['OIDC client secret', oidc({ Config: { ...OIDC_CONFIG, OIDCClientSecret: '' } }), one('invalid config: missing OIDCClientSecret')],
      ['OIDC redirect URIs', oidc({ Config: { ...OIDC_CONFIG, AllowedRedirectURIs: [] } }), one('invalid config: missing AllowedRedirectURIs')],
      [
        'OIDC several config errors nest a multierror',
        oidc({ Config: { OIDCClientSecret: 'x', AllowedRedirectURIs: ['http://localhost/cb'] } }),
        one('invalid config: 2 errors occurred:\n\t* missing OIDCDiscoveryURL\n\t* missing OIDCClientID\n\n'),
      ],
      [
        'JWT key source',
        jwt({ Config: { BoundAudiences: ['x'] } }),
        one('invalid config: JWT auth method requires either OIDCDiscoveryURL, or JWKS URL, or JWTValidationPubKeys set'),
      ],
      [
        'JWT keys parse',
        jwt({ Config: { JWTValidationPubKeys: ['nope'] } }),
        one('invalid config: error parsing public key JWTValidationPubKeys[0]: data does not contain any valid RSA, ECDSA, or ED25519 public keys'),
      ],
      ['MaxTokenTTL below 1m', oidc({ MaxTokenTTL: '59s' }), one(`invalid MaxTokenTTL value '59s' (should be between 1m0s and 24h0m0s)`)],
      ['MaxTokenTTL above 24h', oidc({ MaxTokenTTL: '24h0m1s' }), one(`invalid MaxTokenTTL value '24h0m1s' (should be between 1m0s and 24h0m0s)`)],
      ['MaxTokenTTL required', oidc({ MaxTokenTTL: undefined }), one(`invalid MaxTokenTTL value '0s' (should be between 1m0s and 24h0m0s)`)],
      [
        "every error at once, in the reference's order",
        { Name: 'x y', Type: 'LDAP', TokenLocality: 'moon', MaxTokenTTL: '1s' },
        'auth method 0 invalid: 5 errors occurred:\n' +
          "\t* invalid name 'x y'\n\t* invalid token locality 'moon'\n\t* invalid token type 'LDAP'\n" +
          "\t* invalid config: missing auth method Config\n\t* invalid MaxTokenTTL value '1s' (should be between 1m0s and 24h0m0s)\n\n",
      ],
      ['a bad duration', oidc({ MaxTokenTTL: '1 hour' }), 'time: unknown unit " hour" in duration "1 hour"'],
      ['a wrong JSON kind', oidc({ Name: 5 }), 'json: cannot unmarshal number into Go struct field ACLAuthMethod.Name of type string'],
    ];
    for (const [rule, body, text] of cases) {
      const r = await req('POST', '/v1/acl/auth-method', body);
      assert.deepEqual([r.status, r.text], [400, text], rule);
      assert.equal(r.headers.get('content-type'), 'text/plain; charset=utf-8');
    }
    assert.equal(a.state.list(T.authMethods).length, 2, 'nothing stored');
    const empty = await req('POST', '/v1/acl/auth-method');
    assert.deepEqual([empty.status, empty.text], [400, 'Request body is empty']);
    const raw = await call(a.url, 'POST', '/v1/acl/auth-method', { token: ROOT, raw: '{"Name":' });
    assert.equal(raw.status, 400);
  });

  it('create of an existing name upserts as the reference does: zero fields keep the stored values', async () => {
    const r = await req('POST', '/v1/acl/auth-method', { Name: 'ci', MaxTokenTTL: '15m' });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual([r.json.Type, r.json.TokenLocality, r.json.MaxTokenTTL], ['JWT', 'local', '15m0s']);
    assert.deepEqual(r.json.Config.SigningAlgs, ['ES256']);
  });

  it("accepts the bounds and the docs' case-insensitive field names", async () => {
    const name128 = 'n'.repeat(128);
    const r = await req('POST', '/v1/acl/auth-method', {
      name: name128,
      TYPE: 'JWT',
      Tokenlocality: 'local',
      Maxtokenttl: '24h',
      config: { jwtvalidationpubkeys: [PUB_KEY] },
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual([r.json.Name, r.json.TokenLocality, r.json.MaxTokenTTL], [name128, 'local', '24h0m0s']);
    const min = await req('POST', '/v1/acl/auth-method', jwt({ Name: 'min', MaxTokenTTL: 60e9 }));
    assert.equal(min.json.MaxTokenTTL, '1m0s', 'nanoseconds accepted');
    for (const n of [name128, 'min']) assert.equal((await req('DELETE', `/v1/acl/auth-method/${n}`)).status, 200);
  });

  it('update: path and body name must match; the method must exist (404)', async () => {
    const mismatch = await req('POST', '/v1/acl/auth-method/okta', oidc({ Name: 'other' }));
    assert.deepEqual([mismatch.status, mismatch.text], [400, 'ACL auth-method name does not match request path']);
    const noName = await req('PUT', '/v1/acl/auth-method/okta', { MaxTokenTTL: '1h' });
    assert.deepEqual([noName.status, noName.text], [400, 'ACL auth-method name does not match request path']);
    const missing = await req('POST', '/v1/acl/auth-method/ghost', oidc({ Name: 'ghost' }));
    assert.deepEqual([missing.status, missing.text], [404, 'ACL auth-method not found']);
    const empty = await req('PUT', '/v1/acl/auth-method/okta');
    assert.deepEqual([empty.status, empty.text], [400, 'Request body is empty']);
  });

  it('update: zero fields keep the stored values, Config is replaced whole, CreateTime/CreateIndex kept, ModifyIndex advances', async () => {
    const before = (await req('GET', '/v1/acl/auth-method/okta')).json;
    const r = await req('POST', '/v1/acl/auth-method/okta', { Name: 'okta', MaxTokenTTL: '2h' });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual([r.json.Type, r.json.TokenLocality, r.json.TokenNameFormat, r.json.MaxTokenTTL], ['OIDC', 'global', before.TokenNameFormat, '2h0m0s']);
    assert.deepEqual(r.json.Config, before.Config, 'no Config keeps the stored one');
    assert.deepEqual([r.json.CreateTime, r.json.CreateIndex], [before.CreateTime, before.CreateIndex]);
    assert.ok(r.json.ModifyIndex > before.ModifyIndex);
    assert.notEqual(r.json.Hash, before.Hash);

    const { OIDCScopes: _scopes, ...withoutScopes } = OIDC_CONFIG;
    const replaced = await req('PUT', '/v1/acl/auth-method/okta', {
      Name: 'okta',
      MaxTokenTTL: '2h',
      TokenNameFormat: 'sso-${auth_method_name}',
      Config: withoutScopes,
    });
    assert.equal(replaced.status, 200, replaced.text);
    assert.equal(replaced.json.Config.OIDCScopes, null, 'Config is not merged field by field');
    assert.equal(replaced.json.TokenNameFormat, 'sso-${auth_method_name}');
  });

  it("update: MaxTokenTTL is required (spec 002): without it 400 with the TTL rule's text, nothing changed", async () => {
    const before = (await req('GET', '/v1/acl/auth-method/okta')).json;
    for (const body of [{ Name: 'okta' }, oidc({ MaxTokenTTL: undefined, TokenNameFormat: 'changed' }), oidc({ MaxTokenTTL: '' })]) {
      const r = await req('POST', '/v1/acl/auth-method/okta', body);
      assert.deepEqual([r.status, r.text], [400, one(`invalid MaxTokenTTL value '0s' (should be between 1m0s and 24h0m0s)`)]);
    }
    assert.deepEqual((await req('GET', '/v1/acl/auth-method/okta')).json, before);
  });

  it('update: a read method PUT back keeps the stored client secret; a new secret replaces it', async () => {
    const read = (await req('GET', '/v1/acl/auth-method/okta')).json;
    assert.equal(read.Config.OIDCClientSecret, 'redacted');
    const back = await req('PUT', '/v1/acl/auth-method/okta', read);
    assert.equal(back.status, 200, back.text);
    assert.equal(stored('okta').Config!.OIDCClientSecret, 's3cret');
    assert.equal(back.json.Hash, read.Hash, 'same content, same hash');
    await req('PUT', '/v1/acl/auth-method/okta', { ...read, Config: { ...read.Config, OIDCClientSecret: 'rotated' } });
    assert.equal(stored('okta').Config!.OIDCClientSecret, 'rotated');
  });

  it('reads stay current across writes, and ?pretty indents the same reply', async () => {
    const first = await req('GET', '/v1/acl/auth-method/okta');
    assert.deepEqual((await req('GET', '/v1/acl/auth-method/okta')).json, first.json, 'the same reply twice');
    const pretty = await req('GET', '/v1/acl/auth-method/okta?pretty');
    assert.equal(pretty.text, `${JSON.stringify(first.json, null, 4)}\n`);
    const r = await req('POST', '/v1/acl/auth-method/okta', { ...first.json, MaxTokenTTL: '3h', Config: { ...first.json.Config, OIDCClientID: 'rotated-id' } });
    assert.equal(r.status, 200, r.text);
    const after = (await req('GET', '/v1/acl/auth-method/okta')).json;
    assert.deepEqual(
      [after.MaxTokenTTL, after.Config.OIDCClientID, after.Config.OIDCClientSecret, after.ModifyIndex],
      ['3h0m0s', 'rotated-id', 'redacted', r.json.ModifyIndex],
    );
    await req('POST', '/v1/acl/auth-method/okta', first.json);
  });

  it('update: Type only OIDC (spec 002); a JWT method keeps JWT', async () => {
    const toJwt = await req('POST', '/v1/acl/auth-method/okta', oidc({ Type: 'JWT' }));
    assert.deepEqual([toJwt.status, toJwt.text], [400, one(`cannot change auth method type from 'OIDC' to 'JWT': update accepts only OIDC`)]);
    const bad = await req('POST', '/v1/acl/auth-method/okta', oidc({ Type: 'oidc' }));
    assert.deepEqual([bad.status, bad.text], [400, one(`invalid token type 'oidc'`)]);
    const keep = await req('POST', '/v1/acl/auth-method/ci', jwt({ Type: '', MaxTokenTTL: '20m' }));
    assert.deepEqual([keep.status, keep.json.Type, keep.json.MaxTokenTTL], [200, 'JWT', '20m0s']);
    const same = await req('POST', '/v1/acl/auth-method/ci', jwt());
    assert.equal(same.status, 200, same.text);
  });

  it('at most one Default; Default is not merged on update', async () => {
    assert.equal((await req('PUT', '/v1/acl/auth-method/okta', oidc({ Default: true }))).json.Default, true);
    const second = await req('POST', '/v1/acl/auth-method', jwt({ Name: 'ci2', Default: true }));
    assert.deepEqual([second.status, second.text], [400, 'default method already exists: okta']);
    const again = await req('PUT', '/v1/acl/auth-method/okta', oidc({ Default: true }));
    assert.equal(again.status, 200, 'the default itself may be written again');
    const omitted = await req('PUT', '/v1/acl/auth-method/okta', oidc());
    assert.equal(omitted.json.Default, false, 'omitting Default on update clears it');
    const now = await req('POST', '/v1/acl/auth-method', jwt({ Name: 'ci2', Default: true }));
    assert.equal(now.status, 200, now.text);
    const stubs = (await req('GET', '/v1/acl/auth-methods')).json as { Name: string; Default: boolean }[];
    assert.deepEqual(
      stubs.filter((s) => s.Default).map((s) => s.Name),
      ['ci2'],
    );
  });

  it('privileges: list needs none (an unknown secret is 403), read and writes need management', async () => {
    assert.equal((await req('GET', '/v1/acl/auth-methods', undefined, client)).status, 200);
    const unknown = await req('GET', '/v1/acl/auth-methods', undefined, '00000000-0000-4000-8000-000000000000');
    assert.deepEqual([unknown.status, unknown.text], [403, 'Permission denied']);
    for (const [method, path, body] of [
      ['GET', '/v1/acl/auth-method/okta', undefined],
      ['POST', '/v1/acl/auth-method', jwt({ Name: 'nope' })],
      ['PUT', '/v1/acl/auth-method/okta', oidc()],
      ['DELETE', '/v1/acl/auth-method/okta', undefined],
    ] as const) {
      for (const token of [client, null]) {
        const r = await req(method, path, body, token);
        assert.deepEqual([r.status, r.text], [403, 'Permission denied'], `${method} ${path} ${token ? 'client' : 'anonymous'}`);
      }
    }
    assert.ok(stored('okta'), 'still there');
  });

  it('reads a missing method 404 `ACL auth-method not found`; a name-less path 400; delete answers empty with X-Sched-Index', async () => {
    const nf = await req('GET', '/v1/acl/auth-method/ghost');
    assert.deepEqual([nf.status, nf.text], [404, 'ACL auth-method not found']);
    const noName = await req('GET', '/v1/acl/auth-method/');
    assert.deepEqual([noName.status, noName.text], [400, 'missing ACL auth-method name']);
    const bad = await req('PATCH', '/v1/acl/auth-method/okta');
    assert.deepEqual([bad.status, bad.text], [405, 'Invalid method']);
    const del = await req('DELETE', '/v1/acl/auth-method/ci2');
    assert.deepEqual([del.status, del.text, del.headers.get('content-type')], [200, '', null]);
    assert.equal(del.headers.get('x-sched-index'), String(a.state.tableIndex(T.authMethods)));
    assert.equal((await req('GET', '/v1/acl/auth-method/ci2')).status, 404);
    const again = await req('DELETE', '/v1/acl/auth-method/ci2');
    assert.deepEqual([again.status, again.text], [404, 'ACL auth method not found']);
  });

  it('blocks a read with ?index= until the table passes it, or until ?wait ends', async () => {
    const index = a.state.tableIndex(T.authMethods);
    const started = Date.now();
    const waiting = req('GET', `/v1/acl/auth-methods?index=${index}&wait=5s`, undefined, null);
    await new Promise((r) => setTimeout(r, 150));
    assert.equal((await req('POST', '/v1/acl/auth-method', jwt({ Name: 'late' }))).status, 200);
    const r = await waiting;
    assert.ok(Date.now() - started >= 140, 'it waited');
    assert.ok(Number(r.headers.get('x-sched-index')) > index);
    assert.ok(r.json.some((s: { Name: string }) => s.Name === 'late'));

    const m = stored('late');
    const t0 = Date.now();
    const timedOut = await req('GET', `/v1/acl/auth-method/late?index=${m.ModifyIndex}&wait=100ms`);
    assert.ok(Date.now() - t0 >= 95);
    assert.deepEqual([timedOut.status, timedOut.headers.get('x-sched-index')], [200, String(m.ModifyIndex)]);
  });

  it('answers every route 400 `ACL support disabled` when ACLs are off', async () => {
    for (const [method, path, body] of [
      ['GET', '/v1/acl/auth-methods', undefined],
      ['POST', '/v1/acl/auth-method', jwt()],
      ['GET', '/v1/acl/auth-method/ci', undefined],
      ['PUT', '/v1/acl/auth-method/ci', jwt()],
      ['DELETE', '/v1/acl/auth-method/ci', undefined],
    ] as const) {
      const r = await call(off.url, method, path, { body });
      assert.deepEqual([r.status, r.text], [400, 'ACL support disabled'], `${method} ${path}`);
    }
  });
});
