/**
 * Every route of the secrets service's own OpenAPI document called with no token, a made-up
 * token and a valid token with no policy at all (test/auth-walk.ts): none answers 2xx but the
 * paths the service serves without a token (their declarations say `unauthenticated`:
 * status, seal and login endpoints) and the few the reference opens to any valid token; no
 * refused request changes a stored byte. Auth methods and an audit device are mounted so
 * their routes are documented too.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { describeAuthFindings, walkAuthorization } from '../auth-walk.js';
import { startTestServer, type TestServer } from '../helpers.js';

let s: TestServer;
let noRights: string;
before(async () => {
  s = await startTestServer();
  for (const type of ['userpass', 'approle', 'cert']) assert.equal((await s.call('POST', `/v1/sys/auth/${type}`, { body: { type } })).status, 204);
  assert.equal((await s.call('POST', '/v1/sys/mounts/transit', { body: { type: 'transit' } })).status, 204);
  assert.equal((await s.call('POST', '/v1/sys/mounts/database', { body: { type: 'database' } })).status, 204);
  assert.equal((await s.call('PUT', '/v1/sys/audit/file', { body: { type: 'file', options: { file_path: join(s.dataDir, 'audit.log') } } })).status, 204);
  assert.equal((await s.call('PUT', '/v1/secret/data/keep', { body: { data: { k: 'v' } } })).status, 200);
  assert.equal((await s.call('POST', '/v1/sys/mounts/pki', { body: { type: 'pki' } })).status, 204);
  // No policy at all, not even `default`: the token is valid and may do nothing with a capability.
  const created = await s.call('POST', '/v1/auth/token/create', { body: { policies: ['nothing'], no_default_policy: true, ttl: '1h' } });
  assert.equal(created.status, 200, created.text);
  noRights = created.json.auth.client_token;
});
after(() => s.close());

/** Served without a token (reference/secrets.md: seal, health and login endpoints). */
const UNAUTHENTICATED = [
  /^GET \/sys\/(health|seal-status|leader|init|ha-status)$/,
  /^(GET|POST) \/sys\/internal\/specs\/openapi$/,
  /^(POST|PUT) \/sys\/(init|unseal)$/,
  /^(POST|PUT) \/auth\/[^/]+\/login(\/\{[^}]+\})?$/,
  // The PKI engine's CA, CRL and certificate reads (reference/secrets-engines.md §7).
  /^GET \/pki\/(ca|ca\/pem|ca_chain|crl|crl\/pem|cert\/\{serial\}(\/raw(\/pem)?)?|issuer\/\{ref\})$/,
];
/** Open to any valid token, whatever its policies (the reference's token self-service and cubbyhole). */
const ANY_TOKEN = [/^(GET|POST|PUT) \/auth\/token\/(lookup-self|renew-self|revoke-self)$/, /^(GET|POST|PUT) \/sys\/wrapping\/(lookup|unwrap)$/];

describe('secrets: every documented route, refused callers', { timeout: 600_000 }, () => {
  it('answers no 2xx to a caller the declaration refuses, and a refused request changes nothing', async () => {
    const doc = (await s.call('GET', '/v1/sys/internal/specs/openapi')).json;
    const db = new Database(s.dbPath, { readonly: true });
    try {
      const rows = db.prepare('SELECT k, v FROM kv ORDER BY k');
      const result = await walkAuthorization({
        base: s.url,
        prefix: '/v1',
        doc,
        callers: [
          { name: 'no token', headers: {} },
          { name: 'made-up token', headers: { 'X-Secrets-Token': 'hvs.made-up-token-0000000000' } },
          { name: 'token with no rights', headers: { 'X-Secrets-Token': noRights } },
        ],
        open: (method, path, caller) => {
          const op = `${method} ${path}`;
          return UNAUTHENTICATED.some((r) => r.test(op)) || (caller === 'token with no rights' && ANY_TOKEN.some((r) => r.test(op)));
        },
        // Revoking itself would end the no-rights caller; sealing has its own tests.
        skip: new Set(['POST /auth/token/revoke-self', 'PUT /auth/token/revoke-self']),
        fingerprint: async () => {
          const h = createHash('sha256');
          for (const r of rows.iterate() as Iterable<{ k: string; v: Buffer }>) h.update(r.k).update('\0').update(r.v);
          return h.digest('hex');
        },
      });
      assert.ok(result.operations >= 100, `walked ${result.operations} operations`);
      assert.deepEqual(result.findings, [], describeAuthFindings(result.findings));
    } finally {
      db.close();
    }
  });
});
