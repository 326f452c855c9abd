/**
 * Kubernetes TokenReview login against a small local HTTPS server that implements the
 * API server's contract (TokenReview and ServiceAccount reads) with a self-signed
 * certificate made by openssl (reference/mesh.md §4.3, §3.5).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { decodeJwt, UnsecuredJWT } from 'jose';
import { identityFromServiceAccount, reviewServiceAccountToken, validateKubernetesConfig, type KubernetesConfig } from './index.js';
import { selfSignedCert } from '../http/testdata/self-signed.js';

const jwt = (claims: Record<string, unknown>) => new UnsecuredJWT(claims).encode();
const REVIEWER = jwt({ sub: 'system:serviceaccount:kube-system:cairn-reviewer' });

/** TokenReview answers keyed by the reviewed token's `case` claim. */
const REVIEWS: Record<string, unknown> = {
  web: { authenticated: true, user: { username: 'system:serviceaccount:default:web', uid: 'uid-web' } },
  annotated: { authenticated: true, user: { username: 'system:serviceaccount:prod:api', uid: 'uid-api' } },
  ghost: { authenticated: true, user: { username: 'system:serviceaccount:prod:ghost', uid: 'uid-g' } },
  rejected: { authenticated: false },
  erroring: { error: '[invalid bearer token, token has been invalidated]' },
  user: { authenticated: true, user: { username: 'alice' } },
  node: { authenticated: true, user: { username: 'system:node:worker:1' } },
};
const ACCOUNTS: Record<string, unknown> = {
  '/api/v1/namespaces/default/serviceaccounts/web': { metadata: { name: 'web' } },
  '/api/v1/namespaces/prod/serviceaccounts/api': { metadata: { name: 'api', annotations: { 'consul.hashicorp.com/service-name': 'api-v2' } } },
};

describe('Kubernetes TokenReview', () => {
  let server: Server;
  let config: KubernetesConfig;
  const status = (code: number, message: string) => JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message, code });
  before(async () => {
    const tls = selfSignedCert();
    server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        if (req.headers.authorization !== `Bearer ${REVIEWER}`) return res.writeHead(401).end(status(401, 'Unauthorized'));
        if (req.method === 'POST' && req.url === '/apis/authentication.k8s.io/v1/tokenreviews') {
          const review = JSON.parse(Buffer.concat(chunks).toString()) as { kind: string; spec: { token: string } };
          assert.equal(review.kind, 'TokenReview');
          const which = String(decodeJwt(review.spec.token).case);
          return res.end(JSON.stringify({ ...review, status: REVIEWS[which] ?? { authenticated: false } }));
        }
        const account = req.method === 'GET' ? ACCOUNTS[req.url ?? ''] : undefined;
        if (account) return res.end(JSON.stringify(account));
        res.writeHead(404).end(status(404, `serviceaccounts "${req.url?.split('/').pop()}" not found`));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    config = { host: `127.0.0.1:${(server.address() as AddressInfo).port}`, caCert: tls.cert, serviceAccountJWT: REVIEWER };
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it('an authenticated service account: namespace, name, uid, and its identity fields', async () => {
    const sa = await reviewServiceAccountToken(config, jwt({ case: 'web' }));
    assert.deepEqual(sa, { namespace: 'default', name: 'web', uid: 'uid-web' });
    assert.deepEqual(identityFromServiceAccount(sa), {
      selectable: { serviceaccount: { namespace: 'default', name: 'web', uid: 'uid-web' } },
      projected: { 'serviceaccount.namespace': 'default', 'serviceaccount.name': 'web', 'serviceaccount.uid': 'uid-web' },
    });
  });

  it('the service-name annotation overrides the name; host may be a URL', async () => {
    const sa = await reviewServiceAccountToken({ ...config, host: `https://${config.host}` }, jwt({ case: 'annotated' }));
    assert.deepEqual(sa, { namespace: 'prod', name: 'api-v2', uid: 'uid-api' });
  });

  const failures: [string, string][] = [
    ['rejected', 'lookup failed: service account jwt not valid'],
    ['erroring', 'lookup failed: [invalid bearer token, token has been invalidated]'],
    ['user', 'lookup failed: unexpected username format'],
    ['node', 'lookup failed: username returned is not a service account'],
    ['ghost', 'annotation lookup failed: serviceaccounts "ghost" not found'],
  ];
  for (const [which, message] of failures) {
    it(`${which}: ${message}`, async () => {
      await assert.rejects(reviewServiceAccountToken(config, jwt({ case: which })), { kind: 'lookup', message });
    });
  }

  it('a bearer that is not a JWT is refused before any call', async () => {
    await assert.rejects(reviewServiceAccountToken(config, 'not-a-jwt'), { kind: 'token', message: /^failed to parse and validate JWT: / });
  });

  it('the API refusing our own credentials is passed through', async () => {
    await assert.rejects(reviewServiceAccountToken({ ...config, serviceAccountJWT: jwt({ sub: 'other' }) }, jwt({ case: 'web' })), {
      kind: 'lookup',
      message: 'Unauthorized',
    });
  });

  it('a server certificate from another CA fails TLS verification', async () => {
    const other = selfSignedCert();
    await assert.rejects(reviewServiceAccountToken({ ...config, caCert: other.cert }, jwt({ case: 'web' })), {
      kind: 'lookup',
      message: new RegExp(`^Post "https://${config.host}/apis/authentication.k8s.io/v1/tokenreviews": .*certificate`),
    });
  });

  it('skipAccountLookup: no ServiceAccount read (an account without one logs in under its own name)', async () => {
    assert.deepEqual(await reviewServiceAccountToken(config, jwt({ case: 'ghost' }), { skipAccountLookup: true }), {
      namespace: 'prod',
      name: 'ghost',
      uid: 'uid-g',
    });
  });

  it('audiences are sent, and a review that does not report one of them is refused', async () => {
    await assert.rejects(reviewServiceAccountToken(config, jwt({ case: 'web' }), { audiences: ['cairn'] }), {
      kind: 'lookup',
      message: 'lookup failed: token audiences do not match',
    });
  });

  it('validateKubernetesConfig rules: CA and reviewer JWT may be optional', () => {
    validateKubernetesConfig({ host: 'k8s:6443', caCert: '', serviceAccountJWT: '' }, { caCertOptional: true, reviewerJwtOptional: true });
    assert.throws(
      () => validateKubernetesConfig({ host: 'k8s:6443', caCert: 'garbage', serviceAccountJWT: '' }, { caCertOptional: true, reviewerJwtOptional: true }),
      { kind: 'config' },
    );
  });

  it('validateKubernetesConfig: the reference texts', () => {
    const ok = { host: 'k8s:6443', caCert: config.caCert, serviceAccountJWT: REVIEWER };
    validateKubernetesConfig(ok);
    const bad: [Partial<KubernetesConfig>, string | RegExp][] = [
      [{ ...ok, host: '' }, 'Config.Host is required'],
      [{ ...ok, caCert: '' }, 'Config.CACert is required'],
      [{ ...ok, caCert: 'garbage' }, /^error parsing kubernetes ca cert: /],
      [{ ...ok, serviceAccountJWT: '' }, 'Config.ServiceAccountJWT is required'],
      [{ ...ok, serviceAccountJWT: 'x.y' }, /^Config\.ServiceAccountJWT is not a valid JWT: /],
    ];
    for (const [c, message] of bad) assert.throws(() => validateKubernetesConfig(c), { kind: 'config', message });
  });
});
