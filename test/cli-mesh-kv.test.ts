/**
 * `cairn mesh kv get|put|delete|export|import` in-process against a real discovery agent on
 * loopback (through the SDK, as a user runs them): values from text, @file and stdin, the
 * reference's texts for success, a missing key and a failed check-and-set, and an
 * export → delete → import round trip that restores keys, values and flags.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cliRunner, scratchDir, type ScratchDir } from './cli-helpers.js';
import { call, startAgent, type TestAgent } from './mesh/helpers.js';

describe('cairn mesh kv against a real discovery agent', () => {
  let a: TestAgent;
  let scratch: ScratchDir;
  let root: string;
  const { cairn, ok } = cliRunner({ env: () => ({ MESH_HTTP_ADDR: a.url }), rootEnv: () => ({ MESH_HTTP_TOKEN: root }) });
  const asRoot = (argv: string[], stdin?: string) => cairn({ MESH_HTTP_TOKEN: root }, argv, stdin);

  before(async () => {
    a = await startAgent();
    root = (await call(a.url, 'PUT', '/v1/acl/bootstrap')).json.SecretID;
    scratch = scratchDir('cairn-cli-mesh-kv-');
  });
  after(async () => {
    await a.stop();
    scratch.remove();
  });

  it('put from text, @file and stdin; get prints the value, -detailed the fields, -recurse key:value, -keys the names', async () => {
    assert.equal(await ok('mesh', 'kv', 'put', 'app/name', 'web'), 'Success! Data written to: app/name\n');
    assert.equal(
      await ok('mesh', 'kv', 'put', '-flags=7', 'app/conf/file', `@${scratch.file('v.txt', 'from file')}`),
      'Success! Data written to: app/conf/file\n',
    );
    const piped = await asRoot(['mesh', 'kv', 'put', 'app/conf/stdin', '-'], 'from stdin');
    assert.equal(piped.code, 0, piped.stderr);
    assert.equal(await ok('mesh', 'kv', 'get', 'app/name'), 'web\n');
    assert.equal(await ok('mesh', 'kv', 'get', '-base64', 'app/name'), `${Buffer.from('web').toString('base64')}\n`);
    assert.match(
      await ok('mesh', 'kv', 'get', '-detailed', 'app/conf/file'),
      /^CreateIndex {6}\d+\nFlags {12}7\nKey {14}app\/conf\/file\nLockIndex {8}0\nModifyIndex {6}\d+\nSession {10}-\nValue {12}from file\n$/,
    );
    assert.equal(await ok('mesh', 'kv', 'get', '-recurse', 'app/'), 'app/conf/file:from file\napp/conf/stdin:from stdin\napp/name:web\n');
    assert.equal(await ok('mesh', 'kv', 'get', '-keys', 'app/'), 'app/conf/\napp/name\n');
    const json = JSON.parse(await ok('mesh', 'kv', 'get', 'app/name', '-format=json'));
    assert.equal(json.Key, 'app/name');
  });

  it('a missing key and a failed check-and-set print the reference text and exit 1', async () => {
    const missing = await asRoot(['mesh', 'kv', 'get', 'app/none']);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, 'Error! No key exists at: app/none\n');
    const cas = await asRoot(['mesh', 'kv', 'put', '-cas', '-modify-index=0', 'app/name', 'again']);
    assert.equal(cas.code, 1);
    assert.equal(cas.stderr, 'Error! Did not write to app/name: CAS failed\n');
    assert.equal(await ok('mesh', 'kv', 'get', 'app/name'), 'web\n', 'nothing changed');
    const usage = await asRoot(['mesh', 'kv', 'put', '-cas', 'app/name', 'x']);
    assert.equal(usage.code, 2);
    const denied = await cairn({}, ['mesh', 'kv', 'put', 'app/name', 'x']);
    assert.equal(denied.code, 1);
    assert.match(denied.stderr, /^Error: Permission denied: anonymous token lacks permission 'key:write' on "app\/name".* \(HTTP 403\)\n$/);
  });

  it('export, delete -recurse, import: keys, values and flags come back', async () => {
    const exported = await ok('mesh', 'kv', 'export', 'app/');
    const entries = JSON.parse(exported);
    assert.deepEqual(
      entries.map((e: { key: string; flags: number }) => [e.key, e.flags]),
      [
        ['app/conf/file', 7],
        ['app/conf/stdin', 0],
        ['app/name', 0],
      ],
    );
    assert.match(exported, /^\[\n\t\{\n\t\t"key": "app\/conf\/file",/);
    assert.equal(await ok('mesh', 'kv', 'delete', '-recurse', 'app/'), 'Success! Deleted keys with prefix: app/\n');
    assert.equal((await asRoot(['mesh', 'kv', 'get', 'app/name'])).code, 1);
    const imported = await asRoot(['mesh', 'kv', 'import', `@${scratch.file('export.json', exported)}`]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.equal(imported.stdout, 'Imported: app/conf/file\nImported: app/conf/stdin\nImported: app/name\n');
    assert.equal(await ok('mesh', 'kv', 'export', 'app/'), exported);
    const partial = await asRoot(['mesh', 'kv', 'import', '-prefix=app/conf/', '-'], exported);
    assert.equal(partial.stdout, 'Imported: app/conf/file\nImported: app/conf/stdin\n');
    const bad = await asRoot(['mesh', 'kv', 'import', '-'], '{"key": 1}');
    assert.equal(bad.code, 2);
  });

  it('delete one key, and with -cas only at its index', async () => {
    const index = JSON.parse(await ok('mesh', 'kv', 'get', 'app/name', '-format=json')).ModifyIndex as number;
    const stale = await asRoot(['mesh', 'kv', 'delete', '-cas', `-modify-index=${index + 100}`, 'app/name']);
    assert.equal(stale.code, 1);
    assert.equal(stale.stderr, 'Error! Did not delete key app/name: CAS failed\n');
    assert.equal(await ok('mesh', 'kv', 'delete', '-cas', `-modify-index=${index}`, 'app/name'), 'Success! Deleted key: app/name\n');
    assert.equal(await ok('mesh', 'kv', 'delete', 'app/conf/file'), 'Success! Deleted key: app/conf/file\n');
    assert.equal((await asRoot(['mesh', 'kv', 'get', 'app/conf/file'])).code, 1);
  });
});
