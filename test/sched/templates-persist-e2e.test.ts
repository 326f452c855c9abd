/**
 * A client agent restart takes up the dynamic credentials its tasks' templates hold instead of
 * issuing new ones (issue 27 scope 6; reference/integration.md §8): a real `cairn secrets
 * server` process set up as `cairn dev` sets it (plus `auth/token/create` in the workloads
 * policy) and a scheduler agent whose client has a `vault` block. A job's template writes
 * `auth/token/create` (a new token at each write) into `secrets/token.txt`; the agent stops
 * (its task stops with it, the allocation is kept) and starts again on the same data dir:
 * - the file holds the same token and the task runs again; the kept file
 *   `private/template-secrets.json` is 0600 and the fs API refuses it (403);
 * - the token revoked while the agent was away: a new one is issued and rendered.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { SecretsClient } from '../../src/sdk/secrets.js';
import { killTasksUnder, until } from '../processes.js';
import { allocWhen, readyNode, runJob, shTask, stopJob, rawExecClient } from './client-helpers.js';
import { call, ROOT, startAgent, type TestAgent } from './helpers.js';
import { SecretsServer } from './secrets-workloads.js';

type Event = { Type: string; Message: string };

describe('templates: a client restart keeps the leased secrets of its tasks', () => {
  const root = mkdtempSync(join(tmpdir(), 'cairn-tpl-persist-'));
  const secrets = new SecretsServer(root);
  let admin: SecretsClient;
  let sched: TestAgent | undefined;
  let schedAddress = '127.0.0.1:0';

  /** The scheduler agent (server and client) on `schedAddress` and `root/sched`: the same data dir at each start. */
  async function startSched(): Promise<void> {
    const dir = join(root, 'sched');
    mkdirSync(dir, { recursive: true });
    sched = await startAgent({
      dataDir: dir,
      httpAddress: schedAddress,
      client: {
        ...rawExecClient(dir),
        vault: { address: secrets.url, jwtAuthBackendPath: 'jwt-workloads', namespace: '', createFromRole: '', tlsSkipVerify: false },
        template: {
          wait: { minMs: 0, maxMs: 0 },
          blockQueryWaitMs: 2_000,
          secretPollIntervalMs: 1_000,
          consulRetry: { backoffMs: 100, maxBackoffMs: 500 },
          vaultRetry: { backoffMs: 100, maxBackoffMs: 500 },
        },
      },
    });
    schedAddress = new URL(sched.url).host;
    await readyNode(sched);
  }

  before(async () => {
    await secrets.start();
    admin = secrets.admin;
    await startSched();
    // The secrets side as `cairn dev` sets it up, the policy allowing child tokens instead.
    await secrets.wireWorkloads(sched!.url);
    await admin.policies.write('cairn-workloads', `path "auth/token/create" {\n  capabilities = ["update"]\n}\n`);
  });
  after(async () => {
    await sched?.stop();
    await secrets.close();
    killTasksUnder(root);
    rmSync(root, { recursive: true, force: true });
  });

  const taskDir = (allocId: string) => join(root, 'sched', 'alloc', allocId, 't');
  const tokenFile = (allocId: string) => {
    try {
      return readFileSync(join(taskDir(allocId), 'secrets', 'token.txt'), 'utf8');
    } catch {
      return undefined;
    }
  };
  const starts = (allocId: string) =>
    readFileSync(join(taskDir(allocId), 'local', 'starts'), 'utf8')
      .split('\n')
      .filter(Boolean).length;
  /** A job `id` of one task with `vault {}` whose template writes a new token into `secrets/token.txt` (the data shape: data.ts `Secret`). */
  const tokenJob = (id: string) => ({
    ID: id,
    TaskGroups: [
      {
        Name: 'g',
        RestartPolicy: { Attempts: 0, Mode: 'fail' },
        Tasks: [
          shTask('t', 'echo start >> local/starts; exec sleep 300', {
            Vault: {},
            Templates: [
              {
                EmbeddedTmpl: '{{ with secret "auth/token/create" "policies=default" "ttl=1h" }}{{ .Auth.ClientToken }}{{ end }}',
                DestPath: 'secrets/token.txt',
                Splay: 0,
              },
            ],
          }),
        ],
      },
    ],
  });
  /** Runs `tokenJob(id)` until its task runs; returns the allocation and the rendered token. */
  async function runTokenJob(id: string): Promise<{ allocId: string; token: string }> {
    const allocId = await runJob(sched!, tokenJob(id));
    await allocWhen(sched!, allocId, { what: 'running', ok: (a) => a.TaskStates?.t?.State === 'running', ms: 30_000 });
    const token = tokenFile(allocId) ?? '';
    assert.match(token, /^\S{10,}$/, 'a token rendered');
    assert.ok((await admin.token.lookup(token)).data!.ttl > 0);
    return { allocId, token };
  }
  /** Stops the agent (its task stops, the allocation is kept), runs `meanwhile`, starts it again on the same data dir: the task runs again. */
  async function restartAgent(allocId: string, meanwhile: () => Promise<void> = async () => undefined): Promise<void> {
    await sched!.stop();
    await meanwhile();
    await startSched();
    await allocWhen(sched!, allocId, {
      what: 'the task running again after the restart',
      ok: (a) => a.TaskStates?.t?.State === 'running' && (a.TaskStates.t.Events as Event[]).some((e) => e.Message.includes('client agent restarted')),
      ms: 30_000,
    });
    await until('the task started again', 15_000, () => (starts(allocId) >= 2 ? true : undefined));
  }

  it('takes up the token its template wrote: the same token after the restart, kept in a 0600 file the fs API refuses', { timeout: 150_000 }, async () => {
    const { allocId, token } = await runTokenJob('keep');
    const kept = join(taskDir(allocId), 'private', 'template-secrets.json');
    await until('the token kept', 10_000, () => (readFileSync(kept, 'utf8').includes(token) ? true : undefined));
    await restartAgent(allocId);

    assert.equal(tokenFile(allocId), token, 'the same token: none issued anew');
    assert.ok((await admin.token.lookup(token)).data!.ttl > 0, 'still valid');
    assert.equal(statSync(kept).mode & 0o777, 0o600);
    assert.equal(statSync(join(taskDir(allocId), 'private')).mode & 0o777, 0o700);
    const viaApi = await call(sched!.url, 'GET', `/v1/client/fs/cat/${allocId}?path=t/private/template-secrets.json`, { token: ROOT });
    assert.equal(viaApi.status, 403, viaApi.text);
    assert.ok(!viaApi.text.includes(token));
    await stopJob(sched!, 'keep');
  });

  it('a token revoked while the agent was away: a new one is issued and rendered after the restart', { timeout: 150_000 }, async () => {
    const { allocId, token } = await runTokenJob('gone');
    const kept = join(taskDir(allocId), 'private', 'template-secrets.json');
    await until('the token kept', 10_000, () => (readFileSync(kept, 'utf8').includes(token) ? true : undefined));
    await restartAgent(allocId, () => admin.write('auth/token/revoke', { token }).then(() => undefined));

    const fresh = await until('a new token rendered', 30_000, () => {
      const now = tokenFile(allocId);
      return now && now !== token ? now : undefined;
    });
    assert.ok((await admin.token.lookup(fresh)).data!.ttl > 0, 'the new token is valid');
    await until('the new token kept', 10_000, () => {
      const text = readFileSync(kept, 'utf8');
      return text.includes(fresh) && !text.includes(token) ? true : undefined;
    });
    await stopJob(sched!, 'gone');
  });
});
