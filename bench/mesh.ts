/**
 * Discovery-service benchmarks (issue 5 "Must show"), against an agent with ACLs on
 * (`default_policy = "deny"`) in its own process (`mesh` server kind):
 * - `mesh-token-read`: `GET /v1/acl/token/<accessor>` with the management token over
 *   pre-created tokens, next to the bare node:http handler of the same run.
 * - `mesh-jwt-login`: `POST /v1/acl/login` with a `jwt` auth method validating with a
 *   static public key (`JWTValidationPubKeys`, ES256 in `JWTSupportedAlgs`) and one
 *   binding rule; every login creates a durable token.
 * - `mesh-replication-lag` (one-off, after the rounds): a primary and a secondary
 *   datacenter, each in its own process; 1,000 policies written to the primary, then the
 *   time until the secondary has replicated them.
 */
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { api, parallel, type BenchContext, type RequestTemplate, type Scenario } from './harness.js';
import { startServer, type BenchServer } from './servers.js';

/**
 * {@link api} with `X-Mesh-Token` (the server's management token unless `o.token` is given;
 * `null` sends none); also returns `X-Mesh-Index`.
 */
export async function meshApi(
  server: BenchServer,
  method: string,
  path: string,
  o: { body?: unknown; token?: string | null; expect?: number } = {},
): Promise<{ status: number; json: unknown; text: string; index: number }> {
  const r = await api(server, method, path, { ...o, tokenHeader: 'X-Mesh-Token' });
  return { ...r, index: Number(r.headers.get('x-mesh-index') ?? 0) };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function managementToken(ctx: BenchContext): string {
  const token = ctx.servers.mesh.token;
  if (!token) throw new Error('mesh server reported no management token');
  return token;
}

// ---------------------------------------------------------------------------------------
// mesh-token-read

/** Number of pre-created tokens the read scenario cycles through. */
const READ_TOKENS = 1000;
const READ_POLICY = 'bench-token-read';

/** Accessor IDs of the pre-created tokens, in creation order (set by setup). */
let accessors: string[] = [];

export const meshTokenRead: Scenario = {
  name: 'mesh-token-read',
  description: `discovery GET /v1/acl/token/<accessor>, ${READ_TOKENS} tokens, ACLs on (default deny), management token`,
  server: 'mesh',
  async setup(ctx) {
    const server = ctx.servers.mesh;
    await meshApi(server, 'PUT', '/v1/acl/policy', { body: { Name: READ_POLICY, Description: 'bench', Rules: 'service_prefix "web-" { policy = "read" }' } });
    const ids: string[] = new Array(READ_TOKENS);
    await parallel(READ_TOKENS, 16, async (i) => {
      const r = await meshApi(server, 'PUT', '/v1/acl/token', {
        body: {
          Description: `bench token ${i}`,
          Policies: [{ Name: READ_POLICY }],
          ServiceIdentities: [{ ServiceName: `web-${i}` }],
        },
      });
      ids[i] = (r.json as { AccessorID: string }).AccessorID;
    });
    accessors = ids;
  },
  async check(ctx) {
    const server = ctx.servers.mesh;
    const i = READ_TOKENS - 1;
    const r = await meshApi(server, 'GET', `/v1/acl/token/${accessors[i]}`);
    const t = r.json as Record<string, unknown>;
    const policies = t.Policies as { ID?: string; Name?: string }[] | undefined;
    const ok =
      t.AccessorID === accessors[i] &&
      typeof t.SecretID === 'string' &&
      UUID.test(t.SecretID) && // shown: the management token has acl:write
      t.Description === `bench token ${i}` &&
      policies?.length === 1 &&
      policies[0].Name === READ_POLICY &&
      typeof policies[0].ID === 'string' &&
      JSON.stringify(t.ServiceIdentities) === JSON.stringify([{ ServiceName: `web-${i}` }]) &&
      t.Local === false &&
      typeof t.Hash === 'string' &&
      typeof t.CreateIndex === 'number' &&
      r.index > 0;
    if (!ok) throw new Error(`mesh-token-read check: unexpected reply ${r.text.slice(0, 400)}`);
    // ACLs are enforced: no token (anonymous, default deny) and the read token itself (no acl:read) are refused.
    await meshApi(server, 'GET', `/v1/acl/token/${accessors[i]}`, { token: null, expect: 403 });
    await meshApi(server, 'GET', `/v1/acl/token/${accessors[i]}`, { token: t.SecretID as string, expect: 403 });
  },
  requests(ctx): RequestTemplate[] {
    // Static templates (built once per connection), as the KV read scenarios.
    const headers = { 'X-Mesh-Token': managementToken(ctx) };
    return accessors.map((a) => ({ method: 'GET', path: `/v1/acl/token/${a}`, headers }));
  },
};

// ---------------------------------------------------------------------------------------
// mesh-jwt-login

const METHOD = 'bench-jwt';
const ISSUER = 'https://issuer.bench.invalid';
const AUDIENCE = 'cairn-bench';

/** The login request body (set by setup): one valid JWT, reused by every request. */
let loginBody: string | undefined;
/** A JWT signed by another key (the check's refusal case). */
let forgedBearer: string | undefined;

export const meshJwtLogin: Scenario = {
  name: 'mesh-jwt-login',
  description: `discovery POST /v1/acl/login, jwt method (ES256 JWTValidationPubKeys), 1 binding rule, same JWT; a new token each`,
  server: 'mesh',
  async setup(ctx) {
    const server = ctx.servers.mesh;
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    await meshApi(server, 'PUT', '/v1/acl/auth-method', {
      body: {
        Name: METHOD,
        Type: 'jwt',
        Description: 'bench',
        Config: {
          JWTValidationPubKeys: [await exportSPKI(publicKey)],
          JWTSupportedAlgs: ['ES256'], // the default is RS256 only
          BoundIssuer: ISSUER,
          BoundAudiences: [AUDIENCE],
          ClaimMappings: { service: 'name' },
        },
      },
    });
    await meshApi(server, 'PUT', '/v1/acl/binding-rule', { body: { AuthMethod: METHOD, BindType: 'service', BindName: '${value.name}' } });
    const now = Math.floor(Date.now() / 1000);
    const claims = { sub: 'bench-workload', service: 'web', iat: now, exp: now + 4 * 3600 };
    const sign = (key: CryptoKey) => new SignJWT(claims).setProtectedHeader({ alg: 'ES256' }).setIssuer(ISSUER).setAudience(AUDIENCE).sign(key);
    loginBody = JSON.stringify({ AuthMethod: METHOD, BearerToken: await sign(privateKey) });
    forgedBearer = await sign((await generateKeyPair('ES256')).privateKey);
  },
  async check(ctx) {
    const server = ctx.servers.mesh;
    const tokensBefore = (await meshApi(server, 'GET', `/v1/acl/tokens?authmethod=${METHOD}`)).json as unknown[];
    // Two logins with the same JWT: two distinct working tokens, each a full reply.
    const secrets: string[] = [];
    for (let k = 0; k < 2; k++) {
      const r = await meshApi(server, 'POST', '/v1/acl/login', { body: JSON.parse(loginBody!), token: null });
      const t = r.json as Record<string, unknown>;
      const ok =
        typeof t.AccessorID === 'string' &&
        UUID.test(t.AccessorID) &&
        typeof t.SecretID === 'string' &&
        UUID.test(t.SecretID) &&
        t.Description === 'token created via login' &&
        JSON.stringify(t.ServiceIdentities) === JSON.stringify([{ ServiceName: 'web' }]) &&
        t.Policies === undefined &&
        t.Roles === undefined &&
        t.Local === true &&
        t.AuthMethod === METHOD &&
        t.ExpirationTime === undefined &&
        typeof t.CreateTime === 'string' &&
        typeof t.Hash === 'string' &&
        typeof t.CreateIndex === 'number';
      if (!ok) throw new Error(`mesh-jwt-login check: unexpected reply ${r.text.slice(0, 400)}`);
      const self = await meshApi(server, 'GET', '/v1/acl/token/self', { token: t.SecretID as string });
      if ((self.json as { AccessorID?: string }).AccessorID !== t.AccessorID) {
        throw new Error(`mesh-jwt-login check: token/self ${self.text.slice(0, 300)}`);
      }
      secrets.push(t.SecretID as string);
    }
    if (secrets[0] === secrets[1]) throw new Error('mesh-jwt-login check: two logins gave the same token');
    // A JWT signed by another key is refused and creates nothing.
    const bad = await meshApi(server, 'POST', '/v1/acl/login', { body: { AuthMethod: METHOD, BearerToken: forgedBearer }, token: null, expect: 403 });
    if (bad.text !== 'no known key successfully validated the token signature') throw new Error(`mesh-jwt-login check: forged JWT: ${bad.text.slice(0, 300)}`);
    const tokensAfter = (await meshApi(server, 'GET', `/v1/acl/tokens?authmethod=${METHOD}`)).json as unknown[];
    if (tokensAfter.length !== tokensBefore.length + 2) {
      throw new Error(`mesh-jwt-login check: ${tokensAfter.length - tokensBefore.length} tokens created, expected 2`);
    }
  },
  requests(): RequestTemplate[] {
    if (!loginBody) throw new Error('mesh-jwt-login: setup did not run');
    return [{ method: 'POST', path: '/v1/acl/login', headers: { 'content-type': 'application/json' }, body: loginBody }];
  },
};

// ---------------------------------------------------------------------------------------
// mesh-replication-lag

/** One repetition of the replication measurement. */
export interface ReplicationSample {
  /** Milliseconds from the last write's acknowledgement to the secondary caught up. */
  readonly lagMs: number;
  /** Milliseconds the 1,000 writes took in the primary. */
  readonly writeMs: number;
  /** The primary's policies index after the writes. */
  readonly index: number;
}

const POLL_MS = 5;

interface Status {
  ReplicatedIndex: number;
  Running: boolean;
  LastError: string;
  LastSuccess: string;
}

async function status(secondary: BenchServer): Promise<Status> {
  return (await meshApi(secondary, 'GET', '/v1/acl/replication', { token: null })).json as Status;
}

async function until(what: string, ok: () => Promise<boolean>, ms: number): Promise<void> {
  const end = performance.now() + ms;
  while (!(await ok())) {
    if (performance.now() > end) throw new Error(`mesh-replication-lag: ${what} not reached within ${ms} ms`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/**
 * Starts a primary (dc1) and a secondary (dc2, `wan_addresses { dc1 = <primary> }`, token
 * replication on, the primary's management token as replication token; the agent's
 * default replication settings), each in its own process. Then `repeats` times: wait
 * until the secondary is caught up and idle 5 s (the replicator's round bucket refills),
 * write `policies` new policies to the primary with `clients` concurrent clients, and
 * measure from the last write's acknowledgement until the secondary's
 * `GET /v1/acl/replication` shows `ReplicatedIndex` ≥ the primary's policies index and
 * the secondary serves the last-written policy (polled every 5 ms).
 */
export async function measureReplicationLag(repeats: number, policies = 1000, clients = 4): Promise<ReplicationSample[]> {
  const primary = await startServer('mesh');
  const secondary = await startServer('mesh', {
    datacenter: 'dc2',
    primary: primary.url.replace(/^http:\/\//, ''),
    replicationToken: primary.token,
  });
  const samples: ReplicationSample[] = [];
  try {
    // The management token is a global token: once it is replicated it works in dc2.
    await until(
      'management token in dc2',
      async () => (await meshApi(secondary, 'GET', '/v1/acl/token/self', { expect: undefined }).catch(() => undefined)) !== undefined,
      30_000,
    );
    for (let rep = 1; rep <= repeats; rep++) {
      const before = (await meshApi(primary, 'GET', '/v1/acl/policies')).index;
      await until('secondary caught up before the writes', async () => (await status(secondary)).ReplicatedIndex >= before, 30_000);
      await new Promise((r) => setTimeout(r, 5000));
      const names = Array.from({ length: policies }, (_, i) => `bench-r${rep}-p${String(i).padStart(4, '0')}`);
      const written: { ID: string; Name: string; Rules: string; Hash: string; ModifyIndex: number }[] = [];
      const t0 = performance.now();
      await parallel(policies, clients, async (i) => {
        const r = await meshApi(primary, 'PUT', '/v1/acl/policy', {
          body: {
            Name: names[i],
            Description: `bench replication ${rep}`,
            Rules: `service "web-${rep}-${i}" { policy = "read" }\nkey_prefix "app/${i}/" { policy = "write" }`,
          },
        });
        written.push(r.json as (typeof written)[number]);
      });
      const tAck = performance.now();
      const last = written.reduce((a, b) => (b.ModifyIndex > a.ModifyIndex ? b : a));
      const index = last.ModifyIndex;
      let lastStatus: Status | undefined;
      await until(
        `ReplicatedIndex ≥ ${index} and the last policy served in dc2`,
        async () => {
          lastStatus = await status(secondary);
          if (lastStatus.ReplicatedIndex < index) return false;
          const r = await meshApi(secondary, 'GET', `/v1/acl/policy/name/${last.Name}`, { expect: undefined }).catch(() => undefined);
          return r !== undefined;
        },
        120_000,
      );
      const tDone = performance.now();
      // Check (not timed): the primary's policies index is the last write's; the secondary
      // holds every new policy, and the last one in full with the primary's Hash.
      const primaryIndex = (await meshApi(primary, 'GET', '/v1/acl/policies')).index;
      if (primaryIndex !== index) throw new Error(`mesh-replication-lag: primary policies index ${primaryIndex}, last write ${index}`);
      const got = (await meshApi(secondary, 'GET', `/v1/acl/policy/name/${last.Name}`)).json as Record<string, unknown>;
      if (got.ID !== last.ID || got.Rules !== last.Rules || got.Hash !== last.Hash || got.Description !== `bench replication ${rep}`) {
        throw new Error(`mesh-replication-lag: secondary's ${last.Name}: ${JSON.stringify(got).slice(0, 400)}`);
      }
      const inSecondary = new Set(((await meshApi(secondary, 'GET', '/v1/acl/policies')).json as { Name: string }[]).map((p) => p.Name));
      const missing = names.filter((n) => !inSecondary.has(n));
      if (missing.length) throw new Error(`mesh-replication-lag: ${missing.length} policies missing in dc2 (e.g. ${missing[0]})`);
      if (lastStatus && lastStatus.LastError !== '0001-01-01T00:00:00Z') {
        throw new Error(`mesh-replication-lag: replication error at ${lastStatus.LastError}`);
      }
      samples.push({ lagMs: tDone - tAck, writeMs: tAck - t0, index });
    }
  } finally {
    await secondary.close();
    await primary.close();
  }
  return samples;
}
