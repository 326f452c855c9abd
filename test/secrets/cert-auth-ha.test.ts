/**
 * The `cert` auth method through an HA standby (PostgreSQL, real `cairn secrets server`
 * processes with TLS listeners, certificates from openssl at test time): the standby
 * forwards the login to the active server with the client's certificate chain signed
 * along (ha/forwarded-for.ts), so a certificate login through the standby succeeds with
 * the entry's policies, and one with a certificate of another CA fails there with the
 * reference's text. A client cannot put a chain of its choosing in the signed header.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { Agent, fetch as undiciFetch } from 'undici';
import { startPgTestServer, type PgTestServer } from '../../src/kernel/store/testdata/pg-cluster.js';
import { SecretsApiError, SecretsClient } from '../../src/sdk/index.js';
import type { JsonReply } from '../helpers.js';
import { Pki, type Issued } from './cert-pki.js';
import { killAll, startServer, until, type Running } from './testdata/ha-servers.js';

const URL_VAR = 'CAIRN_E2E_SECRETS_CERT_PG_URL';
const CLIENT_EXT = ['basicConstraints=critical,CA:FALSE', 'extendedKeyUsage=clientAuth'];

describe('cert login through an HA standby', () => {
  const table = `cairn_cert_${randomBytes(4).toString('hex')}`;
  const pki = new Pki();
  let pgServer: PgTestServer;
  let ca: Issued;
  let web: Issued;
  let stranger: Issued;
  let trust: Agent;
  const servers: Running[] = [];
  let active: Running;
  let standby: Running;
  let root = '';
  let unsealKey = '';

  const api = async (url: string, method: string, path: string, { body, headers = {} }: { body?: unknown; headers?: Record<string, string> } = {}) => {
    const res = await undiciFetch(url + path, {
      method,
      headers: { 'X-Secrets-Token': root, ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      dispatcher: trust,
    });
    const text = await res.text();
    return { status: res.status, text, json: (text ? JSON.parse(text) : undefined) as JsonReply };
  };
  const login = async (url: string, who: Issued) => {
    const c = new SecretsClient({ address: url, caCert: ca.cert, clientCert: who.cert, clientKey: who.key, readYourWrites: false });
    try {
      return await c.auth.cert('web');
    } finally {
      await c.close();
    }
  };

  before(async () => {
    ca = pki.selfSigned('ca', '/CN=Cairn HA Test CA');
    const otherCa = pki.selfSigned('other-ca', '/CN=Another CA');
    const server = pki.issue('server', ca, { subject: '/CN=127.0.0.1', ext: ['subjectAltName=IP:127.0.0.1', 'extendedKeyUsage=serverAuth'] });
    web = pki.issue('web', ca, { subject: '/CN=web.example.com', ext: CLIENT_EXT });
    stranger = pki.issue('stranger', otherCa, { subject: '/CN=web.example.com', ext: CLIENT_EXT });
    trust = new Agent({ connect: { ca: ca.cert } });
    pgServer = await startPgTestServer();
    const config = join(pki.dir, 'ha.hcl');
    writeFileSync(
      config,
      `storage "postgresql" {
  connection_url = "env://${URL_VAR}"
  table          = "${table}"
  ha_enabled     = true
  max_parallel   = 4
}
listener "tcp" {
  address       = "127.0.0.1:0"
  tls_cert_file = "${server.certFile}"
  tls_key_file  = "${server.keyFile}"
}
`,
    );
    // The standby forwards over HTTPS to the active's listener: it must trust the test CA.
    const env = { [URL_VAR]: pgServer.url, CAIRN_SECRETS_HA_RETRY_MS: '200', NODE_EXTRA_CA_CERTS: ca.certFile };
    active = await startServer(config, env);
    servers.push(active);
    const init = await api(active.url, 'PUT', '/v1/sys/init', { body: { secret_shares: 1, secret_threshold: 1 } });
    assert.equal(init.status, 200, init.text);
    root = init.json.root_token;
    unsealKey = init.json.keys[0];
    assert.equal((await api(active.url, 'PUT', '/v1/sys/unseal', { body: { key: unsealKey } })).status, 200);
    await until('the first server active', 5000, async () => ((await api(active.url, 'GET', '/v1/sys/health')).status === 200 ? true : undefined));
    assert.equal((await api(active.url, 'POST', '/v1/sys/auth/cert', { body: { type: 'cert' } })).status, 204);
    assert.equal((await api(active.url, 'POST', '/v1/auth/cert/certs/web', { body: { certificate: ca.cert, token_policies: 'web-read' } })).status, 204);
    standby = await startServer(config, env);
    servers.push(standby);
    assert.equal((await api(standby.url, 'PUT', '/v1/sys/unseal', { body: { key: unsealKey } })).status, 200);
    await until('the second server a standby', 5000, async () =>
      [429, 473].includes((await api(standby.url, 'GET', '/v1/sys/health')).status) ? true : undefined,
    );
  });

  after(async () => {
    await killAll(servers);
    await trust?.close();
    if (pgServer) {
      if (!pgServer.throwaway) {
        const client = new pg.Client({ connectionString: pgServer.url });
        await client.connect();
        await client.query(`DROP TABLE IF EXISTS "${table}", "${table}_ha", "${table}_index"`).finally(() => client.end());
      }
      await pgServer.stop();
    }
    pki.remove();
  });

  it('logs in through the standby with the client certificate the standby saw, signed along', async () => {
    const res = await login(standby.url, web);
    assert.deepEqual(res.auth?.policies, ['default', 'web-read']);
    assert.equal(res.auth?.metadata?.common_name, 'web.example.com');
    const self = await api(active.url, 'GET', '/v1/auth/token/lookup-self', { headers: { 'X-Secrets-Token': res.auth!.client_token } });
    assert.equal(self.status, 200, self.text);
    assert.equal(self.json.data.meta.cert_name, 'web');

    const refused = await login(standby.url, stranger).catch((err: unknown) => err);
    assert.ok(refused instanceof SecretsApiError, String(refused));
    assert.deepEqual([refused.status, refused.errors], [400, ['invalid certificate or no client certificate supplied']]);
  });

  it('a client cannot claim a chain itself: an unsigned forwarded-for header sent straight to the active is ignored', async () => {
    const chain = Buffer.from(web.cert.replace(/-----[^-]+-----|\s/g, ''), 'base64').toString('base64url');
    const forged = await api(active.url, 'POST', '/v1/auth/cert/login', {
      body: { name: 'web' },
      headers: {
        'X-Secrets-Token': '',
        'X-Cairn-Forwarded': '1',
        'X-Cairn-Forwarded-For': `127.0.0.1 ${Date.now()} AAAA ${chain}`,
      },
    });
    assert.deepEqual([forged.status, forged.json.errors], [400, ['client certificate must be supplied']]);
  });
});
