/**
 * JWT validation against static PEM keys made with jose, and against a real OpenID
 * provider on loopback (its JWKS URL and its discovery document, over HTTP and over HTTPS
 * with a self-signed CA) — reference/mesh.md §4.4.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { createJwtValidator, validateAuthMethodConfig, type AuthMethodConfig } from './index.js';
import { startProvider, type TestProvider } from './testdata/provider.js';

const T0 = 1_700_000_000; // seconds; the injected clock starts here
const clockAt = (seconds: number) => ({ now: () => seconds * 1000 });

async function keyPair(alg: string) {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  return { pem: await exportSPKI(publicKey), sign: (c: JWTPayload) => new SignJWT(c).setProtectedHeader({ alg }).sign(privateKey as CryptoKey) };
}

const rejects = (p: Promise<unknown>, message: string | RegExp) =>
  assert.rejects(p, (err: Error) => {
    if (typeof message === 'string') assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  });

describe('validateAuthMethodConfig (§4.4, §4.5)', () => {
  const bad: [string, 'jwt' | 'oidc', AuthMethodConfig, string][] = [
    ['no key source', 'jwt', {}, `exactly one of 'JWTValidationPubKeys', 'JWKSURL', or 'OIDCDiscoveryURL' must be set for type "jwt"`],
    [
      'two key sources',
      'jwt',
      { jwksUrl: 'https://a/jwks', oidcDiscoveryUrl: 'https://a' },
      `exactly one of 'JWTValidationPubKeys', 'JWKSURL', or 'OIDCDiscoveryURL' must be set for type "jwt"`,
    ],
    ['JWKS CA without JWKS URL', 'jwt', { oidcDiscoveryUrl: 'https://a', jwksCaCert: 'x' }, `'JWKSCACert' should not be set unless 'JWKSURL' is set`],
    [
      'discovery CA without discovery URL',
      'jwt',
      { jwksUrl: 'https://a', oidcDiscoveryCaCert: 'x' },
      `'OIDCDiscoveryCACert' should not be set unless 'OIDCDiscoveryURL' is set`,
    ],
    ['OIDC field on jwt', 'jwt', { jwksUrl: 'https://a', oidcClientId: 'c' }, `'OIDCClientID' must not be set for type "jwt"`],
    ['bad alg', 'jwt', { jwksUrl: 'https://a', jwtSupportedAlgs: ['HS256'] }, 'Invalid supported algorithm: HS256'],
    ['duplicate mapping target', 'jwt', { jwksUrl: 'https://a', claimMappings: { a: 'x', b: 'x' } }, 'ClaimMappings contains multiple mappings for key "x"'],
    [
      'duplicate list mapping target',
      'jwt',
      { jwksUrl: 'https://a', listClaimMappings: { a: 'x', b: 'x' } },
      'ListClaimMappings contains multiple mappings for key "x"',
    ],
    ['unparsable CA', 'jwt', { jwksUrl: 'https://a', jwksCaCert: 'not a pem' }, `could not parse 'JWKSCACert' value successfully`],
    [
      'bad PEM key',
      'jwt',
      { jwtValidationPubKeys: ['nope'] },
      'error parsing public key JWTValidationPubKeys[0]: data does not contain any valid RSA, ECDSA, or ED25519 public keys',
    ],
    ['oidc without discovery', 'oidc', { oidcClientId: 'c' }, `'OIDCDiscoveryURL' must be set for type "oidc"`],
    [
      'oidc without secret',
      'oidc',
      { oidcDiscoveryUrl: 'https://a', oidcClientId: 'c', allowedRedirectUris: ['x'] },
      `'OIDCClientSecret' must be set for type "oidc"`,
    ],
    [
      'oidc with JWKS URL',
      'oidc',
      { oidcDiscoveryUrl: 'https://a', oidcClientId: 'c', oidcClientSecret: 's', allowedRedirectUris: ['x'], jwksUrl: 'https://a' },
      `'JWKSURL' must not be set for type "oidc"`,
    ],
    [
      'oidc with a leeway',
      'oidc',
      { oidcDiscoveryUrl: 'https://a', oidcClientId: 'c', oidcClientSecret: 's', allowedRedirectUris: ['x'], clockSkewLeewaySeconds: 5 },
      `'ClockSkewLeeway' must not be set for type "oidc"`,
    ],
  ];
  for (const [name, type, config, message] of bad) {
    it(`refuses ${name}`, () => assert.throws(() => validateAuthMethodConfig(type, config), { name: 'AuthnError', kind: 'config', message } as object));
  }
  it('accepts a minimal oidc config', () => {
    validateAuthMethodConfig('oidc', { oidcDiscoveryUrl: 'https://a', oidcClientId: 'c', oidcClientSecret: 's', allowedRedirectUris: ['x'] });
  });
});

describe('static PEM keys', () => {
  for (const alg of ['RS256', 'ES256', 'EdDSA']) {
    it(`validates a ${alg} token and returns its claims`, async () => {
      const k = await keyPair(alg);
      const v = await createJwtValidator({ jwtValidationPubKeys: [k.pem], jwtSupportedAlgs: [alg] }, clockAt(T0));
      const claims = await v.validate(await k.sign({ sub: 'alice', iat: T0 - 10, exp: T0 + 60 }));
      assert.equal(claims.sub, 'alice');
    });
  }

  it('tries each key; none working is the reference error', async () => {
    const [a, b, c] = await Promise.all([keyPair('RS256'), keyPair('RS256'), keyPair('RS256')]);
    const v = await createJwtValidator({ jwtValidationPubKeys: [a.pem, b.pem] }, clockAt(T0));
    assert.equal((await v.validate(await b.sign({ sub: 'b', iat: T0 }))).sub, 'b');
    await rejects(v.validate(await c.sign({ iat: T0 })), 'no known key successfully validated the token signature');
  });

  it('refuses an algorithm that is not supported (default RS256 only)', async () => {
    const k = await keyPair('ES256');
    const v = await createJwtValidator({ jwtValidationPubKeys: [k.pem] }, clockAt(T0));
    await rejects(v.validate(await k.sign({ iat: T0 })), 'no known key successfully validated the token signature');
  });

  it('refuses a missing or malformed token', async () => {
    const k = await keyPair('RS256');
    const v = await createJwtValidator({ jwtValidationPubKeys: [k.pem] }, clockAt(T0));
    await rejects(v.validate(''), 'missing jwt');
    await rejects(v.validate('not-a-jwt'), /^error parsing token: /);
  });

  describe('time claims (§4.4)', () => {
    let k: Awaited<ReturnType<typeof keyPair>>;
    before(async () => {
      k = await keyPair('RS256');
    });
    const validator = (config: Partial<AuthMethodConfig>, at = T0) => createJwtValidator({ jwtValidationPubKeys: [k.pem], ...config }, clockAt(at));

    it('needs one of iat, nbf, exp', async () => {
      await rejects((await validator({})).validate(await k.sign({ sub: 'x' })), 'no issue time, notbefore, or expiration time encoded in token');
    });
    it('expired beyond the 60 s default skew; -1 disables the skew', async () => {
      const token = await k.sign({ iat: T0 - 100, exp: T0 - 30 });
      await (await validator({})).validate(token);
      await rejects((await validator({ clockSkewLeewaySeconds: -1 })).validate(token), 'error validating claims: validation failed, token is expired (exp)');
      await rejects((await validator({}, T0 + 31)).validate(token), 'error validating claims: validation failed, token is expired (exp)');
    });
    it('a missing exp is max(iat, nbf) + ExpirationLeeway (default 150 s)', async () => {
      const token = await k.sign({ iat: T0 - 1000, nbf: T0 - 200 });
      // exp = T0 - 50, plus 60 s of skew: valid at T0, expired at T0 + 11
      await (await validator({})).validate(token);
      await rejects((await validator({}, T0 + 11)).validate(token), /token is expired/);
      await rejects((await validator({ expirationLeewaySeconds: -1, clockSkewLeewaySeconds: -1 })).validate(token), /token is expired/);
      await (await validator({ expirationLeewaySeconds: 3600 }, T0 + 3000)).validate(token);
    });
    it('a missing nbf is iat, else exp - NotBeforeLeeway', async () => {
      await rejects((await validator({})).validate(await k.sign({ iat: T0 + 100 })), 'error validating claims: validation failed, token not valid yet (nbf)');
      const onlyExp = await k.sign({ exp: T0 + 1000 }); // nbf = exp - 150 = T0 + 850
      await rejects((await validator({})).validate(onlyExp), /token not valid yet \(nbf\)/);
      await (await validator({ notBeforeLeewaySeconds: 2000 })).validate(onlyExp);
    });
    it('an iat in the future is refused even when nbf is set', async () => {
      await rejects(
        (await validator({})).validate(await k.sign({ nbf: T0 - 10, iat: T0 + 100, exp: T0 + 200 })),
        'error validating claims: validation failed, token issued in the future (iat)',
      );
    });
  });

  it('bound issuer: exact match', async () => {
    const k = await keyPair('RS256');
    const v = await createJwtValidator({ jwtValidationPubKeys: [k.pem], boundIssuers: ['https://issuer'] }, clockAt(T0));
    await v.validate(await k.sign({ iss: 'https://issuer', iat: T0 }));
    await rejects(v.validate(await k.sign({ iss: 'https://issuer/', iat: T0 })), 'error validating claims: validation failed, invalid issuer claim (iss)');
  });

  it('bound audiences are strict', async () => {
    const k = await keyPair('RS256');
    const none = await createJwtValidator({ jwtValidationPubKeys: [k.pem] }, clockAt(T0));
    await rejects(none.validate(await k.sign({ aud: 'x', iat: T0 })), 'error validating claims: audience claim found in JWT but no audiences are bound');
    const bound = await createJwtValidator({ jwtValidationPubKeys: [k.pem], boundAudiences: ['a', 'b'] }, clockAt(T0));
    await bound.validate(await k.sign({ aud: ['z', 'b'], iat: T0 }));
    await rejects(bound.validate(await k.sign({ aud: 'z', iat: T0 })), 'error validating claims: aud claim does not match any bound audience');
    await rejects(bound.validate(await k.sign({ iat: T0 })), 'error validating claims: aud claim does not match any bound audience');
  });
});

describe('JWKS URL and OIDC discovery, against a real provider', () => {
  let op: TestProvider;
  let tlsOp: TestProvider;
  const now = () => ({ now: () => Date.now() });
  const fresh = () => ({ iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 300 });
  before(async () => {
    [op, tlsOp] = await Promise.all([startProvider(), startProvider({ tls: true })]);
  });
  after(async () => {
    await Promise.all([op.close(), tlsOp.close()]);
  });

  it('JWKS: validates a token signed with the provider key; refuses a foreign signature', async () => {
    const v = await createJwtValidator({ jwksUrl: `${op.issuer}/jwks`, boundAudiences: ['cairn'] }, now());
    assert.equal((await v.validate(await op.sign({ sub: 'svc', aud: 'cairn', ...fresh() }))).sub, 'svc');
    const other = await keyPair('RS256');
    await rejects(v.validate(await other.sign({ aud: 'cairn', ...fresh() })), /^error verifying token: /);
  });

  it('JWKS: wrong audience and expired token', async () => {
    const v = await createJwtValidator({ jwksUrl: `${op.issuer}/jwks`, boundAudiences: ['cairn'] }, now());
    await rejects(v.validate(await op.sign({ aud: 'other', ...fresh() })), 'error validating claims: aud claim does not match any bound audience');
    const t = Math.floor(Date.now() / 1000);
    await rejects(
      v.validate(await op.sign({ aud: 'cairn', iat: t - 600, exp: t - 120 })),
      'error validating claims: validation failed, token is expired (exp)',
    );
  });

  it('JWKS: an unreachable URL fails creation', async () => {
    await rejects(createJwtValidator({ jwksUrl: `${op.issuer}/nothing-here` }, now()), /^error checking JWKSURL: fetching keys oidc: get keys failed: /);
  });

  it('JWKS over HTTPS: trusts the configured CA, fails without it', async () => {
    const v = await createJwtValidator({ jwksUrl: `${tlsOp.issuer}/jwks`, jwksCaCert: tlsOp.caCert }, now());
    assert.equal((await v.validate(await tlsOp.sign({ sub: 'tls', ...fresh() }))).sub, 'tls');
    await rejects(createJwtValidator({ jwksUrl: `${tlsOp.issuer}/jwks` }, now()), /^error checking JWKSURL: /);
  });

  it('discovery: validates; audience is non-strict; issuer must be the provider', async () => {
    const v = await createJwtValidator({ oidcDiscoveryUrl: op.issuer }, now());
    assert.equal((await v.validate(await op.sign({ sub: 'd', iss: op.issuer, aud: 'anything', ...fresh() }))).sub, 'd');
    await rejects(
      v.validate(await op.sign({ iss: 'https://elsewhere', ...fresh() })),
      /^error validating signature: oidc: id token issued by a different provider/,
    );
    const bound = await createJwtValidator({ oidcDiscoveryUrl: op.issuer, boundAudiences: ['cairn'] }, now());
    await rejects(
      bound.validate(await op.sign({ iss: op.issuer, aud: 'other', ...fresh() })),
      'error validating claims: aud claim does not match any bound audience',
    );
  });

  it('discovery: expired token and foreign signature', async () => {
    const v = await createJwtValidator({ oidcDiscoveryUrl: op.issuer }, now());
    const t = Math.floor(Date.now() / 1000);
    await rejects(v.validate(await op.sign({ iss: op.issuer, iat: t - 600, exp: t - 1 })), /^error validating signature: oidc: token is expired/);
    const other = await keyPair('RS256');
    await rejects(v.validate(await other.sign({ iss: op.issuer, ...fresh() })), /^error validating signature: /);
  });

  it('discovery over HTTPS with its CA; without it creation fails', async () => {
    const v = await createJwtValidator({ oidcDiscoveryUrl: tlsOp.issuer, oidcDiscoveryCaCert: tlsOp.caCert }, now());
    assert.equal((await v.validate(await tlsOp.sign({ sub: 'x', iss: tlsOp.issuer, ...fresh() }))).sub, 'x');
    await rejects(createJwtValidator({ oidcDiscoveryUrl: tlsOp.issuer }, now()), /^error checking OIDCDiscoveryURL: /);
  });
});
