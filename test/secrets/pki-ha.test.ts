/**
 * The PKI engine on a performance standby (issue 28 contract "HA"), with real `cairn secrets
 * server` processes on one throwaway PostgreSQL cluster: A active, B a performance standby.
 * B serves the CA and CRL reads itself; `issue/:role` sent to B is issued on the active
 * server only — exactly one certificate is stored per request, the one B's client gets —
 * and a revocation sent to B lands in the CRL both servers serve.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { startPgTestServer, type PgTestServer } from '../../src/kernel/store/testdata/pg-cluster.js';
import { call } from '../helpers.js';
import { healthStatus, killAll, startServer, until, type Running } from './testdata/ha-servers.js';

const URL_VAR = 'CAIRN_E2E_SECRETS_PKI_PG_URL';
const dir = mkdtempSync(join(tmpdir(), 'cairn-pki-ha-'));

describe('PKI on a performance standby', { timeout: 180_000 }, () => {
  let pgServer: PgTestServer;
  const servers: Running[] = [];
  let a: Running;
  let b: Running;
  let root = '';

  before(async () => {
    pgServer = await startPgTestServer();
    const env = { [URL_VAR]: pgServer.url, CAIRN_SECRETS_HA_RETRY_MS: '200' };
    const config = join(dir, 'perf.hcl');
    writeFileSync(
      config,
      `storage "postgresql" {\n  connection_url = "env://${URL_VAR}"\n  table = "pki_ha_${process.pid}"\n  ha_enabled = true\n}\nlistener "tcp" {\n  address = "127.0.0.1:0"\n  tls_disable = true\n}\n`,
    );
    a = await startServer(config, env);
    servers.push(a);
    const init = await call(a.url, 'PUT', '/v1/sys/init', { body: { secret_shares: 1, secret_threshold: 1 } });
    assert.equal(init.status, 200, init.text);
    root = init.json.root_token;
    const key = init.json.keys[0];
    assert.equal((await call(a.url, 'PUT', '/v1/sys/unseal', { body: { key } })).status, 200);
    await until('A active', 10_000, async () => ((await healthStatus(a.url)) === 200 ? true : undefined));
    b = await startServer(config, env);
    servers.push(b);
    assert.equal((await call(b.url, 'PUT', '/v1/sys/unseal', { body: { key } })).status, 200);
    await until('B a performance standby', 10_000, async () => ((await healthStatus(b.url)) === 473 ? true : undefined));
  });
  after(async () => {
    await killAll(servers);
    await pgServer?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const on = (s: Running, method: string, path: string, body?: unknown) => call(s.url, method, `/v1/${path}`, { token: root, body });
  /** `path` on `s` until it answers 200 (a standby applying the active's writes). */
  const when200 = (s: Running, path: string) =>
    until(`${path} on ${s.url}`, 10_000, async () => {
      const r = await call(s.url, 'GET', `/v1/${path}`, { token: null });
      return r.status === 200 ? r : undefined;
    });

  it('issues on the active server only, serves the CA and CRL from the standby, and revokes through it', async () => {
    // Mounting and the root go through B: writes forward to A.
    assert.equal((await on(b, 'POST', 'sys/mounts/pki', { type: 'pki', config: { max_lease_ttl: '87600h' } })).status, 204);
    const rootCa = await on(b, 'POST', 'pki/root/generate/internal', { common_name: 'HA Root', key_type: 'ec', ttl: '8760h' });
    assert.equal(rootCa.status, 200, rootCa.text);
    assert.equal((await on(b, 'POST', 'pki/roles/web', { allowed_domains: 'example.test', allow_subdomains: true, key_type: 'ec', ttl: '1h' })).status, 204);
    assert.equal((await when200(b, 'pki/ca/pem')).text.trim(), rootCa.json.data.certificate, 'B serves the CA');

    const serials: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await on(b, 'POST', 'pki/issue/web', { common_name: `h${i}.example.test` });
      assert.equal(r.status, 200, r.text);
      serials.push(r.json.data.serial_number);
    }
    const stored: string[] = (await on(a, 'LIST', 'pki/certs')).json.data.keys;
    assert.deepEqual(
      stored.sort(),
      [rootCa.json.data.serial_number, ...serials].sort(),
      'exactly the certificates the client got, nothing signed on the standby kept',
    );

    const revoked = await on(b, 'POST', 'pki/revoke', { serial_number: serials[0] });
    assert.equal(revoked.status, 200, revoked.text);
    const want = serials[0].replaceAll(':', '').toUpperCase();
    for (const s of [a, b]) {
      const crl = await until(`the CRL with the serial on ${s.url}`, 10_000, async () => {
        const r = await call(s.url, 'GET', '/v1/pki/crl/pem', { token: null });
        const text = r.status === 200 ? execFileSync('openssl', ['crl', '-noout', '-text'], { input: r.text }).toString() : '';
        return text.includes(want) ? text : undefined;
      });
      assert.ok(crl.includes(want));
    }
  });
});
