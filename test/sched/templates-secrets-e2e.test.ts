/**
 * Templates reading KV secrets end to end (issue 27 scope 5, its tests): a real `cairn secrets
 * server` process set up as `cairn dev` sets it (a KV v2 mount `secret/`, the JWT auth mount
 * `jwt-workloads/` trusting the scheduler's JWKS, the role and templated policy
 * `cairn-workloads`) and a scheduler agent whose client has a `vault` block. A job with
 * `vault {}` and a template reading its own `secret/data/default/<job>/db` gets the value in
 * its file (no token in the job); a new KV version re-renders it and restarts the task, or
 * sends it SIGHUP; a job of another name is refused by the policy and its task waits, its
 * events naming the path; the secrets service killed for 10 s (twenty retries at the client's
 * 500 ms retry ceiling) leaves the task running on its last render (`stale`, one event), and
 * the template catches up once the service is back.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type SecretsClient } from '../../src/sdk/secrets.js';
import type { JsonReply } from '../helpers.js';
import { killTasksUnder, until } from '../processes.js';
import { allocWhen, readyNode, runJob, shTask, stopJob, rawExecClient } from './client-helpers.js';
import { startAgent, type TestAgent } from './helpers.js';
import { SecretsServer } from './secrets-workloads.js';

type Event = { Type: string; Message: string };

describe('templates reading secrets: a secrets server process and a scheduler agent with a vault block', () => {
  const root = mkdtempSync(join(tmpdir(), 'cairn-tpl-secrets-'));
  const secrets = new SecretsServer(root);
  let admin: SecretsClient | undefined;
  let sched: TestAgent | undefined;

  before(async () => {
    await secrets.start();
    admin = secrets.admin;

    const dir = join(root, 'sched');
    mkdirSync(dir, { recursive: true });
    sched = await startAgent({
      dataDir: dir,
      client: {
        ...rawExecClient(dir),
        vault: { address: secrets.url, jwtAuthBackendPath: 'jwt-workloads', namespace: '', createFromRole: '', tlsSkipVerify: false },
        // Renders at once; KV v2 secrets (no lease) read again every second.
        template: {
          wait: { minMs: 0, maxMs: 0 },
          blockQueryWaitMs: 2_000,
          secretPollIntervalMs: 1_000,
          consulRetry: { backoffMs: 100, maxBackoffMs: 500 },
          vaultRetry: { backoffMs: 100, maxBackoffMs: 500 },
        },
      },
    });
    await readyNode(sched);

    // The secrets side as `cairn dev` sets it up.
    await secrets.wireWorkloads(sched.url);
  });
  after(async () => {
    await sched?.stop();
    await secrets.close();
    killTasksUnder(root);
    rmSync(root, { recursive: true, force: true });
  });

  const file = (allocId: string, path: string) => {
    try {
      return readFileSync(join(root, 'sched', 'alloc', allocId, 't', path), 'utf8');
    } catch {
      return undefined;
    }
  };
  const events = (a: JsonReply): Event[] => a.TaskStates.t.Events;
  /** A job `id` of one task with `vault {}` and a template of `secret/data/default/<path>` in `secrets/db.conf`. */
  const secretJob = (id: string, path: string, script: string, over: Record<string, unknown> = {}) => ({
    ID: id,
    TaskGroups: [
      {
        Name: 'g',
        RestartPolicy: { Attempts: 0, Mode: 'fail' },
        Tasks: [
          shTask('t', script, {
            Vault: {},
            Templates: [
              {
                EmbeddedTmpl: `{{ with secret "secret/data/default/${path}" }}password={{ .Data.data.password }}{{ end }}\n`,
                DestPath: 'secrets/db.conf',
                Splay: 0,
                ...over,
              },
            ],
          }),
        ],
      },
    ],
  });

  it('renders the job secret with the task token, re-renders a new version and restarts the task', { timeout: 120_000 }, async () => {
    await admin!.kv('secret').put('default/app/db', { password: 'one' });
    const allocId = await runJob(sched!, secretJob('app', 'app/db', 'exec sleep 300'));
    await allocWhen(sched!, allocId, { what: 'running', ok: (a) => a.TaskStates.t.State === 'running', ms: 30_000 });
    assert.equal(file(allocId, 'secrets/db.conf'), 'password=one\n');

    await admin!.kv('secret').put('default/app/db', { password: 'two' });
    const restarted = await allocWhen(sched!, allocId, {
      what: 'restarted for the new version',
      ok: (a) => a.TaskStates.t.Restarts === 1 && a.TaskStates.t.State === 'running',
      ms: 30_000,
    });
    assert.equal(file(allocId, 'secrets/db.conf'), 'password=two\n');
    assert.ok(events(restarted).some((e) => e.Type === 'Restart Signaled' && e.Message === 'Template with change_mode restart re-rendered'));
    await stopJob(sched!, 'app');
  });

  it('signal: a new version sends SIGHUP to the task, which reads the new file', { timeout: 120_000 }, async () => {
    await admin!.kv('secret').put('default/sig/db', { password: 'one' });
    const script = "trap 'cp secrets/db.conf local/after-hup' HUP; while :; do sleep 0.1; done";
    const allocId = await runJob(sched!, secretJob('sig', 'sig/db', script, { ChangeMode: 'signal', ChangeSignal: 'SIGHUP' }));
    await allocWhen(sched!, allocId, { what: 'running', ok: (a) => a.TaskStates.t.State === 'running', ms: 30_000 });
    await admin!.kv('secret').put('default/sig/db', { password: 'two' });
    await until('the task got SIGHUP after the re-render', 30_000, () => (file(allocId, 'local/after-hup') === 'password=two\n' ? true : undefined));
    const a = await allocWhen(sched!, allocId, { what: 'read', ok: () => true });
    assert.equal(a.TaskStates.t.Restarts, 0);
    assert.equal(a.TaskStates.t.State, 'running');
    await stopJob(sched!, 'sig');
  });

  it('a job of another name is refused the path: its task waits, its events name the path', { timeout: 120_000 }, async () => {
    await admin!.kv('secret').put('default/app/db', { password: 'three' });
    const allocId = await runJob(sched!, secretJob('other', 'app/db', 'exec sleep 300'));
    const waiting = await allocWhen(sched!, allocId, {
      what: 'the events naming the path',
      ok: (a) => events(a).some((e) => e.Type === 'Template' && e.Message === 'Missing: secret.read(secret/data/default/app/db)'),
      ms: 30_000,
    });
    assert.equal(waiting.TaskStates.t.State, 'pending');
    assert.ok(
      events(waiting).some(
        (e) =>
          e.Type === 'Template' &&
          e.Message.startsWith('Source unavailable: secret.read(secret/data/default/app/db): ') &&
          e.Message.endsWith('; the task waits for it'),
      ),
      JSON.stringify(events(waiting)),
    );
    assert.equal(waiting.TaskStates.t.Templates[0].State, 'waiting');
    assert.equal(file(allocId, 'secrets/db.conf'), undefined);
    await stopJob(sched!, 'other');
  });

  it('the secrets service down for 10 s: the task keeps running on its last render, and the template catches up after', { timeout: 150_000 }, async () => {
    await admin!.kv('secret').put('default/outage/db', { password: 'one' });
    const allocId = await runJob(sched!, secretJob('outage', 'outage/db', 'exec sleep 300'));
    await allocWhen(sched!, allocId, { what: 'running', ok: (a) => a.TaskStates.t.State === 'running', ms: 30_000 });
    const address = new URL(secrets.url).host;
    await secrets.kill();
    const down = Date.now();
    const stale = await allocWhen(sched!, allocId, {
      what: 'the template stale, with one event',
      ok: (a) => a.TaskStates.t.Templates[0].State === 'stale' && events(a).some((e) => e.Type === 'Template' && e.Message.startsWith('Source unavailable: ')),
      ms: 30_000,
    });
    assert.equal(stale.TaskStates.t.State, 'running');
    await new Promise((r) => setTimeout(r, Math.max(0, 10_000 - (Date.now() - down))));
    const during = await allocWhen(sched!, allocId, { what: 'read', ok: () => true });
    assert.deepEqual([during.TaskStates.t.State, during.TaskStates.t.Restarts], ['running', 0], 'never stopped by the outage');
    assert.equal(events(during).filter((e) => e.Type === 'Template' && e.Message.startsWith('Source unavailable: ')).length, 1, 'one event per outage');
    assert.equal(file(allocId, 'secrets/db.conf'), 'password=one\n', 'the last render stays');

    await secrets.start(address);
    await admin!.kv('secret').put('default/outage/db', { password: 'two' });
    const caughtUp = await allocWhen(sched!, allocId, {
      what: 'the new version rendered after the outage',
      ok: (a) => a.TaskStates.t.Templates[0].State === 'rendered' && a.TaskStates.t.Restarts === 1 && a.TaskStates.t.State === 'running',
      ms: 60_000,
    });
    assert.equal(file(allocId, 'secrets/db.conf'), 'password=two\n');
    assert.equal(caughtUp.TaskStates.t.Restarts, 1, 'one restart, for the new version only');
    // The recovery is told once the source has answered for a while (the hook's flap guard).
    await allocWhen(sched!, allocId, {
      what: 'the recovery event',
      ok: (a) => events(a).some((e) => e.Type === 'Template' && e.Message.startsWith('Source available again: ')),
      ms: 30_000,
    });
    await stopJob(sched!, 'outage');
  });
});
