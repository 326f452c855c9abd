/**
 * The route declaration of the discovery service and the scheduler (api-service.ts): an
 * operation without an access rule stops start-up; the kernel checks the rule before the
 * handler, hands the handler the caller, forwards `primary` operations first (where a
 * function of the request says so); `PUBLIC` operations resolve no caller; a blocking read's
 * bad query is a 400 before the rule, and its rule is checked before its wait, or after it
 * where the service says so.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import { SqliteBackend, StateStore } from '../store/index.js';
import { decodeGoStruct } from '../util/go-struct.js';
import { Go, goStructOf } from '../util/go-schema.js';
import { PUBLIC, withBody, type ApiConventions, type ApiRoute } from './api-route.js';
import { apiHttpService } from './api-service.js';
import { CairnError } from './errors.js';
import type { HttpRequest, HttpResponse } from './server.js';

/** The test service's rule: a named permission; its caller: the token's secret. */
type Rule = { readonly permission: string };

const dir = mkdtempSync(join(tmpdir(), 'cairn-api-service-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const backend = SqliteBackend.open({ path: join(dir, 'state.db') });
after(() => backend.close());
const state = await StateStore.open(backend, [{ name: 't' }, { name: 'empty' }]);

/** Tokens and what each may do. */
const GRANTS: Readonly<Record<string, readonly string[]>> = { reader: ['read'], writer: ['read', 'write'] };

function conventions(primary?: () => Promise<HttpResponse> | undefined): ApiConventions<Rule, string> {
  return {
    tokenOf: (req) => (typeof req.headers['x-token'] === 'string' ? req.headers['x-token'] : undefined),
    authorize(rule, ctx) {
      const grants = ctx.secret === undefined ? undefined : GRANTS[ctx.secret];
      if (!grants) throw new CairnError('forbidden', 'ACL not found');
      if (!grants.includes(rule.permission)) throw new CairnError('forbidden', 'Permission denied');
      return ctx.secret!;
    },
    primary: primary && (() => primary()),
    query: { pretty: Type.String() },
    readQuery: { stale: Type.String() },
    notFound: () => ({ status: 404, body: 'no route' }),
    methodNotAllowed: (method) => ({ status: 405, body: `method ${method} not allowed` }),
    wait: { defaultMs: 1000, maxMs: 1000 },
    consistency: () => 'default',
    pretty: () => false,
    queryMeta: (index) => ({ 'X-Index': String(index) }),
    decodeError: (why) => why,
  };
}

function request(method: string, path: string, token?: string): HttpRequest {
  const [p, q] = path.split('?');
  return {
    id: 'r1',
    method,
    path: p!,
    query: new URLSearchParams(q),
    headers: token ? { 'x-token': token } : {},
    body: Buffer.alloc(0),
    remoteAddress: '127.0.0.1',
    tls: false,
  };
}

/** Runs one request, rendering a thrown CairnError as the dispatcher's caller would. */
async function call(routes: readonly ApiRoute<undefined, Rule, string>[], req: HttpRequest, conv = conventions()): Promise<HttpResponse> {
  const service = apiHttpService({ routes, deps: undefined, state, conventions: conv });
  try {
    return await service.handle(req);
  } catch (err) {
    if (err instanceof CairnError) return service.renderError(err, req);
    throw err;
  }
}

describe('api-service route declarations', () => {
  const handled: string[] = [];
  const routes: readonly ApiRoute<undefined, Rule, string>[] = [
    {
      pattern: 'things/:name',
      synopsis: 'one thing',
      methods: {
        GET: { access: { permission: 'read' }, handle: async (ctx) => (handled.push(`read by ${ctx.caller}`), { body: { name: ctx.params.name } }) },
        // The rule depends on the request, as a discovery KV key's does.
        PUT: {
          access: (ctx) => ({ permission: ctx.params.name === 'open' ? 'read' : 'write' }),
          handle: async (ctx) => (handled.push(`write by ${ctx.caller}`), { body: true }),
        },
      },
    },
    {
      pattern: 'status',
      synopsis: 'status',
      methods: {
        GET: {
          access: PUBLIC,
          handle: async (ctx) => ({
            body: {
              caller: (() => {
                try {
                  return ctx.caller;
                } catch (err) {
                  return (err as Error).message;
                }
              })(),
            },
          }),
        },
      },
    },
  ];

  it('refuses to start a table with an operation that declares no access rule, naming it', () => {
    const bad = [{ pattern: 'x', synopsis: 'x', methods: { GET: { handle: async () => ({ body: 1 }) } } }] as unknown as ApiRoute<undefined, Rule, string>[];
    assert.throws(() => apiHttpService({ routes: bad, deps: undefined, state, conventions: conventions() }), /route GET \/v1\/x: no access rule/);
  });

  it('checks the rule before the handler and hands it the caller', async () => {
    handled.length = 0;
    assert.equal((await call(routes, request('GET', '/v1/things/a'))).status, 403);
    assert.equal((await call(routes, request('GET', '/v1/things/a', 'made-up'))).body, 'ACL not found');
    const denied = await call(routes, request('PUT', '/v1/things/a', 'reader'));
    assert.deepEqual([denied.status, denied.body], [403, 'Permission denied']);
    assert.deepEqual(handled, [], 'no handler ran for a refused request');
    const read = await call(routes, request('GET', '/v1/things/a', 'reader'));
    assert.deepEqual([read.status, JSON.parse(String(read.body))], [200, { name: 'a' }]);
    assert.equal((await call(routes, request('PUT', '/v1/things/open', 'reader'))).status, 200);
    assert.equal((await call(routes, request('PUT', '/v1/things/a', 'writer'))).status, 200);
    assert.deepEqual(handled, ['read by reader', 'write by reader', 'write by writer']);
  });

  it('serves a PUBLIC operation without a token, with no caller', async () => {
    const r = await call(routes, request('GET', '/v1/status', 'made-up'));
    assert.equal(r.status, 200);
    assert.match(JSON.parse(String(r.body)).caller, /a PUBLIC operation has no caller/);
  });

  it('forwards a primary operation before its rule is checked, and runs it where the primary says it is here', async () => {
    const forwarded = { status: 201, headers: {}, body: 'from the primary' };
    const primaryRoutes: readonly ApiRoute<undefined, Rule, string>[] = [
      {
        pattern: 'acl/policy',
        synopsis: 'p',
        methods: { PUT: { access: { permission: 'write' }, forward: 'primary', handle: async () => ({ body: 'here' }) } },
      },
    ];
    const away = await call(
      primaryRoutes,
      request('PUT', '/v1/acl/policy'),
      conventions(async () => forwarded),
    );
    assert.deepEqual(away, forwarded);
    const here = await call(
      primaryRoutes,
      request('PUT', '/v1/acl/policy', 'writer'),
      conventions(() => undefined),
    );
    assert.equal(here.body, '"here"');
    assert.equal(
      (
        await call(
          primaryRoutes,
          request('PUT', '/v1/acl/policy'),
          conventions(() => undefined),
        )
      ).status,
      403,
    );
  });

  it('decides where an operation runs from the request when its forward is a function, which may answer 400 first', async () => {
    const forwarded = { status: 201, headers: {}, body: 'from the primary' };
    const decided: readonly ApiRoute<undefined, Rule, string>[] = [
      {
        pattern: 'acl/token',
        synopsis: 't',
        methods: {
          PUT: {
            access: { permission: 'write' },
            query: { global: Type.Boolean() },
            forward: (ctx) => {
              if (!ctx.query.has('global')) throw new CairnError('bad_request', 'say where');
              return ctx.query.get('global') === 'true' ? 'primary' : undefined;
            },
            handle: async () => ({ body: 'here' }),
          },
        },
      },
    ];
    const conv = conventions(async () => forwarded);
    assert.deepEqual(await call(decided, request('PUT', '/v1/acl/token?global=true'), conv), forwarded);
    assert.equal((await call(decided, request('PUT', '/v1/acl/token?global=false', 'writer'), conv)).body, '"here"');
    const bad = await call(decided, request('PUT', '/v1/acl/token'), conv);
    assert.deepEqual([bad.status, bad.body], [400, 'say where']);
  });

  it("answers a blocking read's bad ?wait or ?index with 400 before its access rule", async () => {
    const blocking: readonly ApiRoute<undefined, Rule, string>[] = [
      { pattern: 'watched', synopsis: 'w', blocking: ['t'], methods: { GET: { access: { permission: 'read' }, handle: async () => ({ body: 1, index: 1 }) } } },
    ];
    for (const q of ['wait=soon', 'index=x']) {
      const r = await call(blocking, request('GET', `/v1/watched?${q}`, 'made-up'));
      assert.equal(r.status, 400, q);
    }
    assert.equal((await call(blocking, request('GET', '/v1/watched?index=0', 'made-up'))).status, 403);
  });

  it('refuses a blocking read at once, and again after its wait where the service checks access on the state it answers from', async () => {
    const blocking: readonly ApiRoute<undefined, Rule, string>[] = [
      { pattern: 'watched', synopsis: 'w', blocking: ['t'], methods: { GET: { access: { permission: 'read' }, handle: async () => ({ body: 1, index: 1 }) } } },
    ];
    // `fading` may read until its right is taken away during the wait.
    const rights = new Set(['fading']);
    const conv = (accessAfterWait: boolean): ApiConventions<Rule, string> => ({
      ...conventions(),
      accessAfterWait,
      authorize: (_rule, ctx) => {
        if (!ctx.secret || !rights.has(ctx.secret)) throw new CairnError('forbidden', 'Permission denied');
        return ctx.secret;
      },
    });
    const timed = async (c: ApiConventions<Rule, string>, token: string) => {
      const started = Date.now();
      const r = await call(blocking, request('GET', '/v1/watched?index=5&wait=200ms', token), c);
      return { status: r.status, ms: Date.now() - started };
    };
    for (const after of [false, true]) {
      const madeUp = await timed(conv(after), 'made-up');
      assert.equal(madeUp.status, 403);
      assert.ok(madeUp.ms < 150, `a made-up token refused after ${madeUp.ms} ms, not kept waiting`);
    }
    setTimeout(() => rights.delete('fading'), 50);
    assert.equal((await timed(conv(true), 'fading')).status, 403, 'checked again on the state after the wait');
    rights.add('fading');
    setTimeout(() => rights.delete('fading'), 50);
    assert.equal((await timed(conv(false), 'fading')).status, 200, 'checked before the wait only');
  });

  it('never answers a blocking read with index 0, so a watcher of an empty table waits instead of polling', async () => {
    const routes: readonly ApiRoute<undefined, Rule, string>[] = [
      {
        pattern: 'empty',
        synopsis: 'e',
        blocking: ['empty'],
        methods: { GET: { access: { permission: 'read' }, handle: async () => ({ body: [], index: state.tableIndex('empty') }) } },
      },
      { pattern: 'plain', synopsis: 'p', methods: { GET: { access: { permission: 'read' }, handle: async () => ({ body: [], index: 0 }) } } },
    ];
    const first = await call(routes, request('GET', '/v1/empty', 'reader'));
    assert.equal(first.headers?.['X-Index'], '1');
    const started = Date.now();
    const next = await call(routes, request('GET', '/v1/empty?index=1&wait=200ms', 'reader'));
    assert.equal(next.status, 200);
    assert.ok(Date.now() - started >= 190, `the index it answered blocks: ${Date.now() - started} ms`);
    assert.equal((await call(routes, request('GET', '/v1/plain', 'reader'))).headers?.['X-Index'], '0', 'a read that cannot block reports its index as it is');
  });

  it('renders once for the blocking reads one change wakes together, per token and query, and anew after', async () => {
    const renders: string[] = [];
    const watched: readonly ApiRoute<undefined, Rule, string>[] = [
      {
        pattern: 'watched',
        synopsis: 'w',
        blocking: ['t'],
        methods: {
          GET: {
            access: { permission: 'read' },
            handle: async (ctx) => {
              renders.push(ctx.caller);
              return { body: { caller: ctx.caller, render: renders.length }, index: state.tableIndex('t') };
            },
          },
        },
      },
    ];
    const service = apiHttpService({ routes: watched, deps: undefined, state, conventions: conventions() });
    const read = (token: string, extra = '') => service.handle(request('GET', `/v1/watched?index=${state.tableIndex('t') || 1}&wait=5s${extra}`, token));
    const change = () => state.txn((tx) => tx.put('t', `k${Date.now()}`, { at: Date.now() }));
    await change();
    const pending = [read('reader'), read('reader'), read('reader'), read('writer'), read('reader', '&stale')];
    await new Promise((r) => setTimeout(r, 50));
    await change();
    const replies = (await Promise.all(pending)).map((r) => JSON.parse(String(r.body)) as { caller: string; render: number });
    assert.equal(renders.length, 3, `one rendering per token and query: ${JSON.stringify(renders)}`);
    assert.deepEqual(new Set(replies.slice(0, 3).map((r) => r.render)).size, 1, 'the three alike share one');
    assert.deepEqual(
      replies.map((r) => r.caller),
      ['reader', 'reader', 'reader', 'writer', 'reader'],
    );
    // The next change renders again.
    const next = read('reader');
    await new Promise((r) => setTimeout(r, 50));
    await change();
    assert.equal((JSON.parse(String((await next).body)) as { render: number }).render, 4);
  });

  it('decodes a declared body before the access rule, hands the rule and the handler the decoded fields, and shows it in the OpenAPI document', async () => {
    const Thing = Go.struct('Thing', { Name: Go.string(), Ttl: Go.duration(), Tags: Go.strings() });
    const seen: unknown[] = [];
    const declared: readonly ApiRoute<undefined, Rule, string>[] = [
      {
        pattern: 'thing',
        synopsis: 't',
        methods: {
          PUT: withBody(Thing, {
            // The rule reads the decoded body: the body is decoded once, before it.
            access: (ctx) => ({ permission: ctx.input<{ Name: string }>()?.Name === 'open' ? 'read' : 'write' }),
            handle: async (_ctx, input) => (seen.push(input), { body: input?.Ttl ?? null }),
          }),
        },
      },
    ];
    const conv: ApiConventions<Rule, string> = {
      ...conventions(),
      decodeBody: (schema, value) => decodeGoStruct(value, goStructOf(schema), { typePrefix: 'structs.', error: (m) => new CairnError('bad_request', m) }),
    };
    const put = (body: unknown, token?: string) => call(declared, { ...request('PUT', '/v1/thing', token), body: Buffer.from(JSON.stringify(body)) }, conv);
    const bad = await put({ Name: 1 });
    assert.deepEqual(
      [bad.status, bad.body],
      [400, 'json: cannot unmarshal number into Go struct field Thing.Name of type string'],
      'a bad body is a 400 before the 403',
    );
    assert.deepEqual([(await put([])).status, (await put([])).body], [400, 'json: cannot unmarshal array into Go value of type structs.Thing']);
    assert.equal((await put({ Name: 'shut' }, 'reader')).status, 403);
    const ok = await put({ name: 'open', TTL: '2s' }, 'reader');
    assert.deepEqual([ok.status, ok.body], [200, '2000000000']);
    assert.deepEqual(seen, [{ Name: 'open', Ttl: 2e9, Tags: null }]);

    // The text for a body that is not JSON names it as the operation says (`bodyKind`).
    const kinded: readonly ApiRoute<undefined, Rule, string>[] = [
      { pattern: 'thing', synopsis: 't', methods: { PUT: withBody(Thing, { bodyKind: 'Thing', access: { permission: 'read' }, handle: async () => ({}) }) } },
    ];
    const named = { ...conv, decodeError: (why: string, kind: string | undefined) => `${kind ?? 'Body'} decoding failed: ${why}` };
    const raw = await call(kinded, { ...request('PUT', '/v1/thing', 'reader'), body: Buffer.from('{"Name":') }, named);
    assert.equal(raw.status, 400);
    assert.match(String(raw.body), /^Thing decoding failed: /);

    const service = apiHttpService({
      routes: declared,
      deps: undefined,
      state,
      conventions: conv,
      openapi: { pattern: 'openapi', info: { title: 't', version: '1', description: 'd' } },
    });
    const doc = JSON.parse(String((await service.handle(request('GET', '/v1/openapi'))).body));
    const schema = doc.paths['/thing'].put.requestBody.content['application/json'].schema;
    assert.deepEqual(Object.keys(schema.properties), ['Name', 'Ttl', 'Tags']);
    assert.throws(
      () => apiHttpService({ routes: declared, deps: undefined, state, conventions: conventions() }),
      /route PUT \/v1\/thing: declares a body, but the service decodes none/,
    );
  });

  it("hands a handler only the query parameters its operation, its service and a read's kind declare, and documents them", async () => {
    const seen: string[] = [];
    const declared: readonly ApiRoute<undefined, Rule, string>[] = [
      {
        pattern: 'things',
        synopsis: 't',
        blocking: ['t'],
        methods: {
          GET: {
            access: PUBLIC,
            query: { prefix: Type.String({ description: 'Name prefix.' }) },
            handle: async (ctx) => (seen.push(ctx.query.toString()), { body: 1, index: 1 }),
          },
          PUT: { access: PUBLIC, query: { cas: Type.Integer() }, handle: async (ctx) => (seen.push(ctx.query.toString()), { body: 1 }) },
        },
      },
    ];
    const service = apiHttpService({
      routes: declared,
      deps: undefined,
      state,
      conventions: conventions(),
      openapi: { pattern: 'openapi', info: { title: 't', version: '1', description: 'd' } },
    });
    await service.handle(request('GET', '/v1/things?prefix=a&cas=1&index=0&stale&pretty&secret=x'));
    await service.handle(request('PUT', '/v1/things?prefix=a&cas=1&index=0&stale&pretty'));
    assert.deepEqual(seen, ['prefix=a&index=0&stale=&pretty=', 'cas=1&pretty=']);
    const doc = JSON.parse(String((await service.handle(request('GET', '/v1/openapi'))).body));
    const names = (op: { parameters: { name: string }[] }) => op.parameters.map((p) => p.name).sort();
    assert.deepEqual(names(doc.paths['/things'].get), ['index', 'prefix', 'pretty', 'stale', 'wait']);
    assert.deepEqual(names(doc.paths['/things'].put), ['cas', 'pretty']);
    assert.equal(doc.paths['/things'].get.parameters.find((p: { name: string }) => p.name === 'prefix').description, 'Name prefix.');
  });

  it('decodes a declared body once, early when a forward function reads it: its 400 comes before forwarding', async () => {
    const Thing = Go.struct('Thing', { Name: Go.string() });
    let decodes = 0;
    const routes: readonly ApiRoute<undefined, Rule, string>[] = [
      {
        pattern: 'thing',
        synopsis: 't',
        methods: {
          PUT: withBody(Thing, {
            access: { permission: 'write' },
            forward: (ctx) => (ctx.input<{ Name: string }>()?.Name === 'far' ? 'primary' : undefined),
            handle: async (_ctx, input) => ({ body: input?.Name ?? null }),
          }),
        },
      },
    ];
    const conv: ApiConventions<Rule, string> = {
      ...conventions(async () => ({ status: 201, headers: {}, body: 'from the primary' })),
      decodeBody: (schema, value) => {
        decodes++;
        return decodeGoStruct(value, goStructOf(schema), { typePrefix: '', error: (m) => new CairnError('bad_request', m) });
      },
    };
    const put = (body: unknown) => call(routes, { ...request('PUT', '/v1/thing', 'writer'), body: Buffer.from(JSON.stringify(body)) }, conv);
    const bad = await put({ Name: 1 });
    assert.deepEqual([bad.status, bad.body], [400, 'json: cannot unmarshal number into Go struct field Thing.Name of type string']);
    const far = await put({ Name: 'far' });
    assert.deepEqual([far.status, far.body], [201, 'from the primary']);
    decodes = 0;
    const near = await put({ name: 'near' });
    assert.deepEqual([near.status, near.body, decodes], [200, '"near"', 1], 'decoded once for the forward function, the rule and the handler');
  });
});

describe('api-service root routes', () => {
  const routes: ApiRoute<undefined, Rule, string>[] = [
    {
      pattern: '.well-known/doc.json',
      synopsis: 'a well-known document',
      root: true,
      methods: { GET: { access: PUBLIC, handle: async () => ({ body: { ok: 1 } }) } },
    },
    { pattern: 'plain', synopsis: 'an API route', methods: { GET: { access: PUBLIC, handle: async () => ({ body: 'api' }) } } },
  ];

  it('serves a root route at /<pattern> and not under /v1/, and API routes only under /v1/', async () => {
    const root = await call(routes, request('GET', '/.well-known/doc.json'));
    assert.equal(root.status, 200);
    assert.equal(root.body, '{"ok":1}');
    assert.equal((await call(routes, request('GET', '/v1/.well-known/doc.json'))).status, 404);
    assert.equal((await call(routes, request('GET', '/plain'))).status, 404);
    assert.equal((await call(routes, request('GET', '/v1/plain'))).status, 200);
    assert.equal((await call(routes, request('PUT', '/.well-known/doc.json'))).status, 405);
  });

  it('leaves root routes out of the OpenAPI document', async () => {
    const service = apiHttpService({
      routes,
      deps: undefined,
      state,
      conventions: conventions(),
      openapi: { pattern: 'openapi.json', info: { title: 't', description: 'd', version: '1' } },
    });
    const doc = JSON.parse(String((await service.handle(request('GET', '/v1/openapi.json'))).body)) as { paths: Record<string, unknown> };
    assert.deepEqual(Object.keys(doc.paths).sort(), ['/openapi.json', '/plain']);
  });
});
