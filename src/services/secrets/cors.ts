/**
 * Cross-origin requests (spec 000 "Errors" 403; reference/secrets.md §1.11). Off until
 * `sys/config/cors` enables it; then a request whose `Origin` is not allowed gets 403
 * `origin not allowed`, preflights are answered, and allowed origins get the
 * `Access-Control-*` headers. Stored behind the barrier at `core/cors`.
 *
 * @module
 */
import { CairnError, type HttpRequest, type HttpResponse } from '../../kernel/http/index.js';
import { json, type Backend } from '../../kernel/store/index.js';

/** The stored CORS configuration (the wire shape of `GET sys/config/cors`). */
export interface CorsConfig {
  readonly enabled: boolean;
  readonly allowed_origins: readonly string[];
  readonly allowed_headers: readonly string[];
}

/** Where the configuration is stored (root storage). */
export const CORS_KEY = 'core/cors';
const METHODS = ['DELETE', 'GET', 'OPTIONS', 'POST', 'PUT', 'LIST', 'PATCH'];
/** Headers always allowed (the reference's defaults, with Cairn's header names). */
const DEFAULT_ALLOWED_HEADERS = [
  'Content-Type',
  'Authorization',
  'X-Requested-With',
  'X-Secrets-Token',
  'X-Secrets-Namespace',
  'X-Secrets-Request',
  'X-Secrets-Index',
];
const DISABLED: CorsConfig = { enabled: false, allowed_origins: [], allowed_headers: [] };

/** The CORS configuration, cached in memory, written through to storage. */
export class CorsStore {
  private constructor(
    private readonly storage: Backend,
    private config: CorsConfig,
  ) {}

  /** Loads the stored configuration (disabled when none). */
  static async open(storage: Backend): Promise<CorsStore> {
    return new CorsStore(storage, json.decode<CorsConfig>(await storage.get(CORS_KEY)) ?? DISABLED);
  }

  get current(): CorsConfig {
    return this.config;
  }

  /** Replaces the configuration; durable before it takes effect. */
  async set(config: CorsConfig): Promise<void> {
    await this.storage.put(CORS_KEY, json.encode(config));
    this.config = config;
  }

  /** Reads the configuration again (another server changed it); never writes. */
  async reload(): Promise<void> {
    this.config = json.decode<CorsConfig>(await this.storage.get(CORS_KEY)) ?? DISABLED;
  }

  /** Disables CORS and forgets the lists. */
  async clear(): Promise<void> {
    await this.storage.delete(CORS_KEY);
    this.config = DISABLED;
  }

  /**
   * Checks a request. Returns `{ preflight }` for an `OPTIONS` preflight (answered
   * here), else the headers to add to the response. Throws 403 `origin not allowed`.
   */
  check(req: HttpRequest): { preflight?: HttpResponse; headers: Record<string, string> } {
    const origin = req.headers.origin;
    if (!this.config.enabled || typeof origin !== 'string') return { headers: {} };
    const all = this.config.allowed_origins.includes('*');
    if (!all && !this.config.allowed_origins.includes(origin)) throw new CairnError('forbidden', 'origin not allowed');
    const headers: Record<string, string> = { 'Access-Control-Allow-Origin': origin, Vary: 'Origin' };
    if (req.method !== 'OPTIONS') return { headers };
    const wanted = String(req.headers['access-control-request-method'] ?? '').toUpperCase();
    if (!METHODS.includes(wanted)) return { preflight: { status: 405 }, headers };
    return {
      headers,
      preflight: {
        status: 204,
        headers: {
          ...headers,
          'Access-Control-Allow-Methods': METHODS.join(','),
          'Access-Control-Allow-Headers': [...DEFAULT_ALLOWED_HEADERS, ...this.config.allowed_headers].join(','),
          'Access-Control-Max-Age': '300',
        },
      },
    };
  }
}
