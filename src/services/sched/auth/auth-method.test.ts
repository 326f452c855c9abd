// The scheduler's auth-method model: every validation rule of reference/sched.md §2.3 with
// its exact text and in its order, spec 002's additions, update semantics, the read and
// list shapes, and case-insensitive decoding (sched.md §1.1).

import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { authMethodStub, decodeAuthMethod, renderAuthMethod, validateAuthMethod, type AuthMethod, type ValidateAuthMethodOptions } from './auth-method.js';
import { SchedAuthError } from './errors.js';

const NOW = new Date('2026-03-04T05:06:07Z');
const LATER = new Date('2026-03-04T06:00:00.5Z');
const PUB_KEY = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }) as string;

const OIDC_CONFIG = {
  OIDCDiscoveryURL: 'https://idp.example.com',
  OIDCClientID: 'cairn',
  OIDCClientSecret: 's3cret',
  AllowedRedirectURIs: ['http://localhost:4649/oidc/callback'],
};
const oidcBody = (over: Record<string, unknown> = {}) => ({
  Name: 'okta',
  Type: 'OIDC',
  TokenLocality: 'global',
  MaxTokenTTL: '1h',
  Config: OIDC_CONFIG,
  ...over,
});
const jwtBody = (over: Record<string, unknown> = {}) => ({
  Name: 'ci',
  Type: 'JWT',
  TokenLocality: 'local',
  MaxTokenTTL: '10m',
  Config: { JWTValidationPubKeys: [PUB_KEY] },
  ...over,
});

const create = (body: unknown, opts: Partial<ValidateAuthMethodOptions> = {}): AuthMethod =>
  validateAuthMethod(decodeAuthMethod(body), { others: [], isUpdate: false, now: NOW, ...opts });
const update = (body: unknown, existing: AuthMethod | undefined, opts: Partial<ValidateAuthMethodOptions> = {}): AuthMethod =>
  validateAuthMethod(decodeAuthMethod(body), { existing, others: existing ? [existing] : [], isUpdate: true, now: LATER, ...opts });

/** Asserts `fn` throws a {@link SchedAuthError} with `status` and exactly `message`. */
function throwsExactly(fn: () => unknown, status: number, message: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof SchedAuthError, String(err));
    assert.equal(err.message, message);
    assert.equal(err.status, status);
    return true;
  });
}
const one = (e: string) => `auth method 0 invalid: 1 error occurred:\n\t* ${e}\n\n`;

