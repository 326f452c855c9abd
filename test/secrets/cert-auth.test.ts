/**
 * The `cert` auth method end to end: a real secrets server with a TLS listener asking for
 * client certificates, certificates made with openssl at test time (cert-pki.ts), logins
 * through the SDK (and the CLI through the built bin). Proves: a good certificate logs in
 * with its entry's policies and the reference's metadata; a certificate of another CA, an
 * expired one, one outside `allowed_common_names` / `required_extensions`, and no
 * certificate at all fail with the reference's 400 texts; unusual extensions (a BMPString,
 * a SEQUENCE) match `required_extensions` as the reference reads them, and a malformed
 * subjectAltName is a 400; a pinned leaf certificate logs in;
 * `tls_require_and_verify_client_cert` refuses the handshake without a certificate;
 * LIST works over the TLS listener.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { Agent, fetch as undiciFetch } from 'undici';
import { SecretsApiError, SecretsClient } from '../../src/sdk/secrets.js';
import { startTestServer, type JsonReply, type TestServer } from '../helpers.js';
import { Pki, type Issued } from './cert-pki.js';

const CLIENT_EXT = ['basicConstraints=critical,CA:FALSE', 'extendedKeyUsage=clientAuth'];

let pki: Pki;
let ca: Issued;
let otherCa: Issued;
let server: Issued;
let web: Issued;
let db: Issued;
let expired: Issued;
let stranger: Issued;
let pinned: Issued;
let serverOnly: Issued;
let s: TestServer;

const client = (who?: Issued, on: TestServer = s) =>
  new SecretsClient({ address: on.url, caCert: ca.cert, clientCert: who?.cert, clientKey: who?.key, readYourWrites: false });

/** Logs in with `who`'s certificate; returns the auth block or the API error. */
async function login(who: Issued | undefined, name?: string, on: TestServer = s) {
  const c = client(who, on);
  try {
    return (await c.auth.cert(name)).auth as unknown as { client_token: string; policies: string[]; metadata: Record<string, string> };
  } finally {
    await c.close();
  }
}

async function loginError(who: Issued | undefined, name?: string, on: TestServer = s): Promise<{ status: number; error: string }> {
  try {
    await login(who, name, on);
  } catch (err) {
    if (err instanceof SecretsApiError) return { status: err.status, error: err.errors[0] ?? '' };
    throw err;
  }
  assert.fail('the login succeeded');
}

let trustCa: Agent;

/** Calls the server as the test helper's `call` does (root token by default), trusting the test CA. */
async function api(method: string, path: string, o: { body?: unknown; token?: string } = {}, on: TestServer = s) {
  const res = await undiciFetch(on.url + path, {
    method,
    headers: { 'X-Secrets-Token': o.token ?? on.rootToken, 'X-Secrets-Request': 'true' },
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
    dispatcher: trustCa,
  });
  const text = await res.text();
  return { status: res.status, text, json: (text ? JSON.parse(text) : undefined) as JsonReply };
}

const write = async (path: string, body: unknown, status = 204) => {
  const r = await api('POST', path, { body });
  assert.equal(r.status, status, `${path}: ${r.text}`);
  return r;
};

before(async () => {
  pki = new Pki();
  ca = pki.selfSigned('ca', '/CN=Cairn Test CA');
  otherCa = pki.selfSigned('other-ca', '/CN=Another CA');
  server = pki.issue('server', ca, { subject: '/CN=127.0.0.1', ext: ['subjectAltName=IP:127.0.0.1', 'extendedKeyUsage=serverAuth'] });
  web = pki.issue('web', ca, {
    subject: '/CN=web.example.com/OU=payments',
    ext: [
      ...CLIENT_EXT,
      'subjectAltName=DNS:web.example.com,email:ops@example.com,URI:spiffe://example.com/web',
      '1.3.6.1.4.1.99999.1=ASN1:UTF8String:env-prod',
    ],
  });
  db = pki.issue('db', ca, { subject: '/CN=db.example.com', ext: CLIENT_EXT });
  expired = pki.issue('expired', ca, { subject: '/CN=web.example.com', ext: CLIENT_EXT, days: -1 });
  stranger = pki.issue('stranger', otherCa, { subject: '/CN=web.example.com', ext: CLIENT_EXT });
  pinned = pki.selfSigned('pinned', '/CN=robot', { leaf: true });
  serverOnly = pki.issue('server-only', ca, { subject: '/CN=web.example.com', ext: ['basicConstraints=critical,CA:FALSE', 'extendedKeyUsage=serverAuth'] });
  trustCa = new Agent({ connect: { ca: ca.cert } });
  s = await startTestServer({ listener: { tls: { certFile: server.certFile, keyFile: server.keyFile, clientCerts: { mode: 'request' } } } });
  await write('/v1/sys/auth/cert', { type: 'cert' });
  await write('/v1/sys/policies/acl/web-read', { policy: 'path "secret/data/web/*" { capabilities = ["read"] }' });
});

