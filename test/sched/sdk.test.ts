/**
 * The SDK's `SchedClient` against real scheduler agents on loopback (test/sched/helpers.ts):
 * the environment, status reads and `?region=` forwarding, plain-text errors, bootstrap,
 * tokens, policies, auth methods (indexes and a blocking read), JWT login with a key made
 * here, OIDC auth-url / complete-auth against the real test provider, nodes, namespaces,
 * and the event stream (frames, abort, 403, the server's end). Plus the event stream's
 * NDJSON reader on its own (heartbeats skipped, the end line, a plain-text trailer).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { exportSPKI, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { startProvider, type TestProvider } from '../../src/kernel/authn/testdata/provider.js';
import {
  DEFAULT_SCHED_ADDRESS,
  normalizeSchedAddress,
  readSchedFrames,
  SCHED_STREAM_CLOSED,
  SchedApiError,
  SchedClient,
  SchedConnectionError,
  SchedStreamError,
  type SchedEventFrame,
} from '../../src/sdk/index.js';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';

const REDIRECT = 'http://localhost:4649/oidc/callback';

/** A node registration body (`PUT /v1/node/register`). */
function nodeBody(id: string, name: string, extra: Record<string, unknown> = {}) {
  return {
    Node: {
      ID: id,
      SecretID: `secret-${id}`,
      Datacenter: 'dc1',
      Name: name,
      Attributes: { 'os.name': 'linux', 'unique.network.ip-address': '10.0.0.1' },
      ...extra,
    },
  };
}

async function* chunks(...parts: string[]) {
  for (const p of parts) yield new TextEncoder().encode(p);
}

async function collectFrames(parts: string[]): Promise<{ frames: SchedEventFrame[]; error?: Error }> {
  const frames: SchedEventFrame[] = [];
  try {
    for await (const f of readSchedFrames(chunks(...parts))) frames.push(f);
  } catch (err) {
    return { frames, error: err as Error };
  }
  return { frames };
}

describe('readSchedFrames (NDJSON framing)', () => {
  it("joins lines split across chunks, skips heartbeats and blank lines, ends with the server's end line", async () => {
    const { frames, error } = await collectFrames([
      '{}\n{"Ind',
      'ex":5,"Events":[{"Topic":"Node","Type":"NodeRegistration","Key":"n1"}]}\n\n{}\n',
      '{"Error":"event dropped from buffer"}\n',
    ]);
    assert.deepEqual(
      frames.map((f) => [f.Index, f.Events.length]),
      [[5, 1]],
    );
    assert.ok(error instanceof SchedStreamError);
    assert.equal(error.message, 'event dropped from buffer');
  });

  it('a plain-text trailer is the error; a body that just ends is an error too', async () => {
    const trailer = await collectFrames(['{}\n{"Index":2,"Events":[{}]}\n', 'Permission denied']);
    assert.equal(trailer.frames.length, 1);
    assert.deepEqual([trailer.error?.name, trailer.error?.message], ['SchedStreamError', 'Permission denied']);
    const closed = await collectFrames(['{}\n']);
    assert.deepEqual([closed.frames.length, closed.error?.message], [0, SCHED_STREAM_CLOSED]);
  });
});

