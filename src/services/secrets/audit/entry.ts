/**
 * One audit entry as a JSON line, in the reference's shape (its audit log schema):
 * `{"time","type":"request"|"response","auth","request","response","error"}`. Every
 * secret string goes through the device's hash: client tokens, accessors (unless
 * `hmac_accessor=false`), every string of request and response `data`, and the tokens
 * and accessors of a response's `auth` and `wrap_info`. With `log_raw` nothing is hashed.
 *
 * @module
 */
import type { NamespaceEntry } from '../namespace/registry.js';
import type { TokenEntry } from '../token/store.js';

/** What a request entry says about a request (filled in as the pipeline learns it). */
export interface RequestFacts {
  readonly id: string;
  /** `read`, `update`, `create`, `list`, `delete`, `patch` (the method's until the route decides). */
  operation: string;
  /** The token as presented (`''` when none). */
  readonly clientToken: string;
  token?: TokenEntry;
  namespace?: NamespaceEntry;
  /** Relative to `/v1/` and the namespace. */
  path: string;
  mountType?: string;
  data?: Readonly<Record<string, unknown>>;
  remoteAddress: string;
  /** Seconds asked for with `X-Secrets-Wrap-TTL`; undefined when not asked. */
  readonly wrapTtl?: number;
}

/** The parts of a reply the response entry shows (parsed from the reply's JSON body). */
export interface ResponseFacts {
  readonly mountType?: string;
  readonly data?: unknown;
  readonly auth?: Record<string, unknown> | null;
  readonly leaseId?: string;
  readonly wrapInfo?: Record<string, unknown> | null;
  readonly warnings?: readonly string[] | null;
}

/** How one device writes entries. */
export interface EntryStyle {
  /** The string → `hmac-sha256:…` function; the identity with `log_raw`. */
  readonly hash: (s: string) => string;
  /** Hashes every string of a value (identity with `log_raw`). */
  readonly deep: (v: unknown) => unknown;
  readonly hmacAccessor: boolean;
  /** Put before each line (`prefix` option). */
  readonly prefix: string;
}

/** Fields of a response's `auth` and `wrap_info` that are bearer secrets, and those that are accessors. */
const TOKEN_FIELDS = ['client_token', 'token'];
const ACCESSOR_FIELDS = ['accessor', 'wrapped_accessor'];

const secretString = (s: EntryStyle, v: string) => (v === '' ? v : s.hash(v));
const accessorString = (s: EntryStyle, v: string) => (v === '' || !s.hmacAccessor ? v : s.hash(v));

/** The entry's `auth`: the caller's token (empty object without one). */
function authOf(s: EntryStyle, f: RequestFacts): Record<string, unknown> {
  const t = f.token;
  if (!t) return {};
  return {
    client_token: secretString(s, f.clientToken),
    accessor: accessorString(s, t.accessor),
    display_name: t.display_name,
    policies: t.policies,
    token_policies: t.policies,
    metadata: t.meta ?? undefined,
    entity_id: '',
    token_type: 'service',
    token_ttl: t.creation_ttl,
    token_issue_time: new Date(t.creation_time * 1000).toISOString().replace('.000Z', 'Z'),
  };
}

/** The entry's `request`. */
function requestOf(s: EntryStyle, f: RequestFacts): Record<string, unknown> {
  return {
    id: f.id,
    operation: f.operation,
    mount_type: f.mountType,
    client_token: secretString(s, f.clientToken),
    client_token_accessor: f.token ? accessorString(s, f.token.accessor) : undefined,
    namespace: f.namespace ? { id: f.namespace.id, path: f.namespace.path } : { id: 'root', path: '' },
    path: f.path,
    data: f.data && Object.keys(f.data).length > 0 ? s.deep(f.data) : undefined,
    remote_address: f.remoteAddress,
    wrap_ttl: f.wrapTtl,
  };
}

/** A copy of a response's `auth` or `wrap_info` with its tokens and accessors hashed (any other string stays). */
function tokensHashed(s: EntryStyle, block: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...block };
  for (const k of TOKEN_FIELDS) if (typeof out[k] === 'string') out[k] = secretString(s, out[k] as string);
  for (const k of ACCESSOR_FIELDS) if (typeof out[k] === 'string') out[k] = accessorString(s, out[k] as string);
  return out;
}

/** The entry's `response`. */
function responseOf(s: EntryStyle, r: ResponseFacts): Record<string, unknown> {
  return {
    mount_type: r.mountType,
    data: r.data === undefined || r.data === null ? undefined : s.deep(r.data),
    auth: r.auth ? tokensHashed(s, r.auth) : undefined,
    secret: r.leaseId ? { lease_id: r.leaseId } : undefined,
    wrap_info: r.wrapInfo ? tokensHashed(s, r.wrapInfo) : undefined,
    warnings: r.warnings?.length ? r.warnings : undefined,
  };
}

/**
 * The `"auth":…,"request":…` part both entries of a request share, made once per device
 * and request (the request entry's, reused by its response entry).
 */
export function entryHead(s: EntryStyle, f: RequestFacts): string {
  return `"auth":${JSON.stringify(authOf(s, f))},"request":${JSON.stringify(requestOf(s, f))}`;
}

const errorPart = (error: string | undefined) => (error === undefined ? '' : `,"error":${JSON.stringify(error)}`);

/** A request entry's line (newline-terminated). `error`: why the request failed before it ran. */
export function requestLine(s: EntryStyle, time: string, head: string, error?: string): string {
  return `${s.prefix}{"time":"${time}","type":"request",${head}${errorPart(error)}}\n`;
}

/** A response entry's line (newline-terminated). `response`: what was sent, if anything; `error`: the failure the client got, if any. */
export function responseLine(s: EntryStyle, time: string, head: string, { response: r, error }: { response?: ResponseFacts; error?: string }): string {
  const response = r ? `,"response":${JSON.stringify(responseOf(s, r))}` : '';
  return `${s.prefix}{"time":"${time}","type":"response",${head}${response}${errorPart(error)}}\n`;
}