after(async () => {
  await trustCa?.close();
  await s?.close();
  pki?.remove();
});

describe('cert auth', () => {
  it('certs/:name CRUD and LIST over the TLS listener; bad certificates refused with 400', async () => {
    await write('/v1/auth/cert/certs/Web', { certificate: ca.cert, token_policies: 'web-read', allowed_common_names: '*.example.com', display_name: 'web' });
    const read = await api('GET', '/v1/auth/cert/certs/web');
    assert.equal(read.status, 200);
    assert.equal(read.json.data.certificate, ca.cert);
    assert.deepEqual(read.json.data.allowed_common_names, ['*.example.com']);
    assert.deepEqual(read.json.data.token_policies, ['web-read']);
    assert.equal(read.json.data.display_name, 'web');
    const list = await api('LIST', '/v1/auth/cert/certs');
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.json.data.keys, ['web']);

    const bad = await api('POST', '/v1/auth/cert/certs/junk', { body: { certificate: 'not a certificate' } });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.json.errors, ['failed to parse certificate']);
    const noClientAuth = await api('POST', '/v1/auth/cert/certs/junk', { body: { certificate: serverOnly.cert } });
    assert.deepEqual(
      [noClientAuth.status, noClientAuth.json.errors],
      [400, ['nonCA certificates should have TLS client authentication set as an extended key usage']],
    );
    const badExt = await api('POST', '/v1/auth/cert/certs/junk', { body: { certificate: ca.cert, required_extensions: 'no-oid' } });
    assert.deepEqual([badExt.status, badExt.json.errors], [400, ['required_extensions: "no-oid" is not of the form "oid:value"']]);
    assert.equal((await api('GET', '/v1/auth/cert/certs/junk')).status, 404, 'nothing stored by refused writes');

    const cfg = await api('GET', '/v1/auth/cert/config');
    assert.deepEqual(cfg.json.data, { disable_binding: false, enable_identity_alias_metadata: false });
    await write('/v1/auth/cert/config', { disable_binding: true });
    assert.equal((await api('GET', '/v1/auth/cert/config')).json.data.disable_binding, true);
    await write('/v1/auth/cert/config', { disable_binding: false });
  });

  it("a certificate issued by a trusted CA logs in with the entry's policies and the reference's metadata", async () => {
    const auth = await login(web);
    assert.deepEqual(auth.policies, ['default', 'web-read']);
    assert.equal(auth.metadata.cert_name, 'web');
    assert.equal(auth.metadata.common_name, 'web.example.com');
    assert.match(auth.metadata.serial_number, /^10\d\d$/);
    assert.match(auth.metadata.subject_key_id, /^([0-9a-f]{2}:){19}[0-9a-f]{2}$/);
    assert.match(auth.metadata.authority_key_id, /^([0-9a-f]{2}:){19}[0-9a-f]{2}$/);
    const self = await api('GET', '/v1/auth/token/lookup-self', { token: auth.client_token });
    assert.equal(self.status, 200);
    assert.equal(self.json.data.display_name, 'cert-web');
    assert.equal(self.json.data.path, 'auth/cert/login');
    assert.equal((await login(web, 'web')).metadata.cert_name, 'web', 'limited to the named entry');
  });

  it("refuses no certificate, another CA, an expired certificate and a name outside the constraints, with the reference's texts", async () => {
    assert.deepEqual(await loginError(undefined), { status: 400, error: 'client certificate must be supplied' });
    assert.deepEqual(await loginError(stranger), { status: 400, error: 'invalid certificate or no client certificate supplied' });
    const old = await loginError(expired);
    assert.equal(old.status, 400);
    assert.match(old.error, /^failed to verify client's certificate: x509: certificate has expired or is not yet valid: current time \S+Z is after \S+Z$/);
    assert.deepEqual(await loginError(web, 'nosuch'), { status: 400, error: 'invalid certificate or no client certificate supplied' });
    await write('/v1/auth/cert/certs/web', { allowed_common_names: 'api.example.com' });
    assert.deepEqual(await loginError(web), { status: 400, error: 'no chain matching all constraints could be found for this login certificate' });
    await write('/v1/auth/cert/certs/web', { allowed_common_names: '*.example.com' });
  });

  it('matches every constraint kind, globs included', async () => {
    const cases: [Record<string, string>, boolean][] = [
      [{ allowed_dns_sans: 'web.*' }, true],
      [{ allowed_dns_sans: 'db.*' }, false],
      [{ allowed_email_sans: '*@example.com' }, true],
      [{ allowed_uri_sans: 'spiffe://example.com/*' }, true],
      [{ allowed_uri_sans: 'spiffe://other/*' }, false],
      [{ allowed_organizational_units: 'pay*' }, true],
      [{ allowed_organizational_units: 'hr' }, false],
      [{ allowed_names: 'ops@*' }, true],
      [{ required_extensions: '1.3.6.1.4.1.99999.1:env-*' }, true],
      [{ required_extensions: '1.3.6.1.4.1.99999.1:env-dev' }, false],
      [{ required_extensions: '1.3.6.1.4.1.99999.2:*' }, false],
    ];
    // Writes merge: every constraint is given each time, the others empty.
    const none = Object.fromEntries(
      [
        'allowed_names',
        'allowed_common_names',
        'allowed_dns_sans',
        'allowed_email_sans',
        'allowed_uri_sans',
        'allowed_organizational_units',
        'required_extensions',
      ].map((k) => [k, '']),
    );
    for (const [constraint, allowed] of cases) {
      await write('/v1/auth/cert/certs/probe', { certificate: ca.cert, ...none, ...constraint });
      if (allowed) assert.equal((await login(web, 'probe')).metadata.cert_name, 'probe', JSON.stringify(constraint));
      else
        assert.deepEqual(
          await loginError(web, 'probe'),
          { status: 400, error: 'no chain matching all constraints could be found for this login certificate' },
          JSON.stringify(constraint),
        );
    }
    assert.equal((await api('DELETE', '/v1/auth/cert/certs/probe')).status, 204);
  });

  it('unusual extensions are matched as strings or not at all; a malformed subjectAltName is a 400, never a 500', async () => {
    const odd = pki.issue('odd', ca, {
      subject: '/CN=odd.example.com',
      ext: [...CLIENT_EXT, '1.3.6.1.4.1.99999.3=ASN1:BMPString:wide', '1.3.6.1.4.1.99999.4=DER:3006020101020102'],
    });
    await write('/v1/auth/cert/certs/odd', { certificate: ca.cert, required_extensions: '1.3.6.1.4.1.99999.3:wide' });
    assert.equal((await login(odd, 'odd')).metadata.common_name, 'odd.example.com');
    // A SEQUENCE is not a string: present with the value '', as the reference's asn1.Unmarshal leaves it.
    await write('/v1/auth/cert/certs/odd', { required_extensions: '1.3.6.1.4.1.99999.4:*' });
    assert.equal((await login(odd, 'odd')).metadata.cert_name, 'odd');
    await write('/v1/auth/cert/certs/odd', { required_extensions: '1.3.6.1.4.1.99999.4:0*' });
    assert.deepEqual(await loginError(odd, 'odd'), { status: 400, error: 'no chain matching all constraints could be found for this login certificate' });
    const badSan = pki.issue('bad-san', ca, { subject: '/CN=odd.example.com', ext: [...CLIENT_EXT, 'subjectAltName=DER:3005820378'] });
    await write('/v1/auth/cert/certs/odd', { required_extensions: '' });
    // OpenSSL marks it invalid, so it chains to nothing (the reference's TLS stack refuses to parse it).
    assert.deepEqual(await loginError(badSan, 'odd'), { status: 400, error: 'invalid certificate or no client certificate supplied' });
    assert.equal((await api('DELETE', '/v1/auth/cert/certs/odd')).status, 204);
  });

  it('a pinned leaf certificate logs in as itself, and only it', async () => {
    await write('/v1/auth/cert/certs/robot', { certificate: pinned.cert, token_policies: 'web-read' });
    const auth = await login(pinned);
    assert.equal(auth.metadata.cert_name, 'robot');
    assert.equal(auth.metadata.common_name, 'robot');
    // A certificate with the same subject but another key is not the pinned one.
    const impostor = pki.selfSigned('impostor', '/CN=robot', { leaf: true });
    assert.deepEqual(await loginError(impostor, 'robot'), { status: 400, error: 'invalid certificate or no client certificate supplied' });
  });
});

