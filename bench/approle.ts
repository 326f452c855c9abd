/**
 * AppRole logins: `POST /v1/auth/approle/login` with no token, every request with the
 * same role ID and secret ID (issued with no use limit). Each login issues a new token,
 * a durable write (group-committed like KV v2 writes).
 */
import { api, type BenchContext, type RequestTemplate, type Scenario } from './harness.js';

/** Name of the role the logins use. */
const ROLE_NAME = 'bench';

/** The credentials of the logins (set by setup). */
let credentials: { role_id: string; secret_id: string } | undefined;

function loginBody(): string {
  if (!credentials) throw new Error('approle-login: setup did not run');
  return JSON.stringify(credentials);
}

export const approleLogin: Scenario = {
  name: 'approle-login',
  description: 'POST /v1/auth/approle/login, no token, same role_id/secret_id (unlimited uses); a new token each',
  server: 'secrets',
  async setup(ctx: BenchContext) {
    const server = ctx.servers.secrets;
    await api(server, 'POST', '/v1/sys/auth/approle', { body: { type: 'approle' } });
    await api(server, 'POST', `/v1/auth/approle/role/${ROLE_NAME}`, { body: { token_policies: 'default' } });
    const rid = await api(server, 'GET', `/v1/auth/approle/role/${ROLE_NAME}/role-id`);
    const role_id = (rid.json as { data?: { role_id?: string } }).data?.role_id;
    // No num_uses / ttl: the role's defaults (0 = unlimited uses, no expiry).
    const sid = await api(server, 'POST', `/v1/auth/approle/role/${ROLE_NAME}/secret-id`, { body: {} });
    const sidData = (sid.json as { data?: { secret_id?: string; secret_id_num_uses?: number; secret_id_ttl?: number } }).data;
    if (!role_id || !sidData?.secret_id) throw new Error(`approle-login: no role_id/secret_id (${rid.text.slice(0, 200)} ${sid.text.slice(0, 200)})`);
    if (sidData.secret_id_num_uses !== 0 || sidData.secret_id_ttl !== 0) {
      throw new Error(`approle-login: secret ID is limited: ${sid.text.slice(0, 300)}`);
    }
    credentials = { role_id, secret_id: sidData.secret_id };
  },
  async check(ctx) {
    const server = ctx.servers.secrets;
    // Two logins (the secret ID is reusable), each a distinct working token with `default`.
    const tokens: string[] = [];
    for (let k = 0; k < 2; k++) {
      const r = await api(server, 'POST', '/v1/auth/approle/login', { body: JSON.parse(loginBody()), token: null });
      const auth = (r.json as { auth?: { client_token?: string; policies?: string[]; metadata?: Record<string, string> } }).auth;
      if (!auth?.client_token || !auth.policies?.includes('default') || auth.metadata?.role_name !== ROLE_NAME) {
        throw new Error(`approle-login check: unexpected reply ${r.text.slice(0, 300)}`);
      }
      tokens.push(auth.client_token);
    }
    if (tokens[0] === tokens[1]) throw new Error('approle-login check: two logins gave the same token');
    const self = await api(server, 'GET', '/v1/auth/token/lookup-self', { token: tokens[1] });
    const path = (self.json as { data?: { path?: string } }).data?.path;
    if (path !== 'auth/approle/login') throw new Error(`approle-login check: token path ${path}`);
  },
  requests(): RequestTemplate[] {
    // One static template, built once per connection (no per-request setupRequest).
    return [
      {
        method: 'POST',
        path: '/v1/auth/approle/login',
        headers: { 'content-type': 'application/json' },
        body: loginBody(),
      },
    ];
  },
};
