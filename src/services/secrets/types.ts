/**
 * The request context and result every secrets-service route handler sees. Handlers
 * know nothing of HTTP (STYLE.md §1): they read typed input from the context and return
 * a {@link SecretsResult} or nothing; the dispatcher renders the envelope.
 *
 * @module
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { HttpResponse, Operation, PathSpec, RouteTable } from '../../kernel/http/index.js';
import type { Backend } from '../../kernel/store/index.js';
import type { MountEntry } from './mounts/table.js';
import type { AuthBlock, TokenEntry } from './token/store.js';
import type { EnginePeriodicContext, SecretsCore } from './core.js';
import type { NamespaceScope } from './namespace/scope.js';
import type { LeaseRequest, SecretLeaseHandlers } from './lease/handlers.js';

/** One request as a handler sees it. */
export interface SecretsRequest {
  readonly id: string;
  readonly operation: Operation;
  /** Path relative to the mount, e.g. `data/app/db`; list paths end in `/`. */
  readonly path: string;
  /** Captures of the route pattern. */
  readonly params: Readonly<Record<string, string>>;
  /** Declared fields after validation (body for writes, query otherwise). */
  readonly data: Readonly<Record<string, unknown>>;
  /** The raw JSON body object (`{}` when there was none); for `rawBody` routes. */
  readonly body: Readonly<Record<string, unknown>>;
  /** The caller's token; undefined only on unauthenticated routes. */
  readonly token: TokenEntry | undefined;
  readonly mount: MountEntry;
  /** The mount's own storage (keys under `logical/<uuid>/`). */
  readonly storage: Backend;
  readonly core: SecretsCore;
  /** The request's namespace: its mounts and policies (spec 000 "Authentication" 5). */
  readonly ns: NamespaceScope;
  /** The request time (injected clock). */
  readonly now: Date;
  /** The client's IP address as the socket reports it (CIDR-bound logins and tokens). */
  readonly remoteAddress: string;
  /**
   * The TLS certificate chain the client presented (DER, its own first; the `cert` auth
   * method): `[]` on TLS without one, undefined on plain HTTP. Forwarded by HA standbys.
   */
  readonly clientCertificates?: readonly Buffer[];
  /** The request's headers (a route reading one says so, e.g. `sys/metrics` and `Accept`). */
  readonly headers: IncomingHttpHeaders;
}

/** What a handler returns; see the envelope rules in `envelope.ts`. */
export interface SecretsResult {
  readonly data?: Record<string, unknown> | null;
  readonly warnings?: readonly string[];
  readonly auth?: AuthBlock;
  /** Lease duration in seconds (KV v1 reads carry the mount's default TTL). */
  readonly leaseDuration?: number;
  /** The engine asks for a lease on this secret (lease/attach.ts registers it; its TTL is `leaseDuration`). */
  readonly lease?: LeaseRequest;
  /** The registered lease's id (envelope `lease_id`); set by the lease manager, never by engines. */
  readonly leaseId?: string;
  /** Whether the lease can be renewed (envelope `renewable`). */
  readonly renewable?: boolean;
  /** A non-200 status with a full envelope (KV v2 deleted version → 404). */
  readonly status?: number;
  /** Copy every `data` key to the top level as well (reference/secrets.md §1.1 "top-level injection"). */
  readonly topLevel?: boolean;
  /** A JSON body sent as it is, without the envelope (`sys/internal/specs/openapi`). */
  readonly raw?: unknown;
  /** A whole reply sent as it is: status, headers and body (the reference's raw body: `sys/metrics`). */
  readonly reply?: HttpResponse;
}

/** A route declaration of the secrets service. */
export type SecretsPath = PathSpec<SecretsRequest, SecretsResult>;

/** A compiled engine: its routes and the description shown by root help. */
export interface Engine {
  readonly table: RouteTable<SecretsRequest, SecretsResult>;
  readonly description: string;
  /** How the lease manager renews and revokes the secrets it leases (engines that issue leases). */
  readonly leases?: SecretLeaseHandlers;
  /** Background work per mount on the active server, about every second (mounts/periodic.ts): rotations due, auto-rotation. */
  readonly periodic?: (ctx: EnginePeriodicContext) => Promise<void>;
}

/** What an engine's `periodic` is given (declared in core.ts, which runs it, so the two modules do not import each other). */
export type { EnginePeriodicContext };

/** The engine serving a mount (engines.ts `engineFor`), handed to the routes that document every mount. */
export type EngineLookup = (mount: MountEntry) => Engine;
