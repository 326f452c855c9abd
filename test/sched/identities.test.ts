/**
 * Workload identities (issue 27 scope 2) with a real client and real task processes: a task
 * with `identity { env = true file = true ttl = "2s" }` sees its token in `CAIRN_TOKEN` and in
 * `secrets/cairn_token` (mode 0600), the file changes when the client refreshes it at half
 * its TTL, the claims are Cairn's and the token verifies against the JWKS with `jose`; a named
 * identity lands in `secrets/cairn_<name>.jwt` with its audience; the default identity is a
 * token on the scheduler's API for its own job only; no reply (nor event) but the node's own
 * allocation fetch carries a JWT; `change_mode = "restart"` restarts the task with the fresh token and `signal` signals it; the job file's `identity` block and its errors.
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { cliRunner } from '../cli-helpers.js';
import { until } from '../processes.js';
import { allocWhen, eventTypes, job, readyNode, runJob, shTask, startClientAgent } from './client-helpers.js';
import { call, ROOT, type TestAgent } from './helpers.js';
import { Stream } from './stream.js';

/** A task that copies its environment's token into `local/env_token`, then sleeps. */
const COPY_ENV = 'printf %s "$CAIRN_TOKEN" > local/env_token; sleep 300';

describe('scheduler workload identities', () => {
  let a: TestAgent;
  let allocId: string;
  const taskDir = (task: string) => join(a.dataDir, 'alloc', allocId, task);
  const read = (task: string, file: string) => readFileSync(join(taskDir(task), file), 'utf8');
  const { ok: cli } = cliRunner({ env: () => ({ SCHED_ADDR: a.url }), rootEnv: () => ({ SCHED_TOKEN: ROOT }) });

  before(async () => {
    a = await startClientAgent();
    await readyNode(a);
    await runJob(a, job('other-job', [shTask('t', 'sleep 300')]));
    allocId = await runJob(
      a,
      job('wi', [
        shTask('short', COPY_ENV, { Identity: { Env: true, File: true, TTL: 2e9 } }),
        shTask('plain', 'sleep 300', {
          Identity: { File: true },
          Identities: [{ Name: 'extra', Audience: ['x.example'], File: true, Env: true }],
        }),
      ]),
    );
    await until('the tokens written', 20_000, () => {
      try {
        return read('short', 'local/env_token') !== '' && read('plain', 'secrets/cairn_extra.jwt') !== '' ? true : undefined;
      } catch {
        return undefined;
      }
    });
  });
  after(() => a.stop());

  it('hands the task its token in the environment and in secrets/cairn_token (0600), refreshed at half its TTL', async () => {
    const envToken = read('short', 'local/env_token');
    const path = join(taskDir('short'), 'secrets/cairn_token');
    assert.equal(statSync(path).mode & 0o777, 0o600);
    const first = readFileSync(path, 'utf8');
    const claims = decodeJwt(envToken);
    assert.equal(claims.cairn_namespace, 'default');
    assert.equal(claims.cairn_job_id, 'wi');
    assert.equal(claims.cairn_allocation_id, allocId);
    assert.equal(claims.cairn_task, 'short');
    assert.equal(claims.sub, 'global:default:wi:g:short:default');
    assert.equal(claims.aud, 'cairn-sched');
    assert.equal(claims.exp! - claims.iat!, 2);
    const next = await until('the file rewritten with a fresh token', 15_000, () => {
      const now = readFileSync(path, 'utf8');
      return now !== first ? now : undefined;
    });
    assert.ok(decodeJwt(next).exp! >= decodeJwt(first).exp!);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    const set = createRemoteJWKSet(new URL(`${a.url}/.well-known/jwks.json`));
    const verified = await jwtVerify(next, set, { audience: 'cairn-sched' }).catch(() =>
      jwtVerify(readFileSync(path, 'utf8'), set, { audience: 'cairn-sched' }),
    );
    assert.equal(verified.payload.cairn_task, 'short');
    // The task state shows each identity's expiry (never its token), as `alloc status` prints it.
    const status = await until('the expiry reported', 10_000, async () => {
      const out = await cli('sched', 'alloc', 'status', allocId);
      return /^Workload Identities:\nName +Expires +Fetched\ndefault +\d{4}-[\dT:.-]+Z +\d{4}-[\dT:.-]+Z$/m.test(out) ? out : undefined;
    });
    assert.match(status, /^extra +never +\d{4}-/m, 'an identity without a TTL never expires');
    assert.ok(!status.includes(next.split('.')[2]!), 'no token printed');
  });

  it('writes a named identity to secrets/cairn_<name>.jwt with its audience, and CAIRN_TOKEN_<name>', async () => {
    const extra = decodeJwt(read('plain', 'secrets/cairn_extra.jwt'));
    assert.equal(extra.aud, 'x.example');
    assert.equal(extra.sub, 'global:default:wi:g:plain:extra');
    assert.equal(extra.exp, undefined);
    assert.equal(statSync(join(taskDir('plain'), 'secrets/cairn_extra.jwt')).mode & 0o777, 0o600);
  });

  it('accepts the default identity as a token for its own job only', async () => {
    const token = read('plain', 'secrets/cairn_token');
    const own = await call(a.url, 'GET', '/v1/job/wi', { token });
    assert.equal(own.status, 200, own.text);
    assert.equal(own.json.ID, 'wi');
    assert.equal((await call(a.url, 'GET', '/v1/job/wi/allocations', { token })).status, 200);
    for (const path of ['/v1/job/other-job', '/v1/job/other-job/allocations', '/v1/jobs', `/v1/allocation/${allocId}`, '/v1/nodes', '/v1/acl/token/self']) {
      assert.equal((await call(a.url, 'GET', path, { token })).status, 403, path);
    }
    assert.equal((await call(a.url, 'DELETE', '/v1/job/wi', { token })).status, 403, 'read only');
    // A named identity (another audience) is no API token.
    assert.equal((await call(a.url, 'GET', '/v1/job/wi', { token: read('plain', 'secrets/cairn_extra.jwt') })).status, 403);
    // A tampered token is refused.
    const [h, p, s] = token.split('.');
    assert.equal((await call(a.url, 'GET', '/v1/job/wi', { token: `${h}.${p}x.${s}` })).status, 403);
  });

  it('shows the signed identities to the allocation node only', async () => {
    const token = read('plain', 'secrets/cairn_token');
    const nodeId = a.client!.nodeId;
    const byNode = await call(a.url, 'GET', `/v1/node/${nodeId}/allocations`, { token: a.client!.identity.SecretID });
    assert.equal(byNode.status, 200);
    const mine = (byNode.json as { ID: string; SignedIdentities?: Record<string, string> }[]).find((x) => x.ID === allocId)!;
    assert.equal(mine.SignedIdentities?.plain, token);
    for (const path of [`/v1/node/${nodeId}/allocations`, `/v1/allocation/${allocId}`, '/v1/job/wi/allocations', '/v1/allocations']) {
      const r = await call(a.url, 'GET', path, { token: ROOT });
      assert.equal(r.status, 200, path);
      assert.ok(!r.text.includes('SignedIdentities') && !r.text.includes(token.split('.')[2]!), `${path} shows no identity`);
    }
    // Nor the event stream (its allocation events since the start, replayed).
    const stream = await Stream.open(a.url, 'topic=Allocation&index=1');
    try {
      await until('the allocation events replayed', 10_000, () => (stream.raw.includes(allocId) && stream.raw.includes('"running"') ? true : undefined));
      assert.ok(!stream.raw.includes('SignedIdentities') && !stream.raw.includes(token.split('.')[2]!), 'no identity in an event');
    } finally {
      stream.close();
    }
    // The signing route is the node's alone, management included.
    const asked = await call(a.url, 'POST', `/v1/allocation/${allocId}/identities`, {
      token: ROOT,
      body: { Identities: [{ TaskName: 'plain', IdentityName: 'default' }] },
    });
    assert.equal(asked.status, 403);
  });
});

