/**
 * The transport-neutral request and reply a listener hands a service, and what a service
 * plugs into a listener (STYLE.md §3, §4: the core works on its own request type; serve.ts
 * converts the Node message into it and writes the reply back).
 *
 * @module
 */
import type { Writable } from 'node:stream';
import type { IncomingHttpHeaders } from 'node:http';
import type { CairnError } from './errors.js';

/** A request as the services see it. `body` is the whole body, already read. */
export interface HttpRequest {
  readonly id: string;
  /** Upper-case method; `LIST` is possible. */
  readonly method: string;
  /** The URL path, percent-decoded, with its leading `/`. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly remoteAddress: string;
  readonly tls: boolean;
  /**
   * The certificate chain the client presented in the TLS handshake, DER, its own
   * certificate first: `[]` on a TLS connection without one (or on a listener that does not
   * ask), undefined on plain HTTP. Not verified here unless the listener `require`s it.
   */
  readonly clientCertificates?: readonly Buffer[];
}

/** A reply; `body` undefined = no body. */
export interface HttpResponse {
  readonly status: number;
  /** A list value sends the header once per element (`Set-Cookie`). */
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
  readonly body?: string | Buffer;
  /**
   * A body written over time instead of `body` (the scheduler's event stream): called once
   * the status and headers are sent, with the response to write to and a signal aborted
   * when the client goes away or the listener closes. The connection is closed when the
   * returned promise settles (no `Content-Length`; the end of the body is the end of the
   * connection, as the reference's stream).
   */
  readonly stream?: (out: Writable, signal: AbortSignal) => Promise<void>;
}

/** What a service plugs into a listener. */
export interface HttpService {
  /** Maps a request to a reply. May throw; thrown values go to `renderError`. */
  handle(req: HttpRequest): Promise<HttpResponse>;
  /** Renders an error in the service's wire style (secrets: `{"errors":[…]}`). */
  renderError(err: CairnError, req: { id: string; method: string }): HttpResponse;
}
