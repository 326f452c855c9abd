/**
 * The PKI engine from the SDK (src/sdk/secrets-pki.ts) and the CLI against a real server:
 * `SecretsClient.pki(mount)` generates a root, writes a role, issues, signs, revokes and
 * reads the CA and CRL; `cairn write pki/issue/web common_name=…` (the generic write
 * command, in process) prints the certificate and key, and `cairn read pki/cert/<serial>`
 * reads it back.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { SecretsApiError, SecretsClient } from '../../src/sdk/secrets.js';
import { cliRunner } from '../cli-helpers.js';
import { startTestServer, type TestServer } from '../helpers.js';

let s: TestServer;
let client: SecretsClient;
before(async () => {
  s = await startTestServer();
  assert.equal((await s.call('POST', '/v1/sys/mounts/pki', { body: { type: 'pki', config: { max_lease_ttl: '87600h' } } })).status, 204);
  client = new SecretsClient({ address: s.url, token: s.rootToken });
});
after(async () => {
  await client.close();
  await s.close();
});

describe('SDK: SecretsClient.pki', () => {
  it('root, role, issue, sign, revoke, CA and CRL', async () => {
    const pki = client.pki('pki');
    assert.equal(await pki.caPem(), '', 'no CA yet');
    const root = await pki.generateRoot('internal', { common_name: 'SDK Root', key_type: 'ec', ttl: '8760h' });
    assert.equal((await pki.caPem()).trim(), root.certificate);
    await pki.writeRole('web', { allowed_domains: 'example.test', allow_subdomains: true, key_type: 'ec', ttl: '1h' });
    assert.deepEqual(await pki.listRoles(), ['web']);
    assert.equal((await pki.readRole('web'))?.key_type, 'ec');
    const leaf = await pki.issue('web', { common_name: 'a.example.test' });
    assert.match(leaf.private_key ?? '', /EC PRIVATE KEY/);
    const refused = await pki.issue('web', { common_name: 'a.other.test' }).catch((e: unknown) => e);
    assert.ok(refused instanceof SecretsApiError);
    assert.deepEqual([refused.status, refused.errors], [400, ['common name a.other.test not allowed by this role']]);
    const csr = execFileSync('sh', [
      '-c',
      "openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout /dev/null -subj '/CN=b.example.test' 2>/dev/null",
    ]).toString();
    const signed = await pki.sign('web', csr);
    assert.equal(signed.private_key, undefined);
    assert.deepEqual((await pki.listCertificates()).sort(), [root.serial_number, leaf.serial_number, signed.serial_number].sort());
    const revoked = await pki.revoke(leaf.serial_number);
    assert.ok(revoked.revocation_time > 0);
    assert.equal((await pki.readCertificate(leaf.serial_number))?.revocation_time, revoked.revocation_time);
    assert.equal(await pki.readCertificate('01:02'), undefined);
    const crl = execFileSync('openssl', ['crl', '-noout', '-text'], { input: await pki.crlPem() }).toString();
    assert.ok(crl.includes(leaf.serial_number.replaceAll(':', '').toUpperCase()));
    await pki.rotateCrl();
    await pki.tidy({ tidy_cert_store: true });
  });
});

describe('CLI: cairn write pki/roles/<role> and pki/issue/<role>', () => {
  const cli = cliRunner({ env: () => ({ SECRETS_ADDR: s.url }), rootEnv: () => ({ SECRETS_TOKEN: s.rootToken }) });

  it('prints the certificate, key and serial; cairn read pki/cert/<serial> reads it back', async () => {
    await cli.ok('write', 'pki/roles/cli', 'allowed_domains=example.test', 'allow_subdomains=true', 'key_type=ec', 'max_ttl=72h');
    const role = JSON.parse(await cli.ok('read', '-format=json', 'pki/roles/cli')).data;
    assert.deepEqual([role.allowed_domains, role.allow_subdomains, role.key_type, role.max_ttl], [['example.test'], true, 'ec', 259200]);
    const out = JSON.parse(await cli.ok('write', '-format=json', 'pki/issue/cli', 'common_name=cli.example.test', 'ttl=30m'));
    assert.match(out.data.certificate, /^-----BEGIN CERTIFICATE-----/);
    assert.match(out.data.private_key, /^-----BEGIN EC PRIVATE KEY-----/);
    assert.match(execFileSync('openssl', ['x509', '-noout', '-subject'], { input: out.data.certificate }).toString(), /CN ?= ?cli\.example\.test/);
    const table = await cli.ok('read', `pki/cert/${out.data.serial_number}`);
    assert.match(table, /certificate\s+-----BEGIN CERTIFICATE-----/);
    const refused = await cli.cairn({ SECRETS_TOKEN: s.rootToken }, ['write', 'pki/issue/cli', 'common_name=cli.other.test']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /common name cli\.other\.test not allowed by this role/);
  });
});
