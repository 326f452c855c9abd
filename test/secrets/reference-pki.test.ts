/**
 * The PKI engine driven by the reference product's own client library (issue 28 "Tests"):
 * Debian's `python3-hvac` (0.11) runs test/secrets/testdata/python_hvac_pki.py, each step
 * one of hvac's `client.secrets.pki` methods (generate_root, read_ca_certificate(_chain),
 * set_urls/read_urls, create_or_update_role/read_role/list_roles/delete_role,
 * generate_certificate, read_certificate, list_certificates, sign_certificate,
 * sign_verbatim, revoke_certificate, read_crl, read/set_crl_configuration, rotate_crl,
 * generate_intermediate, sign_intermediate, set_signed_intermediate, tidy, delete_root),
 * through the loopback proxy that renames `X-Vault-*` headers (vault-header-proxy.ts), in
 * front of a real secrets service. The values asserted are the ones hvac returns, checked
 * with `openssl` where they are certificates.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '../helpers.js';
import { startVaultHeaderProxy, type VaultHeaderProxy } from './vault-header-proxy.js';

const PYTHON = '/usr/bin/python3';
const SCRIPT = join(import.meta.dirname, 'testdata', 'python_hvac_pki.py');
const openssl = (args: string[], input: string) => execFileSync('openssl', args, { input }).toString();

describe('python3-hvac: the PKI engine', () => {
  let s: TestServer;
  let proxy: VaultHeaderProxy;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- what the script printed: any shape, read field by field
  let out: Record<string, any>;
  const dir = mkdtempSync(join(tmpdir(), 'cairn-hvac-pki-'));
  const csr = execFileSync('sh', [
    '-c',
    "openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout /dev/null -subj '/CN=csr.example.test' 2>/dev/null",
  ]).toString();

  before(async () => {
    s = await startTestServer();
    for (const path of ['pki', 'pki_int'])
      assert.equal((await s.call('POST', `/v1/sys/mounts/${path}`, { body: { type: 'pki', config: { max_lease_ttl: '87600h' } } })).status, 204);
    proxy = await startVaultHeaderProxy(s.url);
    const { stdout } = await promisify(execFile)(PYTHON, [SCRIPT], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PROXY_PORT: String(proxy.port), SECRETS_TOKEN: s.rootToken, CSR: csr },
      timeout: 120_000,
    });
    out = JSON.parse(stdout);
  });
  after(async () => {
    await proxy?.close();
    await s?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('generate_root (exported) gives the root and its key once; read_ca_certificate(_chain) read it back', () => {
    assert.equal(out.root.issuing_ca, out.root.certificate);
    assert.equal(out.root.private_key_type, 'ec');
    assert.match(out.root_private_key, /^-----BEGIN EC PRIVATE KEY-----/);
    const certKey = openssl(['x509', '-noout', '-pubkey'], out.root.certificate);
    assert.equal(openssl(['pkey', '-pubout'], out.root_private_key), certKey, 'the exported key is the root key');
    assert.equal(out.ca_pem.trim(), out.root.certificate);
    assert.equal(out.ca_chain.trim(), out.root.certificate);
    assert.deepEqual(out.urls.issuing_certificates, ['http://127.0.0.1/v1/pki/ca']);
  });

  it('roles: create_or_update_role, read_role with the defaults, list_roles', () => {
    assert.deepEqual(out.role, {
      allowed_domains: ['example.test'],
      allow_subdomains: true,
      key_type: 'ec',
      key_bits: 256,
      max_ttl: 259200,
      server_flag: true,
      key_usage: ['DigitalSignature', 'KeyAgreement', 'KeyEncipherment'],
    });
    assert.deepEqual(out.roles, ['web']);
  });

  it('generate_certificate issues under the role; a name outside it is InvalidRequest with the reference text', () => {
    const i = out.issued;
    assert.deepEqual(Object.keys(i).sort(), ['ca_chain', 'certificate', 'expiration', 'issuing_ca', 'private_key', 'private_key_type', 'serial_number']);
    assert.equal(typeof i.expiration, 'number');
    const caFile = join(dir, 'root.pem');
    writeFileSync(caFile, out.root.certificate);
    assert.match(openssl(['verify', '-CAfile', caFile], i.certificate), /stdin: OK/, 'the certificate verifies with the root');
    const text = openssl(['x509', '-noout', '-text'], i.certificate);
    assert.match(text, /DNS:www\.example\.test/);
    assert.match(text, /CA Issuers - URI:http:\/\/127\.0\.0\.1\/v1\/pki\/ca/);
    assert.deepEqual(out.refused_name, ['InvalidRequest', ['common name www.evil.test not allowed by this role']]);
    assert.equal(out.read_certificate.certificate, i.certificate);
    assert.ok(out.list_certificates.includes(i.serial_number));
  });

  it('sign_certificate and sign_verbatim sign the CSR without a private key in the reply', () => {
    assert.equal(out.signed.private_key, null, 'hvac reads an absent key as None');
    assert.match(openssl(['x509', '-noout', '-subject'], out.signed.certificate), /CN ?= ?csr\.example\.test/);
    assert.match(out.verbatim_serial, /^[0-9a-f]{2}(:[0-9a-f]{2})+$/);
  });

  it('revoke_certificate puts the serial in the CRL read_crl gives; CRL configuration and rotate_crl', () => {
    assert.equal(typeof out.revoked.revocation_time, 'number');
    const crl = openssl(['crl', '-noout', '-text'], out.crl_pem);
    assert.ok(crl.includes(out.issued.serial_number.replaceAll(':', '').toUpperCase()), crl);
    assert.deepEqual(out.crl_config_default, { expiry: '72h', disable: false, auto_rebuild: false });
    assert.equal(out.crl_config.expiry, '48h');
    assert.deepEqual(out.rotated, { success: true });
  });

  it('generate_intermediate, sign_intermediate and set_signed_intermediate make pki_int an issuer under the root', () => {
    assert.equal(out.signed_intermediate.issuing_ca, out.root.certificate);
    assert.deepEqual(out.signed_intermediate.ca_chain, [out.signed_intermediate.certificate, out.root.certificate]);
    assert.equal(out.set_signed.imported_issuers.length, 1);
    assert.equal(out.intermediate_ca.trim(), out.signed_intermediate.certificate);
  });

  it('tidy answers 202 with the warning; delete_role and delete_root remove them', () => {
    assert.equal(out.tidy_status_code, 202);
    assert.equal(out.tidy_warnings.length, 1);
    assert.deepEqual(out.role_deleted, ['InvalidPath', []]);
    assert.equal(out.root_deleted_ca, '');
  });
});
