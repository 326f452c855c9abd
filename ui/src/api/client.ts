/**
 * Calls to the services' public HTTP APIs, the ones the CLI and SDK use. Each section's
 * base path comes from `/ui/config.json` ('' = this origin's `/v1/`, else the dev proxy
 * prefix); the token goes in the section's own header.
 */
import { currentSession } from './session';

export type Section = 'secrets' | 'mesh' | 'sched' | 'gateway';

/** An API error: the HTTP status and the messages of the service's error body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly messages: string[],
  ) {
    super(messages.join('; ') || `HTTP ${status}`);
  }
}

const TOKEN_HEADER: Record<Section, string> = {
  secrets: 'X-Secrets-Token',
  mesh: 'X-Mesh-Token',
  sched: 'X-Sched-Token',
  gateway: 'Authorization',
};

let bases: Partial<Record<Section, string>> = {};
let gatewayMetrics: string | undefined;

/** Loads `/ui/config.json`: which sections this origin reaches, and where. */
export async function loadConfig(): Promise<Partial<Record<Section, string>>> {
  const res = await fetch('/ui/config.json', { headers: { Accept: 'application/json' } });
  if (!res.ok) throw new ApiError(res.status, ['cannot load the UI configuration']);
  const config = (await res.json()) as { sections: Partial<Record<Section, string>>; gatewayMetrics?: string };
  bases = config.sections;
  gatewayMetrics = config.gatewayMetrics;
  return bases;
}

/** Where this origin reads the gateway's Prometheus metrics (its ops listener's, no token), if it does. */
export const gatewayMetricsPath = (): string | undefined => gatewayMetrics;

/** Whether this origin reaches `section`. */
export function hasSection(section: Section): boolean {
  return bases[section] !== undefined;
}

/** Whether this origin reaches the gateway only: the login token is then the gateway's. */
export const gatewayOnly = (): boolean => !hasSection('secrets') && !hasSection('mesh') && !hasSection('sched');

export interface CallOptions {
  readonly method?: string;
  readonly body?: unknown;
  /** A body sent as is, as text (a discovery KV value), instead of JSON `body`. */
  readonly raw?: string;
  /** A token other than the session's (login checks). */
  readonly token?: string;
  readonly signal?: AbortSignal;
  /** More request headers (e.g. `X-Secrets-Wrap-TTL` to have the reply response-wrapped). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** The URL and headers of a call to `path` (starting `/v1/`) of `section`. */
export function request(section: Section, path: string, o: CallOptions = {}): { url: string; init: RequestInit } {
  const session = currentSession();
  const token = o.token ?? (section === 'gateway' ? session?.gatewayToken : session?.token);
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (token) headers[TOKEN_HEADER[section]] = section === 'gateway' ? `Bearer ${token}` : token;
  // Every call, whatever its section: a secrets listener with `require_request_header`
  // asks it of its API and of the UI's proxy to the other services alike.
  headers['X-Secrets-Request'] = 'true';
  if (section === 'secrets' && session?.namespace) headers['X-Secrets-Namespace'] = session.namespace;
  // The discovery namespace goes in the query, as `?ns=` (reference/mesh.md §7); endpoints without namespaces ignore it.
  if (section === 'mesh' && session?.meshNamespace) path += `${path.includes('?') ? '&' : '?'}ns=${encodeURIComponent(session.meshNamespace)}`;
  if (o.body !== undefined) headers['Content-Type'] = 'application/json';
  Object.assign(headers, o.headers);
  return {
    url: `${bases[section] ?? ''}${path}`,
    init: { method: o.method ?? 'GET', headers, body: o.body === undefined ? undefined : JSON.stringify(o.body), signal: o.signal, cache: 'no-store' },
  };
}

/**
 * Calls the API and returns its parsed JSON body (undefined for 204).
 * @throws ApiError for a non-2xx reply, with the service's `errors` messages.
 */
export async function api<T = unknown>(section: Section, path: string, o: CallOptions = {}): Promise<T> {
  return (await apiReply<T>(section, path, o)).body;
}

/**
 * As {@link api}, with the reply's headers too (a list's `X-Sched-NextToken`).
 * @throws ApiError for a non-2xx reply.
 */
export async function apiReply<T = unknown>(section: Section, path: string, o: CallOptions = {}): Promise<{ body: T; headers: Headers }> {
  const { url, init } = request(section, path, o);
  if (o.raw !== undefined) init.body = o.raw;
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  if (!res.ok) throw new ApiError(res.status, errorMessages(body, res.status));
  return { body: body as T, headers: res.headers };
}

function errorMessages(body: unknown, status: number): string[] {
  if (body && typeof body === 'object' && Array.isArray((body as { errors?: unknown }).errors)) {
    return (body as { errors: unknown[] }).errors.map(String);
  }
  // The gateway's errors: {"kind", "message", "details": {"request_fields": [{name, description}]}}; the fields say what was wrong.
  if (body && typeof body === 'object' && typeof (body as { message?: unknown }).message === 'string') {
    const fields = (body as { details?: { request_fields?: Array<{ name: string; description: string }> } }).details?.request_fields ?? [];
    const message = (body as { message: string }).message;
    return [fields.length ? `${message} ${fields.map((f) => `${f.name}: ${f.description}`).join('; ')}` : message];
  }
  if (typeof body === 'string' && body.trim()) return [body.trim()];
  return [`HTTP ${status}`];
}
