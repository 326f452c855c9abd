/**
 * The bare baseline of the PKI benchmark (bench/secrets-pki.ts): a plain node:http server,
 * in its own process, that answers each `POST /issue` the way `pki/issue/<role>` does its
 * work — a new EC P-256 key pair from Node's crypto, a leaf certificate signed by an EC
 * P-256 CA key with @peculiar/x509 (same extensions), the PEM certificate and key in a
 * JSON reply — with no routing, auth, validation, storage or envelope. Prints its URL
 * on stdout once it listens.
 */
import { createServer } from 'node:http';
import { buildCertificate, certPem, subjectName } from '../src/services/secrets/pki/certificate.js';
import { generateKey, privateKeyPem } from '../src/services/secrets/pki/keys.js';
import { newSerialHex } from '../src/services/secrets/pki/serial.js';

const NO_URLS = { issuing_certificates: [], crl_distribution_points: [], ocsp_servers: [], enable_templating: false };
const caKey = await generateKey('ec', 256);
const now = Date.now();
const ca = await buildCertificate(
  {
    serialHex: newSerialHex(),
    subject: subjectName({ cn: 'bare root' }),
    notBefore: new Date(now),
    notAfter: new Date(now + 86400e3),
    publicKey: caKey.publicKey,
    ca: { maxPathLength: -1 },
  },
  { key: caKey },
  NO_URLS,
);

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    void (async () => {
      const key = await generateKey('ec', 256);
      const t = Date.now();
      const cert = await buildCertificate(
        {
          serialHex: newSerialHex(),
          subject: subjectName({ cn: 'bench.example.test' }),
          notBefore: new Date(t - 30_000),
          notAfter: new Date(t + 3600e3),
          publicKey: key.publicKey,
          dns: ['bench.example.test'],
          keyUsage: ['DigitalSignature', 'KeyAgreement', 'KeyEncipherment'],
          extKeyUsage: ['ServerAuth', 'ClientAuth'],
        },
        { cert: ca, key: caKey },
        NO_URLS,
      );
      const body = JSON.stringify({
        data: { certificate: certPem(cert), issuing_ca: certPem(ca), private_key: privateKeyPem(key, 'der'), private_key_type: 'ec' },
      });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    })();
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  const addr = server.address() as { port: number };
  process.stdout.write(`http://127.0.0.1:${addr.port}\n`);
});
