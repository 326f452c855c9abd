/**
 * `cairn secrets enable|disable|list|tune|move` end to end against a real secrets service:
 * the reference CLI's output lines and exit codes, and what the mount table (`sys/mounts`)
 * holds after each command; a refused command (unknown engine type, path in use, bad TTL,
 * no `sudo` for a move) prints the server's reason on one line and changes nothing. A move
 * keeps the engine's data and configuration and revokes the leases of the old path.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cliRunner } from './cli-helpers.js';
import { startTestServer, type TestServer } from './helpers.js';

let s: TestServer;
before(async () => (s = await startTestServer()));
after(() => s.close());

const cli = cliRunner({ env: () => ({ SECRETS_ADDR: s.url }), rootEnv: () => ({ SECRETS_TOKEN: s.rootToken }) });
/** Runs `cairn argv` as root. */
const cairn = (...argv: string[]) => cli.cairn({ SECRETS_TOKEN: s.rootToken }, argv);

/** The stored mount table, from the server's own API. */
async function mountTable(): Promise<Record<string, { type: string; description: string; uuid: string; [k: string]: unknown }>> {
  const r = await s.call('GET', '/v1/sys/mounts');
  assert.equal(r.status, 200, r.text);
  return r.json.data;
}

/** Asserts a refused run: exit 1, one `Error: …` line on stderr matching `reason`, nothing on stdout. */
function assertRefused(r: { code: number; stdout: string; stderr: string }, reason: RegExp): void {
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, /^Error: /);
  assert.match(r.stderr, reason);
}

