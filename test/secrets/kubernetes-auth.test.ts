/**
 * The `kubernetes` auth method over HTTP against a real server, with a small Kubernetes
 * API stand-in on loopback (HTTPS, self-signed CA) answering TokenReview: config and role
 * CRUD (the reviewer JWT never read back), login allowed and denied by service-account
 * name and namespace (globs), the role's audience sent and checked, a failed or refused
 * review → 403, and the token's policies, TTL and metadata.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { UnsecuredJWT } from 'jose';
import { selfSignedCert } from '../../src/kernel/http/testdata/self-signed.js';
import { startTestServer, type TestServer } from '../helpers.js';

const jwt = (sub: string) => new UnsecuredJWT({ sub }).encode();
const REVIEWER = jwt('system:serviceaccount:kube-system:cairn-reviewer');
const K = '/v1/auth/kubernetes';

/** Service accounts the stand-in knows, by the `sub` of their token; each accepts only its audiences. */
const ACCOUNTS: Record<string, { uid: string; audiences: string[] }> = {
  'system:serviceaccount:payments:api': { uid: 'uid-api', audiences: ['https://kubernetes.default.svc', 'cairn'] },
  'system:serviceaccount:payments:worker': { uid: 'uid-worker', audiences: ['https://kubernetes.default.svc'] },
  'system:serviceaccount:default:api': { uid: 'uid-default-api', audiences: ['https://kubernetes.default.svc'] },
};

let s: TestServer;
let api: Server;
let ca: string;
let host: string;
const reviews: { authorization?: string; audiences?: string[] }[] = [];

before(async () => {
  const tls = selfSignedCert();
  ca = tls.cert;
  api = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.method !== 'POST' || req.url !== '/apis/authentication.k8s.io/v1/tokenreviews') return res.writeHead(404).end('{}');
      if (req.headers.authorization !== `Bearer ${REVIEWER}`) {
        return res.writeHead(401).end(JSON.stringify({ kind: 'Status', status: 'Failure', message: 'Unauthorized', code: 401 }));
      }
      const review = JSON.parse(Buffer.concat(chunks).toString()) as { spec: { token: string; audiences?: string[] } };
      reviews.push({ authorization: req.headers.authorization, audiences: review.spec.audiences });
      const sub = JSON.parse(Buffer.from(review.spec.token.split('.')[1], 'base64url').toString()).sub as string;
      const account = ACCOUNTS[sub];
      const wanted = review.spec.audiences ?? ['https://kubernetes.default.svc'];
      const audiences = account?.audiences.filter((a) => wanted.includes(a)) ?? [];
      const status =
        account && audiences.length
          ? { authenticated: true, user: { username: sub, uid: account.uid }, audiences }
          : { authenticated: false, error: '[invalid bearer token, token audiences not valid]' };
      res.end(JSON.stringify({ ...review, status }));
    });
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  host = `https://127.0.0.1:${(api.address() as AddressInfo).port}`;
  s = await startTestServer();
  assert.equal((await s.call('POST', '/v1/sys/auth/kubernetes', { body: { type: 'kubernetes' } })).status, 204);
});
after(async () => {
  await s.close();
  api.closeAllConnections();
  api.close();
});

const ok = async (method: string, path: string, body?: unknown, status = 204) => {
  const r = await s.call(method, path, { body });
  assert.equal(r.status, status, `${method} ${path}: ${r.text}`);
  return r;
};
const login = (role: string, token: string) => s.call('POST', `${K}/login`, { token: null, body: { role, jwt: token } });
const errorOf = (r: { status: number; json: { errors?: string[] } }, status: number) => {
  assert.equal(r.status, status, JSON.stringify(r.json));
  return (r.json.errors ?? [])[0];
};

