/**
 * `GET /v1/event/stream` end to end over real HTTP (spec 002 "Event stream", reference/sched.md
 * §3): frames for ACL, node and auth-method writes in index order; the allocation events a
 * user sees for jobs the scheduler places on a simulated node (`PlanResult`), a client status
 * report (`AllocationUpdated`) and an allocation stop (`AllocationUpdateDesiredStatus`, then
 * the scheduler's plan); topic, key and namespace filters; resuming inside and outside the buffer (the gap header); heartbeats; 403 before
 * any byte; streams ended when their token is deleted, loses a privilege or expires; a slow
 * reader cut off while the buffer stays bounded; no secret in any payload.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { LABEL, T } from '../../src/services/sched/state.js';
import { makeToken } from '../../src/services/sched/token.js';
import { call, clientToken, ROOT, startAgent, type TestAgent } from './helpers.js';
import { Stream, until, type Frame } from './stream.js';
import { allocsOf, group, job as wjob, putJob, settled, simNode } from './workloads.js';

/** A registration body; `meta` pads the node to make big events. */
function nodeBody(id: string, meta: Record<string, string> = {}): unknown {
  return { Node: { ID: id, SecretID: 'node-secret-' + id, Datacenter: 'dc1', Name: `n-${id.slice(0, 6)}`, Attributes: { 'os.name': 'linux' }, Meta: meta } };
}

/** A stored OIDC auth method with a client secret (the auth-method routes are another file's). */
function authMethod(name: string, secret: string): Record<string, unknown> {
  const now = new Date().toISOString();
  return {
    Name: name,
    Type: 'OIDC',
    TokenLocality: 'local',
    TokenNameFormat: '${auth_method_type}-${auth_method_name}',
    MaxTokenTTL: 3_600_000_000_000,
    Default: false,
    Config: {
      OIDCDiscoveryURL: 'https://idp.example',
      OIDCClientID: 'cairn',
      OIDCClientSecret: secret,
      AllowedRedirectURIs: ['http://localhost/cb'],
      ExpirationLeeway: 0,
      NotBeforeLeeway: 0,
      ClockSkewLeeway: 0,
    },
    Hash: 'h',
    CreateTime: now,
    ModifyTime: now,
  };
}

