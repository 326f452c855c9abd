/**
 * A listener's TLS side: its certificate and key read from PEM files, whether clients are
 * asked for a certificate, and the chain a client presented, read once per connection.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';
import type { ClientCertOptions } from './list-method.js';

/**
 * How a TLS listener asks clients for a certificate (the reference's
 * `tls_require_and_verify_client_cert`, `tls_client_ca_file`): `request` asks every client
 * and accepts the connection whatever it sends (an auth method verifies the certificate
 * against its own trusted ones); `require` fails the handshake of a client without a
 * certificate chaining to `caFile` (PEM bundle; absent = the system roots).
 */
export interface ClientCertPolicy {
  readonly mode: 'request' | 'require';
  readonly caFile?: string;
}

/** A listener's TLS files (the `tls_*` keys of its `listener "tcp"` block). */
export interface TlsFiles {
  readonly certFile: string;
  readonly keyFile: string;
  /** Whether clients are asked for a certificate; absent = never. */
  readonly clientCerts?: ClientCertPolicy;
}

/**
 * The node:tls server options of a listener: its certificate and key (PEM) and its client
 * certificate policy, the files read now.
 * @throws Error naming the key (`tls_cert_file`, `tls_key_file`, `tls_client_ca_file`) and the file when one cannot be read.
 */
export function tlsServerOptions(files: TlsFiles): { cert: Buffer; key: Buffer } & ClientCertOptions {
  return {
    cert: readPem(files.certFile, 'tls_cert_file'),
    key: readPem(files.keyFile, 'tls_key_file'),
    ...clientCertOptions(files.clientCerts),
  };
}

/** The node:tls server options for `policy`. @throws Error naming `tls_client_ca_file` when it cannot be read. */
function clientCertOptions(policy: ClientCertPolicy | undefined): ClientCertOptions {
  if (policy === undefined) return {};
  if (policy.mode === 'request') return { requestCert: true, rejectUnauthorized: false };
  return { requestCert: true, rejectUnauthorized: true, ca: policy.caFile === undefined ? undefined : readPem(policy.caFile, 'tls_client_ca_file') };
}

function readPem(file: string, key: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new Error(`${key}: cannot read "${file}": ${(err as Error).message}`);
  }
}

/** Client certificate chains by connection: read once per TLS connection, not per request. */
const peerChains = new WeakMap<Socket, readonly Buffer[]>();

/** Most certificates taken from one client chain (a longer one is cut: no verifier accepts it anyway). */
const MAX_CHAIN = 10;

/**
 * The chain the peer of `socket` presented (DER, its own certificate first), following
 * node:tls's issuer links until a self-signed certificate or the end; `[]` without one.
 */
export function peerChain(socket: TLSSocket): readonly Buffer[] {
  let chain = peerChains.get(socket);
  if (chain !== undefined) return chain;
  const out: Buffer[] = [];
  let cert: DetailedPeerCertificate | undefined = socket.getPeerCertificate(true);
  while (cert?.raw !== undefined && out.length < MAX_CHAIN) {
    out.push(cert.raw);
    const next: DetailedPeerCertificate | undefined = cert.issuerCertificate;
    if (next === cert || next?.raw === undefined || next.raw.equals(cert.raw)) break;
    cert = next;
  }
  chain = out;
  peerChains.set(socket, chain);
  return chain;
}
