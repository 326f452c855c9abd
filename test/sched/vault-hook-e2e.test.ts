/**
 * Secrets tokens for tasks end to end (issue 27 scope 3): a real `cairn secrets server`
 * process, configured with the SDK as `cairn dev` does (contract: a KV v2 mount `secret/`, the
 * JWT auth mount `jwt-workloads/` trusting the scheduler's JWKS, the role and templated
 * policy `cairn-workloads`), and a scheduler agent (server and client) whose client has a
 * `vault` block.
 *
 * A job with `vault {}` gets a token in `secrets/vault_token` (0600) and `VAULT_TOKEN` that
 * reads `secret/data/default/<job>/*` and nothing of another job; a refused role fails the
 * task's setup naming it; a short-lived token is renewed, then replaced by a new login when
 * its maximum TTL nears, restarting the task (`change_mode = "restart"`); the token is revoked
 * when the job stops; a client restart reuses the token; and a stopped secrets service never
 * stops a running task: it keeps running, its events say so, and it gets a new token once
 * the service is back.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type SecretsClient } from '../../src/sdk/secrets.js';
import { SecretsApiError } from '../../src/sdk/secrets-errors.js';
import type { JsonReply } from '../helpers.js';
import { killTasksUnder, until } from '../processes.js';
import { allocWhen, readyNode, runJob, shTask, stopJob, rawExecClient } from './client-helpers.js';
import { startAgent, type TestAgent } from './helpers.js';
import { SecretsServer, WORKLOADS_ROLE } from './secrets-workloads.js';

type Event = { Type: string; Message: string };

/** The status of a secrets API error (0 for anything else). */
const statusOf = (err: unknown) => (err instanceof SecretsApiError ? err.status : 0);

