/**
 * The PKI engine as its users rely on it, against a real server (reference/secrets-engines.md
 * §7; issue 28 "Tests"): a certificate issued under a role serves a real HTTPS server that
 * Node's `tls` trusts with the CA read from `ca/pem` without a token; the intermediate flow
 * across two mounts gives a leaf that verifies with only the root as trust anchor; a
 * revoked serial is listed in the DER CRL as `openssl crl -text` reads it; issued private
 * keys are never stored; the unauthenticated reads answer without a token.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, get, type Server } from 'node:https';
import { connect } from 'node:tls';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { listRecursive } from '../../src/kernel/store/index.js';
import { startTestServer, type TestServer } from '../helpers.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
  for (const path of ['pki', 'pki_int']) {
    const r = await s.call('POST', `/v1/sys/mounts/${path}`, { body: { type: 'pki', config: { max_lease_ttl: '87600h' } } });
    assert.equal(r.status, 204, r.text);
  }
});
after(() => s.close());

const ok = async (method: string, path: string, body?: unknown, status = 200) => {
  const r = await s.call(method, `/v1/${path}`, { body });
  assert.equal(r.status, status, `${method} ${path}: ${r.text}`);
  return r.json;
};

/** Every value stored behind the barrier, as text. */
async function storedText(): Promise<string> {
  const core = s.service.core;
  const keys = await listRecursive(core.backend, 'logical/');
  const values = await Promise.all(keys.map(async (k) => Buffer.from((await core.backend.get(k))!).toString('utf8')));
  return keys.join('\n') + values.join('\n');
}

/** Serves `cert`/`key` over HTTPS on 127.0.0.1 and answers "hello". */
async function httpsServer(cert: string, key: string): Promise<{ server: Server; port: number }> {
  const server = createServer({ cert, key }, (_req, res) => res.end('hello'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

/** GET / over HTTPS from node:https, trusting only `ca`, with `servername` as SNI and the name checked. */
function httpsGet(port: number, ca: string, servername: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, ca, servername, path: '/' }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve(body));
    }).on('error', reject);
  });
}

/** Connects with TLS trusting only `ca`, sending `servername`; resolves with the peer's verdict (null = trusted). */
function handshake(port: number, ca: string, servername: string): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const sock = connect({ host: '127.0.0.1', port, ca, servername, rejectUnauthorized: false }, () => {
      const err = sock.authorized ? null : String(sock.authorizationError);
      sock.end();
      resolve(err);
    });
    sock.on('error', reject);
  });
}

