/**
 * Reading certificates and CRLs (reference/secrets-engines.md §7 "Revoke / read / CRL"):
 * `ca` (DER) and `ca/pem`, `ca_chain` (PEM), `cert/:serial` (JSON; `ca`, `crl`,
 * `ca_chain` are special serials) with `/raw` (DER) and `/raw/pem`, `crl` (DER) and
 * `crl/pem`, `issuer/:ref` (JSON) — all served without a token, as the reference's —
 * and `certs`, `certs/revoked`, `issuers` (LIST, with a token).
 *
 * @module
 */
import type { HttpResponse } from '../../../kernel/http/index.js';
import type { SecretsPath, SecretsRequest, SecretsResult } from '../types.js';
import { x509 } from './certificate.js';
import { crlPem, currentCrl } from './crl.js';
import { findIssuer } from './issuers.js';
import { serialKey, wireSerial } from './serial.js';
import { pkiStoreOf, type IssuerEntry } from './store.js';

const raw = (body: string | Buffer, contentType: string): SecretsResult => ({
  reply: { status: 200, headers: { 'Content-Type': contentType }, body } satisfies HttpResponse,
});
/** What a raw read answers when there is nothing (no issuer yet, unknown serial): the reference's 204 No Content. */
const NOTHING: SecretsResult = { reply: { status: 204 } };
const derOf = (pem: string): Buffer => Buffer.from(new x509.X509Certificate(pem).rawData);

const defaultIssuer = (req: SecretsRequest) => findIssuer(pkiStoreOf(req));

/** The issuer's CRL; the stored one, else (never built: an imported issuer without key) nothing. */
async function crlOf(req: SecretsRequest, issuer: IssuerEntry | undefined): Promise<Buffer | undefined> {
  return issuer && currentCrl(pkiStoreOf(req), issuer);
}

/** A read-only path served without a token (the reference lists these as unauthenticated). */
const readOnly = (
  pattern: string,
  synopsis: string,
  handle: (req: SecretsRequest) => Promise<SecretsResult | undefined>,
  params?: Record<string, string>,
): SecretsPath => ({
  pattern,
  synopsis,
  unauthenticated: true,
  ...(params ? { params } : {}),
  operations: { read: { summary: synopsis, handle } },
});

const chainText = (i: IssuerEntry) => i.ca_chain.join('\n');

/** `cert/:serial` (JSON): a stored certificate with its revocation, or a special serial. */
async function certJson(req: SecretsRequest): Promise<SecretsResult | undefined> {
  const serial = req.params.serial;
  const store = pkiStoreOf(req);
  if (serial === 'ca' || serial === 'ca_chain') {
    const issuer = await defaultIssuer(req);
    if (!issuer) return undefined;
    return {
      data: serial === 'ca' ? { certificate: issuer.certificate, revocation_time: 0 } : { certificate: chainText(issuer), ca_chain: chainText(issuer) },
    };
  }
  if (serial === 'crl') {
    const der = await crlOf(req, await defaultIssuer(req));
    return der && { data: { certificate: crlPem(der), revocation_time: 0 } };
  }
  const key = serialKey(serial, 'serial');
  const cert = await store.cert(key);
  if (!cert) return undefined;
  const revoked = await store.revoked(key);
  const t = revoked?.revocation_time ?? 0;
  return {
    data: {
      certificate: cert.certificate,
      revocation_time: t,
      ...(t ? { revocation_time_rfc3339: new Date(t * 1000).toISOString().replace('.000Z', 'Z') } : {}),
      issuer_id: cert.issuer_id,
    },
  };
}

/** `cert/:serial/raw(/pem)`: the certificate alone, DER or PEM. */
const certRaw = (pem: boolean) => async (req: SecretsRequest) => {
  const serial = req.params.serial;
  let text: string | undefined;
  if (serial === 'ca') text = (await defaultIssuer(req))?.certificate;
  else text = (await pkiStoreOf(req).cert(serialKey(serial, 'serial')))?.certificate;
  if (!text) return NOTHING;
  return pem ? raw(text + '\n', 'application/pem-certificate-chain') : raw(derOf(text), 'application/pkix-cert');
};

