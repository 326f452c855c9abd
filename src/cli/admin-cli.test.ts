import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { envelope, startFakeServer, type FakeServer } from '../sdk/testing/fake-server.js';
import { main } from './main.js';

async function run(argv: string[], env: Record<string, string | undefined>) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, env, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
  return { code, stdout, stderr };
}

describe('cairn namespace against a fake server', () => {
  let server: FakeServer;
  let env: Record<string, string>;
  before(async () => {
    server = await startFakeServer();
    env = { SECRETS_ADDR: server.url, SECRETS_TOKEN: 'root-tok' };
  });
  after(() => server.close());
  const last = () => server.requests[server.requests.length - 1];

  it('create prints the new namespace as a table, in the -namespace parent', async () => {
    server.handle(() => ({ status: 200, body: envelope({ custom_metadata: { owner: 'a' }, id: 'Xy12z', path: 'dev/' }) }));
    const r = await run(['namespace', 'create', '-ns=team', '-custom-metadata=owner=a', 'dev'], env);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(`${last().method} ${last().path}`, 'POST /v1/sys/namespaces/dev');
    assert.equal(last().headers['x-secrets-namespace'], 'team');
    assert.deepEqual(last().body, { custom_metadata: { owner: 'a' } });
    assert.equal(
      r.stdout,
      [
        'Key                Value',
        '---                -----',
        'custom_metadata    map[owner:a]',
        'id                 Xy12z',
        'path               dev/',
        '',
      ].join('\n'),
    );
  });

  it('list prints sorted keys, exits 2 when there are none', async () => {
    server.handle(() => ({ status: 200, body: envelope({ keys: ['b/', 'a/'], key_info: {} }) }));
    const r = await run(['namespace', 'list'], { ...env, SECRETS_NAMESPACE: 'team' });
    assert.equal(r.stdout, 'Keys\n----\na/\nb/\n');
    assert.equal(last().headers['x-secrets-namespace'], 'team');
    server.handle(() => ({ status: 404, body: { errors: [] } }));
    const none = await run(['namespace', 'list'], env);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /No namespaces found/);
  });

  it('delete prints the full path', async () => {
    server.handle(() => ({ status: 204 }));
    const r = await run(['namespace', 'delete', '-namespace=team/', 'dev'], env);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(`${last().method} ${last().path}`, 'DELETE /v1/sys/namespaces/dev');
    assert.equal(r.stdout, 'Success! Namespace deleted at: team/dev/\n');
  });
});