describe('cairn secrets', () => {
  it('enable: the type as default path (kv-v2 shorthand), every flag stored; refusals change nothing', async () => {
    const kv2 = await cairn('secrets', 'enable', 'kv-v2');
    assert.equal(kv2.code, 0, kv2.stderr);
    assert.equal(kv2.stdout, 'Success! Enabled the kv-v2 secrets engine at: kv-v2/\n');
    let table = await mountTable();
    assert.equal(table['kv-v2/'].type, 'kv');
    assert.deepEqual(table['kv-v2/'].options, { version: '2' });

    const team = await cairn(
      'secrets',
      'enable',
      '-path=team/',
      '-description=team secrets',
      '-default-lease-ttl=1h',
      '-max-lease-ttl',
      '2h',
      '-version=1',
      '-options=leased_passthrough=true',
      '-options',
      'extra=x=y',
      '-local',
      '-seal-wrap',
      'kv',
    );
    assert.equal(team.code, 0, team.stderr);
    assert.equal(team.stdout, 'Success! Enabled the kv secrets engine at: team/\n');
    table = await mountTable();
    assert.equal(table['team/'].description, 'team secrets');
    assert.deepEqual(table['team/'].options, { version: '1', leased_passthrough: 'true', extra: 'x=y' });
    assert.deepEqual(table['team/'].config, { default_lease_ttl: 3600, max_lease_ttl: 7200, force_no_cache: false });
    assert.equal(table['team/'].local, true);
    assert.equal(table['team/'].seal_wrap, true);

    const before = await mountTable();
    assertRefused(await cairn('secrets', 'enable', 'nosuchengine'), /unknown secrets engine type "nosuchengine" \(HTTP 400\)/);
    assertRefused(await cairn('secrets', 'enable', '-path=kv-v2/inner', 'kv'), /path is already in use at kv-v2\//);
    assertRefused(await cairn('secrets', 'enable', '-path=ttl', '-default-lease-ttl=soon', 'kv'), /default_lease_ttl/);
    assertRefused(await cairn('secrets', 'enable', '-path=sys/x', 'kv'), /reserved/);
    assert.deepEqual(await mountTable(), before);

    // -namespace: the mount goes to that namespace's table only.
    assert.equal((await s.call('POST', '/v1/sys/namespaces/team-a')).status, 200);
    const inNs = await cairn('secrets', 'enable', '-namespace=team-a', '-path=secret', 'kv-v2');
    assert.equal(inNs.code, 0, inNs.stderr);
    const nsTable = (await s.call('GET', '/v1/sys/mounts', { headers: { 'X-Secrets-Namespace': 'team-a' } })).json.data;
    assert.deepEqual(nsTable['secret/'].options, { version: '2' });
    assert.notEqual(nsTable['secret/'].uuid, table['secret/'].uuid);

    // Usage errors: exit 2 before any request.
    assert.equal((await cairn('secrets', 'enable')).code, 2);
    assert.equal((await cairn('secrets', 'enable', 'kv', 'extra')).code, 2);
    const badOption = await cairn('secrets', 'enable', '-options=novalue', 'kv');
    assert.equal(badOption.code, 2);
    assert.match(badOption.stderr, /format must be key=value/);
    assert.deepEqual(await mountTable(), before);
  });

  it('list: the Path/Type/Accessor/Description table, -detailed, -format=json', async () => {
    const table = await mountTable();
    const l = await cairn('secrets', 'list');
    assert.equal(l.code, 0, l.stderr);
    const lines = l.stdout.trimEnd().split('\n');
    assert.match(lines[0], /^Path\s+Type\s+Accessor\s+Description$/);
    assert.match(lines[1], /^----\s+----\s+--------\s+-----------$/);
    const paths = lines.slice(2).map((line) => line.split(/\s+/)[0]);
    assert.deepEqual(paths, Object.keys(table).sort());
    assert.ok(paths.includes('sys/') && paths.includes('cubbyhole/') && paths.includes('secret/'), l.stdout);
    assert.ok(!paths.some((p) => p.startsWith('auth/')), 'auth methods are not secrets engines');
    assert.match(l.stdout, new RegExp(`^team/\\s+kv\\s+${table['team/'].accessor}\\s+team secrets$`, 'm'));
    assert.match(l.stdout, new RegExp(`^kv-v2/\\s+kv\\s+${table['kv-v2/'].accessor}\\s+n/a$`, 'm'));

    const d = await cairn('secrets', 'list', '-detailed');
    assert.equal(d.code, 0, d.stderr);
    assert.match(d.stdout, /^Path\s+Plugin\s+Accessor\s+Default TTL\s+Max TTL\s+Force No Cache\s+Replication\s+Seal Wrap\s+Options\s+Description\s+UUID$/m);
    assert.match(
      d.stdout,
      new RegExp(
        `^team/\\s+kv\\s+${table['team/'].accessor}\\s+3600\\s+7200\\s+false\\s+local\\s+true\\s+map\\[extra:x=y leased_passthrough:true version:1\\]\\s+team secrets\\s+${table['team/'].uuid}$`,
        'm',
      ),
    );
    assert.match(d.stdout, /^kv-v2\/\s+kv\s+\S+\s+system\s+system\s+false\s+replicated\s+false\s+map\[version:2\]\s+n\/a\s+\S+$/m);
    assert.match(d.stdout, /^sys\/\s+system\s+\S+\s+n\/a\s+n\/a\s+/m);

    const j = await cairn('secrets', 'list', '-format=json');
    assert.equal(j.code, 0, j.stderr);
    assert.deepEqual(JSON.parse(j.stdout), table);
  });

  it('tune: only the flags given change; a bad TTL or an unknown path is refused', async () => {
    const t = await cairn('secrets', 'tune', '-default-lease-ttl=30m', '-description=tuned', 'team');
    assert.equal(t.code, 0, t.stderr);
    assert.equal(t.stdout, 'Success! Tuned the secrets engine at: team/\n');
    let team = (await mountTable())['team/'];
    assert.equal(team.description, 'tuned');
    assert.deepEqual(team.config, { default_lease_ttl: 1800, max_lease_ttl: 7200, force_no_cache: false });
    assert.deepEqual(team.options, { version: '1', leased_passthrough: 'true', extra: 'x=y' });

    assert.equal((await cairn('secrets', 'tune', '-max-lease-ttl=3h', '-options=extra=z', 'team/')).code, 0);
    team = (await mountTable())['team/'];
    assert.deepEqual(team.config, { default_lease_ttl: 1800, max_lease_ttl: 10800, force_no_cache: false });
    assert.equal(team.description, 'tuned');
    assert.deepEqual(team.options, { version: '1', leased_passthrough: 'true', extra: 'z' });

    const before = await mountTable();
    assertRefused(await cairn('secrets', 'tune', '-max-lease-ttl=forever', 'team'), /max_lease_ttl/);
    assertRefused(await cairn('secrets', 'tune', '-version=2', 'team'), /changing the version of a mounted engine is not supported/);
    assertRefused(await cairn('secrets', 'tune', '-default-lease-ttl=1h', 'nowhere'), /no mount at "nowhere\/"/);
    assert.deepEqual(await mountTable(), before);
  });

  it('move: data and configuration follow, the old path is free, its leases are revoked', async () => {
    assert.equal((await s.call('PUT', '/v1/team/app', { body: { password: 'one', ttl: '1h' } })).status, 204);
    const read = await s.call('GET', '/v1/team/app');
    assert.equal(read.status, 200, read.text);
    const leaseId: string = read.json.lease_id;
    assert.match(leaseId, /^team\/app\//);
    const lookup = () => s.call('PUT', '/v1/sys/leases/lookup', { body: { lease_id: leaseId } });
    assert.equal((await lookup()).status, 200);
    const old = (await mountTable())['team/'];

    const m = await cairn('secrets', 'move', 'team', 'moved/');
    assert.equal(m.code, 0, m.stderr);
    const id = /with migration ID (\S+)$/m.exec(m.stdout)?.[1] ?? '';
    assert.equal(
      m.stdout,
      `Started moving secrets engine team/ to moved/, with migration ID ${id}\nSuccess! Finished moving secrets engine team/ to moved/, with migration ID ${id}\n`,
    );
    const table = await mountTable();
    assert.equal(table['team/'], undefined);
    assert.deepEqual(table['moved/'], old, 'the same mount: uuid, accessor, configuration');
    const moved = await s.call('GET', '/v1/moved/app');
    assert.equal(moved.status, 200, moved.text);
    assert.equal(moved.json.data.password, 'one');
    assert.equal((await s.call('GET', '/v1/team/app')).status, 404);
    const gone = await lookup();
    assert.equal(gone.status, 400, gone.text);
    assert.match(gone.text, /invalid lease/);

    const status = await s.call('GET', `/v1/sys/remount/status/${id}`);
    assert.equal(status.status, 200, status.text);
    assert.deepEqual(status.json.data, { migration_id: id, migration_info: { source_mount: 'team/', target_mount: 'moved/', status: 'success' } });

    const before = await mountTable();
    assertRefused(await cairn('secrets', 'move', 'nowhere', 'elsewhere'), /no matching mount at "nowhere\/"/);
    assertRefused(await cairn('secrets', 'move', 'moved', 'kv-v2'), /path is already in use at kv-v2\//);
    assertRefused(await cairn('secrets', 'move', 'moved', 'moved/inner'), /path is already in use at moved\//);
    assertRefused(await cairn('secrets', 'move', 'sys', 'system'), /cannot remount "sys\/"/);
    assertRefused(await cairn('secrets', 'move', 'moved', 'auth/moved'), /reserved/);
    assert.equal((await cairn('secrets', 'move', 'moved')).code, 2);
    assert.deepEqual(await mountTable(), before);
  });

  it('move needs sudo on sys/remount', async () => {
    const policy = 'path "sys/remount" { capabilities = ["update"] }\npath "sys/remount/*" { capabilities = ["read"] }';
    assert.equal((await s.call('PUT', '/v1/sys/policies/acl/mover', { body: { policy } })).status, 204);
    const token = (await s.call('POST', '/v1/auth/token/create', { body: { policies: ['mover'] } })).json.auth.client_token as string;
    const before = await mountTable();
    assertRefused(await cli.cairn({ SECRETS_TOKEN: token }, ['secrets', 'move', 'moved', 'other']), /permission denied \(HTTP 403\)/);
    assert.deepEqual(await mountTable(), before);

    const sudo = policy.replace('["update"]', '["update", "sudo"]').replace('["read"]', '["read", "sudo"]');
    assert.equal((await s.call('PUT', '/v1/sys/policies/acl/mover', { body: { policy: sudo } })).status, 204);
    const m = await cli.cairn({ SECRETS_TOKEN: token }, ['secrets', 'move', 'moved', 'other']);
    assert.equal(m.code, 0, m.stderr);
    assert.ok((await mountTable())['other/']);
  });

  it('disable: the engine and its data go; disabling nothing succeeds; built-ins are refused', async () => {
    const d = await cairn('secrets', 'disable', 'other/');
    assert.equal(d.code, 0, d.stderr);
    assert.equal(d.stdout, 'Success! Disabled the secrets engine (if it existed) at: other/\n');
    assert.equal((await mountTable())['other/'], undefined);
    assert.equal((await s.call('GET', '/v1/other/app')).status, 404);

    const again = await cairn('secrets', 'disable', 'other');
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, 'Success! Disabled the secrets engine (if it existed) at: other/\n');
    assertRefused(await cairn('secrets', 'disable', 'cubbyhole'), /cannot unmount "cubbyhole\/"/);
    assert.ok((await mountTable())['cubbyhole/']);
  });
});
