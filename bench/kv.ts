/**
 * Baseline and KV v2 scenarios: bare node:http GET, KV v2 read of pre-written keys,
 * KV v2 write of distinct keys. (KV v2 reads under a policy: bench/policy.ts.)
 */
import { api, parallel, type BenchContext, type RequestTemplate, type Scenario } from './harness.js';

/** Number of pre-written keys the read scenario cycles through. */
export const READ_KEYS = 1000;

/** A secret of ~100 bytes of JSON (the `data` object of a KV v2 write). */
export function secretData(i: number): Record<string, string> {
  const n = String(i).padStart(6, '0');
  return {
    username: `svc-bench-${n}`,
    password: `pw-${n}-Zm9vYmFyYmF6cXV4cXV1eA`,
    url: `postgres://db.internal:5432/app${n}`,
  };
}

/** The secrets server kinds the KV scenarios run against (SQLite, PostgreSQL). */
type SecretsKind = 'secrets' | 'secrets-audit' | 'secrets-pg';

function tokenHeaders(ctx: BenchContext, kind: SecretsKind = 'secrets'): Record<string, string> {
  const token = ctx.servers[kind].token;
  if (!token) throw new Error(`${kind} server reported no root token`);
  return { 'X-Secrets-Token': token };
}

/**
 * GET requests cycling over `<prefix>0 … <prefix><READ_KEYS-1>`: a list of static
 * templates, which autocannon builds once per connection (wrk: once per run). (A `setupRequest` rebuilds
 * every request and about halved the client's rate in a trial, making the bare baseline
 * client-bound; the bare baseline uses the same list so the client costs the same.)
 */
function cyclingGets(prefix: string, headers: Record<string, string>): RequestTemplate[] {
  return Array.from({ length: READ_KEYS }, (_, i) => ({ method: 'GET', path: `${prefix}${i}`, headers }));
}

export const bareGet: Scenario = {
  name: 'bare',
  description: 'node:http GET, fixed JSON reply of a KV read’s size',
  server: 'bare',
  async check(ctx) {
    const r = await fetch(`${ctx.servers.bare.url}/bench/k0`);
    const body = await r.text();
    if (r.status !== 200 || (JSON.parse(body) as { hello?: string }).hello !== 'world') {
      throw new Error(`bare check: ${r.status} ${body.slice(0, 200)}`);
    }
  },
  // Same headers as the KV read, so the client does the same work per request.
  requests: (ctx) => cyclingGets('/bench/k', tokenHeaders(ctx)),
};

/** The servers whose read keys are written (so scenarios sharing them write them once). */
const keysWritten = new WeakSet<object>();

/**
 * Writes `secret/data/bench/k0 … k<READ_KEYS-1>` (root token) once per server; shared by
 * kv-read and kv-read-policy so either can run alone (`--only`). `kind` picks the server
 * (kv-read-pg: `secrets-pg`).
 */
export async function ensureReadKeys(ctx: BenchContext, kind: SecretsKind = 'secrets'): Promise<void> {
  const server = ctx.servers[kind];
  if (keysWritten.has(server)) return;
  await parallel(READ_KEYS, 32, async (i) => {
    await api(server, 'POST', `/v1/secret/data/bench/k${i}`, { body: { data: secretData(i) } });
  });
  keysWritten.add(server);
}

/** The request list of the KV v2 read scenarios: GETs over the pre-written keys with `token`. */
export function kvReadRequests(token: string): RequestTemplate[] {
  return cyclingGets('/v1/secret/data/bench/k', { 'X-Secrets-Token': token });
}

/** KV v2 reads of the pre-written keys on the secrets server `kind`, root token. */
function makeKvRead(name: string, kind: SecretsKind, backendNote: string): Scenario {
  return {
    name,
    description: `KV v2 GET /v1/secret/data/bench/k<i>, ${READ_KEYS} keys, root token${backendNote}`,
    server: kind,
    setup: (ctx) => ensureReadKeys(ctx, kind),
    async check(ctx) {
      const i = READ_KEYS - 1;
      const r = await api(ctx.servers[kind], 'GET', `/v1/secret/data/bench/k${i}`);
      const got = (r.json as { data?: { data?: unknown } }).data?.data;
      if (JSON.stringify(got) !== JSON.stringify(secretData(i))) {
        throw new Error(`${name} check: unexpected reply ${r.text.slice(0, 300)}`);
      }
    },
    requests: (ctx) => kvReadRequests(tokenHeaders(ctx, kind)['X-Secrets-Token']),
  };
}

export const kvRead: Scenario = makeKvRead('kv-read', 'secrets', '');
/** `kv-read` with one file audit device enabled (`secrets-audit`): the cost of auditing (issue 17). */
export const kvReadAudit: Scenario = makeKvRead('kv-read-audit', 'secrets-audit', ', one file audit device');
/** `kv-read` against the secrets service on PostgreSQL (`secrets-pg`). */
export const kvReadPg: Scenario = makeKvRead('kv-read-pg', 'secrets-pg', ', PostgreSQL');

/** KV v2 writes of distinct keys on the secrets server `kind`, root token. */
function makeKvWrite(name: string, kind: SecretsKind, backendNote: string): Scenario {
  return {
    name,
    description: `KV v2 POST /v1/secret/data/bench/w<n>, distinct keys, ~100 B data${backendNote}`,
    server: kind,
    async check(ctx) {
      await api(ctx.servers[kind], 'POST', '/v1/secret/data/bench/check-write', { body: { data: secretData(0) } });
      const r = await api(ctx.servers[kind], 'GET', '/v1/secret/data/bench/check-write');
      const got = (r.json as { data?: { data?: unknown } }).data?.data;
      if (JSON.stringify(got) !== JSON.stringify(secretData(0))) {
        throw new Error(`${name} check: read-back mismatch ${r.text.slice(0, 300)}`);
      }
    },
    requests(ctx) {
      const headers = { ...tokenHeaders(ctx, kind), 'content-type': 'application/json' };
      const body = JSON.stringify({ data: secretData(0) });
      // A fresh key per request, never repeated within the run (bench/harness.ts `distinctPath`).
      return [{ method: 'POST', headers, body, distinctPath: '/v1/secret/data/bench/w{n}' }];
    },
  };
}

export const kvWrite: Scenario = makeKvWrite('kv-write', 'secrets', '');
/** `kv-write` against the secrets service on PostgreSQL (`secrets-pg`). */
export const kvWritePg: Scenario = makeKvWrite('kv-write-pg', 'secrets-pg', ', PostgreSQL');