describe('validateAuthMethod: every rule of sched.md §2.3 and spec 002, with its text (400)', () => {
  const table: [rule: string, body: unknown, error: string][] = [
    ['name pattern: alphanumerics and dashes only', oidcBody({ Name: 'bad_name' }), `invalid name 'bad_name'`],
    ['name required (empty name)', oidcBody({ Name: '' }), `invalid name ''`],
    ['name at most 128 characters', oidcBody({ Name: 'a'.repeat(129) }), `invalid name '${'a'.repeat(129)}'`],
    ['TokenLocality local|global', oidcBody({ TokenLocality: 'regional' }), `invalid token locality 'regional'`],
    ['TokenLocality required on create', oidcBody({ TokenLocality: undefined }), `invalid token locality ''`],
    ['Type OIDC|JWT, case-sensitive', oidcBody({ Type: 'oidc' }), `invalid token type 'oidc'`],
    ['Type required on create', oidcBody({ Type: undefined }), `invalid token type ''`],
    ['Config required', oidcBody({ Config: undefined }), 'invalid config: missing auth method Config'],
    ['OIDC needs OIDCDiscoveryURL', oidcBody({ Config: { ...OIDC_CONFIG, OIDCDiscoveryURL: '' } }), 'invalid config: missing OIDCDiscoveryURL'],
    ['OIDC needs OIDCClientID', oidcBody({ Config: { ...OIDC_CONFIG, OIDCClientID: '' } }), 'invalid config: missing OIDCClientID'],
    ['OIDC needs OIDCClientSecret (spec 002)', oidcBody({ Config: { ...OIDC_CONFIG, OIDCClientSecret: '' } }), 'invalid config: missing OIDCClientSecret'],
    [
      'OIDC needs AllowedRedirectURIs (spec 002)',
      oidcBody({ Config: { ...OIDC_CONFIG, AllowedRedirectURIs: [] } }),
      'invalid config: missing AllowedRedirectURIs',
    ],
    [
      'client assertion needs an Audience (no discovery URL to default it from)',
      oidcBody({ Config: { ...OIDC_CONFIG, OIDCDiscoveryURL: '', OIDCClientAssertion: { KeySource: 'nomad' } } }),
      'invalid config: 2 errors occurred:\n\t* missing OIDCDiscoveryURL\n\t* invalid client assertion config: missing Audience\n\n',
    ],
    [
      'JWT needs a key source',
      jwtBody({ Config: { BoundAudiences: ['cairn'] } }),
      'invalid config: JWT auth method requires either OIDCDiscoveryURL, or JWKS URL, or JWTValidationPubKeys set',
    ],
    [
      'kernel: public keys must parse',
      jwtBody({ Config: { JWTValidationPubKeys: ['not a key'] } }),
      'invalid config: error parsing public key JWTValidationPubKeys[0]: data does not contain any valid RSA, ECDSA, or ED25519 public keys',
    ],
    [
      'kernel: SigningAlgs supported',
      jwtBody({ Config: { JWTValidationPubKeys: [PUB_KEY], SigningAlgs: ['HS256'] } }),
      'invalid config: Invalid supported algorithm: HS256',
    ],
    [
      'kernel: JWKSCACert must parse',
      jwtBody({ Config: { JWKSURL: 'https://idp.example.com/keys', JWKSCACert: 'nope' } }),
      `invalid config: could not parse 'JWKSCACert' value successfully`,
    ],
    [
      'kernel: DiscoveryCaPem must parse (named with the scheduler field)',
      oidcBody({ Config: { ...OIDC_CONFIG, DiscoveryCaPem: ['nope'] } }),
      `invalid config: could not parse 'DiscoveryCaPem' value successfully`,
    ],
    [
      'kernel: claim mapping targets unique',
      jwtBody({ Config: { JWTValidationPubKeys: [PUB_KEY], ClaimMappings: { a: 'x', b: 'x' } } }),
      'invalid config: ClaimMappings contains multiple mappings for key "x"',
    ],
    [
      'MaxTokenTTL required (0 is below the minimum)',
      oidcBody({ MaxTokenTTL: undefined }),
      `invalid MaxTokenTTL value '0s' (should be between 1m0s and 24h0m0s)`,
    ],
    ['MaxTokenTTL at least 1m', oidcBody({ MaxTokenTTL: '59s' }), `invalid MaxTokenTTL value '59s' (should be between 1m0s and 24h0m0s)`],
    ['MaxTokenTTL at most 24h', oidcBody({ MaxTokenTTL: '24h0m1s' }), `invalid MaxTokenTTL value '24h0m1s' (should be between 1m0s and 24h0m0s)`],
  ];
  for (const [rule, body, error] of table) {
    it(`${rule}: ${JSON.stringify(error)}`, () => throwsExactly(() => create(body), 400, one(error)));
  }

  it('collects every error in the reference order: name, locality, type, config, TTL', () => {
    const body = { Name: 'a b', Type: 'LDAP', TokenLocality: 'x', MaxTokenTTL: '1s' };
    throwsExactly(
      () => create(body),
      400,
      'auth method 0 invalid: 5 errors occurred:\n' +
        "\t* invalid name 'a b'\n\t* invalid token locality 'x'\n\t* invalid token type 'LDAP'\n" +
        '\t* invalid config: missing auth method Config\n' +
        "\t* invalid MaxTokenTTL value '1s' (should be between 1m0s and 24h0m0s)\n\n",
    );
  });

  it('nests several config errors as a multierror and names the request position', () => {
    throwsExactly(
      () => create(oidcBody({ Config: {} }), { index: 2 }),
      400,
      'auth method 2 invalid: 1 error occurred:\n\t* invalid config: 4 errors occurred:\n' +
        '\t* missing OIDCDiscoveryURL\n\t* missing OIDCClientID\n\t* missing OIDCClientSecret\n\t* missing AllowedRedirectURIs\n\n\n\n',
    );
  });

  it('accepts the bounds and a 128-character name', () => {
    assert.equal(create(oidcBody({ MaxTokenTTL: '1m' })).MaxTokenTTL, 60e9);
    assert.equal(create(oidcBody({ MaxTokenTTL: '24h' })).MaxTokenTTL, 86400e9);
    assert.equal(create(oidcBody({ Name: 'A-9'.repeat(42) + 'zz' })).Name.length, 128);
  });

  it('takes a JWT method with any one or several key sources, as the reference does', () => {
    assert.equal(create(jwtBody()).Type, 'JWT');
    assert.equal(create(jwtBody({ Config: { JWKSURL: 'https://idp.example.com/keys' } })).Type, 'JWT');
    assert.equal(create(jwtBody({ Config: { JWKSURL: 'https://idp.example.com/keys', JWTValidationPubKeys: [PUB_KEY] } })).Type, 'JWT');
  });

  it('an OIDC method with a client assertion needs no secret; its Audience defaults to the discovery URL', () => {
    const m = create(oidcBody({ Config: { ...OIDC_CONFIG, OIDCClientSecret: '', OIDCClientAssertion: { KeySource: 'nomad' } } }));
    assert.deepEqual(m.Config?.OIDCClientAssertion?.Audience, ['https://idp.example.com']);
  });
});

