import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { selfSignedCert } from '../kernel/http/testdata/self-signed.js';
import { SecretsApiError, SecretsClient, SecretsConnectionError } from './index.js';
import { envelope, startFakeServer, type FakeServer } from './testing/fake-server.js';

describe('SecretsClient over HTTP', () => {
  let server: FakeServer;
  let client: SecretsClient;

  before(async () => {
    server = await startFakeServer();
    client = new SecretsClient({ address: `${server.url}/`, token: 'tok-1', namespace: 'ns1/' });
  });
  after(async () => {
    await client.close();
    await server.close();
  });

  const last = () => server.requests[server.requests.length - 1];

  it('sends the request marker, token and namespace headers and JSON bodies', async () => {
    server.handle(() => ({ status: 204 }));
    assert.equal(await client.write('secret/foo', { a: 'b' }), undefined);
    const req = last();
    assert.equal(req.method, 'POST');
    assert.equal(req.path, '/v1/secret/foo');
    assert.equal(req.headers['x-secrets-request'], 'true');
    assert.equal(req.headers['x-secrets-token'], 'tok-1');
    assert.equal(req.headers['x-secrets-namespace'], 'ns1/');
    assert.equal(req.headers['content-type'], 'application/json');
    assert.deepEqual(req.body, { a: 'b' });
  });

  it('leaves out token and namespace headers when not set', async () => {
    const bare = client.withToken(undefined).withNamespace(undefined);
    await bare.delete('secret/foo');
    assert.equal(last().method, 'DELETE');
    assert.equal(last().headers['x-secrets-request'], 'true');
    assert.equal(last().headers['x-secrets-token'], undefined);
    assert.equal(last().headers['x-secrets-namespace'], undefined);
  });

  it('returns the envelope of a 200 read and sends the query', async () => {
    server.handle(() => ({ status: 200, body: envelope({ foo: 'bar' }) }));
    const res = await client.read('secret/foo', { version: 2 });
    assert.deepEqual(res?.data, { foo: 'bar' });
    assert.equal(last().method, 'GET');
    assert.equal(last().query.get('version'), '2');
  });

  it('lists with GET ?list=true', async () => {
    server.handle(() => ({ status: 200, body: envelope({ keys: ['a', 'b/'] }) }));
    const res = await client.list('secret/metadata/dir');
    assert.deepEqual(res?.data?.keys, ['a', 'b/']);
    assert.equal(last().method, 'GET');
    assert.equal(last().path, '/v1/secret/metadata/dir');
    assert.equal(last().query.get('list'), 'true');
  });

  it('treats 404 {"errors":[]} on read and list as not found', async () => {
    server.handle(() => ({ status: 404, body: { errors: [] } }));
    assert.equal(await client.read('secret/missing'), undefined);
    assert.equal(await client.list('secret/missing/'), undefined);
    assert.deepEqual(await client.kv('secret').list('nothing'), []);
    assert.equal(await client.kv('secret').get('missing'), undefined);
  });

  it('throws SecretsApiError with status and message on 403', async () => {
    server.handle(() => ({ status: 403, body: { errors: ['permission denied'] } }));
    await assert.rejects(client.read('secret/foo'), (err: unknown) => {
      assert.ok(err instanceof SecretsApiError);
      assert.equal(err.status, 403);
      assert.deepEqual(err.errors, ['permission denied']);
      assert.equal(err.message, 'permission denied');
      return true;
    });
  });

  it('joins several errors and falls back to HTTP <status>', async () => {
    server.handle(() => ({ status: 400, body: { errors: ['a', 'b'] } }));
    await assert.rejects(client.write('x', {}), { name: 'SecretsApiError', message: 'a; b', status: 400 });
    server.handle(() => ({ status: 404, body: { errors: [] } }));
    await assert.rejects(client.write('x', {}), { message: 'HTTP 404', status: 404 });
    server.handle(() => ({ status: 404, body: { errors: ['no handler for route "x/"'] } }));
    await assert.rejects(client.read('x'), { status: 404, message: 'no handler for route "x/"' });
    server.handle(() => ({ status: 500 }));
    await assert.rejects(client.delete('x'), { status: 500, message: 'HTTP 500' });
  });

  it('returns the 404 envelope of a deleted KV v2 version', async () => {
    const metadata = { created_time: 't', custom_metadata: null, deletion_time: 't2', destroyed: false, version: 3 };
    server.handle(() => ({ status: 404, body: envelope({ data: null, metadata }) }));
    const res = await client.kv('secret').get('app', { version: 3 });
    assert.equal(res?.data?.data, null);
    assert.deepEqual(res?.data?.metadata, metadata);
    assert.equal(last().path, '/v1/secret/data/app');
    assert.equal(last().query.get('version'), '3');
  });

  it('maps KV v2 helpers onto the engine paths', async () => {
    const meta = { created_time: 't', custom_metadata: null, deletion_time: '', destroyed: false, version: 1 };
    server.handle((r) => (r.path.startsWith('/v1/kv2/data/') && r.method === 'POST' ? { status: 200, body: envelope(meta) } : { status: 204 }));
    const kv = client.kv('/kv2/');
    assert.deepEqual(await kv.put('a b/c', { k: 'v' }, { cas: 0 }), meta);
    assert.deepEqual(last().body, { data: { k: 'v' }, options: { cas: 0 } });
    assert.equal(last().path, '/v1/kv2/data/a%20b/c');
    await kv.put('p', { k: 'v' });
    assert.deepEqual(last().body, { data: { k: 'v' } });

    const seen: string[] = [];
    const calls: [() => Promise<unknown>, string, unknown][] = [
      [() => kv.delete('p'), 'DELETE /v1/kv2/data/p', undefined],
      [() => kv.deleteVersions('p', [1, 2]), 'POST /v1/kv2/delete/p', { versions: [1, 2] }],
      [() => kv.undelete('p', [1]), 'POST /v1/kv2/undelete/p', { versions: [1] }],
      [() => kv.destroy('p', [2]), 'POST /v1/kv2/destroy/p', { versions: [2] }],
      [
        () => kv.writeMetadata('p', { maxVersions: 5, casRequired: true, customMetadata: { o: 'me' } }),
        'POST /v1/kv2/metadata/p',
        { max_versions: 5, cas_required: true, custom_metadata: { o: 'me' } },
      ],
      [() => kv.deleteMetadata('p'), 'DELETE /v1/kv2/metadata/p', undefined],
      [() => kv.readMetadata('p'), 'GET /v1/kv2/metadata/p', undefined],
    ];
    for (const [call, expected, body] of calls) {
      await call();
      seen.push(`${last().method} ${last().path}`);
      assert.deepEqual(last().body ?? undefined, body, expected);
    }
    assert.deepEqual(
      seen,
      calls.map((c) => c[1]),
    );

    server.handle(() => ({ status: 200, body: envelope({ keys: ['x'] }) }));
    assert.deepEqual(await kv.list(''), ['x']);
    assert.equal(last().path, '/v1/kv2/metadata/');
    assert.equal(last().query.get('list'), 'true');
  });

  it('maps token and sys helpers', async () => {
    const auth = { client_token: 'child', accessor: 'acc', policies: ['default', 'web'] };
    server.handle((r) => {
      if (r.path === '/v1/auth/token/create') return { status: 200, body: envelope(null, { auth }) };
      if (r.path.startsWith('/v1/auth/token/lookup')) return { status: 200, body: envelope({ id: 'x', ttl: 0 }) };
      if (r.path === '/v1/sys/mounts' && r.method === 'GET') {
        const table = { 'secret/': { type: 'kv', description: '', options: { version: '2' } } };
        return { status: 200, body: { ...table, ...envelope(table) } };
      }
      return { status: 204 };
    });
    const created = await client.token.create({ policies: ['web'], ttl: '1h', displayName: 'ci', noParent: true });
    assert.equal(created.client_token, 'child');
    assert.deepEqual(last().body, { policies: ['web'], ttl: '1h', display_name: 'ci', no_parent: true });

    await client.token.lookup();
    assert.equal(`${last().method} ${last().path}`, 'GET /v1/auth/token/lookup-self');
    await client.token.lookup('other');
    assert.equal(`${last().method} ${last().path}`, 'POST /v1/auth/token/lookup');
    assert.deepEqual(last().body, { token: 'other' });
    await client.token.revokeSelf();
    assert.equal(`${last().method} ${last().path}`, 'POST /v1/auth/token/revoke-self');

    assert.equal((await client.sys.mounts())['secret/'].type, 'kv');
    await client.sys.enableMount('kv2', { type: 'kv', options: { version: '2' } });
    assert.equal(`${last().method} ${last().path}`, 'POST /v1/sys/mounts/kv2');
    assert.deepEqual(last().body, { type: 'kv', options: { version: '2' } });
    await client.sys.disableMount('kv2/');
    assert.equal(`${last().method} ${last().path}`, 'DELETE /v1/sys/mounts/kv2');
    await client.sys.enableMount('/ro/', { type: 'kv', local: true, sealWrap: false });
    assert.deepEqual(last().body, { type: 'kv', local: true, seal_wrap: false });
    await client.sys.tuneMount('ro/', { max_lease_ttl: '1h' });
    assert.equal(`${last().method} ${last().path}`, 'POST /v1/sys/mounts/ro/tune');
    assert.deepEqual(last().body, { max_lease_ttl: '1h' });
    // A server that answers the move with 204 (no migration id) has moved the mount already.
    assert.equal(await client.sys.remount('ro/', 'rw/'), undefined);
    assert.equal(`${last().method} ${last().path}`, 'POST /v1/sys/remount');
    assert.deepEqual(last().body, { from: 'ro/', to: 'rw/' });
  });

  it('raw() returns any status with its body and sends extra headers', async () => {
    server.handle(() => ({ status: 405, body: { errors: [] } }));
    const res = await client.raw('PUT', 'sys/x', { query: { a: ['1', '2'] }, body: { z: 1 }, headers: { 'X-Extra': 'yes' } });
    assert.equal(res.status, 405);
    assert.deepEqual(res.body, { errors: [] });
    assert.deepEqual(last().query.getAll('a'), ['1', '2']);
    assert.equal(last().headers['x-extra'], 'yes');
  });
});

