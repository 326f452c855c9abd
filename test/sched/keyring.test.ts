/**
 * The scheduler's signing keyring (issue 27 scope 1): the JWKS at `/.well-known/jwks.json`
 * verifies what the keyring signs (checked with `jose`'s `createRemoteJWKSet`, as a secrets
 * or discovery service would), the discovery document only with `oidc_issuer`, the operator
 * routes (management only, 400s naming the parameter), a rotation that keeps tokens of the
 * retired key verifiable until its key is deleted, and the leader's own pre-publication,
 * promotion and collection on short thresholds.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { ConfigError } from '../../src/kernel/config/index.js';
import { parseSchedAgentConfig } from '../../src/services/sched/config.js';
import { until } from '../processes.js';
import { call, clientToken, ROOT, startAgent, type TestAgent } from './helpers.js';

interface KeyMeta {
  KeyID: string;
  State: string;
  PublishTime: number;
  CreateTime: number;
}

/** A fresh remote key set (its cache is not shared between checks): verifies `jwt` against `url`'s JWKS. */
async function verifies(url: string, jwt: string): Promise<boolean> {
  const set = createRemoteJWKSet(new URL(`${url}/.well-known/jwks.json`));
  try {
    await jwtVerify(jwt, set, { audience: 'test.example' });
    return true;
  } catch {
    return false;
  }
}

const claims = (sub: string) => ({ sub, aud: 'test.example', iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 600 });

async function keys(a: TestAgent): Promise<KeyMeta[]> {
  const r = await call(a.url, 'GET', '/v1/operator/keyring/keys', { token: ROOT });
  assert.equal(r.status, 200, r.text);
  return r.json as KeyMeta[];
}

