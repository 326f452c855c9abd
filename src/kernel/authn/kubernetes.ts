/**
 * Kubernetes service-account login (reference/mesh.md §4.3, §3.5): the bearer token is
 * sent to the API server's TokenReview endpoint over HTTPS verified against the
 * configured CA, the reviewed username must be a service account, and the
 * ServiceAccount's service-name annotation may override its name.
 *
 * @module
 */
import { X509Certificate } from 'node:crypto';
import { request } from 'node:https';
import { decodeJwt } from 'jose';
import type { Identity } from './claims.js';
import { AuthnError, messageOf } from './errors.js';

/** A `kubernetes` auth method's config (reference/mesh.md §4.3 `Host`, `CACert`, `ServiceAccountJWT`). */
export interface KubernetesConfig {
  /** API server: `host`, `host:port` or an `https://` URL. */
  readonly host: string;
  /** PEM CA bundle the API server's certificate must chain to; empty only when validated with `caCertOptional` (system roots). */
  readonly caCert: string;
  /** JWT the method itself presents to call TokenReview and read ServiceAccounts; empty only when validated with `reviewerJwtOptional` (the reviewed token reviews itself). */
  readonly serviceAccountJWT: string;
}

/** Options of {@link validateKubernetesConfig}: what the secrets service's method may leave out (the reference's Vault plugin does). */
export interface KubernetesConfigRules {
  /** No CA: the API server is verified against the system roots. */
  readonly caCertOptional?: boolean;
  /** No reviewer JWT: each login's own token is used to call TokenReview. */
  readonly reviewerJwtOptional?: boolean;
}

/** Who a reviewed token belongs to; `name` is the annotation's override when present. */
export interface ServiceAccountIdentity {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
}

/** Options of {@link reviewServiceAccountToken}. */
export interface ReviewOptions {
  /** Per-request timeout; 0 or absent means 10 s. */
  readonly timeoutMs?: number;
  /** Annotation whose value overrides the service-account name; absent means the reference's. */
  readonly serviceNameAnnotation?: string;
  /** Skip the ServiceAccount read (no annotation override), as the secrets service's method does. */
  readonly skipAccountLookup?: boolean;
  /**
   * Audiences sent in the TokenReview (`spec.audiences`); the review must then report one
   * of them (`status.audiences`), else `lookup failed: token audiences do not match`.
   */
  readonly audiences?: readonly string[];
}

/** The reference's annotation that renames a service account's service (reference/mesh.md §4.3). */
const SERVICE_NAME_ANNOTATION = 'consul.hashicorp.com/service-name';

const fail = (message: string) => new AuthnError('config', message);

/**
 * Checks a `kubernetes` config with the reference's texts (reference/mesh.md §4.3). Pure.
 *
 * @throws {AuthnError} kind `config`: `Config.Host is required`, `Config.CACert is required`,
 *   `error parsing kubernetes ca cert: …`, `Config.ServiceAccountJWT is required`,
 *   `Config.ServiceAccountJWT is not a valid JWT: …`.
 */
export function validateKubernetesConfig(config: Partial<KubernetesConfig>, rules: KubernetesConfigRules = {}): void {
  if (!config.host) throw fail('Config.Host is required');
  if (!config.caCert && !rules.caCertOptional) throw fail('Config.CACert is required');
  if (config.caCert) checkCaCert(config.caCert);
  if (!config.serviceAccountJWT) {
    if (rules.reviewerJwtOptional) return;
    throw fail('Config.ServiceAccountJWT is required');
  }
  try {
    decodeJwt(config.serviceAccountJWT);
  } catch (err) {
    throw fail(`Config.ServiceAccountJWT is not a valid JWT: ${messageOf(err)}`);
  }
}

function checkCaCert(caCert: string): void {
  const blocks = caCert.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
  if (!blocks) throw fail('error parsing kubernetes ca cert: data does not contain any valid RSA or ECDSA certificates');
  try {
    for (const b of blocks) new X509Certificate(b);
  } catch (err) {
    throw fail(`error parsing kubernetes ca cert: ${messageOf(err)}`);
  }
}

/**
 * Reviews `bearerToken` with the API server (`POST /apis/authentication.k8s.io/v1/tokenreviews`)
 * and reads its ServiceAccount (`GET /api/v1/namespaces/<ns>/serviceaccounts/<name>`) unless
 * `skipAccountLookup`. Without a reviewer JWT in `config`, the bearer token authenticates its own review.
 *
 * @throws {AuthnError} kind `token` for a bearer that is not a JWT (`failed to parse and validate JWT: …`);
 *   kind `lookup` for the API's own error (passed through), `lookup failed: <Status.Error>`,
 *   `lookup failed: service account jwt not valid`, `lookup failed: token audiences do not match`,
 *   `lookup failed: unexpected username format`,
 *   `lookup failed: username returned is not a service account`, `annotation lookup failed: …`.
 */