describe('renewing a cert login token', () => {
  /** `auth/token/renew-self` with `token` over a connection presenting `who`'s certificate. */
  async function renew(token: string, who?: Issued): Promise<{ status: number; error?: string }> {
    const c = client(who).withToken(token);
    try {
      await c.write('auth/token/renew-self', {});
      return { status: 200 };
    } catch (err) {
      if (err instanceof SecretsApiError) return { status: err.status, error: err.errors[0] };
      throw err;
    } finally {
      await c.close();
    }
  }

  it("needs the login's certificate again unless disable_binding, and the entry with its policies", async () => {
    await write('/v1/auth/cert/certs/renewal', { certificate: ca.cert, token_policies: 'web-read' });
    const token = (await login(web, 'renewal')).client_token;
    assert.deepEqual(await renew(token, web), { status: 200 });
    assert.deepEqual(await renew(token), { status: 400, error: 'client certificate must be supplied' });
    assert.deepEqual(
      await renew(token, db),
      { status: 400, error: 'client identity during renewal not matching client identity used during login' },
      'another certificate of the same CA',
    );
    await write('/v1/auth/cert/config', { disable_binding: true });
    try {
      assert.deepEqual(await renew(token), { status: 200 }, 'disable_binding: no certificate needed');
      await write('/v1/auth/cert/certs/renewal', { token_policies: 'web-read,other' });
      assert.deepEqual(await renew(token), { status: 400, error: 'policies have changed, not renewing' });
      assert.equal((await api('DELETE', '/v1/auth/cert/certs/renewal')).status, 204);
      assert.deepEqual(await renew(token), { status: 400, error: 'certificate entry "renewal" no longer exists, not renewing' });
    } finally {
      await write('/v1/auth/cert/config', { disable_binding: false });
    }
    // Tokens of other methods renew as before, with or without a certificate.
    const child = await api('POST', '/v1/auth/token/create', { body: { policies: ['default'] } });
    assert.deepEqual(await renew(child.json.auth.client_token), { status: 200 });
  });
});

