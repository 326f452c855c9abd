/**
 * The reference's API errors (Boundary `internal/daemon/controller/handlers/errors.go`):
 * a body `{"kind","message"}` plus, for bad fields, `details.request_fields` naming each
 * field and its problem.
 *
 * @module
 */
import { CairnError, type ErrorCode } from '../../../kernel/http/index.js';

/** An error with the reference's `kind` and optional per-field details. */
export class GatewayApiError extends CairnError {
  constructor(
    code: ErrorCode,
    readonly kind: string,
    message: string,
    readonly fields?: Readonly<Record<string, string>>,
  ) {
    super(code, message);
  }
}

/** 400 `InvalidArgument` "Error in provided request." naming each bad field (the reference's `InvalidArgumentErrorf`). */
export const invalidFields = (fields: Record<string, string>): GatewayApiError =>
  new GatewayApiError('bad_request', 'InvalidArgument', 'Error in provided request.', fields);

/** 403 `PermissionDenied` "Forbidden." (the reference's `ForbiddenError`). */
export const forbiddenError = (): GatewayApiError => new GatewayApiError('forbidden', 'PermissionDenied', 'Forbidden.');

/** 401 `Unauthenticated` (the reference's `UnauthenticatedError`). */
export const unauthenticatedError = (): GatewayApiError => new GatewayApiError('unauthenticated', 'Unauthenticated', 'Unauthenticated, or invalid token.');

/** 404 `NotFound` (the reference's generic text for a missing resource). */
export const resourceNotFound = (): GatewayApiError => new GatewayApiError('not_found', 'NotFound', 'Resource not found.');

/**
 * 400 `FailedPrecondition` for an update with a stale `version` (the reference's
 * `ConflictErrorf`, which grpc-gateway maps to 400, not 409).
 */
export const versionMismatch = (given: number, current: number): GatewayApiError =>
  new GatewayApiError(
    'bad_request',
    'FailedPrecondition',
    `Unable to update resource: version mismatch: the request gives version ${given}, the resource is at version ${current}; read it again and retry.`,
  );

/** 400 for a second resource with a name that must be unique (the reference's `genericUniquenessMsg`). */
export const notUnique = (): GatewayApiError =>
  new GatewayApiError(
    'bad_request',
    'InvalidArgument',
    'Invalid request.  Request attempted to make second resource with the same field value that must be unique.',
  );