export async function reviewServiceAccountToken(config: KubernetesConfig, bearerToken: string, options: ReviewOptions = {}): Promise<ServiceAccountIdentity> {
  try {
    decodeJwt(bearerToken);
  } catch (err) {
    throw new AuthnError('token', `failed to parse and validate JWT: ${messageOf(err)}`);
  }
  const caller = config.serviceAccountJWT ? config : { ...config, serviceAccountJWT: bearerToken };
  const api = (method: string, path: string, body?: unknown) => callApi(caller, { method, path, body }, options.timeoutMs || 10_000);
  const audiences = options.audiences?.length ? [...options.audiences] : undefined;
  const review = (await api('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenReview',
    spec: audiences ? { token: bearerToken, audiences } : { token: bearerToken },
  })) as { status?: { authenticated?: boolean; error?: string; audiences?: string[]; user?: { username?: string; uid?: string } } };
  const status = review.status ?? {};
  if (status.error) throw new AuthnError('lookup', `lookup failed: ${status.error}`);
  if (!status.authenticated) throw new AuthnError('lookup', 'lookup failed: service account jwt not valid');
  if (audiences && !audiences.some((a) => status.audiences?.includes(a))) {
    throw new AuthnError('lookup', 'lookup failed: token audiences do not match');
  }
  const parts = (status.user?.username ?? '').split(':');
  if (parts.length !== 4) throw new AuthnError('lookup', 'lookup failed: unexpected username format');
  if (parts[0] !== 'system' || parts[1] !== 'serviceaccount') {
    throw new AuthnError('lookup', 'lookup failed: username returned is not a service account');
  }
  const [, , namespace, name] = parts;
  if (options.skipAccountLookup) return { namespace, name, uid: status.user?.uid ?? '' };
  let account: { metadata?: { annotations?: Record<string, string> } };
  try {
    account = (await api('GET', `/api/v1/namespaces/${encodeURIComponent(namespace)}/serviceaccounts/${encodeURIComponent(name)}`)) as typeof account;
  } catch (err) {
    throw new AuthnError('lookup', `annotation lookup failed: ${messageOf(err)}`, { cause: err });
  }
  const override = account.metadata?.annotations?.[options.serviceNameAnnotation ?? SERVICE_NAME_ANNOTATION];
  return { namespace, name: override ?? name, uid: status.user?.uid ?? '' };
}

/** The identity of a reviewed service account: `serviceaccount.namespace|name|uid`, selectable and projected (reference/mesh.md §3.5). */
export function identityFromServiceAccount(sa: ServiceAccountIdentity): Identity {
  return {
    selectable: { serviceaccount: { namespace: sa.namespace, name: sa.name, uid: sa.uid } },
    projected: { 'serviceaccount.namespace': sa.namespace, 'serviceaccount.name': sa.name, 'serviceaccount.uid': sa.uid },
  };
}

/**
 * One JSON call to the API server as the method's own service account. A non-2xx answer
 * is an error carrying the API's `Status.message` (what the reference passes through);
 * transport failures read like Go's `Post "<url>": <cause>`. `body` undefined: none sent.
 */
function callApi(config: KubernetesConfig, { method, path, body }: { method: string; path: string; body: unknown }, timeoutMs: number): Promise<unknown> {
  const base = /^https?:\/\//.test(config.host) ? config.host : `https://${config.host}`;
  const url = new URL(path, base.endsWith('/') ? base : `${base}/`);
  const verb = method[0] + method.slice(1).toLowerCase();
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        ca: config.caCert || undefined,
        timeout: timeoutMs,
        headers: {
          authorization: `Bearer ${config.serviceAccountJWT}`,
          accept: 'application/json',
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (err) => reject(new AuthnError('lookup', `${verb} "${url.href}": ${err.message}`, { cause: err })));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300 && json !== undefined) return resolve(json);
          const message = (json as { message?: unknown } | undefined)?.message;
          reject(new AuthnError('lookup', typeof message === 'string' && message ? message : `${status} ${res.statusMessage ?? ''}`.trim()));
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', (err) => reject(new AuthnError('lookup', `${verb} "${url.href}": ${err.message}`, { cause: err })));
    req.end(payload);
  });
}
