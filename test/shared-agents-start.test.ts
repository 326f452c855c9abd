/**
 * Discovery and scheduler agents started at the same moment on one empty PostgreSQL table
 * (issue 14 item 1), as real `cairn mesh agent` / `cairn sched agent` processes on the
 * throwaway cluster, the way a config-management tool or several systemd units start them:
 *
 * - each with a new key file of its own: the database keeps the first key's fingerprint;
 *   exactly one agent runs, the other exits 1 at start naming both fingerprints and which
 *   file to copy where, and leaves no key file; once the file is copied it starts and
 *   follows the leader (before: both ran, and the second answered every request 500
 *   `cannot decode "_meta/index": wrong state key`, forever);
 * - all given the key in the config (`encrypt` / `server.encrypt` = `env://…`): every agent
 *   runs, no key file is made, and a write through one is read on the other.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stateKeyFingerprint } from '../src/kernel/store/index.js';
import { startPgTestServer, type PgTestServer } from '../src/kernel/store/testdata/pg-cluster.js';
import { apiCaller } from './helpers.js';
import { until, type ServerProcess } from './processes.js';
import { hostOf, leaderOf, startSharedAgent, untilLeader } from './shared-agents.js';

const dir = mkdtempSync(join(tmpdir(), 'cairn-agents-start-'));
let pgServer: PgTestServer;
const running: ServerProcess[] = [];
before(async () => {
  pgServer = await startPgTestServer();
});
after(async () => {
  for (const p of running) await p.kill();
  await pgServer?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const ROOT = randomUUID();
const meshCall = apiCaller('X-Mesh-Token');
const schedCall = apiCaller('X-Sched-Token');
const KEY_VAR = 'CAIRN_TEST_STATE_KEY';

/** Per service: its key file, its ACL config (with `key` set: the state key setting too), and one write and its read-back. */
const SERVICES = {
  mesh: {
    keyFile: 'mesh-state.key',
    hcl: (key: boolean) =>
      `acl {\n  enabled = true\n  default_policy = "deny"\n  tokens { initial_management = "${ROOT}" }\n}\n${key ? `encrypt = "env://${KEY_VAR}"\n` : ''}`,
    ready: async (_p: ServerProcess) => undefined,
    write: (p: ServerProcess, name: string) => meshCall(p.url, 'PUT', '/v1/acl/policy', { token: ROOT, body: { Name: name, Rules: '' } }),
    read: async (p: ServerProcess) => ((await meshCall(p.url, 'GET', '/v1/acl/policies', { token: ROOT })).json as { Name: string }[]).map((x) => x.Name),
  },
  sched: {
    keyFile: 'sched-state.key',
    hcl: (key: boolean) => `acl { enabled = true }\n${key ? `server { encrypt = "env://${KEY_VAR}" }\n` : ''}`,
    ready: async (p: ServerProcess) => {
      const boot = await schedCall(p.url, 'POST', '/v1/acl/bootstrap', { body: { BootstrapSecret: ROOT } });
      assert.equal(boot.status, 200, boot.text);
    },
    write: (p: ServerProcess, name: string) => schedCall(p.url, 'PUT', `/v1/acl/policy/${name}`, { token: ROOT, body: { Name: name, Rules: '' } }),
    read: async (p: ServerProcess) => ((await schedCall(p.url, 'GET', '/v1/acl/policies', { token: ROOT })).json as { Name: string }[]).map((x) => x.Name),
  },
} as const;

for (const service of ['mesh', 'sched'] as const) {
  const s = SERVICES[service];
  const start = (name: string, table: string, key?: string) =>
    startSharedAgent({
      service,
      dir,
      name: `${service}-${name}`,
      pgUrl: pgServer.url,
      table,
      extra: s.hcl(key !== undefined),
      env: key ? { [KEY_VAR]: key } : {},
    }).then((p) => {
      running.push(p);
      return p;
    });
  const data = (name: string) => join(dir, `${service}-${name}`);

  describe(`${service} agents started together on one empty table`, () => {
    it(
      'each with its own new key: exactly one runs; the other exits naming the key file to copy where, and runs once it is copied',
      { timeout: 120_000 },
      async () => {
        const table = `cairn_${service}_together_${randomBytes(4).toString('hex')}`;
        const results = await Promise.allSettled([start('a', table), start('b', table)]);
        const ran = results.flatMap((r, i) => (r.status === 'fulfilled' ? [{ p: r.value, name: ['a', 'b'][i]! }] : []));
        const refused = results.flatMap((r, i) => (r.status === 'rejected' ? [{ err: r.reason as Error, name: ['a', 'b'][i]! }] : []));
        assert.equal(ran.length, 1, `exactly one agent runs: ${refused.map((r) => r.err.message).join('\n')}`);
        assert.equal(refused.length, 1);
        const [winner, loser] = [ran[0]!, refused[0]!];
        const print = stateKeyFingerprint(Buffer.from(readFileSync(join(data(winner.name), s.keyFile), 'utf8'), 'base64'));
        assert.match(loser.err.message, /exited with 1/);
        assert.match(
          loser.err.message,
          new RegExp(
            `PostgreSQL table ${table} .*(was written with another state key \\(fingerprint ${print}\\)|is encrypted with the state key of fingerprint ${print})`,
          ),
        );
        assert.match(
          loser.err.message,
          new RegExp(`copy ${s.keyFile.replace('.', '\\.')} from the data directory of the agent that made it .* to ${join(data(loser.name), s.keyFile)}`),
        );
        assert.ok(!existsSync(join(data(loser.name), s.keyFile)), 'the refused agent left no key file');
        await untilLeader('the running agent leads', 10_000, winner.p, winner.p);
        await s.ready(winner.p);
        const before = await s.write(winner.p, 'before');
        assert.equal(before.status, 200, before.text);

        copyFileSync(join(data(winner.name), s.keyFile), join(data(loser.name), s.keyFile));
        const second = await start(loser.name, table);
        await untilLeader('the second agent follows the first', 5000, second, winner.p);
        const made = await s.write(second, 'through-follower');
        assert.equal(made.status, 200, made.text);
        const names = await s.read(second);
        assert.ok(names.includes('before') && names.includes('through-follower'), `both writes are read on the follower: ${names.join(', ')}`);
      },
    );

    it('all given one key in the config: every agent runs, no key file is made, a write through one is read on the other', { timeout: 60_000 }, async () => {
      const table = `cairn_${service}_keyed_${randomBytes(4).toString('hex')}`;
      const key = randomBytes(32).toString('base64');
      const [x, y] = await Promise.all([start('x', table, key), start('y', table, key)]);
      const leader = await until('one agent leads', 10_000, async () => (await leaderOf(x)) || undefined);
      const [lead, follow] = hostOf(x) === leader ? [x, y] : [y, x];
      for (const p of [lead, follow]) await untilLeader('both name one leader', 10_000, p, lead);
      await s.ready(follow);
      const made = await s.write(follow, 'keyed');
      assert.equal(made.status, 200, made.text);
      assert.ok((await s.read(lead)).includes('keyed'));
      for (const n of ['x', 'y'])
        assert.deepEqual(
          readdirSync(data(n)).filter((f) => f.endsWith('.key')),
          [],
          `no key file in ${n}`,
        );
    });
  });
}