describe('scheduler event stream', () => {
  let a: TestAgent;
  /** `token` null: no token. */
  const req = (method: string, path: string, body?: unknown, token: string | null = ROOT) => call(a.url, method, path, { token: token ?? undefined, body });
  /** The index a stream starts at to see only what is written from now on. */
  const fromNow = () => `index=${a.state.index + 1}`;

  before(async () => {
    a = await startAgent();
    assert.equal((await req('PUT', '/v1/namespace/prod', { Name: 'prod' })).status, 200);
  });
  after(async () => {
    await a.stop();
  });

  it('streams ACL, node and auth-method changes in index order, without secrets', async () => {
    const s = await Stream.open(a.url, fromNow());
    assert.equal(s.res.status, 200);
    assert.equal(s.res.headers.get('content-type'), 'application/json');
    assert.equal(s.res.headers.get('cache-control'), 'no-cache');
    assert.equal(s.res.headers.get('x-sched-event-gap'), null);
    assert.deepEqual(await s.line(), {}, 'a heartbeat first');

    const nodeID = randomUUID();
    const { accessor, secret } = await clientToken(a.url, 'ev-reader', 'node { policy = "read" }');
    assert.equal((await req('PUT', '/v1/node/register', nodeBody(nodeID))).status, 200);
    assert.equal((await req('POST', `/v1/node/${nodeID}/status`, { Status: 'ready' })).status, 200);
    await a.state.txn((tx) => tx.put(T.authMethods, 'okta', authMethod('okta', 'oidc-client-secret-value')));
    const replicated = makeToken({ Name: 'from-authoritative', Type: 'client', Policies: ['ev-reader'], Global: true }, Date.now());
    await a.state.txn((tx) => tx.put(T.tokens, replicated.AccessorID, replicated), LABEL.replication);
    assert.equal((await req('DELETE', `/v1/acl/token/${accessor}`)).status, 200);
    await a.state.txn((tx) => tx.delete(T.authMethods, 'okta'));
    assert.equal((await req('POST', `/v1/node/${nodeID}/purge`)).status, 200);

    const events = await s.events(9);
    assert.deepEqual(
      events.map((e) => `${e.Topic}/${e.Type}`),
      [
        'ACLPolicy/ACLPolicyUpserted',
        'ACLToken/ACLTokenUpserted',
        'Node/NodeRegistration',
        'Node/NodeEvent',
        'ACLAuthMethod/ACLAuthMethodUpserted',
        'ACLToken/ACLTokenUpserted',
        'ACLToken/ACLTokenDeleted',
        'ACLAuthMethod/ACLAuthMethodDeleted',
        'Node/NodeDeregistration',
      ],
    );
    const indexes = events.map((e) => e.Index);
    assert.deepEqual(
      indexes,
      [...indexes].sort((x, y) => x - y),
    );
    assert.equal(new Set(indexes).size, indexes.length, 'one frame per write');

    const [policy, token, reg, status, method, repl, deleted, methodGone, purged] = events;
    assert.deepEqual(
      [policy!.Key, policy!.Namespace, policy!.FilterKeys, policy!.Payload.ACLPolicy.Rules],
      ['ev-reader', '', null, 'node { policy = "read" }'],
    );
    assert.deepEqual([token!.Key, token!.Payload.ACLToken.AccessorID, token!.Payload.ACLToken.SecretID], [accessor, accessor, '']);
    assert.deepEqual(
      [deleted!.Key, deleted!.Payload.ACLToken.SecretID, deleted!.Payload.ACLToken.Name],
      [accessor, '', 'ev-reader'],
      'a delete carries the object as it was',
    );
    assert.deepEqual([repl!.Key, repl!.Payload.ACLToken.SecretID], [replicated.AccessorID, ''], 'replicated writes make events too');
    assert.deepEqual(
      [reg!.Key, reg!.Namespace, reg!.FilterKeys, reg!.Payload.Node.ID, reg!.Payload.Node.Drain, reg!.Payload.Node.SecretID],
      [nodeID, '', null, nodeID, false, undefined],
    );
    assert.equal(status!.Payload.Node.Status, 'ready');
    assert.equal(purged!.Payload.Node.Status, 'ready', 'the purged node as it was');
    assert.deepEqual(
      [method!.Key, method!.Payload.AuthMethod.Name, method!.Payload.AuthMethod.Config.OIDCClientSecret, method!.Payload.AuthMethod.MaxTokenTTL],
      ['okta', 'okta', 'redacted', '1h0m0s'],
    );
    assert.equal(methodGone!.Payload.AuthMethod.Config.OIDCClientSecret, 'redacted');
    for (const hidden of [secret, replicated.SecretID, 'oidc-client-secret-value', `node-secret-${nodeID}`, ROOT])
      assert.ok(!s.raw.includes(hidden), `no secret on the wire: ${hidden}`);
    s.close();
  });

  it('filters by topic and key: Node, Node:*, Node:<id>, Allocation:<job ID>', async () => {
    const [n1, n2] = [randomUUID(), randomUUID()];
    const q = fromNow();
    const [node, nodeAll, one, job] = await Promise.all([
      Stream.open(a.url, `${q}&topic=Node`),
      Stream.open(a.url, `${q}&topic=Node:*`),
      Stream.open(a.url, `${q}&topic=Node:${n1}`),
      Stream.open(a.url, `${q}&topic=Allocation:web`),
    ]);
    await req('PUT', '/v1/node/register', nodeBody(n1));
    // n2 can run the jobs (ready, raw_exec); n1 cannot.
    await simNode(a.url, 'n2', { over: { ID: n2 } });
    await req('PUT', '/v1/acl/policy/unrelated', { Name: 'unrelated', Rules: 'node { policy = "read" }' });
    await settled(a, await putJob(a, wjob('api', [group('g', 1)])));
    await settled(a, await putJob(a, wjob('web', [group('g', 1)])));
    const [other] = await allocsOf(a.url, 'api');
    const [web] = await allocsOf(a.url, 'web');
    await req('POST', `/v1/node/${n1}/eligibility`, { Eligibility: 'ineligible' });

    for (const s of [node, nodeAll]) {
      assert.deepEqual(
        (await s.events(3)).map((e) => `${e.Key}/${e.Type}`),
        [`${n1}/NodeRegistration`, `${n2}/NodeRegistration`, `${n1}/NodeEligibility`],
      );
    }
    assert.deepEqual(
      (await one.events(2)).map((e) => `${e.Key}/${e.Type}`),
      [`${n1}/NodeRegistration`, `${n1}/NodeEligibility`],
      'only its key, nothing between',
    );
    // The scheduler's placement is a plan result (the reference's ApplyPlanResults), its payload the allocation without its job.
    const [alloc] = await job.events(1);
    assert.deepEqual(
      [
        alloc!.Key,
        alloc!.Type,
        alloc!.Namespace,
        alloc!.FilterKeys,
        alloc!.Payload.Allocation.JobID,
        alloc!.Payload.Allocation.NodeID,
        alloc!.Payload.Allocation.Job,
      ],
      // The service job's first version is a deployment (the default update strategy): its ID is the second filter key.
      [web!.ID, 'PlanResult', 'default', ['web', (await call(a.url, 'GET', '/v1/job/web/deployment', { token: ROOT })).json.ID], 'web', n2, null],
    );
    assert.notEqual(alloc!.Key, other!.ID);
    for (const s of [node, nodeAll, one, job]) s.close();
  });

  it('filters by namespace; `*` sees every namespace; a namespace token sees only its own; node events pass any namespace filter', async () => {
    const nodeID = randomUUID();
    await req('PUT', '/v1/node/register', nodeBody(nodeID));
    const prodReader = (await clientToken(a.url, 'ev-ns-prod-read', 'namespace "prod" { policy = "read" }')).secret;
    const q = `${fromNow()}&topic=Allocation&topic=Node`;
    const [def, prod, all, mine] = await Promise.all([
      Stream.open(a.url, q),
      Stream.open(a.url, `${q}&namespace=prod`),
      Stream.open(a.url, `${q}&namespace=*`),
      Stream.open(a.url, `${fromNow()}&topic=Allocation&namespace=prod`, prodReader),
    ]);
    await settled(a, await putJob(a, wjob('j', [group('g', 1)])));
    await settled(a, await putJob(a, wjob('j', [group('g', 1)], { Namespace: 'prod' })));
    const [inDefault] = (await req('GET', '/v1/job/j/allocations')).json;
    const [inProd] = (await req('GET', '/v1/job/j/allocations?namespace=prod')).json;
    assert.equal((await req('POST', `/v1/allocation/${inProd.ID}/client-status`, { ClientStatus: 'running' })).status, 200);
    const stop = await req('POST', `/v1/allocation/${inProd.ID}/stop`);
    assert.equal(stop.status, 200, stop.text);
    await settled(a, stop.json.EvalID);
    const replacement = (await req('GET', '/v1/job/j/allocations?namespace=prod')).json.find((x: { ID: string }) => x.ID !== inProd.ID);
    assert.ok(replacement, 'the scheduler placed a replacement');
    await req('POST', `/v1/node/${nodeID}/status`, { Status: 'ready' });

    assert.deepEqual(
      (await def.events(2)).map((e) => `${e.Namespace}/${e.Type}`),
      ['default/PlanResult', '/NodeEvent'],
    );
    // Placed (plan), reported running (client), asked to stop (Alloc.Stop), then one plan that stops it and places its replacement.
    const inProdEvents = await prod.events(5);
    assert.deepEqual(
      inProdEvents.map((e) => `${e.Namespace}/${e.Type}/${e.Key}`),
      [
        `prod/PlanResult/${inProd.ID}`,
        `prod/AllocationUpdated/${inProd.ID}`,
        `prod/AllocationUpdateDesiredStatus/${inProd.ID}`,
        `prod/PlanResult/${inProd.ID}`,
        `prod/PlanResult/${replacement!.ID}`,
        '/NodeEvent/' + nodeID,
      ],
    );
    const [placed, reported, asked, stopped, replaced] = inProdEvents;
    assert.deepEqual([placed!.Payload.Allocation.DesiredStatus, placed!.Payload.Allocation.ClientStatus], ['run', 'pending']);
    assert.equal(reported!.Payload.Allocation.ClientStatus, 'running');
    assert.deepEqual([asked!.Payload.Allocation.DesiredStatus, asked!.Payload.Allocation.DesiredTransition.Migrate], ['run', true]);
    assert.deepEqual([stopped!.Payload.Allocation.DesiredStatus, stopped!.Payload.Allocation.DesiredDescription], ['stop', 'alloc is being migrated']);
    assert.deepEqual([replaced!.Payload.Allocation.PreviousAllocation, replaced!.Payload.Allocation.DesiredStatus], [inProd.ID, 'run']);
    assert.deepEqual(
      (await mine.events(4)).map((e) => `${e.Namespace}/${e.Type}/${e.Key}`),
      inProdEvents.slice(0, 5).map((e) => `${e.Namespace}/${e.Type}/${e.Key}`),
      'a token of the prod namespace sees the prod events',
    );
    const everything = await all.events(6);
    assert.deepEqual(
      everything.map((e) => e.Key),
      [inDefault.ID, inProd.ID, inProd.ID, inProd.ID, inProd.ID, replacement!.ID, nodeID],
    );
    assert.equal(everything.at(-1)!.Topic, 'Node');
    for (const s of [def, prod, all, mine]) s.close();
  });

  it('refuses before the first byte: 400 for a bad query, 403 for a topic the token may not read', async () => {
    const nodeReader = await clientToken(a.url, 'ev-node-read', 'node { policy = "read" }');
    const prodReader = await clientToken(a.url, 'ev-prod-read', 'namespace "prod" { policy = "read" }');
    const expect = async (query: string, token: string | null, status: number, text: string) => {
      const r = await fetch(`${a.url}/v1/event/stream?${query}`, { headers: token ? { 'X-Sched-Token': token } : {} });
      assert.deepEqual([r.status, await r.text(), r.headers.get('content-type')], [status, text, 'text/plain; charset=utf-8'], `${query} as ${token}`);
    };
    await expect('index=abc', ROOT, 400, 'Unable to parse index: strconv.Atoi: parsing "abc": invalid syntax');
    await expect('index=99999999999999999999', ROOT, 400, 'Unable to parse index: strconv.Atoi: parsing "99999999999999999999": value out of range');
    await expect('topic=Node:a:b', ROOT, 400, 'Invalid topic query: error parsing topics: Invalid key value pair for topic, topic: Node:a:b');
    for (const query of ['topic=Allocation', 'topic=ACLToken', 'topic=NodePool', 'topic=Whatever', '', 'topic=*', 'topic=Node&topic=Job']) {
      await expect(query, nodeReader.secret, 403, 'Permission denied');
    }
    await expect('topic=Node', null, 403, 'Permission denied');
    await expect('topic=Node', randomUUID(), 403, 'Permission denied');
    await expect('topic=Allocation', prodReader.secret, 403, 'Permission denied');
    await expect('topic=Allocation&namespace=*', prodReader.secret, 403, 'Permission denied');

    const ok = [
      await Stream.open(a.url, 'topic=Node', nodeReader.secret),
      await Stream.open(a.url, 'topic=Job&topic=Allocation&namespace=prod', prodReader.secret),
    ];
    for (const s of ok) {
      assert.equal(s.res.status, 200);
      assert.deepEqual(await s.line(), {});
      s.close();
    }
  });

  it('ends a stream when its token is deleted, loses the privilege, or expires', async () => {
    const revoked = await clientToken(a.url, 'ev-revoked', 'node { policy = "read" }');
    const narrowed = await clientToken(a.url, 'ev-narrowed', 'node { policy = "read" }');
    const [s1, s2] = [await Stream.open(a.url, 'topic=Node', revoked.secret), await Stream.open(a.url, 'topic=Node', narrowed.secret)];
    assert.deepEqual([await s1.line(), await s2.line()], [{}, {}]);

    assert.equal((await req('DELETE', `/v1/acl/token/${revoked.accessor}`)).status, 200);
    assert.deepEqual(await s1.end(), { Error: 'subscription closed by server, client should resubscribe: token revoked' });
    assert.equal((await req('PUT', '/v1/acl/policy/ev-narrowed', { Name: 'ev-narrowed', Rules: 'agent { policy = "read" }' })).status, 200);
    assert.deepEqual(await s2.end(), { Error: 'subscription closed by server, client should resubscribe: Permission denied' });
    assert.equal(a.broker!.closeByToken(revoked.accessor) + a.broker!.closeByToken(narrowed.accessor), 0, 'nothing left registered under either token');

    // A token that expires while its stream is quiet (written directly: the API's minimum TTL is 1 minute).
    const short = makeToken({ Name: 'short', Type: 'management', ttlNs: 600e6 }, Date.now());
    await a.state.txn((tx) => tx.put(T.tokens, short.AccessorID, short));
    const s3 = await Stream.open(a.url, 'topic=Node', short.SecretID);
    assert.equal(s3.res.status, 200);
    assert.deepEqual(await s3.end(3000), { Error: 'ACL token expired' });
  });

  it('ends a `namespace=*` stream when a namespace it may not read is created', async () => {
    const both = await clientToken(a.url, 'ev-both', 'namespace "default" { policy = "read" }\nnamespace "prod" { policy = "read" }');
    const s = await Stream.open(a.url, 'topic=Allocation&namespace=*', both.secret);
    assert.equal(s.res.status, 200);
    assert.deepEqual(await s.line(), {});
    assert.equal((await req('PUT', '/v1/namespace/secret-team', { Name: 'secret-team' })).status, 200);
    assert.deepEqual(await s.end(), { Error: 'subscription closed by server, client should resubscribe: Permission denied' });
    const again = await fetch(`${a.url}/v1/event/stream?topic=Allocation&namespace=*`, { headers: { 'X-Sched-Token': both.secret } });
    assert.deepEqual([again.status, await again.text()], [403, 'Permission denied']);
  });
});