describe('scheduler keyring: JWKS, discovery and the operator routes', () => {
  let a: TestAgent;
  before(async () => {
    a = await startAgent({ keyring: { oidcIssuer: 'https://sched.example.com/' } });
  });
  after(() => a.stop());

  it('publishes the active key and verifies RS256 and EdDSA tokens with a remote JWKS', async () => {
    const list = await keys(a);
    assert.equal(list.length, 1);
    assert.equal(list[0]!.State, 'active');
    assert.match(list[0]!.KeyID, /^[0-9a-f-]{36}$/);
    assert.ok(!JSON.stringify(list).includes('PRIVATE'), 'no key material in the list');
    const jwks = await call(a.url, 'GET', '/.well-known/jwks.json');
    assert.equal(jwks.status, 200, jwks.text);
    assert.ok(Number(jwks.headers.get('x-sched-index')) >= 1);
    assert.deepEqual(
      (jwks.json.keys as { kid: string; alg: string; kty: string; use: string }[]).map((k) => [k.kid, k.alg, k.kty, k.use]),
      [
        [list[0]!.KeyID, 'RS256', 'RSA', 'sig'],
        [list[0]!.KeyID, 'EdDSA', 'OKP', 'sig'],
      ],
    );
    assert.ok(!jwks.text.includes('"d"'), 'no private exponent in the JWKS');
    const rs = a.keyring!.sign(claims('rs'));
    const ed = a.keyring!.sign(claims('ed'), 'EdDSA');
    assert.equal(rs.keyId, list[0]!.KeyID);
    assert.ok(await verifies(a.url, rs.jwt));
    assert.ok(await verifies(a.url, ed.jwt));
    // A token whose signature was tampered with does not verify.
    const [h, p] = rs.jwt.split('.');
    assert.equal(await verifies(a.url, `${h}.${p}.${ed.jwt.split('.')[2]}`), false);
  });

  it('serves the discovery document with the issuer', async () => {
    const r = await call(a.url, 'GET', '/.well-known/openid-configuration');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, {
      id_token_signing_alg_values_supported: ['RS256', 'EdDSA'],
      issuer: 'https://sched.example.com/',
      jwks_uri: 'https://sched.example.com/.well-known/jwks.json',
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
    });
    // Not under /v1/.
    assert.equal((await call(a.url, 'GET', '/v1/.well-known/jwks.json')).status, 404);
  });

  it('keeps the operator routes to management tokens and names a bad parameter', async () => {
    const operator = await clientToken(a.url, 'keyring-operator', 'operator { policy = "write" }\nnamespace "*" { policy = "write" }');
    for (const token of [undefined, operator.secret]) {
      assert.equal((await call(a.url, 'GET', '/v1/operator/keyring/keys', { token })).status, 403);
      assert.equal((await call(a.url, 'PUT', '/v1/operator/keyring/rotate', { token })).status, 403);
      assert.equal((await call(a.url, 'DELETE', `/v1/operator/keyring/key/${(await keys(a))[0]!.KeyID}`, { token })).status, 403);
    }
    const bad = await call(a.url, 'PUT', '/v1/operator/keyring/rotate?full=maybe', { token: ROOT });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /full/);
    const badTime = await call(a.url, 'PUT', '/v1/operator/keyring/rotate?publish_time=soon', { token: ROOT });
    assert.equal(badTime.status, 400);
    assert.match(badTime.text, /publish_time/);
    assert.equal((await keys(a)).length, 1, 'a refused rotation made no key');
  });

  it('rotates: the old key stays published and keeps its tokens valid until it is deleted', async () => {
    const [old] = await keys(a);
    const before = a.keyring!.sign(claims('before'));
    const r = await call(a.url, 'PUT', '/v1/operator/keyring/rotate?full=true', { token: ROOT });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.Key.State, 'active');
    assert.notEqual(r.json.Key.KeyID, old!.KeyID);
    assert.equal(r.json.Index, Number(r.headers.get('x-sched-index')));
    const states = Object.fromEntries((await keys(a)).map((k) => [k.KeyID, k.State]));
    assert.deepEqual(states, { [old!.KeyID]: 'inactive', [r.json.Key.KeyID]: 'active' });
    const afterRotation = a.keyring!.sign(claims('after'));
    assert.equal(afterRotation.keyId, r.json.Key.KeyID);
    assert.ok(await verifies(a.url, before.jwt), 'a token of the retired key still verifies');
    assert.ok(await verifies(a.url, afterRotation.jwt));

    const active = await call(a.url, 'DELETE', `/v1/operator/keyring/key/${r.json.Key.KeyID}`, { token: ROOT });
    assert.equal(active.status, 400);
    assert.match(active.text, /active root key cannot be deleted/);
    assert.equal((await call(a.url, 'DELETE', '/v1/operator/keyring/key/00000000-0000-4000-8000-000000000000', { token: ROOT })).status, 404);
    const del = await call(a.url, 'DELETE', `/v1/operator/keyring/key/${old!.KeyID}`, { token: ROOT });
    assert.equal(del.status, 200, del.text);
    assert.ok(del.json.Index > 0);
    assert.equal(await verifies(a.url, before.jwt), false, 'the deleted key no longer verifies its tokens');
    assert.ok(await verifies(a.url, afterRotation.jwt));
  });

  it('pre-publishes with ?publish_time: in the JWKS, not signing until then', async () => {
    const later = (Date.now() + 3600_000) * 1_000_000;
    const r = await call(a.url, 'PUT', `/v1/operator/keyring/rotate?publish_time=${later}`, { token: ROOT });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.Key.State, 'prepublished');
    const jwks = await call(a.url, 'GET', '/.well-known/jwks.json');
    assert.ok((jwks.json.keys as { kid: string }[]).some((k) => k.kid === r.json.Key.KeyID));
    assert.notEqual(a.keyring!.sign(claims('x')).keyId, r.json.Key.KeyID);
  });
});