describe('validateAuthMethod: at most one Default', () => {
  const def = create(oidcBody({ Name: 'first', Default: true }));
  it('refuses a second default: "default method already exists: <name>"', () => {
    throwsExactly(() => create(jwtBody({ Default: true }), { others: [def] }), 400, 'default method already exists: first');
  });
  it('lets the default method itself be written again, and a non-default beside it', () => {
    assert.equal(update(oidcBody({ Name: 'first', Default: true }), def).Default, true);
    assert.equal(create(jwtBody(), { others: [def] }).Default, false);
  });
  it('checks Default only once the method is valid', () => {
    throwsExactly(
      () => create(jwtBody({ Default: true, MaxTokenTTL: '1s' }), { others: [def] }),
      400,
      one(`invalid MaxTokenTTL value '1s' (should be between 1m0s and 24h0m0s)`),
    );
  });
});

describe('validateAuthMethod: update semantics', () => {
  const stored = create(oidcBody({ TokenNameFormat: '${auth_method_name}-${value.user}', Default: true }));

  it('404 "ACL auth-method not found" when the method does not exist (spec 002: update needs it)', () => {
    throwsExactly(() => update(oidcBody(), undefined), 404, 'ACL auth-method not found');
  });
  it('merges Type, TokenLocality, TokenNameFormat and Config from the stored method when zero', () => {
    const m = update({ Name: 'okta', MaxTokenTTL: '2h' }, stored);
    assert.equal(m.Type, 'OIDC');
    assert.equal(m.TokenLocality, 'global');
    assert.equal(m.TokenNameFormat, '${auth_method_name}-${value.user}');
    assert.equal(m.MaxTokenTTL, 7200e9);
    assert.deepEqual(m.Config, stored.Config);
  });
  it('does not merge Default: omitting it clears it', () => {
    assert.equal(update({ Name: 'okta', MaxTokenTTL: '1h' }, stored).Default, false);
  });
  it('replaces Config whole (no field merge)', () => {
    const m = update({ Name: 'okta', MaxTokenTTL: '1h', Config: { ...OIDC_CONFIG, OIDCScopes: ['groups'] } }, stored);
    assert.deepEqual(m.Config?.OIDCScopes, ['groups']);
    throwsExactly(
      () => update({ Name: 'okta', MaxTokenTTL: '1h', Config: { OIDCScopes: ['groups'] } }, stored),
      400,
      one(
        'invalid config: 4 errors occurred:\n\t* missing OIDCDiscoveryURL\n\t* missing OIDCClientID\n' +
          '\t* missing OIDCClientSecret\n\t* missing AllowedRedirectURIs\n\n',
      ),
    );
  });
  it('keeps the stored client secret when a read method is PUT back with "redacted" (reference defect not copied)', () => {
    const read = JSON.parse(JSON.stringify(renderAuthMethod(stored)));
    assert.equal(read.Config.OIDCClientSecret, 'redacted');
    const m = update(read, stored);
    assert.equal(m.Config?.OIDCClientSecret, 's3cret');
    assert.equal(m.Hash, update(oidcBody({ TokenNameFormat: stored.TokenNameFormat, Default: true }), stored).Hash);
  });
  it('keeps the client assertion secrets too on "redacted"', () => {
    const withKey = create(
      oidcBody({
        Config: {
          ...OIDC_CONFIG,
          OIDCClientAssertion: {
            KeySource: 'private_key',
            ClientSecret: 'cs',
            PrivateKey: { PemKey: 'KEY', KeyID: 'k1' },
          },
        },
      }),
    );
    const read = JSON.parse(JSON.stringify(renderAuthMethod(withKey)));
    assert.equal(read.Config.OIDCClientAssertion.ClientSecret, 'redacted');
    assert.equal(read.Config.OIDCClientAssertion.PrivateKey.PemKey, 'redacted');
    const m = update(read, withKey);
    assert.equal(m.Config?.OIDCClientAssertion?.ClientSecret, 'cs');
    assert.equal(m.Config?.OIDCClientAssertion?.PrivateKey?.PemKey, 'KEY');
  });
  it('a new secret replaces the stored one; "redacted" on create is just a value', () => {
    assert.equal(update(oidcBody({ Config: { ...OIDC_CONFIG, OIDCClientSecret: 'new' } }), stored).Config?.OIDCClientSecret, 'new');
    assert.equal(create(oidcBody({ Config: { ...OIDC_CONFIG, OIDCClientSecret: 'redacted' } })).Config?.OIDCClientSecret, 'redacted');
  });
  it('Type on update: OIDC only (spec 002); a stored OIDC method cannot become JWT', () => {
    throwsExactly(() => update(jwtBody({ Name: 'okta' }), stored), 400, one(`cannot change auth method type from 'OIDC' to 'JWT': update accepts only OIDC`));
    throwsExactly(() => update(oidcBody({ Type: 'LDAP' }), stored), 400, one(`invalid token type 'LDAP'`));
  });
  it('Type on update: a JWT method stays updatable with its own type, and may become OIDC', () => {
    const jwt = create(jwtBody());
    assert.equal(update(jwtBody({ MaxTokenTTL: '2h' }), jwt).MaxTokenTTL, 7200e9);
    assert.equal(update({ Name: 'ci', MaxTokenTTL: '2h' }, jwt).Type, 'JWT');
    assert.equal(update(oidcBody({ Name: 'ci' }), jwt).Type, 'OIDC');
  });
  it('TTL on update: required (spec 002), so an omitted or empty one is the 0s error, never the stored value', () => {
    throwsExactly(() => update(oidcBody({ MaxTokenTTL: '25h' }), stored), 400, one(`invalid MaxTokenTTL value '25h0m0s' (should be between 1m0s and 24h0m0s)`));
    for (const MaxTokenTTL of [undefined, '', 0])
      throwsExactly(() => update(oidcBody({ MaxTokenTTL }), stored), 400, one(`invalid MaxTokenTTL value '0s' (should be between 1m0s and 24h0m0s)`));
    assert.equal(update(oidcBody({ MaxTokenTTL: 300e9 }), stored).MaxTokenTTL, 300e9);
  });
  it('TTL on a create of an existing name still merges, as the reference upsert does', () => {
    assert.equal(create({ Name: 'okta' }, { existing: stored, others: [stored] }).MaxTokenTTL, 3600e9);
  });
  it('TTL bounds come from the server config when given', () => {
    const ttlBounds = { min: 1e9, max: 7200e9 };
    assert.equal(create(oidcBody({ MaxTokenTTL: '1s' }), { ttlBounds }).MaxTokenTTL, 1e9);
    throwsExactly(
      () => create(oidcBody({ MaxTokenTTL: '3h' }), { ttlBounds }),
      400,
      one(`invalid MaxTokenTTL value '3h0m0s' (should be between 1s and 2h0m0s)`),
    );
  });
  it('keeps CreateTime and the indexes, sets ModifyTime, changes the Hash with the content', () => {
    const s = { ...stored, CreateIndex: 7, ModifyIndex: 9 };
    const m = update(oidcBody({ MaxTokenTTL: '2h' }), s);
    assert.equal(m.CreateTime, '2026-03-04T05:06:07Z');
    assert.equal(m.ModifyTime, '2026-03-04T06:00:00.5Z');
    assert.equal(m.CreateIndex, 7);
    assert.equal(m.ModifyIndex, 9);
    assert.notEqual(m.Hash, stored.Hash);
  });
});

