/**
 * Template sources, secrets (issue 27 scope 5) against a real secrets service, through a
 * counting proxy that shows each request: a KV v2 secret is read, read again on the poll
 * interval (a new version arrives, an unchanged one calls nothing), a missing one waits
 * without a value or an error until it is written, a refused one is reported as denied; a
 * leased secret (a KV v1 mount with leased reads) is renewed before its lease ends and read
 * again once its max TTL stops renewals; a write's response (a token with its auth lease) is
 * the value and its lease is renewed; a list hands over the keys.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../src/kernel/log/logger.js';
import type { SecretResponse } from '../../src/services/sched/template/dependency.js';
import { createTemplateSource, TemplateSourceError } from '../../src/services/sched/client/templates/sources/index.js';
import { DEFAULT_TEMPLATE_SOURCE_SETTINGS } from '../../src/services/sched/client/templates/sources/settings.js';
import { startTestServer, type TestServer } from '../helpers.js';
import { until } from '../processes.js';
import { recorder, startCountingProxy, type CountingProxy } from './template-sources-helpers.js';

const settings = { ...DEFAULT_TEMPLATE_SOURCE_SETTINGS, secretPollIntervalMs: 300, vaultRetry: { backoffMs: 50, maxBackoffMs: 300 } };

describe('template sources: secrets', () => {
  let server: TestServer;
  let proxy: CountingProxy;
  const requests = (method: string, prefix: string) => proxy.requests.filter((r) => r.method === method && r.url.startsWith(prefix));
  const kvPut = async (path: string, data: Record<string, string>) =>
    assert.equal((await server.call('PUT', `/v1/secret/data/${path}`, { body: { data } })).status, 200);
  const source = (token: () => string | undefined = () => server.rootToken) =>
    createTemplateSource({ secrets: { address: proxy.url, token }, settings, log: silentLogger() });

  before(async () => {
    server = await startTestServer();
    proxy = await startCountingProxy(server.url);
  });
  after(async () => {
    await proxy?.close();
    await server?.close();
  });

  it('reads a KV v2 secret, again on the poll interval: a new version arrives, an unchanged one calls nothing', async () => {
    await kvPut('web', { password: 'one' });
    const s = source();
    try {
      const r = recorder();
      s.watch({ kind: 'secret.read', path: 'secret/data/web' }, r);
      const first = (await r.valueWhere('version 1', (v) => (v as SecretResponse).data?.data !== undefined)) as SecretResponse;
      assert.deepEqual((first.data!.data as Record<string, string>).password, 'one');
      await kvPut('web', { password: 'two' });
      await r.valueWhere('version 2', (v) => ((v as SecretResponse).data!.data as Record<string, string>).password === 'two');
      const reads = requests('GET', '/v1/secret/data/web').length;
      await until('three more polls', 15_000, () => (requests('GET', '/v1/secret/data/web').length >= reads + 3 ? true : undefined));
      assert.equal(r.values.length, 2, 'unchanged reads hand nothing over');
      assert.equal(r.errors.length, 0);
    } finally {
      s.close();
    }
  });

  it('a missing secret hands nothing over and is read again until it is written', async () => {
    const s = source();
    try {
      const r = recorder();
      s.watch({ kind: 'secret.read', path: 'secret/data/later' }, r);
      await until('two reads of the missing secret', 10_000, () => (requests('GET', '/v1/secret/data/later').length >= 2 ? true : undefined));
      assert.equal(r.values.length, 0);
      assert.equal(r.errors.length, 0, 'missing is not a failure: the template says what it waits for');
      await kvPut('later', { k: 'v' });
      await r.valueWhere('the secret once written', (v) => ((v as SecretResponse).data?.data as Record<string, string>)?.k === 'v');
    } finally {
      s.close();
    }
  });

  it('a token that may not read the path: denied, retried, and the next token of the moment works', async () => {
    await kvPut('guarded', { k: 'g' });
    const weak = await server.call('POST', '/v1/auth/token/create', { body: { policies: ['default'] } });
    assert.equal(weak.status, 200, weak.text);
    let token: string = weak.json.auth.client_token;
    const s = source(() => token);
    try {
      const r = recorder();
      s.watch({ kind: 'secret.read', path: 'secret/data/guarded' }, r);
      await until('two refusals', 10_000, () => (r.errors.length >= 2 ? true : undefined));
      const err = r.errors[0]!.err as TemplateSourceError;
      assert.ok(err instanceof TemplateSourceError);
      assert.equal(err.failure, 'denied');
      assert.equal(err.status, 403);
      assert.equal(err.message, 'secret.read(secret/data/guarded): permission denied', "the service's own text is not repeated");
      assert.ok(!err.message.includes(token));
      assert.equal(r.values.length, 0);
      token = server.rootToken;
      await r.valueWhere('read with the new token', (v) => ((v as SecretResponse).data?.data as Record<string, string>)?.k === 'g');
    } finally {
      s.close();
    }
  });

  it('renews a leased secret before its lease ends and reads it again once its max TTL stops the renewals', { timeout: 60_000 }, async () => {
    const mount = await server.call('POST', '/v1/sys/mounts/leased', {
      body: { type: 'kv', options: { leased_passthrough: 'true' }, config: { max_lease_ttl: '8s' } },
    });
    assert.equal(mount.status, 204, mount.text);
    assert.equal((await server.call('PUT', '/v1/leased/db', { body: { user: 'u', ttl: '3s' } })).status, 204);
    const s = source();
    try {
      const r = recorder();
      s.watch({ kind: 'secret.read', path: 'leased/db' }, r);
      const first = (await r.valueWhere('the leased secret', () => true)) as SecretResponse;
      assert.ok(first.lease_id, 'the read is leased');
      assert.equal(first.renewable, true);
      await until('a renewal', 10_000, () => (requests('POST', '/v1/sys/leases/renew').some((q) => q.status === 200) ? true : undefined));
      const second = (await r.valueWhere('read again with a new lease', (v) => (v as SecretResponse).lease_id !== first.lease_id, 20_000)) as SecretResponse;
      assert.deepEqual(second.data, first.data);
      // The first lease was still valid when read again: renewals never failed.
      assert.ok(requests('POST', '/v1/sys/leases/renew').every((q) => q.status === 200));
      assert.equal(r.errors.length, 0);
    } finally {
      s.close();
    }
  });

  it("a write's response is its value (a token), not written again, and its auth lease renewed", { timeout: 60_000 }, async () => {
    const s = source();
    try {
      const r = recorder();
      s.watch({ kind: 'secret.write', path: 'auth/token/create', data: { ttl: '3s', policies: 'default' } }, r);
      const v = (await r.valueWhere('the new token', () => true)) as SecretResponse;
      const auth = v.auth as { client_token: string; lease_duration: number; renewable: boolean };
      assert.ok(auth.client_token);
      assert.equal(auth.renewable, true);
      // The second renewal comes after the first TTL (3 s) had run out: only the first kept the token alive.
      const renewed = () => requests('POST', '/v1/auth/token/renew-self').filter((q) => q.status === 200).length;
      await until('two renewals of the token', 15_000, () => (renewed() >= 2 ? true : undefined));
      const lookup = await server.call('GET', '/v1/auth/token/lookup-self', { token: auth.client_token });
      assert.equal(lookup.status, 200, 'the token lives on past its first TTL');
      assert.equal(requests('POST', '/v1/auth/token/renew-self').length, renewed(), 'no renewal failed');
      assert.equal(requests('POST', '/v1/auth/token/create').length, 1);
      assert.equal(r.values.length, 1);
    } finally {
      s.close();
    }
  });

  it('lists keys (LIST), again when one comes', async () => {
    await kvPut('dir/a', { k: '1' });
    const s = source();
    try {
      const r = recorder();
      s.watch({ kind: 'secret.list', path: 'secret/metadata/dir' }, r);
      await r.valueWhere('one key', (v) => JSON.stringify(v) === '["a"]');
      await kvPut('dir/b', { k: '2' });
      await r.valueWhere('two keys', (v) => JSON.stringify(v) === '["a","b"]');
    } finally {
      s.close();
    }
  });
  it(
    'a renewal that fails for a transient reason is retried and keeps the lease; failing past the lease, the secret is read again',
    { timeout: 60_000 },
    async () => {
      const mount = await server.call('POST', '/v1/sys/mounts/leased-outage', { body: { type: 'kv', options: { leased_passthrough: 'true' } } });
      assert.equal(mount.status, 204, mount.text);
      assert.equal((await server.call('PUT', '/v1/leased-outage/db', { body: { user: 'u', ttl: '9s' } })).status, 204);
      let down = 0;
      const flaky = await startCountingProxy(server.url, { drop: (q) => q.url.startsWith('/v1/sys/leases/renew') && down-- > 0 });
      const s = createTemplateSource({ secrets: { address: flaky.url, token: () => server.rootToken }, settings, log: silentLogger() });
      const renewals = () => flaky.requests.filter((q) => q.url.startsWith('/v1/sys/leases/renew'));
      const reads = () => flaky.requests.filter((q) => q.method === 'GET' && q.url.startsWith('/v1/leased-outage/db'));
      try {
        const r = recorder();
        s.watch({ kind: 'secret.read', path: 'leased-outage/db' }, r);
        const first = (await r.valueWhere('the leased secret', () => true)) as SecretResponse;
        // The first two renewal attempts get no answer: both reported, the third renews the same lease
        // (9 s: the first renewal comes after 6.3–6.6 s and the lease is kept while 1–2 s are left).
        down = 2;
        await until('a renewal after two failed attempts', 15_000, () => (renewals().some((q) => q.status === 200) ? true : undefined));
        assert.equal(renewals().length, 3);
        assert.equal(r.errors.length, 2);
        for (const { err } of r.errors) assert.equal((err as TemplateSourceError).failure, 'unavailable');
        assert.equal(reads().length, 1, 'no new credential for a short outage');
        assert.equal(r.values.length, 1);

        // Now every renewal fails until the lease is about to end: the secret is read again (a new lease).
        down = 1_000_000;
        const second = (await r.valueWhere('read again with a new lease', (v) => (v as SecretResponse).lease_id !== first.lease_id, 20_000)) as SecretResponse;
        assert.deepEqual(second.data, first.data);
        assert.equal(reads().length, 2);
      } finally {
        s.close();
        await flaky.close();
      }
    },
  );
  it('a client without a secrets service says so at each retry and hands nothing over', async () => {
    const s = createTemplateSource({ settings, log: silentLogger() });
    try {
      const r = recorder();
      s.watch({ kind: 'secret.read', path: 'secret/data/web' }, r);
      await until('two reports', 10_000, () => (r.errors.length >= 2 ? true : undefined));
      const err = r.errors[0]!.err as TemplateSourceError;
      assert.equal(err.failure, 'refused');
      assert.equal(err.message, 'secret.read(secret/data/web): refused (400): no secrets service is configured on this client');
      assert.equal(r.values.length, 0);
    } finally {
      s.close();
    }
  });
});
