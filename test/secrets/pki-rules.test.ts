/**
 * The PKI engine's role rules and request checks against a real server (reference/secrets-engines.md
 * §7 "Roles", "Issue / sign", "Tidy"): the domain rules (allowed_domains with bare,
 * subdomain, glob, wildcard, localhost, any-name, enforce_hostnames, IP SANs) accept and
 * refuse names with the reference's texts; `sign/:role` signs an `openssl` CSR and checks
 * its key and names; TTLs cap at max_ttl; bad input is a 400 naming the field that stores
 * nothing; tidy removes certificates expired past the safety buffer (an injected clock).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers.js';

let s: TestServer;
let now = Date.now();
before(async () => {
  s = await startTestServer({ clock: () => new Date(now) });
  assert.equal((await s.call('POST', '/v1/sys/mounts/pki', { body: { type: 'pki', config: { max_lease_ttl: '87600h' } } })).status, 204);
  const r = await s.call('POST', '/v1/pki/root/generate/internal', { body: { common_name: 'Rules Root', key_type: 'ec', ttl: '8760h' } });
  assert.equal(r.status, 200, r.text);
});
after(() => s.close());

const role = async (name: string, body: Record<string, unknown>) => {
  const r = await s.call('POST', `/v1/pki/roles/${name}`, { body: { key_type: 'ec', ttl: '1h', ...body } });
  assert.equal(r.status, 204, r.text);
};
const issue = (name: string, body: Record<string, unknown>) => s.call('POST', `/v1/pki/issue/${name}`, { body });
const certCount = async () => (await s.call('LIST', '/v1/pki/certs')).json?.data?.keys?.length ?? 0;

/** Expects `body` under role `name` to be issued (true) or refused with `error` exactly. */
async function expect(name: string, body: Record<string, unknown>, error?: string) {
  const r = await issue(name, body);
  if (!error) assert.equal(r.status, 200, `${JSON.stringify(body)}: ${r.text}`);
  else assert.deepEqual([r.status, r.json.errors], [400, [error]], JSON.stringify(body));
}