describe('read and list shapes (sched.md §2.2)', () => {
  const m = { ...create(oidcBody({ Config: { ...OIDC_CONFIG, ClaimMappings: { email: 'user' } } })), CreateIndex: 3, ModifyIndex: 4 };
  const read = renderAuthMethod(m);

  it('puts MaxTokenTTL first as a Go duration string and redacts the client secret', () => {
    assert.equal(Object.keys(read)[0], 'MaxTokenTTL');
    assert.equal(read.MaxTokenTTL, '1h0m0s');
    assert.equal((read.Config as Record<string, unknown>).OIDCClientSecret, 'redacted');
    assert.equal(m.Config?.OIDCClientSecret, 's3cret', 'stored in clear');
  });
  it('renders unset DiscoveryCaPem, SigningAlgs (and other lists and maps) as null, leeways as ""', () => {
    const c = read.Config as Record<string, unknown>;
    assert.equal(c.DiscoveryCaPem, null);
    assert.equal(c.SigningAlgs, null);
    assert.equal(c.OIDCScopes, null);
    assert.equal(c.ListClaimMappings, null);
    assert.equal(c.OIDCClientAssertion, null);
    assert.deepEqual(c.ClaimMappings, { email: 'user' });
    assert.equal(c.ExpirationLeeway, '');
    assert.equal(c.OIDCDisableUserInfo, false);
  });
  it('renders set leeways and an explicit empty list as sent', () => {
    const j = renderAuthMethod(create(jwtBody({ Config: { JWTValidationPubKeys: [PUB_KEY], ClockSkewLeeway: '90s', SigningAlgs: [] } })));
    const c = j.Config as Record<string, unknown>;
    assert.equal(c.ClockSkewLeeway, '1m30s');
    assert.deepEqual(c.SigningAlgs, []);
  });
  it('fills the default TokenNameFormat, times and the hash', () => {
    assert.equal(read.TokenNameFormat, '${auth_method_type}-${auth_method_name}');
    assert.equal(read.CreateTime, '2026-03-04T05:06:07Z');
    assert.match(String(read.Hash), /^[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual(Object.keys(read), [
      'MaxTokenTTL',
      'Name',
      'Type',
      'TokenLocality',
      'TokenNameFormat',
      'Default',
      'Config',
      'Hash',
      'CreateTime',
      'ModifyTime',
      'CreateIndex',
      'ModifyIndex',
    ]);
  });
  it('the stub has Name, Type, Default, Hash, CreateIndex, ModifyIndex only', () => {
    assert.deepEqual(authMethodStub(m), { Name: 'okta', Type: 'OIDC', Default: false, Hash: m.Hash, CreateIndex: 3, ModifyIndex: 4 });
  });
});

describe('decodeAuthMethod: Go encoding/json rules (sched.md §1.1)', () => {
  it('matches field names case-insensitively, in the method, Config and nested structs', () => {
    const m = decodeAuthMethod({
      name: 'okta',
      TYPE: 'OIDC',
      Tokenlocality: 'global',
      Maxtokenttl: '5m',
      default: true,
      config: {
        oidcdiscoveryurl: 'https://idp',
        OIDCCLIENTID: 'c',
        oidcClientSecret: 's',
        allowedredirecturis: ['http://x'],
        oidcclientassertion: { keysource: 'private_key', privatekey: { pemkey: 'K' } },
        claimMappings: { Email: 'user' },
      },
    });
    assert.equal(m.Name, 'okta');
    assert.equal(m.Type, 'OIDC');
    assert.equal(m.TokenLocality, 'global');
    assert.equal(m.MaxTokenTTL, 300e9);
    assert.equal(m.Default, true);
    assert.equal(m.Config?.OIDCDiscoveryURL, 'https://idp');
    assert.equal(m.Config?.OIDCClientID, 'c');
    assert.equal(m.Config?.OIDCClientAssertion?.PrivateKey?.PemKey, 'K');
    assert.deepEqual(m.Config?.ClaimMappings, { Email: 'user' }, 'map keys are data, kept as sent');
  });
  it('lets an exact name win over a case-folded one, and a later key overwrite an earlier', () => {
    assert.equal(decodeAuthMethod({ name: 'a', Name: 'b' }).Name, 'b');
    assert.equal(decodeAuthMethod({ Name: 'b', name: 'a' }).Name, 'a');
  });
  it('ignores unknown and server-set fields; null and absent leave zero values', () => {
    const m = decodeAuthMethod({ Name: 'x', Bogus: 1, CreateIndex: 99, Hash: 'h', Type: null });
    assert.deepEqual(m, { Name: 'x', Type: '', TokenLocality: '', TokenNameFormat: '', MaxTokenTTL: 0, Default: false, Config: null });
  });
  it('takes MaxTokenTTL and leeways as Go duration strings or nanoseconds', () => {
    assert.equal(decodeAuthMethod({ MaxTokenTTL: '1h30m' }).MaxTokenTTL, 5400e9);
    assert.equal(decodeAuthMethod({ MaxTokenTTL: 60e9 }).MaxTokenTTL, 60e9);
    assert.equal(decodeAuthMethod({ MaxTokenTTL: '' }).MaxTokenTTL, 0);
    assert.equal(decodeAuthMethod({ Config: { ExpirationLeeway: '1.5s' } }).Config?.ExpirationLeeway, 1.5e9);
  });
  it('answers 400 with the Go decoder texts', () => {
    throwsExactly(() => decodeAuthMethod([]), 400, 'json: cannot unmarshal array into Go value of type structs.ACLAuthMethod');
    throwsExactly(() => decodeAuthMethod({ Name: 1 }), 400, 'json: cannot unmarshal number into Go struct field ACLAuthMethod.Name of type string');
    throwsExactly(() => decodeAuthMethod({ Default: 'yes' }), 400, 'json: cannot unmarshal string into Go struct field ACLAuthMethod.Default of type bool');
    throwsExactly(
      () => decodeAuthMethod({ config: { OIDCScopes: 'a' } }),
      400,
      'json: cannot unmarshal string into Go struct field ACLAuthMethod.Config.OIDCScopes of type []string',
    );
    throwsExactly(() => decodeAuthMethod({ MaxTokenTTL: '1d' }), 400, 'time: unknown unit "d" in duration "1d"');
    throwsExactly(() => decodeAuthMethod({ MaxTokenTTL: '10' }), 400, 'time: missing unit in duration "10"');
    throwsExactly(
      () => decodeAuthMethod({ MaxTokenTTL: true }),
      400,
      'json: cannot unmarshal bool into Go struct field ACLAuthMethod.MaxTokenTTL of type time.Duration',
    );
  });
});