describe('kubernetes auth', () => {
  it('config: host required, CA checked, reviewer JWT never read back; roles checked', async () => {
    assert.equal(errorOf(await s.call('POST', `${K}/config`, { body: { kubernetes_ca_cert: ca } }), 400), 'no host provided');
    assert.match(
      errorOf(await s.call('POST', `${K}/config`, { body: { kubernetes_host: host, kubernetes_ca_cert: 'nope' } }), 400),
      /^error parsing kubernetes ca cert/,
    );
    await ok('POST', `${K}/config`, { kubernetes_host: host, kubernetes_ca_cert: ca, token_reviewer_jwt: REVIEWER });
    const r = await ok('GET', `${K}/config`, undefined, 200);
    assert.deepEqual(r.json.data, { kubernetes_host: host, kubernetes_ca_cert: ca, token_reviewer_jwt_set: true, disable_local_ca_jwt: false });
    assert.ok(!r.text.includes(REVIEWER));

    assert.equal(
      errorOf(await s.call('POST', `${K}/role/x`, { body: { bound_service_account_namespaces: 'a' } }), 400),
      '"bound_service_account_names" can not be empty',
    );
    assert.equal(
      errorOf(await s.call('POST', `${K}/role/x`, { body: { bound_service_account_names: '*', bound_service_account_namespaces: '*' } }), 400),
      'service_account_names and service_account_namespaces can not both be "*"',
    );
    await ok('POST', `${K}/role/payments`, {
      bound_service_account_names: 'api',
      bound_service_account_namespaces: 'pay*',
      token_policies: 'payments',
      token_ttl: '15m',
    });
    await ok('POST', `${K}/role/aud`, { bound_service_account_names: 'api,worker', bound_service_account_namespaces: 'payments', audience: 'cairn' });
    const role = await ok('GET', `${K}/role/payments`, undefined, 200);
    assert.deepEqual(role.json.data.bound_service_account_namespaces, ['pay*']);
    assert.equal(role.json.data.alias_name_source, 'serviceaccount_uid');
    assert.deepEqual((await ok('LIST', `${K}/role`, undefined, 200)).json.data.keys, ['aud', 'payments']);
  });

  it('an allowed service account logs in: policies, TTL, metadata, display name', async () => {
    const r = await login('payments', jwt('system:serviceaccount:payments:api'));
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.auth.policies, ['default', 'payments']);
    assert.equal(r.json.auth.lease_duration, 900);
    assert.deepEqual(r.json.auth.metadata, {
      role: 'payments',
      service_account_name: 'api',
      service_account_namespace: 'payments',
      service_account_uid: 'uid-api',
      service_account_secret_name: '',
    });
    const self = await s.call('GET', '/v1/auth/token/lookup-self', { token: r.json.auth.client_token });
    assert.equal(self.json.data.display_name, 'kubernetes-payments-api');
    assert.equal(reviews.at(-1)?.authorization, `Bearer ${REVIEWER}`);
  });

  it("the wrong name or namespace → 403 with the reference's text", async () => {
    assert.equal(errorOf(await login('payments', jwt('system:serviceaccount:payments:worker')), 403), 'service account name not authorized');
    assert.equal(errorOf(await login('payments', jwt('system:serviceaccount:default:api')), 403), 'namespace not authorized');
    assert.equal(errorOf(await login('nope', jwt('x')), 400), 'invalid role name "nope"');
    assert.equal(errorOf(await s.call('POST', `${K}/login`, { token: null, body: { role: 'payments' } }), 400), 'missing jwt');
  });

  it("the role's audience is sent in the TokenReview; a token not valid for it → 403", async () => {
    assert.equal((await login('aud', jwt('system:serviceaccount:payments:api'))).status, 200);
    assert.deepEqual(reviews.at(-1)?.audiences, ['cairn']);
    assert.equal(errorOf(await login('aud', jwt('system:serviceaccount:payments:worker')), 403), 'permission denied');
  });

  it('a refused or failed TokenReview → 403 permission denied', async () => {
    assert.equal(errorOf(await login('payments', jwt('system:serviceaccount:payments:unknown')), 403), 'permission denied');
    // the reviewer itself refused by the API server (401)
    await ok('POST', `${K}/config`, { kubernetes_host: host, kubernetes_ca_cert: ca, token_reviewer_jwt: jwt('someone-else') });
    assert.equal(errorOf(await login('payments', jwt('system:serviceaccount:payments:api')), 403), 'permission denied');
    // an API server whose certificate does not chain to the configured CA
    await ok('POST', `${K}/config`, { kubernetes_host: host, kubernetes_ca_cert: selfSignedCert().cert, token_reviewer_jwt: REVIEWER });
    assert.equal(errorOf(await login('payments', jwt('system:serviceaccount:payments:api')), 403), 'permission denied');
    // without a reviewer JWT the login's own token calls the review (here refused: it may not create reviews)
    await ok('POST', `${K}/config`, { kubernetes_host: host, kubernetes_ca_cert: ca });
    assert.equal((await ok('GET', `${K}/config`, undefined, 200)).json.data.token_reviewer_jwt_set, false);
    assert.equal(errorOf(await login('payments', jwt('system:serviceaccount:payments:api')), 403), 'permission denied');
  });
});