describe('domain rules', () => {
  it('allowed_domains alone refuses every name: bare, subdomains and globs are opt-in', async () => {
    await role('plain', { allowed_domains: 'example.com' });
    await expect('plain', { common_name: 'example.com' }, 'common name example.com not allowed by this role');
    await expect('plain', { common_name: 'www.example.com' }, 'common name www.example.com not allowed by this role');
  });

  it('allow_bare_domains allows the domain itself only', async () => {
    await role('bare', { allowed_domains: 'example.com', allow_bare_domains: true });
    await expect('bare', { common_name: 'example.com' });
    await expect('bare', { common_name: 'www.example.com' }, 'common name www.example.com not allowed by this role');
    await expect('bare', { common_name: 'example.com', alt_names: 'evil.org' }, 'subject alternate name evil.org not allowed by this role');
  });

  it('allow_subdomains allows any depth and wildcard subdomains, not the bare domain', async () => {
    await role('sub', { allowed_domains: ['example.com', 'example.net'], allow_subdomains: true });
    await expect('sub', { common_name: 'a.b.example.com' });
    await expect('sub', { common_name: 'www.example.net' });
    await expect('sub', { common_name: '*.example.com' });
    await expect('sub', { common_name: 'example.com' }, 'common name example.com not allowed by this role');
    await expect('sub', { common_name: 'badexample.com' }, 'common name badexample.com not allowed by this role');
    await role('nowild', { allowed_domains: 'example.com', allow_subdomains: true, allow_wildcard_certificates: false });
    await expect('nowild', { common_name: '*.example.com' }, 'common name *.example.com not allowed by this role');
  });

  it('allow_glob_domains matches * across labels', async () => {
    await role('glob', { allowed_domains: 'web-*.example.com', allow_glob_domains: true });
    await expect('glob', { common_name: 'web-1.example.com' });
    await expect('glob', { common_name: 'web-a.b.example.com' });
    await expect('glob', { common_name: 'db-1.example.com' }, 'common name db-1.example.com not allowed by this role');
    await role('noglob', { allowed_domains: 'web-*.example.com' });
    await expect('noglob', { common_name: 'web-1.example.com' }, 'common name web-1.example.com not allowed by this role');
  });

  it('allow_localhost (default true) allows localhost; false refuses it', async () => {
    await role('local', { allowed_domains: 'example.com' });
    await expect('local', { common_name: 'localhost' });
    await role('nolocal', { allowed_domains: 'example.com', allow_localhost: false });
    await expect('nolocal', { common_name: 'localhost' }, 'common name localhost not allowed by this role');
  });

  it('ip_sans are allowed by default and refused with allow_ip_sans=false; a bad address names the field', async () => {
    await role('ips', { allowed_domains: 'example.com', allow_subdomains: true });
    const r = await issue('ips', { common_name: 'a.example.com', ip_sans: '10.0.0.1,::1' });
    assert.equal(r.status, 200, r.text);
    const text = execFileSync('openssl', ['x509', '-noout', '-text'], { input: r.json.data.certificate }).toString();
    assert.match(text, /IP Address:10\.0\.0\.1, IP Address:0:0:0:0:0:0:0:1/);
    await role('noips', { allowed_domains: 'example.com', allow_subdomains: true, allow_ip_sans: false });
    await expect(
      'noips',
      { common_name: 'a.example.com', ip_sans: '10.0.0.1' },
      'IP Subject Alternative Names are not allowed in this role, but was provided 10.0.0.1',
    );
    await expect('ips', { common_name: 'a.example.com', ip_sans: 'not-an-ip' }, 'ip_sans: the value "not-an-ip" is not a valid IP address');
  });

  it('allow_any_name allows any name, but enforce_hostnames still refuses a non-hostname unless turned off', async () => {
    await role('any', { allow_any_name: true });
    await expect('any', { common_name: 'anything.org' });
    await expect('any', { common_name: 'not a host' }, 'common name not a host not allowed by this role');
    await role('anyname', { allow_any_name: true, enforce_hostnames: false });
    await expect('anyname', { common_name: 'Jane Doe' });
  });

  it('require_cn: a missing common name is refused with the reference text', async () => {
    await expect(
      'any',
      {},
      'the common_name field is required, or must be provided in a CSR with "use_csr_common_name" set to true, unless "require_cn" is set to false',
    );
  });
});

