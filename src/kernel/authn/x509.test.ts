// Client-certificate facts and chain verification (x509.ts) on certificates made with
// openssl at test time: names, SANs, key identifiers, string extensions and a serial
// number in decimal; chains through a presented intermediate; a trusted CA presenting
// itself; Go's texts for expired, not-yet-valid and wrong-usage certificates; malformed
// extensions read as absent, unusual ones as Go reads them, and truncated or garbled DER
// only ever as a CertificateFormatError.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CertificateFormatError, CertificateInvalidError, certificateFacts, parsePemCertificates, verifyClientChains } from './x509.js';

let dir: string;
const cert = (name: string) => new X509Certificate(readFileSync(join(dir, `${name}.pem`)));
const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** Issues `name` from `ca` for `subject` with the extension lines `ext` and the serial `serial` (hex), valid for a day. */
function issue(name: string, ca: string, subject: string, { ext, serial = '0x1001' }: { ext: string[]; serial?: string }): void {
  openssl('req', '-new', ...EC, '-subj', subject, '-keyout', `${name}.key`, '-out', `${name}.csr`);
  writeFileSync(join(dir, `${name}.ext`), `${['subjectKeyIdentifier=hash', 'authorityKeyIdentifier=keyid', ...ext].join('\n')}\n`);
  openssl(
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${ca}.pem`,
    '-CAkey',
    `${ca}.key`,
    '-set_serial',
    serial,
    '-days',
    '1',
    '-extfile',
    `${name}.ext`,
    '-out',
    `${name}.pem`,
  );
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-x509-'));
  openssl('req', '-x509', ...EC, '-days', '1', '-subj', '/CN=Root', '-keyout', 'root.key', '-out', 'root.pem');
  issue('mid', 'root', '/CN=Mid', { ext: ['basicConstraints=critical,CA:TRUE'] });
  issue('leaf', 'mid', '/O=Acme/OU=ops/OU=db/CN=first/CN=svc.acme.test', {
    ext: [
      'extendedKeyUsage=clientAuth',
      'subjectAltName=DNS:svc.acme.test,DNS:alt.acme.test,email:svc@acme.test,URI:spiffe://acme/svc',
      '1.2.3.4=ASN1:IA5String:hello',
      '1.2.3.5=ASN1:INTEGER:7',
    ],
    serial: '0x00ff01',
  });
  issue('server-only', 'root', '/CN=web', { ext: ['extendedKeyUsage=serverAuth'] });
  // Extensions whose values are not what their OIDs promise (raw DER, as a buggy or hostile CA
  // could write them), and unusual ones: a critical private OID holding a SEQUENCE, a
  // multi-byte tag, a UTF8String with a string after it, a BMPString, strings of bad lengths.
  writeFileSync(
    join(dir, 'odd.cnf'),
    [
      '[req]',
      'distinguished_name = dn',
      '[dn]',
      '[ext]',
      'subjectAltName = DER:3005820378',
      'subjectKeyIdentifier = DER:020101',
      'authorityKeyIdentifier = DER:3003800501',
      '1.2.3.6 = critical,DER:3006020101020102',
      '1.2.3.7 = DER:1f81010100',
      '1.2.3.8 = DER:0c026f6b0c0178',
      '1.2.3.9 = ASN1:BMPString:wide',
      '1.2.3.10 = ASN1:NULL',
      '1.2.3.11 = DER:1e03616263',
      '1.2.3.12 = DER:1c03616263',
      '',
    ].join('\n'),
  );
  openssl('req', '-x509', ...EC, '-days', '1', '-subj', '/CN=odd/OU=ops', '-config', 'odd.cnf', '-extensions', 'ext', '-keyout', 'odd.key', '-out', 'odd.pem');
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('certificateFacts', () => {
  it('reads names, SANs, key identifiers, string extensions and the serial in decimal', () => {
    const f = certificateFacts(cert('leaf'));
    assert.equal(f.commonName, 'svc.acme.test', 'the last CN, as Go');
    assert.deepEqual(f.organizationalUnits, ['ops', 'db']);
    assert.deepEqual(f.dnsNames, ['svc.acme.test', 'alt.acme.test']);
    assert.deepEqual(f.emailAddresses, ['svc@acme.test']);
    assert.deepEqual(f.uris, ['spiffe://acme/svc']);
    assert.equal(f.serialNumber, String(0xff01));
    assert.equal(f.subjectKeyId.length, 20);
    assert.deepEqual(f.authorityKeyId, certificateFacts(cert('mid')).subjectKeyId);
    assert.equal(f.extensions.get('1.2.3.4'), 'hello');
    assert.equal(f.extensions.get('1.2.3.5'), '', 'not a string');
  });

  it("extensions that cannot be parsed read as absent; unusual ones as their string or ''", () => {
    const f = certificateFacts(cert('odd'));
    assert.deepEqual([f.commonName, f.organizationalUnits], ['odd', ['ops']]);
    assert.deepEqual(
      ['2.5.29.17', '2.5.29.14', '2.5.29.35'].map((oid) => f.extensions.has(oid)),
      [true, true, true],
      'the malformed extensions are there',
    );
    assert.deepEqual([f.dnsNames, f.emailAddresses, f.uris], [[], [], []], 'a truncated subjectAltName: no names');
    assert.deepEqual([f.subjectKeyId.length, f.authorityKeyId.length], [0, 0], 'an INTEGER for a key identifier, a truncated one: empty');
    assert.equal(f.extensions.get('1.2.3.6'), '', 'a critical SEQUENCE: not a string');
    assert.equal(f.extensions.get('1.2.3.7'), '', 'a multi-byte tag: not a string');
    assert.equal(f.extensions.get('1.2.3.8'), 'ok', "the first string, as Go's asn1.Unmarshal");
    assert.equal(f.extensions.get('1.2.3.9'), 'wide');
    assert.equal(f.extensions.get('1.2.3.10'), '', 'a NULL: not a string');
    assert.equal(f.extensions.get('1.2.3.11'), '', 'a BMPString of odd length: not a string');
    assert.equal(f.extensions.get('1.2.3.12'), '', 'a UniversalString of 3 bytes: not a string');
  });

  it('truncated or garbled DER is a CertificateFormatError or facts, never another error', () => {
    const raw = cert('leaf').raw;
    assert.throws(() => certificateFacts({ raw: Buffer.from('garbage') }), CertificateFormatError);
    assert.throws(() => certificateFacts({ raw: Buffer.alloc(0) }), CertificateFormatError);
    assert.throws(() => certificateFacts({ raw: raw.subarray(0, raw.length - 1) }), /^Error: x509: malformed certificate: /);
    let formatErrors = 0;
    const tryFacts = (bytes: Buffer<ArrayBuffer>) => {
      try {
        certificateFacts({ raw: bytes });
      } catch (err) {
        assert.ok(err instanceof CertificateFormatError, `${(err as Error).stack}`);
        formatErrors++;
      }
    };
    for (let n = 0; n < raw.length; n++) tryFacts(raw.subarray(0, n));
    // Every byte replaced in turn by a multi-byte tag's first byte and a 4-byte length's (deterministic).
    for (let i = 0; i < raw.length; i++) {
      for (const b of [0x1f, 0x84]) {
        const bytes = Buffer.from(raw);
        bytes[i] = b;
        tryFacts(bytes);
      }
    }
    assert.ok(formatErrors >= raw.length, 'every truncation at least is refused');
  });

  it('parsePemCertificates takes every CERTIFICATE block and skips what does not parse', () => {
    const pem =
      readFileSync(join(dir, 'leaf.pem'), 'utf8') +
      '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n' +
      readFileSync(join(dir, 'mid.pem'), 'utf8');
    assert.deepEqual(
      parsePemCertificates(pem).map((c) => c.subject.split('\n').pop()),
      ['CN=svc.acme.test', 'CN=Mid'],
    );
  });
});

describe('verifyClientChains', () => {
  const now = new Date();

  it('finds the chain through a presented intermediate to a trusted root, or ends at a trusted intermediate', () => {
    const chains = verifyClientChains([cert('leaf'), cert('mid')], [cert('root')], now);
    assert.deepEqual(
      chains.map((c) => c.map((x) => x.subject.split('\n').pop())),
      [['CN=svc.acme.test', 'CN=Mid', 'CN=Root']],
    );
    assert.deepEqual(verifyClientChains([cert('leaf')], [cert('root')], now), [], 'without the intermediate: no chain');
    assert.equal(verifyClientChains([cert('leaf')], [cert('mid'), cert('root')], now).length, 2, 'to the intermediate, and on to the root');
    assert.deepEqual(verifyClientChains([cert('leaf'), cert('mid')], [cert('server-only')], now), [], 'a non-CA is never an issuer');
  });

  it('a trusted CA presenting itself is a one-certificate chain', () => {
    assert.equal(verifyClientChains([cert('root')], [cert('root')], now)[0]?.length, 1);
  });

  it("Go's texts: expired, not yet valid, a usage that excludes client authentication", () => {
    const later = new Date(Date.now() + 3 * 86_400_000);
    assert.throws(
      () => verifyClientChains([cert('leaf'), cert('mid')], [cert('root')], later),
      (err: Error) =>
        err instanceof CertificateInvalidError &&
        /^x509: certificate has expired or is not yet valid: current time \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ is after \S+Z$/.test(err.message),
    );
    const earlier = new Date(Date.now() - 86_400_000);
    assert.throws(() => verifyClientChains([cert('leaf')], [cert('root')], earlier), /is before/);
    assert.throws(() => verifyClientChains([cert('server-only')], [cert('root')], now), /x509: certificate specifies an incompatible key usage/);
  });
});
