// Read-your-writes in the secrets client (secrets-state.ts): the newest X-Secrets-Index
// a reply carried is sent with later requests (also by derived clients), an older one
// never replaces it, and a 412 is retried with backoff, a bounded number of times.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type SecretsApiError, SecretsClient } from './index.js';
import { envelope, startFakeServer, type FakeServer } from './testing/fake-server.js';

const state = (cluster: string, index: number) => Buffer.from(`v1:${cluster}:${index}`).toString('base64');

describe('SecretsClient read-your-writes (X-Secrets-Index)', () => {
  let server: FakeServer;
  before(async () => {
    server = await startFakeServer();
  });
  after(() => server.close());

  const fresh = (o: { maxStateRetries?: number; readYourWrites?: boolean } = {}) =>
    new SecretsClient({ address: server.url, token: 't', stateRetryBaseMs: 5, ...o });

  it('sends the newest state a reply carried, from derived clients too; an older one does not replace it', async () => {
    const client = fresh();
    try {
      server.handle(() => ({ status: 200, body: envelope({ version: 1 }), headers: { 'x-secrets-index': state('c1', 7) } }));
      await client.write('secret/data/a', { data: {} });
      assert.equal(client.consistencyState, state('c1', 7));
      server.handle(() => ({ status: 204, headers: { 'x-secrets-index': state('c1', 5) } }));
      await client.write('secret/data/b', {});
      assert.equal(client.consistencyState, state('c1', 7), 'an out-of-order older reply');
      server.handle(() => ({ status: 200, body: envelope({}) }));
      await client.withToken('other').read('secret/data/a');
      assert.equal(server.requests.at(-1)!.headers['x-secrets-index'], state('c1', 7));
    } finally {
      await client.close();
    }
  });

  it('retries a 412 with backoff until the standby has applied the state', async () => {
    const client = fresh();
    try {
      server.handle(() => ({ status: 204, headers: { 'x-secrets-index': state('c1', 9) } }));
      await client.write('secret/data/a', {});
      let calls = 0;
      server.handle(() =>
        ++calls < 3 ? { status: 412, body: { errors: ['required index state not present; retry'] } } : { status: 200, body: envelope({ ok: true }) },
      );
      const res = await client.read('secret/data/a');
      assert.deepEqual(res?.data, { ok: true });
      assert.equal(calls, 3);
    } finally {
      await client.close();
    }
  });

  it('fails with the server message after maxStateRetries; never retries without a state', async () => {
    const client = fresh({ maxStateRetries: 2 });
    try {
      let calls = 0;
      server.handle(() => (calls++, { status: 412, body: { errors: ['required index state not present; retry with backoff'] } }));
      await assert.rejects(client.read('secret/data/a'), (err: SecretsApiError) => err.status === 412 && calls === 1);
      server.handle(() => ({ status: 204, headers: { 'x-secrets-index': state('c1', 3) } }));
      await client.write('secret/data/a', {});
      calls = 0;
      server.handle(() => (calls++, { status: 412, body: { errors: ['required index state not present; retry with backoff'] } }));
      await assert.rejects(client.read('secret/data/a'), (err: SecretsApiError) => {
        assert.equal(err.status, 412);
        assert.match(err.message, /retry with backoff/);
        return true;
      });
      assert.equal(calls, 3, 'the request and 2 retries');
    } finally {
      await client.close();
    }
  });

  it('with readYourWrites off sends no state', async () => {
    const client = fresh({ readYourWrites: false });
    try {
      server.handle(() => ({ status: 204, headers: { 'x-secrets-index': state('c1', 3) } }));
      await client.write('secret/data/a', {});
      await client.write('secret/data/a', {});
      assert.equal(server.requests.at(-1)!.headers['x-secrets-index'], undefined);
    } finally {
      await client.close();
    }
  });
});