describe('scheduler workload identities: change_mode', () => {
  it('restarts the task when its identity is refreshed, with the fresh token in its environment', { timeout: 60_000 }, async () => {
    const a = await startClientAgent();
    try {
      await readyNode(a);
      const id = await runJob(a, job('wi-restart', [shTask('t', COPY_ENV, { Identity: { Env: true, TTL: 2e9, ChangeMode: 'restart' } })]));
      const envFile = join(a.dataDir, 'alloc', id, 't', 'local/env_token');
      const first = await until('the first token', 20_000, () => {
        try {
          return readFileSync(envFile, 'utf8') || undefined;
        } catch {
          return undefined;
        }
      });
      const alloc = await allocWhen(a, id, {
        what: 'a restart for the refreshed identity',
        ok: (x) =>
          (x.TaskStates?.t?.Events ?? []).some(
            (e: { Type: string; RestartReason: string }) => e.Type === 'Restart Signaled' && /identity "default" was refreshed/.test(e.RestartReason),
          ),
        ms: 20_000,
      });
      assert.ok(alloc.TaskStates.t.Restarts >= 0);
      await until('the restarted process sees a fresh token', 20_000, () => {
        const now = readFileSync(envFile, 'utf8');
        return now !== '' && now !== first ? true : undefined;
      });
    } finally {
      await a.stop();
    }
  });
});