describe('cert auth through intermediates and on other listeners', () => {
  it('a chain through an intermediate CA the client presents leads to a trusted root, or to the intermediate trusted itself', async () => {
    const intermediate = pki.issue('intermediate', ca, {
      subject: '/CN=Cairn Intermediate',
      ext: ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,keyCertSign,cRLSign'],
    });
    const leaf = pki.issue('leaf-of-intermediate', intermediate, { subject: '/CN=batch.example.com', ext: CLIENT_EXT });
    const withChain = { ...leaf, cert: leaf.cert + intermediate.cert };
    assert.equal((await login(withChain, 'web')).metadata.common_name, 'batch.example.com', 'root trusted, intermediate presented');
    assert.deepEqual(
      await loginError(leaf, 'web'),
      { status: 400, error: 'invalid certificate or no client certificate supplied' },
      'without the intermediate there is no chain',
    );
    await write('/v1/auth/cert/certs/batch', { certificate: intermediate.cert, allowed_common_names: 'batch.*' });
    assert.equal((await login(withChain, 'batch')).metadata.cert_name, 'batch');
    assert.equal((await login(leaf, 'batch')).metadata.cert_name, 'batch', 'the intermediate itself trusted');
    assert.equal((await api('DELETE', '/v1/auth/cert/certs/batch')).status, 204);
  });

  it('plain HTTP: tls connection required; a listener with tls_disable_client_certs never sees the certificate', async () => {
    const plain = await startTestServer();
    const quiet = await startTestServer({ listener: { tls: { certFile: server.certFile, keyFile: server.keyFile } } });
    try {
      for (const t of [plain, quiet]) {
        assert.equal((await api('POST', '/v1/sys/auth/cert', { body: { type: 'cert' } }, t)).status, 204);
        assert.equal((await api('POST', '/v1/auth/cert/certs/web', { body: { certificate: ca.cert } }, t)).status, 204);
      }
      assert.deepEqual(await loginError(web, 'web', plain), { status: 400, error: 'tls connection required' });
      assert.deepEqual(await loginError(web, 'web', quiet), { status: 400, error: 'client certificate must be supplied' });
    } finally {
      await plain.close();
      await quiet.close();
    }
  });
});

