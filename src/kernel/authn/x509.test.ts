// Client-certificate facts and chain verification (x509.ts) on certificates made with
// openssl at test time: names, SANs, key identifiers, string extensions and a serial
// number in decimal; chains through a presented intermediate; a trusted CA presenting
// itself; Go's texts for expired, not-yet-valid and wrong-usage certificates.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CertificateInvalidError, certificateFacts, parsePemCertificates, verifyClientChains } from './x509.js';

let dir: string;
const cert = (name: string) => new X509Certificate(readFileSync(join(dir, `${name}.pem`)));
const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** Issues `name` from `ca` with the extension lines `ext` and the serial `serial` (hex). */
function issue(name: string, ca: string, subject: string, ext: string[], serial = '0x1001', days = '1'): void {
  openssl('req', '-new', ...EC, '-subj', subject, '-keyout', `${name}.key`, '-out', `${name}.csr`);
  writeFileSync(join(dir, `${name}.ext`), `${['subjectKeyIdentifier=hash', 'authorityKeyIdentifier=keyid', ...ext].join('\n')}\n`);
  openssl('x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.pem`, '-CAkey', `${ca}.key`, '-set_serial', serial, '-days', days, '-extfile', `${name}.ext`, '-out', `${name}.pem`);
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-x509-'));
  openssl('req', '-x509', ...EC, '-days', '1', '-subj', '/CN=Root', '-keyout', 'root.key', '-out', 'root.pem');
  issue('mid', 'root', '/CN=Mid', ['basicConstraints=critical,CA:TRUE']);
  issue('leaf', 'mid', '/O=Acme/OU=ops/OU=db/CN=first/CN=svc.acme.test', [
    'extendedKeyUsage=clientAuth',
    'subjectAltName=DNS:svc.acme.test,DNS:alt.acme.test,email:svc@acme.test,URI:spiffe://acme/svc',
    '1.2.3.4=ASN1:IA5String:hello',
    '1.2.3.5=ASN1:INTEGER:7',
  ], '0x00ff01');
  issue('server-only', 'root', '/CN=web', ['extendedKeyUsage=serverAuth']);
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

  it('parsePemCertificates takes every CERTIFICATE block and skips what does not parse', () => {
    const pem = readFileSync(join(dir, 'leaf.pem'), 'utf8') + '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n' + readFileSync(join(dir, 'mid.pem'), 'utf8');
    assert.deepEqual(parsePemCertificates(pem).map((c) => c.subject.split('\n').pop()), ['CN=svc.acme.test', 'CN=Mid']);
  });
});

describe('verifyClientChains', () => {
  const now = new Date();

  it('finds the chain through a presented intermediate to a trusted root, or ends at a trusted intermediate', () => {
    const chains = verifyClientChains([cert('leaf'), cert('mid')], [cert('root')], now);
    assert.deepEqual(chains.map((c) => c.map((x) => x.subject.split('\n').pop())), [['CN=svc.acme.test', 'CN=Mid', 'CN=Root']]);
    assert.deepEqual(verifyClientChains([cert('leaf')], [cert('root')], now), [], 'without the intermediate: no chain');
    assert.equal(verifyClientChains([cert('leaf')], [cert('mid'), cert('root')], now).length, 2, 'to the intermediate, and on to the root');
    assert.deepEqual(verifyClientChains([cert('leaf'), cert('mid')], [cert('server-only')], now), [], 'a non-CA is never an issuer');
  });

  it('a trusted CA presenting itself is a one-certificate chain', () => {
    assert.equal(verifyClientChains([cert('root')], [cert('root')], now)[0]?.length, 1);
  });

  it('Go\'s texts: expired, not yet valid, a usage that excludes client authentication', () => {
    const later = new Date(Date.now() + 3 * 86_400_000);
    assert.throws(() => verifyClientChains([cert('leaf'), cert('mid')], [cert('root')], later), (err: Error) =>
      err instanceof CertificateInvalidError && /^x509: certificate has expired or is not yet valid: current time \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ is after \S+Z$/.test(err.message));
    const earlier = new Date(Date.now() - 86_400_000);
    assert.throws(() => verifyClientChains([cert('leaf')], [cert('root')], earlier), /is before/);
    assert.throws(() => verifyClientChains([cert('server-only')], [cert('root')], now), /x509: certificate specifies an incompatible key usage/);
  });
});