describe('scheduler keyring without oidc_issuer', () => {
  it('has no discovery document', async () => {
    const a = await startAgent();
    try {
      const r = await call(a.url, 'GET', '/.well-known/openid-configuration');
      assert.equal(r.status, 404);
      assert.match(r.text, /OIDC Discovery endpoint disabled/);
      assert.equal((await call(a.url, 'GET', '/.well-known/jwks.json')).status, 200);
    } finally {
      await a.stop();
    }
  });
});

describe('scheduler keyring: the leader rotates and collects on its thresholds', () => {
  it('pre-publishes at half the threshold, promotes at the threshold, and collects the retired key after the GC threshold', { timeout: 60_000 }, async () => {
    // Windows of seconds (3 s pre-published, 5 s retired before collection): room for the checks on a busy machine.
    const a = await startAgent({ keyring: { rotationThresholdMs: 6000, gcThresholdMs: 5000, gcIntervalMs: 100 } });
    try {
      const token = a.keyring!.sign(claims('first'));
      // The key that signed it, and the next one, read in one listing.
      const { signer, pre } = await until('a pre-published key', 10_000, async () => {
        const list = await keys(a);
        const active = list.find((k) => k.State === 'active');
        const next = list.find((k) => k.State === 'prepublished');
        return active?.KeyID === token.keyId && next ? { signer: active, pre: next } : undefined;
      });
      assert.equal(pre.PublishTime, (signer.PublishTime || signer.CreateTime) + 6000 * 1_000_000, 'published when the active key reaches the threshold');
      const jwks = await call(a.url, 'GET', '/.well-known/jwks.json');
      assert.ok(
        (jwks.json.keys as { kid: string }[]).some((k) => k.kid === pre.KeyID),
        'the next key is in the JWKS before it signs',
      );
      await until('the pre-published key active', 10_000, async () => (await keys(a)).find((k) => k.KeyID === pre.KeyID && k.State === 'active'));
      assert.equal((await keys(a)).find((k) => k.KeyID === signer.KeyID)?.State, 'inactive');
      assert.ok(await verifies(a.url, token.jwt), 'a token of the retired key verifies after the promotion');
      await until('the retired key collected', 20_000, async () => ((await keys(a)).some((k) => k.KeyID === signer.KeyID) ? undefined : true));
      assert.equal(await verifies(a.url, token.jwt), false);
    } finally {
      await a.stop();
    }
  });
});

describe('scheduler keyring settings', () => {
  const parse = (server: string) => parseSchedAgentConfig(`data_dir = "/tmp/x"\nserver {\n${server}\n}\n`, 'agent.hcl');

  it('reads the thresholds and the issuer', () => {
    const c = parse(
      '  root_key_rotation_threshold = "48h"\n  root_key_gc_threshold = "2h"\n  root_key_gc_interval = "1m"\n  oidc_issuer = "https://sched.example.com"',
    );
    assert.deepEqual(c.keyring, {
      rotationThresholdMs: 48 * 3600_000,
      gcThresholdMs: 2 * 3600_000,
      gcIntervalMs: 60_000,
      oidcIssuer: 'https://sched.example.com',
    });
    assert.deepEqual(parse('').keyring, {}, 'absent: the defaults');
  });

  it('names the field and its line', () => {
    const cases: [string, RegExp][] = [
      ['  oidc_issuer = "sched.example.com"', /agent\.hcl:4: "oidc_issuer": "sched\.example\.com" is not an http or https URL/],
      ['  oidc_issuer = "https://x.example/?a=b"', /agent\.hcl:4: "oidc_issuer"/],
      [
        '  root_key_rotation_threshold = "1m"\n  root_key_gc_interval = "10m"',
        /agent\.hcl:4: "root_key_rotation_threshold" must be longer than root_key_gc_interval/,
      ],
      ['  root_key_gc_threshold = "soon"', /agent\.hcl:4: .*root_key_gc_threshold/],
    ];
    for (const [text, message] of cases) {
      assert.throws(
        () => parse(`\n${text}`),
        (err: unknown) => err instanceof ConfigError && message.test(err.message),
        text,
      );
    }
  });
});