describe('cert auth over a listener that requires client certificates', () => {
  let strict: TestServer;
  before(async () => {
    strict = await startTestServer({
      listener: { tls: { certFile: server.certFile, keyFile: server.keyFile, clientCerts: { mode: 'require', caFile: ca.certFile } } },
    });
    const r = await strict.call('POST', '/v1/sys/auth/cert', { body: { type: 'cert' } }).catch((err: Error) => err);
    assert.ok(r instanceof Error, 'the test helper has no client certificate: refused');
  });
  after(async () => strict?.close());

  it('refuses the handshake without a certificate or with one of another CA, and serves one of the CA', async () => {
    const call = async (who?: Issued) => {
      const c = new SecretsClient({ address: strict.url, caCert: ca.cert, clientCert: who?.cert, clientKey: who?.key, token: strict.rootToken });
      try {
        return await c.read('sys/mounts');
      } finally {
        await c.close();
      }
    };
    await assert.rejects(call(), /SecretsConnectionError|socket|certificate|alert|reset/i);
    await assert.rejects(call(stranger), /SecretsConnectionError|socket|certificate|alert|reset|unknown ca/i);
    assert.ok(((await call(web)) as { data: Record<string, unknown> }).data['secret/']);
  });
});

describe('cert login with the CLI', () => {
  it("cairn login -method=cert -client-cert -client-key stores a token with the entry's policies", async () => {
    const home = mkdtempSync(join(tmpdir(), 'cairn-cli-cert-'));
    try {
      const env = { ...process.env, HOME: home, SECRETS_ADDR: s.url, SECRETS_CACERT: ca.certFile, SECRETS_TOKEN: '' };
      const run = (args: string[], extra: Record<string, string> = {}) =>
        promisify(execFile)(process.execPath, ['bin/cairn.js', ...args], { env: { ...env, ...extra } }).catch(
          (err: { stdout: string; stderr: string; code: number }) => err,
        );
      const out = (await run(['login', '-method=cert', `-client-cert=${web.certFile}`, `-client-key=${web.keyFile}`, '-format=json', 'name=web'])) as {
        stdout: string;
        stderr: string;
      };
      const auth = JSON.parse(out.stdout).auth;
      assert.deepEqual(auth.policies, ['default', 'web-read'], out.stderr);
      assert.equal(auth.metadata.cert_name, 'web');
      // The client certificate from the environment, as the reference's VAULT_CLIENT_CERT.
      const viaEnv = (await run(['login', '-method=cert', '-format=json'], { SECRETS_CLIENT_CERT: web.certFile, SECRETS_CLIENT_KEY: web.keyFile })) as {
        stdout: string;
      };
      assert.equal(JSON.parse(viaEnv.stdout).auth.metadata.common_name, 'web.example.com');
      const refused = (await run(['login', '-method=cert'])) as { stderr: string; code: number };
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /client certificate must be supplied/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