describe('scheduler event stream buffer, heartbeat and lifecycle', () => {
  it('resumes from an index inside the buffer, and shows a gap for one outside it', async () => {
    const a = await startAgent({ eventBufferSize: 3 });
    try {
      const id = randomUUID();
      const indexes: number[] = [];
      for (let i = 0; i < 6; i++) {
        const r = await call(a.url, 'PUT', '/v1/node/register', { token: ROOT, body: nodeBody(id, { round: String(i) }) });
        indexes.push(r.json.Index);
      }
      assert.equal(a.broker!.bufferedBatches, 3);
      const inside = await Stream.open(a.url, `topic=Node&index=${indexes[4]}`);
      assert.equal(inside.res.headers.get('x-sched-event-gap'), null);
      assert.deepEqual(
        (await inside.events(2)).map((e) => e.Index),
        [indexes[4], indexes[5]],
        'the requested index is sent again (inclusive)',
      );
      const outside = await Stream.open(a.url, `topic=Node&index=${indexes[0]}`);
      assert.equal(outside.res.status, 200);
      assert.equal(outside.res.headers.get('x-sched-event-gap'), String(indexes[3]));
      assert.deepEqual(
        (await outside.events(3)).map((e) => e.Payload.Node.Meta.round),
        ['3', '4', '5'],
      );
      const replay = await Stream.open(a.url, 'topic=Node&index=0');
      assert.equal(replay.res.headers.get('x-sched-event-gap'), null, 'index 0 asks for no batch in particular');
      assert.equal((await replay.frame())!.Index, indexes[3]);
      const live = await Stream.open(a.url, 'topic=Node&index=-1');
      await call(a.url, 'POST', `/v1/node/${id}/status`, { token: ROOT, body: { Status: 'ready' } });
      assert.equal((await live.events(1))[0]!.Type, 'NodeEvent', 'a negative index starts with the next write');
      for (const s of [inside, outside, replay, live]) s.close();
    } finally {
      await a.stop();
    }
  });

  it('sends a heartbeat at once and then every eventHeartbeatMs; ends streams when the agent stops', async () => {
    const a = await startAgent({ eventHeartbeatMs: 40 });
    let stopped = false;
    try {
      const s = await Stream.open(a.url, 'topic=Node');
      const started = Date.now();
      for (let i = 0; i < 4; i++) assert.deepEqual(await s.line(1000), {});
      const took = Date.now() - started;
      assert.ok(took >= 100 && took < 1000, `three periods of 40 ms took ${took} ms`);
      await a.stop();
      stopped = true;
      const last = await s.end();
      assert.match(last?.Error ?? '', /^subscription closed by server, client should resubscribe: /);
      assert.ok(s.ended);
    } finally {
      if (!stopped) await a.stop();
    }
  });

  it('cuts a reader that falls behind the buffer; the server keeps only the buffer', async () => {
    const a = await startAgent({ eventBufferSize: 4 });
    try {
      const id = randomUUID();
      const first = (await call(a.url, 'PUT', '/v1/node/register', { token: ROOT, body: nodeBody(id) })).json.Index;
      // A raw HTTP/1.0 client (no chunking) that reads the headers and then stops reading.
      const { hostname, port } = new URL(a.url);
      const sock = connect(Number(port), hostname);
      const chunks: Buffer[] = [];
      sock.on('data', (c: Buffer) => chunks.push(c));
      sock.write(`GET /v1/event/stream?topic=Node&index=${first + 1} HTTP/1.0\r\nX-Sched-Token: ${ROOT}\r\n\r\n`);
      await until(() => Buffer.concat(chunks).includes('\r\n\r\n{}\n'), 5000, 'the stream to start');
      sock.pause();
      // 'close', not 'end': a socket the server had to destroy ends with a reset, and the assertions below say so.
      sock.on('error', () => {});
      const ended = new Promise<void>((resolve) => sock.once('close', () => resolve()));
      assert.equal(a.broker!.subscriptionCount, 1);

      // ~16 MiB of events, far more than the socket buffers hold.
      const pad = 'x'.repeat(256 * 1024);
      let published = 0;
      let lastIndex = 0;
      // The client reads again as soon as it is cut: the server destroys a cut stream's socket
      // STREAM_END_GRACE_MS after its last line, so a reader that waits longer loses the tail.
      const resumeOnceCut = () => {
        if (a.broker!.subscriptionCount === 0 && sock.isPaused()) sock.resume();
      };
      for (let i = 0; i < 64; i++) {
        const r = await call(a.url, 'PUT', '/v1/node/register', { token: ROOT, body: nodeBody(id, { pad, round: String(i) }) });
        assert.equal(r.status, 200);
        published += pad.length;
        lastIndex = r.json.Index;
        assert.ok(a.broker!.bufferedBatches <= 4, 'the buffer never holds more than its size');
        resumeOnceCut();
      }
      await until(() => a.broker!.subscriptionCount === 0, 10_000, 'the slow subscription to be cut');
      resumeOnceCut();
      await ended;
      const text = Buffer.concat(chunks).toString('utf8');
      assert.match(text, /^HTTP\/1\.1 200 OK\r\n/);
      const body = text.slice(text.indexOf('\r\n\r\n') + 4);
      // What the client gets is what sat in socket buffers when it stopped reading, not the whole history.
      assert.ok(body.length < published * 0.75, `received ${body.length} bytes of ${published} published`);
      const lines = body
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as Frame);
      const end = lines.at(-1)!;
      const m = /^event dropped from buffer: the subscriber fell behind the buffered events and was closed; resubscribe with index=(\d+)$/.exec(
        end.Error ?? '',
      );
      assert.ok(m, JSON.stringify(end).slice(0, 300));
      const delivered = lines.filter((l) => l.Index !== undefined).map((l) => l.Index!);
      assert.ok(delivered.length < 64, `${delivered.length} of 64 batches delivered`);
      const resume = Number(m[1]);
      assert.equal(resume, (delivered.at(-1) ?? first) + 1, 'resume right after the last batch delivered');
      assert.ok(resume < lastIndex);
    } finally {
      await a.stop();
    }
  });

  it('answers 500 `EventBroker not configured` when the broker is off', async () => {
    const a = await startAgent({ eventBroker: false });
    try {
      const r = await call(a.url, 'GET', '/v1/event/stream', { token: ROOT });
      assert.deepEqual([r.status, r.text], [500, 'EventBroker not configured']);
    } finally {
      await a.stop();
    }
  });

  it('streams to anyone with ACLs disabled', async () => {
    const a = await startAgent({ acl: { enabled: false } }, { root: null });
    try {
      const s = await Stream.open(a.url, '', null);
      assert.equal(s.res.status, 200);
      await call(a.url, 'PUT', '/v1/node/register', { body: nodeBody(randomUUID()) });
      assert.equal((await s.events(1))[0]!.Type, 'NodeRegistration');
      s.close();
    } finally {
      await a.stop();
    }
  });
});
