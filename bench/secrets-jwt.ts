/**
 * Secrets-service JWT logins: `POST /v1/auth/jwt/login` with no token, every request with
 * the same JWT (ES256, verified against `jwt_validation_pubkeys`, bound audience, bound
 * claim and a claim mapping). Each login verifies the signature and issues a new token,
 * a durable write (group-committed like KV v2 writes).
 */
import { exportSPKI, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { api, type RequestTemplate, type Scenario } from './harness.js';

const ISSUER = 'https://ci.bench.invalid';
const AUDIENCE = 'cairn-bench';

/** The login request body (set by setup): one valid JWT, reused by every request. */
let loginBody: string | undefined;
/** A JWT signed by another key (the check's refusal case). */
let forged: string | undefined;

export const secretsJwtLogin: Scenario = {
  name: 'secrets-jwt-login',
  description: 'POST /v1/auth/jwt/login, no token, ES256 jwt_validation_pubkeys, bound audience + claim, 1 claim mapping, same JWT; a new token each',
  server: 'secrets',
  async setup(ctx) {
    const server = ctx.servers.secrets;
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    await api(server, 'POST', '/v1/sys/auth/jwt', { body: { type: 'jwt' } });
    await api(server, 'POST', '/v1/auth/jwt/config', {
      body: { jwt_validation_pubkeys: [await exportSPKI(publicKey)], jwt_supported_algs: 'ES256', bound_issuer: ISSUER },
    });
    await api(server, 'POST', '/v1/auth/jwt/role/bench', {
      body: {
        role_type: 'jwt',
        user_claim: 'sub',
        bound_audiences: AUDIENCE,
        bound_claims: { project: 'bench' },
        claim_mappings: { project: 'project' },
        token_policies: 'default',
      },
    });
    const now = Math.floor(Date.now() / 1000);
    const sign = (key: CryptoKey) =>
      new SignJWT({ sub: 'bench-job', project: 'bench', iat: now, exp: now + 4 * 3600 })
        .setProtectedHeader({ alg: 'ES256' })
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .sign(key);
    loginBody = JSON.stringify({ role: 'bench', jwt: await sign(privateKey) });
    forged = JSON.stringify({ role: 'bench', jwt: await sign((await generateKeyPair('ES256')).privateKey) });
  },
  async check(ctx) {
    const server = ctx.servers.secrets;
    const tokens: string[] = [];
    for (let k = 0; k < 2; k++) {
      const r = await api(server, 'POST', '/v1/auth/jwt/login', { body: JSON.parse(loginBody!), token: null });
      const auth = (r.json as { auth?: { client_token?: string; metadata?: Record<string, string> } }).auth;
      if (!auth?.client_token || auth.metadata?.project !== 'bench' || auth.metadata?.role !== 'bench') {
        throw new Error(`secrets-jwt-login check: unexpected reply ${r.text.slice(0, 300)}`);
      }
      tokens.push(auth.client_token);
    }
    if (tokens[0] === tokens[1]) throw new Error('secrets-jwt-login check: two logins gave the same token');
    const bad = await api(server, 'POST', '/v1/auth/jwt/login', { body: JSON.parse(forged!), token: null, expect: 400 });
    if (!bad.text.includes('error validating token')) throw new Error(`secrets-jwt-login check: forged JWT answered ${bad.text.slice(0, 300)}`);
  },
  requests(): RequestTemplate[] {
    return [{ method: 'POST', path: '/v1/auth/jwt/login', headers: { 'content-type': 'application/json' }, body: loginBody! }];
  },
};