describe('SecretsClient configuration and connection errors', () => {
  it('fromEnv reads address, token, namespace, CA file and skip-verify', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-sdk-'));
    try {
      writeFileSync(join(dir, 'ca.pem'), 'PEM');
      const server = await startFakeServer();
      const client = SecretsClient.fromEnv({
        SECRETS_ADDR: server.url,
        SECRETS_TOKEN: 'envtok',
        SECRETS_NAMESPACE: 'team',
        SECRETS_CACERT: join(dir, 'ca.pem'),
        SECRETS_SKIP_VERIFY: 'true',
      });
      await client.delete('a');
      assert.equal(server.requests[0].headers['x-secrets-token'], 'envtok');
      assert.equal(server.requests[0].headers['x-secrets-namespace'], 'team');
      await client.close();
      await server.close();
      assert.equal(SecretsClient.fromEnv({}).address, 'https://127.0.0.1:8200');
      assert.throws(() => SecretsClient.fromEnv({ SECRETS_CACERT: join(dir, 'missing.pem') }), /ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives up after fetchTimeoutMs when the server never answers', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const client = new SecretsClient({ address: `http://127.0.0.1:${port}`, fetchTimeoutMs: 100 });
    await assert.rejects(client.read('x'), { name: 'SecretsConnectionError', message: /no answer within 100 ms/ });
    await client.close();
    sockets.forEach((socket) => socket.destroy());
    await new Promise((resolve) => silent.close(resolve));
  });

  it('rejects addresses that are not http(s) URLs', () => {
    assert.throws(() => new SecretsClient({ address: '127.0.0.1:8200' }), TypeError);
    assert.throws(() => new SecretsClient({ address: 'ftp://x' }), TypeError);
  });

  it('reports a refused connection as SecretsConnectionError', async () => {
    const server = await startFakeServer();
    const url = server.url;
    await server.close();
    const client = new SecretsClient({ address: url });
    await assert.rejects(client.read('secret/x'), (err: unknown) => {
      assert.ok(err instanceof SecretsConnectionError);
      assert.match(err.message, /ECONNREFUSED/);
      return true;
    });
    await client.close();
  });
});

describe('SecretsClient over TLS', () => {
  let server: FakeServer;
  let cert: string;

  before(async () => {
    const tls = selfSignedCert();
    cert = tls.cert;
    server = await startFakeServer({
      tls,
      handler: () => ({ status: 200, body: envelope({ ok: true }) }),
    });
  });
  after(async () => {
    await server.close();
  });

  it('verifies the certificate by default', async () => {
    const client = new SecretsClient({ address: server.url });
    await assert.rejects(client.read('secret/x'), (err: unknown) => {
      assert.ok(err instanceof SecretsConnectionError);
      assert.match(err.message, /self[- ]signed/i);
      return true;
    });
    await client.close();
  });

  it('accepts the server with its CA certificate', async () => {
    const client = new SecretsClient({ address: server.url, caCert: cert });
    assert.deepEqual((await client.read('secret/x'))?.data, { ok: true });
    await client.close();
  });

  it('accepts any certificate with skipVerify', async () => {
    const client = new SecretsClient({ address: server.url, skipVerify: true });
    assert.deepEqual((await client.read('secret/x'))?.data, { ok: true });
    await client.close();
  });
});