describe('scheduler workload identities: change_mode signal', () => {
  it('sends change_signal to the task when its identity file is rewritten', { timeout: 60_000 }, async () => {
    const a = await startClientAgent();
    try {
      await readyNode(a);
      const script = `trap 'echo hup >> local/hups' HUP; while true; do sleep 0.1; done`;
      const id = await runJob(a, job('wi-signal', [shTask('t', script, { Identity: { File: true, TTL: 2e9, ChangeMode: 'signal', ChangeSignal: 'SIGHUP' } })]));
      await until('a SIGHUP delivered for the refreshed identity', 20_000, () => {
        try {
          return readFileSync(join(a.dataDir, 'alloc', id, 't', 'local/hups'), 'utf8').includes('hup') ? true : undefined;
        } catch {
          return undefined;
        }
      });
      const alloc = await allocWhen(a, id, { what: 'the Signaling event', ok: (x) => eventTypes(x, 't').includes('Signaling') });
      assert.equal(alloc.TaskStates.t.State, 'running');
      assert.equal(alloc.TaskStates.t.Restarts, 0, 'signalled, not restarted');
    } finally {
      await a.stop();
    }
  });
});

describe('scheduler job files: the identity block', () => {
  let a: TestAgent;
  before(async () => {
    a = await startClientAgent();
  });
  after(() => a.stop());

  const parse = (task: string) =>
    call(a.url, 'POST', '/v1/jobs/parse', {
      token: ROOT,
      body: { JobHCL: `job "j" {\n  group "g" {\n    task "t" {\n      driver = "raw_exec"\n${task}\n    }\n  }\n}\n` },
    });

  it('parses default and named identities', async () => {
    const r = await parse(
      '      identity {\n        env = true\n        file = true\n        ttl = "1h"\n        change_mode = "restart"\n      }\n' +
        '      identity {\n        name = "vault_default"\n        aud = ["vault.io"]\n        file = true\n        change_mode = "signal"\n        change_signal = "SIGHUP"\n      }',
    );
    assert.equal(r.status, 200, r.text);
    const t = r.json.TaskGroups[0].Tasks[0];
    assert.deepEqual(t.Identity, { Name: 'default', TTL: 3600e9, Env: true, File: true, ChangeMode: 'restart' });
    assert.deepEqual(t.Identities, [{ Name: 'vault_default', Audience: ['vault.io'], File: true, ChangeMode: 'signal', ChangeSignal: 'SIGHUP' }]);
  });

  it('names the field and line of a bad identity block', async () => {
    const mode = await parse('      identity {\n        change_mode = "reload"\n      }');
    assert.equal(mode.status, 400);
    assert.match(mode.text, /:6: .*change_mode/);
    const ttl = await parse('      identity {\n        ttl = "soon"\n      }');
    assert.equal(ttl.status, 400);
    assert.match(ttl.text, /:6: "ttl" must be a duration/);
    const twice = await parse('      identity {\n        file = true\n      }\n      identity {\n        name = "default"\n      }');
    assert.equal(twice.status, 400);
    assert.match(twice.text, /:9: identity: a second identity named "default"/);
  });

  it('refuses a job whose identity is inconsistent, naming it, and stores nothing', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ Identity: { ChangeMode: 'signal' } }, /identity "default": change_signal is required/],
      [{ Identities: [{ Name: 'a b', File: true }] }, /identity "a b": name must be/],
      [{ Identity: { File: true, Filepath: '../escape' } }, /identity "default": filepath must be a path inside the task directory/],
      [{ Identity: { TTL: 5e8 } }, /ttl must be at least 1s/],
      [{ Identities: [{ Name: 'x' }, { Name: 'x' }] }, /identity "x": duplicate identity name/],
    ];
    for (const [over, message] of cases) {
      const r = await call(a.url, 'POST', '/v1/jobs', { token: ROOT, body: { Job: job('bad-identity', [shTask('t', 'true', over)]) } });
      assert.equal(r.status, 400, JSON.stringify(over));
      assert.match(r.text, message);
    }
    assert.equal((await call(a.url, 'GET', '/v1/job/bad-identity', { token: ROOT })).status, 404);
  });
});