describe('SchedClient', () => {
  let a: TestAgent;
  let eu: TestAgent;
  let op: TestProvider;
  let sched: SchedClient;
  const clients: SchedClient[] = [];
  const client = (o: { token?: string; region?: string; address?: string; namespace?: string } = {}) => {
    const c = new SchedClient({ address: a.url, ...o });
    clients.push(c);
    return c;
  };
  let sign: (claims: Record<string, unknown>) => Promise<string>;
  let publicPem: string;

  before(async () => {
    a = await startAgent();
    eu = await startAgent({ region: 'europe', authoritativeRegion: 'global', regionAddresses: { global: new URL(a.url).host } }, { root: null });
    op = await startProvider({ clients: [{ client_id: 'cairn', client_secret: 'cairn-secret', redirect_uris: [REDIRECT] }] });
    sched = client({ token: ROOT });
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    publicPem = await exportSPKI(publicKey);
    sign = (claims) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256' })
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey as CryptoKey);
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all([a.stop(), eu.stop(), op.close()]);
  });

  it('fromEnv reads SCHED_ADDR, SCHED_TOKEN, SCHED_NAMESPACE, SCHED_REGION; overrides win; bad addresses are refused', async () => {
    assert.equal(SchedClient.fromEnv({}).address, DEFAULT_SCHED_ADDRESS);
    const c = SchedClient.fromEnv({ SCHED_ADDR: new URL(a.url).host, SCHED_TOKEN: ROOT, SCHED_NAMESPACE: 'default', SCHED_REGION: 'global' });
    clients.push(c);
    assert.equal(c.address, a.url);
    assert.equal(c.hasToken, true);
    assert.equal(c.namespace, 'default');
    assert.equal((await c.aclTokenSelf()).SecretID, ROOT);
    const o = SchedClient.fromEnv({ SCHED_ADDR: 'http://x:1', SCHED_TOKEN: 'env' }, { address: a.url, token: undefined });
    clients.push(o);
    assert.equal(o.address, a.url);
    assert.equal(o.hasToken, true, 'an undefined override keeps the environment');
    assert.equal(normalizeSchedAddress('https://h:4646/'), 'https://h:4646');
    assert.throws(() => normalizeSchedAddress('ftp://x'), /invalid scheduler address "ftp:\/\/x"/);
  });

  it('status reads; ?region= goes to the other region; unknown region, unknown path and a dead port are errors', async () => {
    assert.deepEqual(await client().regions(), ['global']);
    assert.equal(await client().leader(), new URL(a.url).host);
    const viaEu = new SchedClient({ address: eu.url, region: 'global' });
    clients.push(viaEu);
    assert.equal(await viaEu.leader(), new URL(a.url).host);
    const mars = new SchedClient({ address: eu.url, region: 'mars' });
    clients.push(mars);
    const err = await mars.regions().catch((e: unknown) => e);
    assert.ok(err instanceof SchedApiError);
    assert.deepEqual([err.status, err.message, err.request], [500, 'No path to region', { method: 'GET', path: '/regions' }]);
    const nf = await client()
      .call('GET', '/nope')
      .catch((e: unknown) => e);
    assert.ok(nf instanceof SchedApiError);
    assert.deepEqual([nf.status, nf.message], [404, '404 page not found']);
    const down = new SchedClient({ address: '127.0.0.1:1', timeoutMs: 2000 });
    clients.push(down);
    await assert.rejects(
      down.regions(),
      (e: unknown) => e instanceof SchedConnectionError && /^cannot reach the scheduler at http:\/\/127\.0\.0\.1:1: /.test(e.message),
    );
  });

  it('bootstrap once with a chosen secret; the second is refused with the reset index', async () => {
    const fresh = await startAgent({}, { root: null });
    try {
      const c = new SchedClient({ address: fresh.url });
      clients.push(c);
      const secret = '0b4d6f21-3c5e-4a7b-8d9f-0123456789ab';
      const t = await c.aclBootstrap(secret);
      assert.deepEqual([t.SecretID, t.Type, t.Global], [secret, 'management', true]);
      const again = await c.aclBootstrap().catch((e: unknown) => e);
      assert.ok(again instanceof SchedApiError);
      assert.equal(again.status, 400);
      assert.match(again.message, /^ACL bootstrap already done \(reset index: \d+\)$/);
    } finally {
      await fresh.stop();
    }
  });

  it('tokens and policies: upsert, read with index, list, create, self, delete', async () => {
    await sched.upsertAclPolicy({ Name: 'readers', Description: 'read nodes', Rules: 'node { policy = "read" }' });
    const p = await sched.readAclPolicy('readers');
    assert.equal(p.data.Rules, 'node { policy = "read" }');
    assert.ok(p.index > 0);
    assert.deepEqual(
      (await sched.listAclPolicies()).data.map((x) => x.Name),
      ['readers'],
    );
    const t = await sched.createAclToken({ Name: 'ci', Type: 'client', Policies: ['readers'], ExpirationTTL: '1h' });
    assert.match(t.SecretID, /^[0-9a-f-]{36}$/);
    assert.ok(t.ExpirationTime);
    const self = await client({ token: t.SecretID }).aclTokenSelf();
    assert.deepEqual([self.AccessorID, self.Policies], [t.AccessorID, ['readers']]);
    assert.ok((await sched.listAclTokens()).data.some((x) => x.AccessorID === t.AccessorID));
    assert.equal((await sched.readAclToken(t.AccessorID)).data.Name, 'ci');
    assert.equal((await sched.updateAclToken(t.AccessorID, { Name: 'ci-2', Type: 'client', Policies: ['readers'] })).Name, 'ci-2');
    await sched.deleteAclToken(t.AccessorID);
    await assert.rejects(client({ token: t.SecretID }).aclTokenSelf(), (e: unknown) => e instanceof SchedApiError && e.status === 403);
    await sched.deleteAclPolicy('readers');
    await assert.rejects(sched.readAclPolicy('readers'), (e: unknown) => e instanceof SchedApiError && e.status === 404);
  });

  it('auth methods: create, list stubs with an index, a blocking list woken by an update, read, Default kept, delete', async () => {
    const created = await sched.createAuthMethod({
      Name: 'ci',
      Type: 'JWT',
      TokenLocality: 'local',
      MaxTokenTTL: '10m',
      Default: true,
      Config: { JWTValidationPubKeys: [publicPem], BoundAudiences: ['cairn'], ClaimMappings: { sub: 'user' } },
    });
    assert.deepEqual([created.Name, created.Type, created.MaxTokenTTL, created.Default], ['ci', 'JWT', '10m0s', true]);
    const listed = await client().listAuthMethods();
    assert.deepEqual(
      listed.data.map((m) => [m.Name, m.Type, m.Default]),
      [['ci', 'JWT', true]],
    );
    assert.ok(listed.index >= created.ModifyIndex);
    const woken = sched.listAuthMethods({ index: listed.index, wait: '10s' });
    const updated = await sched.updateAuthMethod('ci', {
      Type: 'JWT',
      TokenLocality: 'local',
      MaxTokenTTL: '20m',
      Default: true,
      Config: created.Config ?? undefined,
    });
    assert.equal(updated.MaxTokenTTL, '20m0s');
    const after = await woken;
    assert.ok(after.index > listed.index, 'the blocking read returned after the change');
    const read = await sched.readAuthMethod('ci');
    assert.equal(read.data.Config?.BoundAudiences?.[0], 'cairn');
    assert.equal(read.index, updated.ModifyIndex);
    const notFound = await sched.readAuthMethod('nope').catch((e: unknown) => e);
    assert.ok(notFound instanceof SchedApiError);
    assert.deepEqual([notFound.status, notFound.message], [404, 'ACL auth-method not found']);
    const bad = await sched
      .createAuthMethod({ Name: 'bad name', Type: 'JWT', TokenLocality: 'local', MaxTokenTTL: '10m', Config: { JWKSURL: 'http://x' } })
      .catch((e: unknown) => e);
    assert.ok(bad instanceof SchedApiError);
    assert.equal(bad.status, 400);
    assert.match(bad.message, /^auth method 0 invalid: 1 error occurred:\n\t\* invalid name 'bad name'$/);
  });

  it('JWT login through a binding rule; a refused JWT is an API error', async () => {
    await sched.upsertAclPolicy({ Name: 'node-read', Rules: 'node { policy = "read" }' });
    const rule = await sched.createBindingRule({ AuthMethod: 'ci', Selector: 'value.user == "alice"', BindType: 'policy', BindName: 'node-read' });
    assert.equal((await sched.readBindingRule(rule.ID)).data.AuthMethod, 'ci');
    assert.ok((await sched.listBindingRules()).data.some((r) => r.ID === rule.ID));
    const t = await client().login({ AuthMethodName: 'ci', LoginToken: await sign({ sub: 'alice', aud: 'cairn' }) });
    assert.deepEqual([t.Type, t.Policies, t.ExpirationTTL], ['client', ['node-read'], '20m0s']);
    assert.equal((await client({ token: t.SecretID }).aclTokenSelf()).AccessorID, t.AccessorID);
    const bob = await client()
      .login({ AuthMethodName: 'ci', LoginToken: await sign({ sub: 'bob', aud: 'cairn' }) })
      .catch((e: unknown) => e);
    assert.ok(bob instanceof SchedApiError);
    assert.deepEqual([bob.status, bob.message], [400, 'no role or policy bindings matched']);
    const forged = await client()
      .login({ AuthMethodName: 'ci', LoginToken: 'x.y.z' })
      .catch((e: unknown) => e);
    assert.ok(forged instanceof SchedApiError && forged.status === 401, String(forged));
  });

  it("OIDC: auth-url, the provider, complete-auth with the callback's state and code", async () => {
    await sched.createAuthMethod({
      Name: 'corp',
      Type: 'OIDC',
      TokenLocality: 'global',
      MaxTokenTTL: '1h',
      Config: {
        OIDCDiscoveryURL: op.issuer,
        OIDCClientID: 'cairn',
        OIDCClientSecret: 'cairn-secret',
        AllowedRedirectURIs: [REDIRECT],
        OIDCScopes: ['groups'],
        ListClaimMappings: { groups: 'groups' },
      },
    });
    await sched.createBindingRule({ AuthMethod: 'corp', Selector: '"admins" in list.groups', BindType: 'management' });
    const { AuthURL } = await client().oidcAuthUrl({ AuthMethodName: 'corp', RedirectURI: REDIRECT, ClientNonce: 'n-1' });
    assert.equal(new URL(AuthURL).origin, op.issuer);
    const back = await op.browse(AuthURL);
    const t = await client().oidcCompleteAuth({
      AuthMethodName: 'corp',
      ClientNonce: 'n-1',
      RedirectURI: REDIRECT,
      State: back.searchParams.get('state')!,
      Code: back.searchParams.get('code')!,
    });
    assert.deepEqual([t.Type, t.Global], ['management', true]);
    assert.equal(Date.parse(t.ExpirationTime!) - Date.parse(t.CreateTime), 3_600_000);
  });

  it('nodes: list stubs and read one; a missing node is 404; namespaces', async () => {
    const id = '6a1f3c2e-0d4b-4e8a-9c7f-1b2d3e4f5a6b';
    const r = await call(a.url, 'PUT', '/v1/node/register', { token: ROOT, body: nodeBody(id, 'worker-1') });
    assert.equal(r.status, 200, r.text);
    const nodes = await sched.listNodes();
    assert.deepEqual(
      nodes.data.map((n) => [n.ID, n.Name, n.Status]),
      [[id, 'worker-1', 'initializing']],
    );
    assert.ok(nodes.index > 0);
    const n = await sched.readNode(id);
    assert.deepEqual([n.data.Datacenter, n.data.SecretID, n.data.Attributes?.['os.name']], ['dc1', undefined, 'linux']);
    await assert.rejects(sched.readNode('00000000-0000-4000-8000-000000000000'), (e: unknown) => e instanceof SchedApiError && e.status === 404);
    assert.ok((await sched.listNamespaces()).data.some((ns) => ns.Name === 'default'));
  });

  it('event stream: the backlog and new frames of the topics asked for, heartbeats skipped; abort ends quietly', async () => {
    const stop = new AbortController();
    const frames: SchedEventFrame[] = [];
    const id = '7b2e4d3f-1e5c-4f9b-8d80-2c3e4f5a6b7c';
    const reading = (async () => {
      for await (const f of sched.eventStream({ topics: { Node: [id] }, signal: stop.signal })) {
        frames.push(f);
        if (frames.length === 1) stop.abort();
      }
    })().then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.equal((await call(a.url, 'PUT', '/v1/node/register', { token: ROOT, body: nodeBody(id, 'worker-2') })).status, 200);
    assert.equal(await reading, undefined, 'an abort ends the iteration without an error');
    assert.equal(frames.length, 1);
    const [e] = frames[0].Events;
    assert.deepEqual([e.Topic, e.Type, e.Key], ['Node', 'NodeRegistration', id]);
    assert.equal((e.Payload.Node as { ID: string }).ID, id);
    assert.ok(frames[0].Index > 0);
    // Leaving the loop closes the connection too.
    for await (const f of sched.eventStream({ topics: { ACLToken: ['*'] } })) {
      assert.equal(f.Events[0].Topic, 'ACLToken');
      break;
    }
  });

  it("event stream: 403 before any frame without the right token; the server's end is a SchedStreamError", async () => {
    const denied = await (async () => {
      for await (const _ of client().eventStream({ topics: { ACLToken: [] } })) return 'frame';
      return 'end';
    })().catch((e: unknown) => e);
    assert.ok(denied instanceof SchedApiError);
    assert.deepEqual([denied.status, denied.message], [403, 'Permission denied']);
    const other = await startAgent();
    const c = new SchedClient({ address: other.url, token: ROOT });
    clients.push(c);
    const ended = (async () => {
      for await (const _ of c.eventStream({ topics: { Node: [] } })) continue;
    })().catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 200));
    await other.stop();
    const err = await ended;
    assert.ok(err instanceof SchedStreamError, String(err));
    assert.match(err.message, /^subscription closed by server, client should resubscribe: (server stopping|event broker shutting down)$/);
  });
});