describe('secrets tokens for tasks: a secrets server process and a scheduler agent with a vault block', () => {
  const root = mkdtempSync(join(tmpdir(), 'cairn-vault-hook-'));
  const secrets = new SecretsServer(root);
  let admin: SecretsClient;
  let sched: TestAgent;
  let schedAddress = '127.0.0.1:0';

  /** The scheduler agent (server and client) on `schedAddress` and `root/sched`, its client's vault block at the secrets server. */
  async function startSched(): Promise<void> {
    const dir = join(root, 'sched');
    mkdirSync(dir, { recursive: true });
    sched = await startAgent({
      dataDir: dir,
      httpAddress: schedAddress,
      client: {
        ...rawExecClient(dir),
        vault: { address: secrets.url, jwtAuthBackendPath: 'jwt-workloads', namespace: '', createFromRole: '', tlsSkipVerify: false },
      },
    });
    schedAddress = new URL(sched.url).host;
    await readyNode(sched);
  }

  /** The secrets side as `cairn dev` sets it up, plus a role `short` of 4 s tokens capped at 12 s. */
  async function configureSecrets(): Promise<void> {
    await secrets.wireWorkloads(sched.url);
    await admin.write('auth/jwt-workloads/role/short', { ...WORKLOADS_ROLE, token_ttl: '4s', token_max_ttl: '12s' });
    await admin.kv('secret').put('default/app/x', { password: 's3cret' });
  }

  before(async () => {
    await secrets.start();
    admin = secrets.admin;
    await startSched();
    await configureSecrets();
  });
  after(async () => {
    await sched?.stop();
    await secrets.close();
    killTasksUnder(root);
    rmSync(root, { recursive: true, force: true });
  });

  const taskDir = (allocId: string) => join(root, 'sched', 'alloc', allocId, 't');
  const tokenOf = (allocId: string) => readFileSync(join(taskDir(allocId), 'secrets', 'vault_token'), 'utf8');
  const asToken = (token: string) => admin.withToken(token);
  /** A job `id` of one task `t` with `vault` (JSON), recording each start and its `VAULT_TOKEN` under `local/`. */
  const vaultJob = (id: string, vault: Record<string, unknown>) => ({
    ID: id,
    TaskGroups: [
      {
        Name: 'g',
        RestartPolicy: { Attempts: 0, Mode: 'fail' },
        Tasks: [shTask('t', 'echo start >> local/starts; printf %s "$VAULT_TOKEN" > local/env_token; exec sleep 300', { Vault: vault })],
      },
    ],
  });
  const running = (allocId: string, what = 'the task running') =>
    allocWhen(sched, allocId, { what, ok: (a) => a.TaskStates?.t?.State === 'running', ms: 30_000 });
  const events = (a: JsonReply): Event[] => a.TaskStates.t.Events;

  it(
    'gives the task a token in secrets/vault_token and VAULT_TOKEN that reads its own job secrets only; revokes it when the job stops',
    { timeout: 120_000 },
    async () => {
      const allocId = await runJob(sched, vaultJob('app', {}));
      await running(allocId);
      const token = await until('the token file', 10_000, () => tokenOf(allocId) || undefined);
      assert.equal(statSync(join(taskDir(allocId), 'secrets', 'vault_token')).mode & 0o777, 0o600);
      await until('VAULT_TOKEN written by the task', 10_000, () => readFileSync(join(taskDir(allocId), 'local', 'env_token'), 'utf8') || undefined);
      assert.equal(readFileSync(join(taskDir(allocId), 'local', 'env_token'), 'utf8'), token);

      const own = asToken(token);
      assert.deepEqual((await own.kv('secret').get('default/app/x'))?.data?.data, { password: 's3cret' });
      const self = (await own.token.lookup()).data!;
      assert.ok(self.policies.includes('cairn-workloads'), JSON.stringify(self.policies));
      assert.equal(self.meta?.cairn_job_id, 'app');
      assert.equal(self.meta?.cairn_namespace, 'default');

      // Another job's token is refused the path by the templated policy.
      const otherAlloc = await runJob(sched, vaultJob('other', {}));
      await running(otherAlloc);
      const other = asToken(await until('the other token', 10_000, () => tokenOf(otherAlloc) || undefined));
      const refused = await other
        .kv('secret')
        .get('default/app/x')
        .then(
          () => 0,
          (err: unknown) => statusOf(err),
        );
      assert.equal(refused, 403);

      await stopJob(sched, 'app');
      await until('the token revoked', 20_000, async () => (statusOf(await admin.token.lookup(token).catch((e: unknown) => e)) === 403 ? true : undefined));
      await stopJob(sched, 'other');
    },
  );

  it('fails the task setup naming the role when the login is refused', { timeout: 60_000 }, async () => {
    const allocId = await runJob(sched, vaultJob('norole', { Role: 'nope' }));
    const a = await allocWhen(sched, allocId, { what: 'the task failed', ok: (x) => x.TaskStates?.t?.State === 'dead', ms: 30_000 });
    assert.equal(a.TaskStates.t.Failed, true);
    const failure = events(a).find((e) => e.Type === 'Setup Failure');
    assert.ok(failure, JSON.stringify(events(a)));
    assert.match(
      failure.Message,
      /^failed to set up the task: vault: Vault: failed to derive vault token: failed to derive Vault token for identity vault_default with role "nope": /,
    );
    await stopJob(sched, 'norole');
  });

  it('renews a short token, then logs in again before its maximum TTL and restarts the task', { timeout: 120_000 }, async () => {
    const allocId = await runJob(sched, vaultJob('ren', { Role: 'short', ChangeMode: 'restart' }));
    await running(allocId);
    const first = await until('the token file', 10_000, () => tokenOf(allocId) || undefined);
    const issued = Date.now();
    // Past its 4 s TTL, the token is still valid: it was renewed.
    await until('7 s past the login', 10_000, () => (Date.now() - issued >= 7000 ? true : undefined));
    assert.ok((await asToken(first).token.lookup()).data!.ttl > 0);
    // Its maximum TTL (12 s) nears: a new login, a new file, a restart.
    const second = await until('a new token', 30_000, () => (tokenOf(allocId) !== first ? tokenOf(allocId) : undefined));
    const a = await allocWhen(sched, allocId, {
      what: 'the restart for the new token',
      ok: (x) => events(x).some((e) => e.Type === 'Restart Signaled' && e.Message === 'Vault: new Vault token acquired') && x.TaskStates.t.State === 'running',
      ms: 30_000,
    });
    assert.equal(a.TaskStates.t.Failed, false);
    assert.ok((await asToken(second).token.lookup()).data!.ttl > 0);
    await until('the task started twice, with the new token', 10_000, () =>
      readFileSync(join(taskDir(allocId), 'local', 'starts'), 'utf8')
        .split('\n')
        .filter(Boolean).length >= 2 && readFileSync(join(taskDir(allocId), 'local', 'env_token'), 'utf8') !== first
        ? true
        : undefined,
    );
    await stopJob(sched, 'ren');
  });

  it('a client restart reuses the token of the running task', { timeout: 120_000 }, async () => {
    const allocId = await runJob(sched, vaultJob('keep', {}));
    await running(allocId);
    const token = await until('the token file', 10_000, () => tokenOf(allocId) || undefined);
    await sched.stop(); // the agent stops, not the task's job: the token is not revoked
    assert.ok((await asToken(token).token.lookup()).data!.ttl > 0, 'still valid while the client is away');
    await startSched();
    await allocWhen(sched, allocId, {
      what: 'the task running again',
      ok: (x) => x.TaskStates?.t?.State === 'running' && events(x).some((e) => e.Message.includes('client agent restarted')),
      ms: 30_000,
    });
    await until('the task started again', 10_000, () =>
      readFileSync(join(taskDir(allocId), 'local', 'starts'), 'utf8')
        .split('\n')
        .filter(Boolean).length >= 2
        ? true
        : undefined,
    );
    assert.equal(tokenOf(allocId), token, 'no new login');
    assert.equal(readFileSync(join(taskDir(allocId), 'local', 'env_token'), 'utf8'), token);
    await stopJob(sched, 'keep');
    await until('the token revoked', 20_000, async () => (statusOf(await admin.token.lookup(token).catch((e: unknown) => e)) === 403 ? true : undefined));
  });

  it('keeps the task running while the secrets service is down, says so, and gets a new token once it is back', { timeout: 150_000 }, async () => {
    const allocId = await runJob(sched, vaultJob('out', { Role: 'short', ChangeMode: 'noop' }));
    await running(allocId);
    const first = await until('the token file', 10_000, () => tokenOf(allocId) || undefined);
    const issued = Date.now(); // the token's life began before
    const address = new URL(secrets.url).host;
    await secrets.kill();
    await allocWhen(sched, allocId, {
      what: 'the failed renewal in the task events',
      ok: (x) => events(x).some((e) => e.Type === 'Task hook failed' && e.Message.startsWith('Vault: failed to renew the Vault token; retrying')),
      ms: 15_000,
    });
    // A task placed meanwhile waits for its first token, and says so.
    const lateAlloc = await runJob(sched, vaultJob('late', {}));
    const waiting = await allocWhen(sched, lateAlloc, {
      what: 'the late task waiting for its token',
      ok: (x) => x.TaskStates?.t !== undefined && events(x).some((e) => e.Type === 'Task hook failed' && e.Message.includes('failed to derive vault token')),
      ms: 15_000,
    });
    assert.equal(waiting.TaskStates.t.State, 'pending');
    // Down until the token's whole life (12 s at most) is over. The hook retries 1, 3, 7, 15 and
    // 31 s after its first failed renewal: back by the 15 s retry, the service is not waited for
    // until the 31 s one (a fixed 20 s outage always was).
    await until("the token's maximum TTL past", 25_000, () => (Date.now() - issued >= 12_000 ? true : undefined));
    const during = await allocWhen(sched, allocId, { what: 'the task state', ok: () => true });
    assert.equal(during.TaskStates.t.State, 'running');
    assert.equal(during.TaskStates.t.Restarts, 0);
    await secrets.start(address);
    const back = await allocWhen(sched, allocId, {
      what: 'the recovery in the task events',
      ok: (x) => events(x).some((e) => e.Type === 'Task hook message' && /^Vault: a new Vault token was obtained after \d+ failed attempts?$/.test(e.Message)),
      ms: 60_000,
    });
    assert.equal(back.TaskStates.t.State, 'running');
    assert.equal(back.TaskStates.t.Restarts, 0, 'change_mode noop: no restart');
    const fresh = tokenOf(allocId);
    assert.notEqual(fresh, first);
    assert.ok((await asToken(fresh).token.lookup()).data!.ttl > 0);
    const late = await running(lateAlloc, 'the late task started with its token');
    assert.equal(late.TaskStates.t.Failed, false);
    assert.ok((await asToken(tokenOf(lateAlloc)).token.lookup()).data!.ttl > 0);
    await stopJob(sched, 'out');
    await stopJob(sched, 'late');
  });
});
