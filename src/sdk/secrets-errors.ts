/**
 * Errors thrown by the secrets SDK: the server answered with an error status
 * ({@link SecretsApiError}) or did not answer at all ({@link SecretsConnectionError}).
 *
 * @module
 */

/**
 * The service answered with a status of 400 or more (or a 2xx body that is not JSON).
 * `message` is the server's `errors` joined by `; `, or `HTTP <status>` when it gave none.
 */
export class SecretsApiError extends Error {
  override readonly name = 'SecretsApiError';
  /**
   * @param status HTTP status code.
   * @param errors The `errors` array of the body (spec 000 "Errors"); empty when the body had none.
   * @param request Method and `/v1/…` path of the failed request, plus any `warnings` in the body.
   */
  constructor(
    readonly status: number,
    readonly errors: string[],
    readonly request: { method: string; path: string; warnings?: string[] },
  ) {
    super(errors.length > 0 ? errors.join('; ') : `HTTP ${status}`);
  }

  /** Warnings the error body carried (for example on a v1-style path of a KV v2 mount). */
  get warnings(): string[] {
    return this.request.warnings ?? [];
  }
}

/** The request never got an HTTP answer: refused connection, DNS, TLS verification or time-out. */
export class SecretsConnectionError extends Error {
  override readonly name = 'SecretsConnectionError';
  /**
   * @param message `<METHOD> <url>: <reason>`.
   * @param options `cause` is the underlying socket, TLS or abort error.
   */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
