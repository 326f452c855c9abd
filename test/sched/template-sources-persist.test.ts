/**
 * Template sources keeping leased secrets across client restarts (issue 27 scope 6; reference/
 * integration.md §8), against a real secrets service through a counting proxy. A source is
 * made with the task's `private/` directory, closed (the agent stops) and made again on the
 * same directory (the agent's next run): a token its template wrote (`auth/token/create`) is
 * taken up (renewed, not created again) and kept in `private/template-secrets.json` (0600, in a
 * 0700 directory); a renewal with no answer still takes it up; a revoked one, or one whose
 * lease has ended, is created anew; a non-renewable one is taken up without a renewal; a watch
 * stopped for good forgets it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../src/kernel/log/logger.js';
import type { SecretResponse } from '../../src/services/sched/template/dependency.js';
import { createTemplateSource, type TemplateSourceError } from '../../src/services/sched/client/templates/sources/index.js';
import { DEFAULT_TEMPLATE_SOURCE_SETTINGS } from '../../src/services/sched/client/templates/sources/settings.js';
import { startTestServer, type TestServer } from '../helpers.js';
import { until } from '../processes.js';
import { recorder, startCountingProxy, type CountingProxy } from './template-sources-helpers.js';

const settings = { ...DEFAULT_TEMPLATE_SOURCE_SETTINGS, vaultRetry: { backoffMs: 50, maxBackoffMs: 300 } };
type Auth = { client_token: string; renewable: boolean };
const tokenOf = (v: unknown) => ((v as SecretResponse).auth as Auth).client_token;

describe('template sources: leased secrets kept across client restarts', () => {
  const root = mkdtempSync(join(tmpdir(), 'cairn-tpl-kept-'));
  let server: TestServer;
  let proxy: CountingProxy;
  /** Renewals of the next proxied requests to drop without an answer (an outage). */
  let dropRenewals = 0;
  let dirs = 0;
  const requests = (prefix: string) => proxy.requests.filter((r) => r.method === 'POST' && r.url.startsWith(prefix));
  const source = (dir: string) =>
    createTemplateSource({ secrets: { address: proxy.url, token: () => server.rootToken }, settings, log: silentLogger(), persistDir: dir });
  const kept = (dir: string) => {
    try {
      return JSON.parse(readFileSync(join(dir, 'template-secrets.json'), 'utf8')) as Record<string, { obtainedMs: number }>;
    } catch {
      return {};
    }
  };
  /** A new task's `private/` directory (not created yet: the source creates it). */
  const privateDir = () => join(root, `task-${++dirs}`, 'private');
  /** Watches a token write in a source on `dir` until its value; returns the token and the source. */
  async function watchToken(dir: string, data: Record<string, string> = { policies: 'default', ttl: '1h' }) {
    const s = source(dir);
    const r = recorder();
    const stop = s.watch({ kind: 'secret.write', path: 'auth/token/create', data }, r);
    const token = tokenOf(await r.valueWhere('the token', () => true));
    return { s, r, stop, token };
  }

  before(async () => {
    server = await startTestServer();
    proxy = await startCountingProxy(server.url, { drop: (q) => q.url.startsWith('/v1/auth/token/renew-self') && dropRenewals-- > 0 });
  });
  after(async () => {
    await proxy?.close();
    await server?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('takes up a kept token: renewed, not created again; the file 0600 in a 0700 directory', async () => {
    const dir = privateDir();
    const first = await watchToken(dir);
    first.s.close();
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(statSync(join(dir, 'template-secrets.json')).mode & 0o777, 0o600);
    assert.match(Object.keys(kept(dir)).join(), /^secret\.write\(auth\/token\/create -> [^,]+\)$/);
    const creates = requests('/v1/auth/token/create').length;
    const renewals = requests('/v1/auth/token/renew-self').length;

    const again = await watchToken(dir);
    try {
      assert.equal(again.token, first.token);
      assert.equal(requests('/v1/auth/token/create').length, creates, 'no new token');
      assert.equal(requests('/v1/auth/token/renew-self').length, renewals + 1, 'renewed once');
      assert.equal(again.r.errors.length, 0);
    } finally {
      again.s.close();
    }
    assert.ok(JSON.stringify(kept(dir)).includes(first.token), 'closing keeps it');
  });

  it('a renewal with no answer still takes the kept token up (the lease loop retries); a revoked one is created anew', async () => {
    const dir = privateDir();
    const first = await watchToken(dir);
    first.s.close();
    const creates = requests('/v1/auth/token/create').length;

    dropRenewals = 1;
    const during = await watchToken(dir);
    during.s.close();
    assert.equal(during.token, first.token);
    assert.equal(requests('/v1/auth/token/create').length, creates);
    assert.equal((during.r.errors[0]?.err as TemplateSourceError | undefined)?.failure ?? 'unavailable', 'unavailable');

    assert.equal((await server.call('POST', '/v1/auth/token/revoke', { body: { token: first.token } })).status, 204);
    const after = await watchToken(dir);
    try {
      assert.notEqual(after.token, first.token);
      assert.equal(requests('/v1/auth/token/create').length, creates + 1);
      assert.equal(after.r.errors.length, 0, 'a refused renewal is no failure of the watch');
    } finally {
      after.s.close();
    }
    assert.ok(JSON.stringify(kept(dir)).includes(after.token), 'the new token is kept');
  });

  it('a kept lease that has ended is created anew without a renewal; a non-renewable one is taken up without one', async () => {
    const dir = privateDir();
    const first = await watchToken(dir);
    first.s.close();
    const file = kept(dir);
    for (const e of Object.values(file)) e.obtainedMs -= 2 * 3600_000;
    writeFileSync(join(dir, 'template-secrets.json'), JSON.stringify(file));
    const creates = requests('/v1/auth/token/create').length;
    const renewals = requests('/v1/auth/token/renew-self').length;
    const anew = await watchToken(dir);
    anew.s.close();
    assert.notEqual(anew.token, first.token);
    assert.equal(requests('/v1/auth/token/create').length, creates + 1);
    assert.equal(requests('/v1/auth/token/renew-self').length, renewals);

    const fixed = { policies: 'default', ttl: '1h', renewable: 'false' };
    const dir2 = privateDir();
    const once = await watchToken(dir2, fixed);
    once.s.close();
    const again = await watchToken(dir2, fixed);
    again.s.close();
    assert.equal(again.token, once.token);
    assert.equal(requests('/v1/auth/token/create').length, creates + 2);
    assert.equal(requests('/v1/auth/token/renew-self').length, renewals);
  });

  it('a watch stopped for good forgets its kept secret; the next watch creates one anew', async () => {
    const dir = privateDir();
    const first = await watchToken(dir);
    try {
      first.stop();
      await until('the kept secret forgotten', 5_000, () => (Object.keys(kept(dir)).length === 0 ? true : undefined));
      const creates = requests('/v1/auth/token/create').length;
      const r = recorder();
      first.s.watch({ kind: 'secret.write', path: 'auth/token/create', data: { policies: 'default', ttl: '1h' } }, r);
      assert.notEqual(tokenOf(await r.valueWhere('a new token', () => true)), first.token);
      assert.equal(requests('/v1/auth/token/create').length, creates + 1);
    } finally {
      first.s.close();
    }
  });
});
