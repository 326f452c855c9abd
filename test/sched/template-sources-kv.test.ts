/**
 * Template sources, discovery KV (issue 27 scope 5): `kv.block`, `kv.get`, `kv.exists` and
 * `kv.list` watched with blocking queries against a real discovery agent, through a counting
 * proxy that shows each query the watch made. A written key's value arrives, a change arrives
 * again, a wake-up with the same value calls nothing, a deleted key is `null`; two watches of
 * one dependency share one query; the token is read at each call (a refused token is reported
 * as denied and retried; the next token works); close() leaves no request open.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../src/kernel/log/logger.js';
import { createTemplateSource, TemplateSourceError } from '../../src/services/sched/client/templates/sources/index.js';
import { DEFAULT_TEMPLATE_SOURCE_SETTINGS } from '../../src/services/sched/client/templates/sources/settings.js';
import { call as meshCall, startAgent, type TestAgent } from '../mesh/helpers.js';
import { until } from '../processes.js';
import { recorder, startCountingProxy, type CountingProxy } from './template-sources-helpers.js';

const ROOT = '5d0c7b1a-2f3e-4a5b-9c6d-7e8f9a0b1c2d';
const settings = {
  ...DEFAULT_TEMPLATE_SOURCE_SETTINGS,
  blockQueryWaitMs: 30_000,
  consulRetry: { backoffMs: 50, maxBackoffMs: 200 },
  vaultRetry: { backoffMs: 50, maxBackoffMs: 200 },
};

describe('template sources: discovery KV', () => {
  let mesh: TestAgent;
  let proxy: CountingProxy;
  const put = async (key: string, value: string) => assert.equal((await meshCall(mesh.url, 'PUT', `/v1/kv/${key}`, { token: ROOT, raw: value })).status, 200);
  const kvQueries = (path: string) => proxy.requests.filter((r) => r.method === 'GET' && r.url.startsWith(`/v1/kv/${path}`));

  before(async () => {
    mesh = await startAgent({ initialManagement: ROOT });
    proxy = await startCountingProxy(mesh.url);
  });
  after(async () => {
    await proxy?.close();
    await mesh?.stop();
  });

  it('hands over a key as it is written, changed and deleted, and nothing for a wake-up with the same value', async () => {
    const source = createTemplateSource({ discovery: { address: proxy.url, token: () => ROOT }, settings, log: silentLogger() });
    try {
      const r = recorder();
      source.watch({ kind: 'kv.block', path: 'app/config' }, r);
      await r.valueWhere('null for a missing key', (v) => v === null);
      await put('app/config', 'one');
      await r.valueWhere('the written value', (v) => v === 'one');
      await put('app/config', 'two');
      await r.valueWhere('the changed value', (v) => v === 'two');
      assert.deepEqual(r.values, [null, 'one', 'two']);

      // The same value written again wakes the blocking query up (a new index); the watch then
      // asks again, blocking on that index, and has told nobody anything.
      const before = kvQueries('app/config').length;
      await put('app/config', 'two');
      await until('the wake-up answered and the next query made', 10_000, () => {
        const qs = kvQueries('app/config').slice(before - 1);
        return qs.length >= 2 && qs[0]!.done ? true : undefined;
      });
      assert.deepEqual(r.values, [null, 'one', 'two']);

      assert.equal((await meshCall(mesh.url, 'DELETE', '/v1/kv/app/config', { token: ROOT })).status, 200);
      await r.valueWhere('null once deleted', (v) => v === null);
      assert.deepEqual(r.values, [null, 'one', 'two', null]);
      assert.equal(r.errors.length, 0);
    } finally {
      source.close();
    }
  });

  it('kv.get and kv.exists hand over the text or null; kv.list every entry under the prefix, decoded', async () => {
    const source = createTemplateSource({ discovery: { address: proxy.url, token: () => ROOT }, settings, log: silentLogger() });
    try {
      const get = recorder();
      const exists = recorder();
      const list = recorder();
      source.watch({ kind: 'kv.get', path: 'list/a' }, get);
      source.watch({ kind: 'kv.exists', path: 'list/a' }, exists);
      source.watch({ kind: 'kv.list', prefix: 'list/' }, list);
      await get.valueWhere('null', (v) => v === null);
      await exists.valueWhere('null', (v) => v === null);
      await list.valueWhere('no entries', (v) => Array.isArray(v) && v.length === 0);
      await put('list/a', 'A');
      await put('list/b/c', 'héllo "x"');
      await get.valueWhere('A', (v) => v === 'A');
      await exists.valueWhere('A', (v) => v === 'A');
      const entries = (await list.valueWhere('two entries', (v) => Array.isArray(v) && v.length === 2)) as {
        Key: string;
        Value: string;
        ModifyIndex: number;
      }[];
      assert.deepEqual(
        entries.map((e) => [e.Key, e.Value]),
        [
          ['list/a', 'A'],
          ['list/b/c', 'héllo "x"'],
        ],
      );
      assert.ok(entries.every((e) => e.ModifyIndex > 0));
    } finally {
      source.close();
    }
  });

  it('shares one query between the watches of one dependency; a late watch gets the current value at once', async () => {
    await put('shared/k', 'v1');
    const source = createTemplateSource({ discovery: { address: proxy.url, token: () => ROOT }, settings, log: silentLogger() });
    try {
      const first = recorder();
      const start = kvQueries('shared/k').length;
      const stopFirst = source.watch({ kind: 'kv.block', path: 'shared/k' }, first);
      await first.valueWhere('v1', (v) => v === 'v1');
      const second = recorder();
      source.watch({ kind: 'kv.block', path: 'shared/k' }, second);
      await second.valueWhere('v1 for the late watch', (v) => v === 'v1');
      await put('shared/k', 'v2');
      await first.valueWhere('v2', (v) => v === 'v2');
      await second.valueWhere('v2', (v) => v === 'v2');
      // One query at a time: the first (not blocking), the one that woke up with v2, the next one.
      await until('the next blocking query', 10_000, () => (kvQueries('shared/k').length - start === 3 ? true : undefined));
      assert.equal(kvQueries('shared/k').filter((q) => !q.done).length, 1);
      // The watch goes on while one listener is left.
      stopFirst();
      await put('shared/k', 'v3');
      await second.valueWhere('v3', (v) => v === 'v3');
      assert.deepEqual(first.values, ['v1', 'v2']);
    } finally {
      source.close();
    }
    await until('no query left open after close()', 10_000, () => (kvQueries('shared/k').every((q) => q.done) ? true : undefined));
  });

  it('sends the token of the moment: a refused one is reported as denied and retried, the next one is used', async () => {
    await put('secure/k', 'ok');
    const policy = await meshCall(mesh.url, 'PUT', '/v1/acl/policy', {
      token: ROOT,
      body: { Name: 'kv-secure', Rules: 'key_prefix "secure/" { policy = "read" }' },
    });
    assert.equal(policy.status, 200);
    const reader = await meshCall(mesh.url, 'PUT', '/v1/acl/token', { token: ROOT, body: { Policies: [{ Name: 'kv-secure' }] } });
    let token = 'a8d1b1b2-0000-4000-8000-000000000000';
    const source = createTemplateSource({ discovery: { address: proxy.url, token: () => token }, settings, log: silentLogger() });
    try {
      const r = recorder();
      source.watch({ kind: 'kv.block', path: 'secure/k' }, r);
      await until('a refusal reported', 10_000, () => (r.errors.length >= 2 ? true : undefined));
      const err = r.errors[0]!.err;
      assert.ok(err instanceof TemplateSourceError);
      assert.equal(err.failure, 'denied');
      assert.equal(err.status, 403);
      assert.match(err.message, /^kv\.block\(secure\/k\): permission denied: /);
      assert.ok(!err.message.includes(token), 'the token never appears in an error');
      assert.equal(r.values.length, 0);
      token = reader.json.SecretID as string;
      await r.valueWhere('the value read with the new token', (v) => v === 'ok');
    } finally {
      source.close();
    }
  });
  it('an index of 0 is taken as 1; an index that goes backwards starts over without blocking', async () => {
    await put('idx/k', 'v');
    // The service's real index, except: the 1st reply says 0, the 3rd says 1 (backwards).
    let n = 0;
    const odd = await startCountingProxy(mesh.url, {
      rewriteIndex: (index, req) => {
        if (!req.url.startsWith('/v1/kv/idx/k')) return index;
        n++;
        return n === 1 ? 0 : n === 3 ? 1 : index;
      },
    });
    const source = createTemplateSource({ discovery: { address: odd.url, token: () => ROOT }, settings, log: silentLogger() });
    try {
      const r = recorder();
      source.watch({ kind: 'kv.block', path: 'idx/k' }, r);
      await r.valueWhere('v', (x) => x === 'v');
      const queries = () => odd.requests.filter((q) => q.url.startsWith('/v1/kv/idx/k')).map((q) => new URL(q.url, 'http://x').searchParams.get('index'));
      // 1st: no index, says 0; the 2nd blocks on 1 (0 would answer at once, again and again), answers at
      // once with the real N; the 3rd blocks on N until a write and says 1, backwards: the 4th starts over
      // without an index and answers at once; the 5th blocks on the real index again.
      await until('the 3rd query', 10_000, () => (queries().length >= 3 ? true : undefined));
      await put('idx/k', 'w');
      await until('the 5th query', 10_000, () => (queries().length >= 5 ? true : undefined));
      const q = queries();
      assert.equal(q[0], null);
      assert.equal(q[1], '1');
      assert.ok(Number(q[2]) > 1, String(q[2]));
      assert.equal(q[3], null, 'after the index went backwards the next read does not block');
      assert.ok(Number(q[4]) > Number(q[2]), `${q[4]} after ${q[2]}`);
      await r.valueWhere('w', (x) => x === 'w');
      await put('idx/k', 'x');
      await r.valueWhere('x', (v) => v === 'x');
      assert.deepEqual(r.values, ['v', 'w', 'x']);
    } finally {
      source.close();
      await odd.close();
    }
  });
});