describe('a root CA and a leaf serving HTTPS', () => {
  let caPem: string;
  let leaf: {
    certificate: string;
    private_key: string;
    serial_number: string;
    issuing_ca: string;
    ca_chain: string[];
    private_key_type: string;
    expiration: number;
  };

  it('root/generate/internal answers the certificate and ids without a private key; ca/pem is served without a token', async () => {
    const root = (await ok('POST', 'pki/root/generate/internal', { common_name: 'Cairn Test Root', key_type: 'ec', ttl: '87600h', issuer_name: 'root-1' }))
      .data;
    assert.match(root.certificate, /^-----BEGIN CERTIFICATE-----/);
    assert.equal(root.issuing_ca, root.certificate);
    assert.match(root.serial_number, /^[0-9a-f]{2}(:[0-9a-f]{2})+$/);
    assert.equal(root.issuer_name, 'root-1');
    assert.ok(root.issuer_id && root.key_id);
    assert.equal(root.private_key, undefined, 'internal: the key never leaves the mount');
    const ca = await s.call('GET', '/v1/pki/ca/pem', { token: null });
    assert.equal(ca.status, 200);
    assert.equal(ca.text.trim(), root.certificate);
    caPem = ca.text;
    const der = await fetch(`${s.url}/v1/pki/ca`);
    assert.equal(der.headers.get('content-type'), 'application/pkix-cert');
    assert.equal(Buffer.from(await der.arrayBuffer()).toString('base64'), root.certificate.replace(/-----[^-]+-----|\s/g, ''));
    assert.equal((await ok('GET', 'pki/config/issuers')).data.default, root.issuer_id, 'the first issuer is the default');
  });

  it('issue/:role gives a certificate and key that serve HTTPS trusted by Node with the CA', async () => {
    await ok('POST', 'pki/roles/web', { allowed_domains: 'example.test', allow_subdomains: true, key_type: 'ec', max_ttl: '72h' }, 204);
    leaf = (await ok('POST', 'pki/issue/web', { common_name: 'www.example.test', alt_names: 'api.example.test', ip_sans: '127.0.0.1', ttl: '1h' })).data;
    assert.match(leaf.private_key, /^-----BEGIN EC PRIVATE KEY-----/);
    assert.equal(leaf.private_key_type, 'ec');
    assert.deepEqual(leaf.ca_chain, [caPem.trim()]);
    assert.equal(leaf.issuing_ca, caPem.trim());
    assert.ok(Math.abs(leaf.expiration - (Date.now() / 1000 + 3600)) < 120, 'expiration is Unix seconds of NotAfter');
    const { server, port } = await httpsServer(leaf.certificate, leaf.private_key);
    try {
      assert.equal(await handshake(port, caPem, 'www.example.test'), null);
      assert.equal(await handshake(port, caPem, 'api.example.test'), null);
      assert.match(String(await handshake(port, caPem, 'other.test')), /ERR_TLS_CERT_ALTNAME_INVALID|does not match|Hostname/i);
      assert.equal(await httpsGet(port, caPem, 'www.example.test'), 'hello');
      const other = (await ok('POST', 'pki/root/generate/exported', { common_name: 'Other Root', key_type: 'ec' })).data;
      assert.match(
        String(await handshake(port, other.certificate, 'www.example.test')),
        /UNABLE_TO_VERIFY_LEAF_SIGNATURE|unable to verify/i,
        'another CA does not verify it',
      );
    } finally {
      server.close();
    }
    // The certificate's own view: SANs, usages and the role's client/server flags.
    const text = execFileSync('openssl', ['x509', '-noout', '-text'], { input: leaf.certificate }).toString();
    assert.match(text, /DNS:www\.example\.test/);
    assert.match(text, /DNS:api\.example\.test/);
    assert.match(text, /IP Address:127\.0\.0\.1/);
    assert.match(text, /TLS Web Server Authentication, TLS Web Client Authentication/);
    assert.match(text, /CA:FALSE/);
  });

  it('stores the certificate but never its private key; cert/:serial and certs list it', async () => {
    const stored = await storedText();
    const keyBody = leaf.private_key.split('\n')[1];
    assert.ok(!stored.includes(keyBody), 'the issued private key is not in storage');
    const got = await s.call('GET', `/v1/pki/cert/${leaf.serial_number}`, { token: null });
    assert.equal(got.status, 200, got.text);
    assert.equal(got.json.data.certificate, leaf.certificate);
    assert.equal(got.json.data.revocation_time, 0);
    const hyphen = await s.call('GET', `/v1/pki/cert/${leaf.serial_number.replaceAll(':', '-')}/raw/pem`, { token: null });
    assert.equal(hyphen.text.trim(), leaf.certificate);
    const listed = (await ok('LIST', 'pki/certs')).data.keys;
    assert.ok(listed.includes(leaf.serial_number), JSON.stringify(listed));
    assert.equal((await s.call('LIST', '/v1/pki/certs', { token: null })).status, 403, 'listing certificates needs a token');
  });

  it('revoke lists the serial in the CRL (openssl crl -inform DER -text) and cert/:serial shows the time', async () => {
    const r = (await ok('POST', 'pki/revoke', { serial_number: leaf.serial_number })).data;
    assert.ok(Math.abs(r.revocation_time - Date.now() / 1000) < 60);
    assert.equal(r.state, 'revoked');
    const crl = await fetch(`${s.url}/v1/pki/crl`);
    assert.equal(crl.status, 200);
    assert.equal(crl.headers.get('content-type'), 'application/pkix-crl');
    const file = join(s.dataDir, 'crl.der');
    writeFileSync(file, Buffer.from(await crl.arrayBuffer()));
    const text = execFileSync('openssl', ['crl', '-inform', 'DER', '-in', file, '-noout', '-text']).toString();
    assert.ok(text.includes(`Serial Number: ${leaf.serial_number.replaceAll(':', '').toUpperCase()}`), text);
    assert.match(text, /Issuer: CN ?= ?Cairn Test Root/);
    assert.match(text, /X509v3 CRL Number:\s+\d+/);
    // The CRL verifies with the CA.
    writeFileSync(join(s.dataDir, 'ca.pem'), caPem);
    const verify = execFileSync('openssl', ['crl', '-inform', 'DER', '-in', file, '-noout', '-CAfile', join(s.dataDir, 'ca.pem')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    assert.ok(verify !== undefined);
    const pem = await s.call('GET', '/v1/pki/crl/pem', { token: null });
    assert.match(pem.text, /^-----BEGIN X509 CRL-----/);
    const got = (await s.call('GET', `/v1/pki/cert/${leaf.serial_number}`, { token: null })).json.data;
    assert.equal(got.revocation_time, r.revocation_time);
    assert.deepEqual((await ok('LIST', 'pki/certs/revoked')).data.keys, [leaf.serial_number]);
    const again = (await ok('POST', 'pki/revoke', { serial_number: leaf.serial_number })).data;
    assert.equal(again.revocation_time, r.revocation_time, 'revoking twice keeps the first time');
  });

  it('revoke by certificate works for a no_store certificate', async () => {
    await ok('POST', 'pki/roles/nostore', { allowed_domains: 'example.test', allow_subdomains: true, key_type: 'ec', no_store: true, ttl: '1h' }, 204);
    const c = (await ok('POST', 'pki/issue/nostore', { common_name: 'ns.example.test' })).data;
    assert.equal((await s.call('GET', `/v1/pki/cert/${c.serial_number}`, { token: null })).status, 404, 'no_store: not stored');
    await ok('POST', 'pki/revoke', { certificate: c.certificate });
    const crl = Buffer.from(await (await fetch(`${s.url}/v1/pki/crl`)).arrayBuffer());
    const text = execFileSync('openssl', ['crl', '-inform', 'DER', '-noout', '-text'], { input: crl }).toString();
    assert.ok(text.includes(c.serial_number.replaceAll(':', '').toUpperCase()));
  });
});

describe('concurrent revocations', () => {
  it('every serial of revocations sent at once is in the CRL', async () => {
    await ok('POST', 'pki/roles/many', { allowed_domains: 'example.test', allow_subdomains: true, key_type: 'ec', ttl: '1h' }, 204);
    const serials = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => (await ok('POST', 'pki/issue/many', { common_name: `m${i}.example.test` })).data.serial_number as string),
    );
    await Promise.all(serials.map((serial_number) => ok('POST', 'pki/revoke', { serial_number })));
    const crl = Buffer.from(await (await fetch(`${s.url}/v1/pki/crl`)).arrayBuffer());
    const text = execFileSync('openssl', ['crl', '-inform', 'DER', '-noout', '-text'], { input: crl }).toString();
    for (const serial of serials) assert.ok(text.includes(serial.replaceAll(':', '').toUpperCase()), `${serial} in the CRL`);
  });
});

