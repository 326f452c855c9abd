// Client certificates on the kernel's listeners: a TLS listener that asks hands each
// request the chain the client presented (LIST requests, which take the byte-level
// framer path, included), one that does not ask hands `[]`, plain HTTP undefined, and
// `require` refuses the handshake of a client without a certificate of its CA.

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Agent, request } from 'undici';
import { silentLogger } from '../log/logger.js';
import type { CairnError } from './errors.js';
import { listen, type ClientCertPolicy, type HttpService, type Listener } from './server.js';

/** Answers with the method and the subjects of the certificates the request carries. */
const service: HttpService = {
  handle: async (req) => ({
    status: 200,
    body: JSON.stringify({ method: req.method, certs: req.clientCertificates?.map((c) => new X509Certificate(c).subject) ?? null }),
  }),
  renderError: (err: CairnError) => ({ status: err.status, body: err.message }),
};

let dir: string;
const file = (name: string) => join(dir, name);
const pem = (name: string) => readFileSync(file(name), 'utf8');
const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-client-certs-'));
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...ec, '-days', '1', '-subj', '/CN=Test CA', '-keyout', 'ca.key', '-out', 'ca.pem');
  openssl(
    'req',
    '-x509',
    ...ec,
    '-days',
    '1',
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
    '-keyout',
    'server.key',
    '-out',
    'server.pem',
  );
  openssl('req', '-new', ...ec, '-subj', '/CN=alice', '-keyout', 'alice.key', '-out', 'alice.csr');
  writeFileSync(file('alice.ext'), 'extendedKeyUsage=clientAuth\n');
  openssl(
    'x509',
    '-req',
    '-in',
    'alice.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-set_serial',
    '7',
    '-days',
    '1',
    '-extfile',
    'alice.ext',
    '-out',
    'alice.pem',
  );
});
after(() => rmSync(dir, { recursive: true, force: true }));

async function withListener(clientCerts: ClientCertPolicy | undefined, tls: boolean, run: (l: Listener) => Promise<void>): Promise<void> {
  const l = await listen(
    { address: '127.0.0.1:0', tls: tls ? { certFile: file('server.pem'), keyFile: file('server.key'), clientCerts } : undefined },
    service,
    silentLogger(),
  );
  try {
    await run(l);
  } finally {
    await l.close();
  }
}

async function ask(l: Listener, method: string, withCert: boolean): Promise<{ method: string; certs: string[] | null }> {
  const agent = new Agent({ connect: { ca: pem('server.pem'), ...(withCert ? { cert: pem('alice.pem') + pem('ca.pem'), key: pem('alice.key') } : {}) } });
  try {
    const res = await request(`${l.url}/v1/x`, { method, dispatcher: agent });
    return (await res.body.json()) as { method: string; certs: string[] | null };
  } finally {
    await agent.close();
  }
}

describe('client certificates on a listener', () => {
  it('request: each request carries the presented chain, LIST included; none presented = []', async () => {
    await withListener({ mode: 'request' }, true, async (l) => {
      assert.deepEqual(await ask(l, 'GET', true), { method: 'GET', certs: ['CN=alice', 'CN=Test CA'] });
      assert.deepEqual(await ask(l, 'LIST', true), { method: 'LIST', certs: ['CN=alice', 'CN=Test CA'] });
      assert.deepEqual(await ask(l, 'GET', false), { method: 'GET', certs: [] });
    });
  });

  it('not asked: [] on TLS; plain HTTP: none at all', async () => {
    await withListener(undefined, true, async (l) => assert.deepEqual(await ask(l, 'LIST', true), { method: 'LIST', certs: [] }));
    await withListener(undefined, false, async (l) => assert.deepEqual(await ask(l, 'GET', false), { method: 'GET', certs: null }));
  });

  it('require: the handshake fails without a certificate of the CA file; with one the request is served', async () => {
    await withListener({ mode: 'require', caFile: file('ca.pem') }, true, async (l) => {
      await assert.rejects(ask(l, 'GET', false));
      assert.deepEqual(await ask(l, 'LIST', true), { method: 'LIST', certs: ['CN=alice', 'CN=Test CA'] });
    });
  });

  it('an unreadable tls_client_ca_file fails the start, naming the key and the file', async () => {
    await assert.rejects(
      withListener({ mode: 'require', caFile: file('missing.pem') }, true, async () => {}),
      /tls_client_ca_file: cannot read ".*missing\.pem"/,
    );
  });
});