describe('issuing checks', () => {
  it('a ttl over the role max_ttl is capped with a warning; past the CA NotAfter it is refused', async () => {
    await role('short', { allowed_domains: 'example.com', allow_subdomains: true, ttl: '1h', max_ttl: '2h' });
    const r = await issue('short', { common_name: 'a.example.com', ttl: '5h' });
    assert.equal(r.status, 200, r.text);
    assert.ok(Math.abs(r.json.data.expiration - (now / 1000 + 7200)) < 5);
    assert.deepEqual(r.json.warnings, ['TTL "18000s" is longer than permitted maxTTL "7200s", so maxTTL is being used']);
    const quiet = await issue('short', { common_name: 'b.example.com' });
    assert.equal(quiet.json.warnings, null, 'the role default within max_ttl: no warning');
    await role('capped', { allowed_domains: 'example.com', allow_subdomains: true, ttl: '', max_ttl: '2h' });
    const capped = await issue('capped', { common_name: 'c.example.com' });
    assert.ok(Math.abs(capped.json.data.expiration - (now / 1000 + 7200)) < 5, 'no ttl: the mount default, shortened to max_ttl');
    assert.equal(capped.json.warnings, null);
    await role('long', { allowed_domains: 'example.com', allow_subdomains: true, max_ttl: '87600h' });
    const long = await issue('long', { common_name: 'a.example.com', ttl: '9000h' });
    assert.equal(long.status, 400);
    assert.match(long.json.errors[0], /^cannot satisfy request, as TTL would result in notAfter of .* that is beyond the expiration of the CA certificate at /);
  });

  it('bad input is a 400 naming the field and stores nothing', async () => {
    const before = await certCount();
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['issue/ips', { common_name: 'a.example.com', format: 'xml' }, /^format: unknown format "xml"/],
      ['issue/ips', { common_name: 'a.example.com', ttl: 'soon' }, /ttl/],
      ['issue/ips', { common_name: 'a.example.com', ttl: '-5s' }, /^ttl: must not be negative/],
      [
        'issue/ips',
        { common_name: 'a.example.com', alt_names: Array.from({ length: 101 }, (_, i) => `n${i}.example.com`).join(',') },
        /^alt_names: at most 100/,
      ],
      ['issue/ips', { common_name: `${'a'.repeat(70)}.example.com` }, /^common_name: longer than 64/],
      ['issue/nope', { common_name: 'a.example.com' }, /^unknown role: nope$/],
      ['roles/bad', { key_type: 'dsa' }, /^key_type: unknown key type "dsa"/],
      ['roles/bad', { key_type: 'rsa', key_bits: 1024 }, /^key_bits: unsupported bit length for RSA key: 1024/],
      ['roles/bad', { ttl: '2h', max_ttl: '1h' }, /^ttl: "ttl" value must be less than "max_ttl" value/],
      ['roles/bad', { key_usage: 'Teleport' }, /^key_usage: unknown usage "Teleport"/],
      ['revoke', {}, /^the serial number or certificate to revoke must be provided$/],
      ['revoke', { serial_number: 'zz:zz' }, /^serial_number: not a certificate serial number/],
      ['revoke', { serial_number: '01:02:03' }, /^certificate with serial 01:02:03 not found$/],
      ['sign/ips', { csr: 'not a csr' }, /^csr: no PEM certificate request found/],
      ['sign/ips', { csr: 'x'.repeat(70_000) }, /^csr: larger than 65536 bytes/],
      ['config/urls', { issuing_certificates: 'not a url' }, /^issuing_certificates: invalid URL/],
      ['root/generate/sideways', { common_name: 'x' }, /^type: expected "internal" or "exported"/],
    ];
    for (const [path, body, error] of cases) {
      const r = await s.call('POST', `/v1/pki/${path}`, { body });
      assert.equal(r.status, 400, `${path} ${JSON.stringify(body).slice(0, 100)}: ${r.text}`);
      assert.match(r.json.errors[0], error, path);
    }
    assert.equal(await certCount(), before, 'nothing was issued');
    assert.equal((await s.call('GET', '/v1/pki/roles/bad')).status, 404, 'no role was stored');
    const badSerial = await s.call('GET', '/v1/pki/cert/not-hex', { token: null });
    assert.equal(badSerial.status, 400);
  });
});