describe('the intermediate flow across two mounts', () => {
  it('a leaf issued by the intermediate verifies with only the root as trust anchor', async () => {
    const rootPem = (await s.call('GET', '/v1/pki/ca/pem', { token: null })).text;
    const gen = (await ok('POST', 'pki_int/intermediate/generate/internal', { common_name: 'Cairn Test Intermediate', key_type: 'ec' })).data;
    assert.match(gen.csr, /^-----BEGIN CERTIFICATE REQUEST-----/);
    assert.equal(gen.private_key, undefined);
    assert.equal((await s.call('GET', '/v1/pki_int/ca/pem', { token: null })).status, 204, 'no issuer before set-signed: 204 No Content');
    const signed = (await ok('POST', 'pki/root/sign-intermediate', { csr: gen.csr, common_name: 'Cairn Test Intermediate', ttl: '8760h' })).data;
    assert.equal(signed.issuing_ca, rootPem.trim());
    assert.deepEqual(signed.ca_chain, [signed.certificate, rootPem.trim()]);
    assert.match(execFileSync('openssl', ['x509', '-noout', '-text'], { input: signed.certificate }).toString(), /CA:TRUE/);
    const set = (await ok('POST', 'pki_int/intermediate/set-signed', { certificate: `${signed.certificate}\n${signed.issuing_ca}` })).data;
    assert.equal(set.imported_issuers.length, 1);
    assert.deepEqual(Object.keys(set.mapping), set.imported_issuers);
    const wrong = await s.call('POST', '/v1/pki_int/intermediate/set-signed', { body: { certificate: rootPem } });
    assert.equal(wrong.status, 400);
    assert.match(wrong.json.errors[0], /^certificate: no certificate in the bundle matches a private key of this mount/);

    await ok('POST', 'pki_int/roles/svc', { allowed_domains: 'svc.test', allow_subdomains: true, key_type: 'rsa', ttl: '1h' }, 204);
    const leaf = (await ok('POST', 'pki_int/issue/svc', { common_name: 'a.svc.test', private_key_format: 'pkcs8' })).data;
    assert.match(leaf.private_key, /^-----BEGIN PRIVATE KEY-----/);
    assert.equal(leaf.private_key_type, 'rsa');
    assert.deepEqual(leaf.ca_chain, [signed.certificate, rootPem.trim()]);
    const chain = (await s.call('GET', '/v1/pki_int/ca_chain', { token: null })).text;
    assert.equal(chain.trim(), `${signed.certificate}\n${rootPem.trim()}`);
    const { server, port } = await httpsServer(`${leaf.certificate}\n${leaf.issuing_ca}`, leaf.private_key);
    try {
      assert.equal(await handshake(port, rootPem, 'a.svc.test'), null, 'the root alone verifies the served chain');
      assert.equal(await httpsGet(port, rootPem, 'a.svc.test'), 'hello');
    } finally {
      server.close();
    }
  });
});

describe('leases of generate_lease roles', () => {
  it('revoking the lease revokes the certificate', async () => {
    await ok('POST', 'pki/roles/leased', { allowed_domains: 'example.test', allow_subdomains: true, key_type: 'ec', generate_lease: true, ttl: '1h' }, 204);
    const r = await ok('POST', 'pki/issue/leased', { common_name: 'l.example.test' });
    assert.match(r.lease_id, /^pki\/issue\/leased\/.+/);
    assert.equal(r.lease_duration, 3600);
    assert.equal(r.renewable, false);
    await ok('PUT', 'sys/leases/revoke', { lease_id: r.lease_id }, 204);
    const got = (await s.call('GET', `/v1/pki/cert/${r.data.serial_number}`, { token: null })).json.data;
    assert.ok(got.revocation_time > 0);
  });
});
