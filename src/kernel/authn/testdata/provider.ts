/**
 * Test fixture: a real OpenID provider (`oidc-provider`) on loopback, plain HTTP or HTTPS
 * with a self-signed certificate, with a scripted login and consent (ecosystem.md §7), and
 * a cookie-keeping "browser" that follows its redirects. Used by the JWT tests (its JWKS
 * and discovery document) and the OIDC flow tests. Its signing key is ours, so tests can
 * sign tokens the provider's JWKS verifies.
 *
 * `oidc-provider` ships no types; it is loaded through a computed specifier so the
 * project's type check does not resolve it.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { Agent, fetch as undiciFetch } from 'undici';
import { selfSignedCert } from '../../http/testdata/self-signed.js';

/** The claims the provider knows about its accounts (groups and email only reach userinfo). */
export const ACCOUNTS: Record<string, Record<string, unknown>> = {
  alice: { sub: 'alice', email: 'alice@example.com', groups: ['admins', 'dev'] },
};

/** One registered client of the test provider. */
export interface TestClient {
  readonly client_id: string;
  readonly client_secret: string;
  readonly redirect_uris: string[];
}

/** A running test provider. */
export interface TestProvider {
  readonly issuer: string;
  /** PEM of the self-signed certificate when served over HTTPS. */
  readonly caCert?: string;
  /** Signs `claims` with the provider's own key (kid `k1`, RS256). */
  sign(claims: JWTPayload, alg?: string): Promise<string>;
  /** Plays the browser: GETs `url` and follows redirects with cookies until one leaves the provider. */
  browse(url: string): Promise<URL>;
  close(): Promise<void>;
}

/** A minimal in-memory adapter, so the provider does not warn about its development one. */
class MemoryAdapter {
  static store = new Map<string, Record<string, unknown>>();
  constructor(private readonly model: string) {}
  private key(id: string) {
    return `${this.model}:${id}`;
  }
  async upsert(id: string, payload: Record<string, unknown>) {
    MemoryAdapter.store.set(this.key(id), payload);
  }
  async find(id: string) {
    return MemoryAdapter.store.get(this.key(id));
  }
  async findByUid(uid: string) {
    for (const [k, v] of MemoryAdapter.store) if (k.startsWith(`${this.model}:`) && v.uid === uid) return v;
    return undefined;
  }
  async findByUserCode() {
    return undefined;
  }
  async consume(id: string) {
    const v = MemoryAdapter.store.get(this.key(id));
    if (v) v.consumed = Math.floor(Date.now() / 1000);
  }
  async destroy(id: string) {
    MemoryAdapter.store.delete(this.key(id));
  }
  async revokeByGrantId(grantId: string) {
    for (const [k, v] of MemoryAdapter.store) if (v.grantId === grantId) MemoryAdapter.store.delete(k);
  }
}

/** The part of oidc-provider 9 (which ships no type declarations) used here. */
interface OidcProvider {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionDetails(
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<{ params: { client_id: string }; prompt: { details: { missingOIDCScope?: string[] } } }>;
  readonly Grant: new (o: { accountId: string; clientId: string }) => { addOIDCScope(scope: string): void; save(): Promise<string> };
  interactionFinished(req: IncomingMessage, res: ServerResponse, result: object, options: { mergeWithLastSubmission: boolean }): Promise<void>;
  on(event: 'server_error', listener: (ctx: unknown, err: Error) => void): void;
}

/** oidc-provider's default export: a provider for an issuer URL and a configuration. */
type OidcProviderClass = new (issuer: string, configuration: object) => OidcProvider;

async function loadProvider(): Promise<OidcProviderClass> {
  const specifier = 'oidc-provider';
  // oidc-provider 9 warns once at import that it prefers Node 22; it works on Node 20
  // (ecosystem.md §7), so that one line is dropped to keep test output clean.
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (!String(args[0]).includes('Unsupported runtime')) warn(...args);
  };
  try {
    return ((await import(specifier)) as { default: OidcProviderClass }).default;
  } finally {
    console.warn = warn;
  }
}

/** Starts a provider on 127.0.0.1:0 with `clients`; `tls: true` serves HTTPS with a fresh self-signed cert. */
export async function startProvider(options: { clients?: TestClient[]; tls?: boolean } = {}): Promise<TestProvider> {
  const Provider = await loadProvider();
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const tls = options.tls ? selfSignedCert() : undefined;
  let provider: OidcProvider | undefined;
  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    const m = /^\/interaction\/([^/?]+)/.exec(req.url ?? '');
    // Requests arrive only once the server listens, after the provider below exists.
    const p = provider!;
    if (!m) return p.callback()(req, res);
    // Scripted login and consent: alice logs in and grants every scope asked for.
    try {
      const details = await p.interactionDetails(req, res);
      const grant = new p.Grant({ accountId: 'alice', clientId: details.params.client_id });
      const missing = details.prompt.details.missingOIDCScope;
      if (missing) grant.addOIDCScope(missing.join(' '));
      const grantId = await grant.save();
      await p.interactionFinished(req, res, { login: { accountId: 'alice' }, consent: { grantId } }, { mergeWithLastSubmission: false });
    } catch (err) {
      res.statusCode = 500;
      res.end(String(err));
    }
  };
  const server: Server = tls ? createHttpsServer({ key: tls.key, cert: tls.cert }, handler) : createHttpServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const created = new Provider(issuer, {
    clients: (options.clients ?? []).map((c) => ({ ...c, response_types: ['code'], grant_types: ['authorization_code'] })),
    jwks: { keys: [jwk] },
    adapter: MemoryAdapter,
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
    cookies: { keys: ['test-cookie-key'] },
    claims: { openid: ['sub'], email: ['email'], groups: ['groups'] },
    scopes: ['openid', 'email', 'groups'],
    findAccount: (_ctx: unknown, id: string) => ACCOUNTS[id] && { accountId: id, claims: () => ACCOUNTS[id] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    pkce: { required: () => false },
  });
  provider = created;
  created.on('server_error', (_ctx: unknown, err: Error) => console.error('provider server_error', err));
  const dispatcher = tls ? new Agent({ connect: { ca: tls.cert } }) : undefined;
  return {
    issuer,
    caCert: tls?.cert,
    sign: (claims, alg = 'RS256') => new SignJWT(claims).setProtectedHeader({ alg, kid: 'k1' }).sign(privateKey as CryptoKey),
    async browse(start) {
      const jar = new Map<string, string>();
      let url = new URL(start);
      for (let hop = 0; hop < 20; hop++) {
        if (url.origin !== issuer) return url;
        const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
        const res = await undiciFetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {}, dispatcher });
        for (const c of res.headers.getSetCookie()) {
          const [pair] = c.split(';');
          const i = pair.indexOf('=');
          jar.set(pair.slice(0, i), pair.slice(i + 1));
        }
        await res.arrayBuffer();
        const location = res.headers.get('location');
        if (!location) throw new Error(`provider answered ${res.status} without a redirect at ${url}`);
        url = new URL(location, url);
      }
      throw new Error('too many redirects');
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
        void dispatcher?.close();
      }),
  };
}
