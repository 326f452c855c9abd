/**
 * Revoking an auth method's tokens by lease prefix (issue 30 item 3, "revoke-prefix of
 * 100,000 tokens, time and that no write is lost meanwhile"): a secrets server (bench
 * child, SQLite) with an AppRole role; `BENCH_REVOKE_TOKENS` logins (default 100,000; 32
 * in flight) each make a token, which is a lease under `auth/approle/login/`; then
 * `PUT sys/leases/revoke-prefix/auth/approle/` runs while 16 writers keep writing KV v2
 * versions of their own keys. Reported: login rate, the revoke's wall time and the server's
 * CPU over it, the writes acknowledged meanwhile, and how many of those a read back does
 * not find (must be 0); afterwards the prefix must list nothing and a sampled token must be
 * refused.
 */
import { cpuSeconds } from './cpu.js';
import { api, parallel, type BenchConfig } from './harness.js';
import { startServer } from './servers.js';

/** What {@link measureTokenRevokePrefix} found. */
export interface RevokeFigures {
  readonly tokens: number;
  /** Logins per second while the tokens were made. */
  readonly loginsPerSecond: number;
  /** Wall time of the revoke-prefix request, seconds. */
  readonly revokeSeconds: number;
  /** Server CPU over the revoke (the concurrent writes included), seconds. */
  readonly revokeCpuSeconds: number;
  /** KV writes acknowledged while the revoke ran, and how many of them a read back missed. */
  readonly writesAcknowledged: number;
  readonly writesLost: number;
  /** Token leases still listed under the prefix afterwards (must be 0). */
  readonly leftOver: number;
}

const WRITERS = 16;

/** Runs the measurement of the module doc. */
export async function measureTokenRevokePrefix(config: BenchConfig): Promise<RevokeFigures> {
  const tokens = Number(config.env.BENCH_REVOKE_TOKENS ?? 100_000);
  const secrets = await startServer('secrets');
  try {
    await api(secrets, 'POST', '/v1/sys/auth/approle', { body: { type: 'approle' } });
    await api(secrets, 'POST', '/v1/auth/approle/role/bench', { body: { token_ttl: '1h', secret_id_num_uses: 0 } });
    await api(secrets, 'POST', '/v1/sys/mounts/kv', { body: { type: 'kv', options: { version: '2' } } });
    const roleId = ((await api(secrets, 'GET', '/v1/auth/approle/role/bench/role-id')).json as { data: { role_id: string } }).data.role_id;
    const secretId = ((await api(secrets, 'POST', '/v1/auth/approle/role/bench/secret-id')).json as { data: { secret_id: string } }).data.secret_id;
    const loginStart = performance.now();
    let sample = '';
    await parallel(tokens, 32, async (i) => {
      const r = await api(secrets, 'POST', '/v1/auth/approle/login', { body: { role_id: roleId, secret_id: secretId }, token: null });
      if (i === 0) sample = (r.json as { auth: { client_token: string } }).auth.client_token;
    });
    const loginsPerSecond = tokens / ((performance.now() - loginStart) / 1000);

    // Writers: each writes versions of its own key until the revoke is done, counting acknowledgements.
    let revoking = true;
    const acknowledged = new Array<number>(WRITERS).fill(0);
    const writers = Array.from({ length: WRITERS }, async (_, w) => {
      while (revoking) {
        await api(secrets, 'POST', `/v1/kv/data/w${w}`, { body: { data: { n: acknowledged[w]! + 1 } } });
        acknowledged[w]!++;
      }
    });
    const cpu0 = cpuSeconds(secrets.pid) ?? 0;
    const revokeStart = performance.now();
    await api(secrets, 'PUT', '/v1/sys/leases/revoke-prefix/auth/approle/');
    const revokeSeconds = (performance.now() - revokeStart) / 1000;
    revoking = false;
    await Promise.all(writers);
    const revokeCpuSeconds = (cpuSeconds(secrets.pid) ?? 0) - cpu0;

    let writesLost = 0;
    for (let w = 0; w < WRITERS; w++) {
      if (acknowledged[w] === 0) continue;
      const r = (await api(secrets, 'GET', `/v1/kv/data/w${w}`)).json as { data: { data: { n: number }; metadata: { version: number } } };
      // Every acknowledged version is there: the latest is the last acknowledged one.
      writesLost += Math.max(0, acknowledged[w]! - r.data.metadata.version) + (r.data.data.n === acknowledged[w] ? 0 : 1);
    }
    const listed = await api(secrets, 'LIST', '/v1/sys/leases/lookup/auth/approle/login/', { expect: 404 }).then(
      () => 0,
      async () => ((await api(secrets, 'LIST', '/v1/sys/leases/lookup/auth/approle/login/')).json as { data: { keys: string[] } }).data.keys.length,
    );
    await api(secrets, 'GET', '/v1/auth/token/lookup-self', { token: sample, expect: 403 });
    return {
      tokens,
      loginsPerSecond,
      revokeSeconds,
      revokeCpuSeconds,
      writesAcknowledged: acknowledged.reduce((a, b) => a + b, 0),
      writesLost,
      leftOver: listed,
    };
  } finally {
    await secrets.close();
  }
}