const SERIAL = { serial: 'the serial number (39:dd:… or 39-dd-…), or ca, crl, ca_chain' };

const listOf = (prefix: 'certs' | 'revoked'): SecretsPath['operations']['list'] => ({
  summary: prefix === 'certs' ? 'List the serials of stored certificates' : 'List the serials of revoked certificates',
  handle: async (req) => {
    const store = pkiStoreOf(req);
    const keys = (prefix === 'certs' ? await store.certKeys() : await store.revokedKeys()).map(wireSerial);
    return keys.length ? { data: { keys } } : undefined;
  },
});

const issuerJson = (i: IssuerEntry) => ({
  issuer_id: i.issuer_id,
  issuer_name: i.issuer_name,
  key_id: i.key_id,
  certificate: i.certificate,
  ca_chain: i.ca_chain,
  serial_number: i.serial_number,
  revocation_time: 0,
});

/** The read paths. */
export const fetchPaths: readonly SecretsPath[] = [
  readOnly('ca', "The default issuer's certificate (DER)", async (req) => {
    const i = await defaultIssuer(req);
    return !i ? NOTHING : raw(derOf(i.certificate), 'application/pkix-cert');
  }),
  readOnly('ca/pem', "The default issuer's certificate (PEM)", async (req) => {
    const i = await defaultIssuer(req);
    return !i ? NOTHING : raw(i.certificate + '\n', 'application/pem-certificate-chain');
  }),
  readOnly('ca_chain', "The default issuer's chain (PEM, the issuer first)", async (req) => {
    const i = await defaultIssuer(req);
    return !i ? NOTHING : raw(chainText(i) + '\n', 'application/pem-certificate-chain');
  }),
  readOnly('crl', "The default issuer's CRL (DER)", async (req) => {
    const der = await crlOf(req, await defaultIssuer(req));
    return !der ? NOTHING : raw(der, 'application/pkix-crl');
  }),
  readOnly('crl/pem', "The default issuer's CRL (PEM)", async (req) => {
    const der = await crlOf(req, await defaultIssuer(req));
    return !der ? NOTHING : raw(crlPem(der) + '\n', 'application/x-pem-file');
  }),
  readOnly('cert/:serial/raw/pem', 'A certificate (PEM)', certRaw(true), SERIAL),
  readOnly('cert/:serial/raw', 'A certificate (DER)', certRaw(false), SERIAL),
  readOnly('cert/:serial', 'A certificate and its revocation time (JSON)', certJson, SERIAL),
  readOnly(
    'issuer/:ref',
    'An issuer: its certificate and chain (JSON)',
    async (req) => {
      const i = await findIssuer(pkiStoreOf(req), req.params.ref);
      return i && { data: issuerJson(i) };
    },
    { ref: 'an issuer id or name, or default' },
  ),
  { pattern: 'certs/revoked', synopsis: 'List revoked certificates', operations: { list: listOf('revoked') } },
  { pattern: 'certs', synopsis: 'List stored certificates', operations: { list: listOf('certs') } },
  {
    pattern: 'issuers',
    synopsis: 'List the issuers',
    operations: {
      list: {
        summary: 'List issuers',
        handle: async (req) => {
          const store = pkiStoreOf(req);
          const keys = await store.issuerIds();
          if (!keys.length) return undefined;
          const info: Record<string, unknown> = {};
          for (const id of keys) {
            const i = await store.issuer(id);
            if (i)
              info[id] = { issuer_name: i.issuer_name, key_id: i.key_id, serial_number: i.serial_number, is_default: id === (await store.defaultIssuerId()) };
          }
          return { data: { keys, key_info: info } };
        },
      },
    },
  },
];
