/**
 * The secrets token hook's error classes (secrets-token-errors.ts) and renewal timing
 * (secrets-token.ts `renewalDelayMs`): what re-logs in, what is only retried.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { describe, it } from 'node:test';
import { SecretsClient } from '../../../sdk/secrets.js';
import { SecretsApiError } from '../../../sdk/secrets-errors.js';
import { classifySecretsError } from './secrets-token-errors.js';
import { renewalDelayMs } from './secrets-token.js';

const api = (status: number, ...errors: string[]) => new SecretsApiError(status, errors, { method: 'POST', path: '/v1/auth/token/renew-self' });

describe('classifySecretsError', () => {
  it('a token expired, revoked, not renewable or past its maximum TTL is final', () => {
    for (const e of [
      api(403, 'permission denied'),
      api(403, 'invalid token'),
      api(400, 'token is not renewable'),
      api(400, 'lease is not renewable'),
      api(400, 'lease not found or lease is not renewable'),
      api(400, 'past the max TTL'),
      api(400, 'role "web" could not be found'),
      api(404),
    ]) {
      assert.equal(classifySecretsError(e), 'final', e.message);
    }
  });

  it('no answer, a time-out, 5xx, 408 and 429 are transient', async () => {
    for (const e of [
      api(500, 'internal error'),
      api(502),
      api(503, 'Vault is sealed'),
      api(429, 'rate limit'),
      api(408),
      new Error('returned no auth block'),
    ]) {
      assert.equal(classifySecretsError(e), 'transient', e.message);
    }
    // A refused connection, as the SDK reports it.
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as { port: number }).port;
    await new Promise((r) => srv.close(r));
    const client = new SecretsClient({ address: `http://127.0.0.1:${port}`, token: 'x', fetchTimeoutMs: 2000 });
    const refused = await client.token.renewSelf().then(
      () => assert.fail('renewed without a server'),
      (err: unknown) => err,
    );
    await client.close();
    assert.equal((refused as Error).name, 'SecretsConnectionError');
    assert.equal(classifySecretsError(refused), 'transient');
  });
});

describe('renewalDelayMs', () => {
  it('renews at half the lease, with ± 10 s of jitter once the half is 30 s or more (the reference client)', () => {
    assert.equal(renewalDelayMs(4), 2000);
    assert.equal(
      renewalDelayMs(58, () => 0.99),
      29_000,
    );
    assert.equal(
      renewalDelayMs(3600, () => 0),
      1_790_000,
    );
    assert.equal(
      renewalDelayMs(3600, () => 0.5),
      1_800_000,
    );
    assert.ok(renewalDelayMs(3600, () => 0.999) < 1_810_000);
  });
});
