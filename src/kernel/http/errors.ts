/**
 * The one error type Cairn's handlers throw; the kernel renders it (STYLE.md "Typed
 * errors; handlers throw, the kernel renders"). Anything thrown that is not a
 * {@link CairnError} becomes a 500 whose request id is logged, with no internal detail
 * on the wire.
 *
 * @module
 */

/** Closed set of error codes; the HTTP status of each comes from {@link STATUS_OF}. */
export type ErrorCode =
  | 'bad_request'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'precondition_failed'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'internal'
  | 'not_initialized'
  | 'bad_gateway'
  | 'unavailable';

/** HTTP status for each {@link ErrorCode}. */
const STATUS_OF: Readonly<Record<ErrorCode, number>> = {
  bad_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  internal: 500,
  not_initialized: 501,
  bad_gateway: 502,
  unavailable: 503,
};

/**
 * A client or server failure with a status and messages safe to show.
 * `messages` may be empty: the secrets service answers some 404s with `{"errors":[]}`
 * (reference/secrets.md §1.5).
 */
export class CairnError extends Error {
  readonly status: number;
  readonly messages: readonly string[];

  constructor(
    readonly code: ErrorCode,
    messages: string | readonly string[],
    options?: { cause?: unknown; status?: number },
  ) {
    const list = typeof messages === 'string' ? [messages] : messages;
    super(list.join('; ') || code, options);
    this.messages = list;
    this.status = options?.status ?? STATUS_OF[code];
  }
}

/** 400 with `message` naming the field and the problem. */
export const badRequest = (message: string) => new CairnError('bad_request', message);
/** 403; the default text is the reference's plain `permission denied`. */
export const forbidden = (message = 'permission denied') => new CairnError('forbidden', message);
/** 404 with the given messages (none by default: `{"errors":[]}`). */
export const notFound = (messages: string | readonly string[] = []) => new CairnError('not_found', messages);
/** 404 for a path no route declares (reference/secrets.md §1.5 "unsupported path"). */
export const unsupportedPath = (path: string) => new CairnError('not_found', `unsupported path: ${path}`);
/** 405 for an operation the matched path does not declare (reference/secrets.md §1.6). */
export const unsupportedOperation = () => new CairnError('method_not_allowed', 'unsupported operation');