describe('key types', () => {
  it('rsa (2048 by default), ec 384 and ed25519 leaves; an ed25519 root signs certificates and its CRL', async () => {
    await role('rsa', { allowed_domains: 'example.com', allow_subdomains: true, key_type: 'rsa' });
    const rsa = (await issue('rsa', { common_name: 'r.example.com' })).json.data;
    assert.equal(rsa.private_key_type, 'rsa');
    assert.match(rsa.private_key, /^-----BEGIN RSA PRIVATE KEY-----/);
    assert.match(execFileSync('openssl', ['x509', '-noout', '-text'], { input: rsa.certificate }).toString(), /Public-Key: \(2048 bit\)/);
    await role('ec384', { allowed_domains: 'example.com', allow_subdomains: true, key_type: 'ec', key_bits: 384 });
    const ec = (await issue('ec384', { common_name: 'e.example.com' })).json.data;
    assert.match(execFileSync('openssl', ['x509', '-noout', '-text'], { input: ec.certificate }).toString(), /NIST CURVE: P-384/);
    await role('ed', { allowed_domains: 'example.com', allow_subdomains: true, key_type: 'ed25519' });
    const ed = (await issue('ed', { common_name: 'd.example.com' })).json.data;
    assert.equal(ed.private_key_type, 'ed25519');
    assert.match(ed.private_key, /^-----BEGIN PRIVATE KEY-----/);
    assert.match(execFileSync('openssl', ['x509', '-noout', '-text'], { input: ed.certificate }).toString(), /Public Key Algorithm: ED25519/);

    assert.equal((await s.call('POST', '/v1/sys/mounts/pki_ed', { body: { type: 'pki' } })).status, 204);
    const root = await s.call('POST', '/v1/pki_ed/root/generate/internal', { body: { common_name: 'Ed Root', key_type: 'ed25519', ttl: '100h' } });
    assert.equal(root.status, 200, root.text);
    assert.equal((await s.call('POST', '/v1/pki_ed/roles/r', { body: { allow_any_name: true, key_type: 'ec', ttl: '1h' } })).status, 204);
    const leaf = (await s.call('POST', '/v1/pki_ed/issue/r', { body: { common_name: 'x.example.org' } })).json.data;
    assert.match(execFileSync('openssl', ['x509', '-noout', '-text'], { input: leaf.certificate }).toString(), /Signature Algorithm: ED25519/);
    assert.equal((await s.call('POST', '/v1/pki_ed/revoke', { body: { serial_number: leaf.serial_number } })).status, 200);
    const crl = (await s.call('GET', '/v1/pki_ed/crl/pem', { token: null })).text;
    assert.ok(execFileSync('openssl', ['crl', '-noout', '-text'], { input: crl }).toString().includes(leaf.serial_number.replaceAll(':', '').toUpperCase()));
  });
});

