/**
 * The domain API's routes as data: a method, a path pattern under `/v1/` (the kernel's
 * pattern syntax, custom actions as `:<action>`), and a handler that gets the caller and
 * returns the reply.
 *
 * @module
 */
import type { HttpRequest } from '../../../kernel/http/index.js';
import type { Caller, GatewayDomain } from './domain.js';

/** What a handler gets. */
export interface DomainContext {
  readonly d: GatewayDomain;
  readonly req: HttpRequest;
  readonly params: Readonly<Record<string, string>>;
  readonly caller: Caller;
}

/** A handler's reply: `body` undefined → 204 without a body. */
export interface DomainReply {
  readonly status?: number;
  readonly body?: unknown;
  /** A list value sends the header once per element (`Set-Cookie`). */
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
}

/** One route. */
export interface DomainRoute {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Relative to `/v1/`, e.g. `roles/:id:add-principals`. */
  readonly pattern: string;
  readonly summary: string;
  /** Served to everyone as the anonymous user, whatever token the request carries (the OIDC callback: the state is its credential). */
  readonly anonymous?: boolean;
  readonly handle: (ctx: DomainContext) => Promise<DomainReply>;
}

/** A reply with a JSON body and status 200. */
export const ok = (body: unknown): DomainReply => ({ status: 200, body });
