/**
 * Regions (issue 6 scope 3): a non-authoritative region replicates policies, global tokens,
 * auth methods and binding rules from the authoritative one and serves reads from its copy;
 * local tokens stay; the status endpoint shows what was replicated and why not.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { T, type PolicyDoc, type TokenDoc } from '../../src/services/sched/state.js';
import { makeToken } from '../../src/services/sched/token.js';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';

/** Polls `check` every 20 ms until it returns true or `ms` passes. */
async function eventually(check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('ACL replication between regions', () => {
  let global: TestAgent;
  let europe: TestAgent;
  before(async () => {
    global = await startAgent();
    europe = await startAgent(
      {
        region: 'europe',
        authoritativeRegion: 'global',
        regionAddresses: { global: new URL(global.url).host },
        acl: { enabled: true, replicationToken: ROOT },
      },
      { root: null, replicationWaitMs: 2000, replicationBackoffMs: 50 },
    );
  });
  after(async () => {
    await europe.stop();
    await global.stop();
  });

  it('copies policies and global tokens, not local ones, and follows deletes', async () => {
    const policy: PolicyDoc = { Name: 'readers', Description: 'r', Rules: 'namespace "default" { policy = "read" }', Hash: 'h1' };
    const globalToken = makeToken({ Name: 'g', Type: 'client', Policies: ['readers'], Global: true }, Date.now());
    const localToken = makeToken({ Name: 'l', Type: 'client', Policies: ['readers'] }, Date.now());
    await global.state.txn((tx) => {
      tx.put(T.policies, policy.Name, policy);
      tx.put(T.tokens, globalToken.AccessorID, globalToken);
      tx.put(T.tokens, localToken.AccessorID, localToken);
    });
    await eventually(() => europe.state.get<TokenDoc>(T.tokens, globalToken.AccessorID) !== undefined);
    assert.equal(europe.state.get<PolicyDoc>(T.policies, 'readers')?.Rules, policy.Rules);
    assert.equal(europe.state.get(T.tokens, localToken.AccessorID), undefined);
    // The root token of the authoritative region is global, so it works here too.
    assert.ok(europe.state.list<TokenDoc>(T.tokens).some((t) => t.SecretID === ROOT));

    await global.state.txn((tx) => tx.delete(T.policies, 'readers'));
    await eventually(() => europe.state.get(T.policies, 'readers') === undefined);
  });

  it('keeps the tokens of its own region when the source changes', async () => {
    const mine = makeToken({ Name: 'europe-only', Type: 'management' }, Date.now());
    await europe.state.txn((tx) => tx.put(T.tokens, mine.AccessorID, mine));
    const other = makeToken({ Name: 'g2', Type: 'management', Global: true }, Date.now());
    await global.state.txn((tx) => tx.put(T.tokens, other.AccessorID, other));
    await eventually(() => europe.state.get(T.tokens, other.AccessorID) !== undefined);
    assert.ok(europe.state.get(T.tokens, mine.AccessorID));
  });

  it('forwards auth-method writes sent to it to the authoritative region, and serves them back from its copy', async () => {
    const method = {
      Name: 'corp-sso',
      Type: 'OIDC',
      TokenLocality: 'global',
      MaxTokenTTL: '1h',
      Default: true,
      Config: {
        OIDCDiscoveryURL: 'https://idp.example.com',
        OIDCClientID: 'cairn',
        OIDCClientSecret: 's3cr3t',
        AllowedRedirectURIs: ['http://localhost:4649/oidc/callback'],
      },
    };
    const created = await call(europe.url, 'POST', '/v1/acl/auth-method', { token: ROOT, body: method });
    assert.equal(created.status, 200, created.text);
    assert.equal(created.json.Config.OIDCClientSecret, 'redacted');
    // Stored in the authoritative region at once ...
    assert.equal((await call(global.url, 'GET', '/v1/acl/auth-method/corp-sso', { token: ROOT })).json.Name, 'corp-sso');
    // ... and in europe once replicated, secret included (it is needed for logins there).
    await eventually(async () => (await call(europe.url, 'GET', '/v1/acl/auth-methods')).json.length === 1);
    const local = await call(europe.url, 'GET', '/v1/acl/auth-method/corp-sso', { token: ROOT });
    assert.equal(local.status, 200);
    assert.equal(local.json.Default, true);
    assert.equal(europe.state.get<{ Config: { OIDCClientSecret: string } }>(T.authMethods, 'corp-sso')?.Config.OIDCClientSecret, 's3cr3t');

    // An update and a delete sent to europe take the same way.
    const updated = await call(europe.url, 'POST', '/v1/acl/auth-method/corp-sso', {
      token: ROOT,
      body: { ...method, Default: false, Config: local.json.Config },
    });
    assert.equal(updated.status, 200, updated.text);
    await eventually(async () => (await call(europe.url, 'GET', '/v1/acl/auth-methods')).json[0]?.Default === false);
    assert.equal(europe.state.get<{ Config: { OIDCClientSecret: string } }>(T.authMethods, 'corp-sso')?.Config.OIDCClientSecret, 's3cr3t');
    assert.equal((await call(europe.url, 'DELETE', '/v1/acl/auth-method/corp-sso', { token: ROOT })).status, 200);
    assert.equal((await call(global.url, 'GET', '/v1/acl/auth-method/corp-sso', { token: ROOT })).status, 404);
    await eventually(async () => (await call(europe.url, 'GET', '/v1/acl/auth-methods')).json.length === 0);
  });

  it('reports its status: source region, replicated indexes, last success', async () => {
    const r = await call(europe.url, 'GET', '/v1/acl/replication', { token: ROOT });
    assert.equal(r.status, 200);
    assert.equal(r.json.Enabled, true);
    assert.equal(r.json.SourceRegion, 'global');
    assert.ok(r.json.ReplicatedIndexes.tokens > 0);
    assert.match(r.json.LastSuccess, /^\d{4}-\d\d-\d\dT/);
    const home = await call(global.url, 'GET', '/v1/acl/replication', { token: ROOT });
    assert.equal(home.json.Enabled, false);
  });

  it('serves the internal endpoint only to management tokens', async () => {
    assert.equal((await call(global.url, 'GET', '/v1/internal/acl/replicate/tokens')).status, 403);
    const r = await call(global.url, 'GET', '/v1/internal/acl/replicate/tokens', { token: ROOT });
    assert.equal(r.status, 200);
    assert.ok(r.json.every((t: TokenDoc) => t.Global));
  });

  it('records a failed round: a wrong replication token is refused by the source', async () => {
    const bad = await startAgent(
      {
        region: 'asia',
        authoritativeRegion: 'global',
        regionAddresses: { global: new URL(global.url).host },
        acl: { enabled: true, replicationToken: 'not-a-token' },
      },
      { root: null, replicationWaitMs: 2000, replicationBackoffMs: 50 },
    );
    try {
      await eventually(() => bad.replicator!.status().LastErrorMessage !== '');
      assert.match(bad.replicator!.status().LastErrorMessage, /403 \(Permission denied\)/);
    } finally {
      await bad.stop();
    }
  });
});