describe('sign/:role with a CSR', () => {
  const csr = (subj: string, key: string[], san?: string) =>
    execFileSync('sh', [
      '-c',
      `openssl req -new -newkey ${key.join(' ')} -nodes -keyout /dev/null -subj '${subj}' ${san ? `-addext 'subjectAltName=${san}'` : ''} 2>/dev/null`,
    ]).toString();

  it('signs an openssl CSR under the role: CN and SANs from the CSR, the CSR key in the certificate, no private key in the reply', async () => {
    await role('signer', { allowed_domains: 'example.com', allow_subdomains: true, key_type: 'ec' });
    const req = csr('/CN=csr.example.com', ['ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'], 'DNS:alt.example.com');
    const r = await s.call('POST', '/v1/pki/sign/signer', { body: { csr: req } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.data.private_key, undefined);
    const text = execFileSync('openssl', ['x509', '-noout', '-text'], { input: r.json.data.certificate }).toString();
    assert.match(text, /Subject: CN ?= ?csr\.example\.com/);
    assert.match(text, /DNS:csr\.example\.com, DNS:alt\.example\.com/);
    const csrKey = execFileSync('openssl', ['req', '-noout', '-pubkey'], { input: req }).toString();
    const certKey = execFileSync('openssl', ['x509', '-noout', '-pubkey'], { input: r.json.data.certificate }).toString();
    assert.equal(certKey, csrKey);
  });

  it('refuses a CSR name outside the role, a key of another type, a tampered CSR', async () => {
    const outside = csr('/CN=evil.org', ['ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1']);
    const r1 = await s.call('POST', '/v1/pki/sign/signer', { body: { csr: outside } });
    assert.deepEqual([r1.status, r1.json.errors], [400, ['common name evil.org not allowed by this role']]);
    const rsa = csr('/CN=r.example.com', ['rsa:2048']);
    const r2 = await s.call('POST', '/v1/pki/sign/signer', { body: { csr: rsa } });
    assert.deepEqual([r2.status, r2.json.errors], [400, ['role requires keys of type ec']]);
    const good = csr('/CN=t.example.com', ['ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1']);
    const b64 = good.replace(/-----[^-]+-----|\s/g, '');
    const der = Buffer.from(b64, 'base64');
    der[der.length - 5] ^= 0xff; // inside the signature
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----`;
    const r3 = await s.call('POST', '/v1/pki/sign/signer', { body: { csr: tampered } });
    assert.equal(r3.status, 400);
    assert.match(r3.json.errors[0], /^csr: /);
  });

  it('sign-verbatim keeps the CSR subject and SANs', async () => {
    const req = csr('/CN=Verbatim Name/O=Cairn', ['ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'], 'DNS:any.org');
    const r = await s.call('POST', '/v1/pki/sign-verbatim', { body: { csr: req, ttl: '1h' } });
    assert.equal(r.status, 200, r.text);
    const text = execFileSync('openssl', ['x509', '-noout', '-text'], { input: r.json.data.certificate }).toString();
    assert.match(text, /Subject: CN ?= ?Verbatim Name, O ?= ?Cairn/);
    assert.match(text, /DNS:any\.org/);
  });
});

describe('config/urls and config/crl', () => {
  it('config/urls are written into certificates issued afterwards', async () => {
    const urls = { issuing_certificates: 'http://127.0.0.1:8200/v1/pki/ca', crl_distribution_points: 'http://127.0.0.1:8200/v1/pki/crl' };
    assert.equal((await s.call('POST', '/v1/pki/config/urls', { body: urls })).status, 204);
    const read = (await s.call('GET', '/v1/pki/config/urls')).json.data;
    assert.deepEqual(read.issuing_certificates, [urls.issuing_certificates]);
    const r = await issue('ips', { common_name: 'u.example.com' });
    const text = execFileSync('openssl', ['x509', '-noout', '-text'], { input: r.json.data.certificate }).toString();
    assert.match(text, /CA Issuers - URI:http:\/\/127\.0\.0\.1:8200\/v1\/pki\/ca/);
    assert.match(text, /X509v3 CRL Distribution Points:[\s\S]*URI:http:\/\/127\.0\.0\.1:8200\/v1\/pki\/crl/);
  });

  it('config/crl sets the CRL lifetime', async () => {
    assert.equal((await s.call('POST', '/v1/pki/config/crl', { body: { expiry: '24h', auto_rebuild: true } })).status, 204);
    assert.deepEqual((await s.call('GET', '/v1/pki/config/crl')).json.data, { expiry: '24h', disable: false, auto_rebuild: true });
    const crl = Buffer.from(await (await fetch(`${s.url}/v1/pki/crl`)).arrayBuffer());
    const text = execFileSync('openssl', ['crl', '-inform', 'DER', '-noout', '-lastupdate', '-nextupdate'], { input: crl }).toString();
    const [last, next] = text.split('\n').map((l) => Date.parse(l.split('=')[1]));
    assert.equal(next - last, 24 * 3600 * 1000);
  });
});

describe('tidy', () => {
  it('removes certificates and revocations expired past the safety buffer, and tidy-status tells', async () => {
    const keep = (await issue('long', { common_name: 'keep.example.com', ttl: '1000h' })).json.data.serial_number;
    const gone = (await issue('short', { common_name: 'gone.example.com', ttl: '1h' })).json.data.serial_number;
    assert.equal((await s.call('POST', '/v1/pki/revoke', { body: { serial_number: gone } })).status, 200);
    const count = await certCount();
    now += (1 + 72 + 1) * 3600 * 1000; // past NotAfter and the default 72h buffer
    const r = await s.call('POST', '/v1/pki/tidy', { body: { tidy_cert_store: true, tidy_revoked_certs: true } });
    assert.equal(r.status, 202, r.text);
    const keys: string[] = (await s.call('LIST', '/v1/pki/certs')).json.data.keys;
    assert.ok(keys.includes(keep), 'an unexpired certificate stays');
    assert.ok(!keys.includes(gone), 'the expired one is gone');
    assert.ok(keys.length < count);
    assert.equal((await s.call('LIST', '/v1/pki/certs/revoked')).status, 404, 'its revocation is gone too');
    const status = (await s.call('GET', '/v1/pki/tidy-status')).json.data;
    assert.equal(status.state, 'Finished');
    assert.equal(status.cert_store_deleted_count, count - keys.length);
    assert.equal(status.revoked_cert_deleted_count, 1);
    const none = await s.call('POST', '/v1/pki/tidy', { body: {} });
    assert.equal(none.status, 400);
  });
});
