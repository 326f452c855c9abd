import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { envelope, startFakeServer, type FakeServer } from '../sdk/testing/fake-server.js';
import { main } from './main.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(argv: string[], env: Record<string, string | undefined>, stdin = ''): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, env, {
    stdout: (s) => (stdout += s),
    stderr: (s) => (stderr += s),
    readStdin: async () => stdin,
  });
  return { code, stdout, stderr };
}

const versionMeta = { created_time: '2024-01-02T03:04:05.000000006Z', custom_metadata: null, deletion_time: '', destroyed: false, version: 2 };

describe('cairn CLI against a fake secrets server', () => {
  let server: FakeServer;
  let env: Record<string, string>;

  before(async () => {
    server = await startFakeServer();
    env = { SECRETS_ADDR: server.url, SECRETS_TOKEN: 'root-tok' };
  });
  after(() => server.close());

  const last = () => server.requests[server.requests.length - 1];

  it('kv put writes a version and prints its metadata', async () => {
    server.handle(() => ({ status: 200, body: envelope(versionMeta) }));
    const r = await run(['kv', 'put', '-cas=1', 'secret/app/db', 'user=admin', 'pw=a=b'], env);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    assert.equal(`${last().method} ${last().path}`, 'POST /v1/secret/data/app/db');
    assert.deepEqual(last().body, { data: { user: 'admin', pw: 'a=b' }, options: { cas: 1 } });
    assert.equal(last().headers['x-secrets-token'], 'root-tok');
    assert.equal(last().headers['x-secrets-request'], 'true');
    assert.equal(
      r.stdout,
      [
        '== Secret Path ==',
        'secret/data/app/db',
        '',
        '======= Metadata =======',
        'Key                Value',
        '---                -----',
        'created_time       2024-01-02T03:04:05.000000006Z',
        'custom_metadata    <nil>',
        'deletion_time      n/a',
        'destroyed          false',
        'version            2',
        '',
      ].join('\n'),
    );
  });

  it('kv put accepts -mount, --flag=value and JSON on stdin', async () => {
    server.handle(() => ({ status: 200, body: envelope(versionMeta) }));
    const r = await run(['kv', 'put', '-mount', 'team/kv', '--format=json', 'app', '-'], env, '{"n":1}');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(last().path, '/v1/team/kv/data/app');
    assert.deepEqual(last().body, { data: { n: 1 } });
    assert.deepEqual(JSON.parse(r.stdout).data, versionMeta);
  });

  it('kv get -format=json prints the response envelope', async () => {
    const body = envelope({ data: { user: 'admin' }, metadata: versionMeta });
    server.handle(() => ({ status: 200, body }));
    const r = await run(['kv', 'get', '-format=json', '-version=2', 'secret/app/db'], env);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), body);
    assert.equal(`${last().method} ${last().path}?${last().query}`, 'GET /v1/secret/data/app/db?version=2');
  });

  it('kv get prints metadata and data tables, or one field', async () => {
    server.handle(() => ({ status: 200, body: envelope({ data: { user: 'admin', pw: 's' }, metadata: versionMeta }) }));
    const table = await run(['kv', 'get', 'secret/app/db'], env);
    assert.equal(table.code, 0);
    assert.match(table.stdout, /\n==== Data ====\nKey     Value\n---     -----\npw      s\nuser    admin\n$/);
    const field = await run(['kv', 'get', '-field=user', 'secret/app/db'], env);
    assert.equal(field.stdout, 'admin');
  });

  it('prints "No value found" and exits 2 when nothing is there', async () => {
    server.handle(() => ({ status: 404, body: { errors: [] } }));
    const get = await run(['kv', 'get', 'secret/nope'], env);
    assert.deepEqual([get.code, get.stdout, get.stderr], [2, '', 'No value found at secret/data/nope\n']);
    const list = await run(['kv', 'list', 'secret/'], env);
    assert.deepEqual([list.code, list.stderr], [2, 'No value found at secret/metadata/\n']);
    assert.equal(last().query.get('list'), 'true');
  });

  it('prints one error line with the server message and exits 1', async () => {
    server.handle(() => ({ status: 403, body: { errors: ['1 error occurred:\n\t* permission denied\n\n'] } }));
    const r = await run(['kv', 'get', 'secret/app/db'], env);
    assert.deepEqual([r.code, r.stdout, r.stderr], [1, '', 'Error: permission denied (HTTP 403)\n']);
  });

  it('reports a connection failure in one line with exit code 1', async () => {
    const r = await run(['read', 'secret/x'], { SECRETS_ADDR: 'http://127.0.0.1:1' });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^Error: GET http:\/\/127\.0\.0\.1:1\/v1\/secret\/x: .*ECONNREFUSED.*\n$/);
  });

  it('exits 2 on usage errors', async () => {
    const missing = await run(['kv', 'put', 'secret/app'], env);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^Error: must supply data/);
    const badFlag = await run(['kv', 'get', '-nope=1', 'secret/a'], env);
    assert.equal(badFlag.code, 2);
    assert.match(badFlag.stderr, /unknown option '--nope=1'/);
    const badFormat = await run(['read', '-format=yaml', 'secret/a'], env);
    assert.equal(badFormat.code, 2);
    assert.equal(await run([], env).then((x) => x.code), 2);
  });

  it('read, write, list and delete use the generic paths', async () => {
    server.handle((req) => {
      if (req.method === 'GET' && req.query.get('list') === 'true') return { status: 200, body: envelope({ keys: ['a', 'b/'] }) };
      if (req.method === 'GET') return { status: 200, body: envelope({ foo: 'bar' }, { lease_duration: 2764800 }) };
      return { status: 204 };
    });
    const read = await run(['read', 'kv1/x'], env);
    assert.equal(read.stdout, 'Key                 Value\n---                 -----\nrefresh_interval    768h\nfoo                 bar\n');
    const write = await run(['write', 'kv1/x', 'a=1'], env);
    assert.equal(write.stdout, 'Success! Data written to: kv1/x\n');
    assert.deepEqual(last().body, { a: '1' });
    const list = await run(['list', 'kv1/'], env);
    assert.equal(list.stdout, 'Keys\n----\na\nb/\n');
    const del = await run(['delete', 'kv1/x'], env);
    assert.equal(`${last().method} ${last().path}`, 'DELETE /v1/kv1/x');
    assert.equal(del.stdout, 'Success! Data deleted (if it existed) at: kv1/x\n');
  });

  it('kv delete/undelete/destroy and metadata put send versions and fields', async () => {
    server.handle(() => ({ status: 204 }));
    await run(['kv', 'delete', '-versions=1,2', 'secret/a'], env);
    assert.deepEqual([last().path, last().body], ['/v1/secret/delete/a', { versions: [1, 2] }]);
    await run(['kv', 'destroy', '-versions', '3', 'secret/a'], env);
    assert.deepEqual([last().path, last().body], ['/v1/secret/destroy/a', { versions: [3] }]);
    const noVersions = await run(['kv', 'undelete', 'secret/a'], env);
    assert.equal(noVersions.code, 2);
    const meta = await run(
      ['kv', 'metadata', 'put', '-max-versions=5', '-cas-required', '-custom-metadata=owner=me', '-custom-metadata=env=prod', 'secret/a'],
      env,
    );
    assert.equal(meta.code, 0, meta.stderr);
    assert.deepEqual(
      [last().path, last().body],
      ['/v1/secret/metadata/a', { max_versions: 5, cas_required: true, custom_metadata: { owner: 'me', env: 'prod' } }],
    );
  });

  it('token create sends policies and prints the token field', async () => {
    const auth = {
      client_token: 'hvs.child',
      accessor: 'acc',
      policies: ['default', 'web'],
      token_policies: ['default', 'web'],
      metadata: null,
      lease_duration: 3600,
      renewable: true,
    };
    server.handle(() => ({ status: 200, body: envelope(null, { auth }) }));
    const r = await run(['token', 'create', '-policy=web', '-ttl=1h', '-field=token'], env);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'hvs.child');
    assert.deepEqual(last().body, { policies: ['web'], ttl: '1h' });
    const table = await run(['token', 'create', '-no-default-policy', '-policy', 'web'], env);
    assert.deepEqual(last().body, { policies: ['web'], no_default_policy: true });
    assert.match(table.stdout, /^token_duration       1h$/m);
    assert.match(table.stdout, /^policies             \["default" "web"\]$/m);
  });

  it('secrets move follows a migration the server reports in progress, until success or failure; a 204 means moved', async () => {
    const statuses = ['in-progress', 'success', 'failure'];
    server.handle((r) => {
      if (r.path === '/v1/sys/remount') return { status: 200, body: { migration_id: 'm-1', ...envelope({ migration_id: 'm-1' }) } };
      const info = { source_mount: 'a/', target_mount: 'b/', status: statuses.shift() };
      return { status: 200, body: envelope({ migration_id: 'm-1', migration_info: info }) };
    });
    const ok = await run(['secrets', 'move', 'a', 'b'], env);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(
      ok.stdout,
      [
        'Started moving secrets engine a/ to b/, with migration ID m-1',
        'Waiting for terminal status in migration of secrets engine a/ to b/, with migration ID m-1',
        'Success! Finished moving secrets engine a/ to b/, with migration ID m-1',
        '',
      ].join('\n'),
    );
    assert.equal(`${last().method} ${last().path}`, 'GET /v1/sys/remount/status/m-1');

    const failed = await run(['secrets', 'move', 'a', 'b'], env);
    assert.equal(failed.code, 1);
    assert.equal(failed.stderr, 'Failure! Error encountered moving secrets engine a/ to b/, with migration ID m-1\n');

    server.handle(() => ({ status: 204 }));
    const old = await run(['secrets', 'move', 'a/', 'b/'], env);
    assert.equal(old.code, 0, old.stderr);
    assert.equal(old.stdout, 'Success! Moved secrets engine a/ to: b/\n');
    assert.equal(`${last().method} ${last().path}`, 'POST /v1/sys/remount');
  });
});
