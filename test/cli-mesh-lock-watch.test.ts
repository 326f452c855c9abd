/**
 * `cairn mesh lock` and `cairn mesh watch` in-process against a real discovery agent on
 * loopback, with real child processes:
 *
 * - lock: the child runs while the key `PREFIX/.lock` shows the lock's session (and sees
 *   `MESH_LOCK_HELD=true`); a second lock on the prefix runs its child only after the first
 *   ended; the key is deleted afterwards; `-child-exit-code` exits 2 for a failed child (0
 *   without it); destroying the session kills the child; `-timeout` gives up; `-n=2` runs
 *   two children at once and the third after one ended;
 * - watch: without a handler the current value is printed once as JSON; a handler gets
 *   each new result as JSON on its standard input (a PUT shows up as the new value);
 *   `-type service -passingonly` hands over the passing instances only; bad parameters
 *   are refused with the reference's texts.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { kvValue, MeshClient, MeshLock } from '../src/sdk/index.js';
import { cliRunner, scratchDir, type ScratchDir } from './cli-helpers.js';
import { startAgent, call, type TestAgent } from './mesh/helpers.js';
import { until } from './processes.js';

describe('cairn mesh lock and cairn mesh watch against a real discovery agent', () => {
  let a: TestAgent;
  let scratch: ScratchDir;
  let root: string;
  let mesh: MeshClient;
  const { cairn, start } = cliRunner({ env: () => ({ MESH_HTTP_ADDR: a.url, MESH_HTTP_TOKEN: root }), rootEnv: () => ({}) });
  const read = (p: string) => (existsSync(p) ? readFileSync(p, 'utf8') : '');

  before(async () => {
    a = await startAgent();
    root = (await call(a.url, 'PUT', '/v1/acl/bootstrap')).json.SecretID;
    mesh = new MeshClient({ address: a.url, token: root });
    scratch = scratchDir('cairn-cli-mesh-lock-');
    await until('the agent node is in the catalog', 10_000, async () => ((await mesh.catalog.nodes()).items.length > 0 ? true : undefined));
  });
  after(async () => {
    await mesh.close();
    await a.stop();
    scratch.remove();
  });

  it('lock: the child runs holding PREFIX/.lock; a second lock waits until the first ended', { timeout: 60_000 }, async () => {
    const out = join(scratch.dir, 'order.txt');
    const go = join(scratch.dir, 'go');
    // -shell=false with `sh -c …` after the prefix: the child's own flags stay its own.
    const first = start({}, [
      'mesh',
      'lock',
      '-shell=false',
      '/jobs/a',
      'sh',
      '-c',
      `echo "one $MESH_LOCK_HELD" >> ${out}; while [ ! -f ${go} ]; do sleep 0.05; done`,
    ]);
    await until('the first child runs', 15_000, () => (read(out) === 'one true\n' ? true : undefined));
    const key = (await mesh.kv.get('jobs/a/.lock')).entry;
    assert.ok(key?.Session, 'the key shows the session');
    const { session } = await mesh.session.info(key.Session);
    assert.match(session!.Name, /^Mesh lock for 'sh -c echo .*' at 'jobs\/a'$/);
    assert.equal(session!.TTL, '15s');

    const second = start({}, ['mesh', 'lock', 'jobs/a', `echo two >> ${out}`]);
    await new Promise((r) => setTimeout(r, 700));
    assert.equal(read(out), 'one true\n', 'the second child waits');
    writeFileSync(go, '');
    assert.equal(await first.code, 0, first.out.stderr);
    assert.equal(await second.code, 0, second.out.stderr);
    assert.equal(read(out), 'one true\ntwo\n');
    assert.equal((await mesh.kv.get('jobs/a/.lock')).entry, undefined, 'the last one out deleted the key');
    assert.deepEqual((await mesh.session.list()).items, [], 'both sessions destroyed');
  });

  it('lock: -child-exit-code exits 2 for a failed child, 0 without it', { timeout: 30_000 }, async () => {
    const plain = await cairn({}, ['mesh', 'lock', 'jobs/b', 'exit 3']);
    assert.equal(plain.code, 0, plain.stderr);
    const told = await cairn({}, ['mesh', 'lock', '-child-exit-code', 'jobs/b', 'exit 3']);
    assert.equal(told.code, 2);
    assert.match(told.stderr, /Error running handler: exit status 3/);
    const fine = await cairn({}, ['mesh', 'lock', '-child-exit-code', 'jobs/b', 'echo fine']);
    assert.equal(fine.code, 0);
    assert.equal(fine.stdout, 'fine\n', "the child's output is the command's");
  });

  it('lock: destroying the session kills the child; -timeout gives up', { timeout: 30_000 }, async () => {
    const marker = join(scratch.dir, 'started');
    const run = start({}, ['mesh', 'lock', '-verbose', 'jobs/c', `echo $$ > ${marker}; exec sleep 60`]);
    const pid = Number(await until('the child runs', 15_000, () => read(marker).trim() || undefined));
    const { entry } = await mesh.kv.get('jobs/c/.lock');
    await mesh.session.destroy(entry!.Session!);
    assert.equal(await run.code, 0, run.out.stderr);
    assert.match(run.out.stdout, /Lock lost, killing child/);
    assert.throws(() => process.kill(pid, 0), /ESRCH/, 'the child is gone');

    const holder = new MeshLock(mesh, { key: 'jobs/d/.lock' });
    assert.ok(await holder.acquire());
    const late = await cairn({}, ['mesh', 'lock', '-timeout=300ms', 'jobs/d', 'echo never']);
    assert.equal(late.code, 1);
    assert.equal(late.stderr, 'Shutdown triggered or timeout during lock acquisition\n');
    assert.equal(late.stdout, '');
    await holder.release();
    const refused = await cairn({}, ['mesh', 'lock', 'jobs/e']);
    assert.deepEqual([refused.code, refused.stderr], [1, 'Key prefix and child command must be specified\n']);
  });

  it('lock -n=2: a semaphore runs two children at once, the third once one ended', { timeout: 60_000 }, async () => {
    const out = join(scratch.dir, 'sem.txt');
    const go = join(scratch.dir, 'sem-go');
    const runs = ['x', 'y', 'z'].map((name) =>
      start({}, ['mesh', 'lock', '-n=2', 'jobs/sem', `echo ${name} >> ${out}; while [ ! -f ${go} ]; do sleep 0.05; done`]),
    );
    const lines = () =>
      read(out)
        .split('\n')
        .filter((l) => l !== '');
    await until('two children run', 20_000, () => (lines().length === 2 ? true : undefined));
    await new Promise((r) => setTimeout(r, 700));
    assert.equal(lines().length, 2, 'the third waits for a slot');
    const { entry } = await mesh.kv.get('jobs/sem/.lock');
    assert.equal(Object.keys(JSON.parse(kvValue(entry!).toString()).Holders).length, 2);
    writeFileSync(go, '');
    for (const r of runs) assert.equal(await r.code, 0, r.out.stderr);
    assert.deepEqual(lines().sort(), ['x', 'y', 'z']);
    assert.deepEqual((await mesh.kv.list('jobs/sem')).items, [], 'the last one out deleted .lock; contender keys are gone');
    // A lock and a semaphore on one prefix conflict (the reference's design: both use PREFIX/.lock).
    const holder = new MeshLock(mesh, { key: 'jobs/mixed/.lock' });
    assert.ok(await holder.acquire());
    const conflict = await cairn({}, ['mesh', 'lock', '-n=2', 'jobs/mixed', 'true']);
    assert.deepEqual([conflict.code, conflict.stderr], [1, 'Lock acquisition failed: Existing key does not match semaphore use\n']);
    await holder.release();
  });

  it('watch: without a handler prints the current value once; a handler gets each new value on stdin', { timeout: 30_000 }, async () => {
    const missing = await cairn({}, ['mesh', 'watch', '-type=key', '-key=cfg/a']);
    assert.deepEqual([missing.code, missing.stdout], [0, 'null\n']);
    await mesh.kv.put('cfg/a', 'v1');
    const once = await cairn({}, ['mesh', 'watch', '-type', 'key', '-key', 'cfg/a']);
    assert.equal(once.code, 0);
    assert.equal(kvValue(JSON.parse(once.stdout)).toString(), 'v1');
    assert.match(once.stdout, /^{\n {4}"/, 'indented by four spaces, as the reference');

    const lines = join(scratch.dir, 'watch.jsonl');
    const stop = new AbortController();
    const w = start({}, ['mesh', 'watch', '-type=key', '-key=cfg/a', `(cat; echo " $MESH_INDEX") >> ${lines}`], { shutdown: stop.signal });
    const results = () =>
      read(lines)
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => l.trim());
    await until('the handler got the current value', 15_000, () => (results().length === 2 ? true : undefined));
    assert.equal(kvValue(JSON.parse(results()[0]!)).toString(), 'v1');
    await mesh.kv.put('cfg/a', 'v2');
    await until('the handler got the new value', 15_000, () => (results().length === 4 ? true : undefined));
    const entry = JSON.parse(results()[2]!);
    assert.equal(kvValue(entry).toString(), 'v2');
    assert.equal(results()[3], String(entry.ModifyIndex), 'MESH_INDEX is the index of the result');
    stop.abort();
    assert.equal(await w.code, 0, w.out.stderr);
  });

  it('watch: -type service -passingonly hands over the passing instances only', { timeout: 60_000 }, async () => {
    const lines = join(scratch.dir, 'service.jsonl');
    const stop = new AbortController();
    const w = start({}, ['mesh', 'watch', '-type=service', '-service=web', '-passingonly=true', `cat >> ${lines}`], { shutdown: stop.signal });
    const results = () =>
      read(lines)
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as { Service: { Port: number }; Checks: { Status: string }[] }[]);
    await until('the first (empty) result', 15_000, () => (results().length === 1 ? true : undefined));
    assert.deepEqual(results()[0], []);
    await mesh.agent.registerService({ Name: 'web', Port: 8080, Check: { CheckID: 'web-ttl', TTL: '10m', Status: 'passing' } });
    await until('the passing instance', 15_000, () => (results().at(-1)?.length === 1 ? true : undefined));
    assert.equal(results().at(-1)![0]!.Service.Port, 8080);
    await mesh.agent.failTtl('web-ttl');
    await until('no passing instance once the check fails', 15_000, () => (results().length > 2 && results().at(-1)?.length === 0 ? true : undefined));
    stop.abort();
    assert.equal(await w.code, 0, w.out.stderr);
    await mesh.agent.deregisterService('web');
  });

  it('watch: bad parameters are refused with the reference texts', async () => {
    const cases: [string[], string][] = [
      [[], 'Watch type must be specified'],
      [['-type=key'], 'Must specify a single key to watch'],
      [['-type=service'], 'Must specify a single service to watch'],
      [['-type=checks', '-service=web', '-state=passing'], 'Cannot specify service and state'],
      [['-type=services', '-key=x'], 'Invalid parameters: [key]'],
      [['-type=nope'], 'Unsupported watch type: nope'],
    ];
    for (const [flags, text] of cases) {
      const r = await cairn({}, ['mesh', 'watch', ...flags]);
      assert.deepEqual([r.code, r.stderr], [1, `${text}\n`], flags.join(' '));
    }
  });
});
