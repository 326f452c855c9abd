/**
 * How the hostpath plugin answers gRPC: handlers are async functions that return the
 * response message or throw {@link RpcFailure}; {@link unary} turns one into a grpc-js
 * handler, renders failures as status + text and anything else as INTERNAL (logged).
 * Errors follow the CSI spec's "Error Scheme" (INVALID_ARGUMENT naming the field, NOT_FOUND,
 * ALREADY_EXISTS, FAILED_PRECONDITION, ABORTED, OUT_OF_RANGE, UNIMPLEMENTED …).
 *
 * @module
 */
import * as grpc from '@grpc/grpc-js';
import type { Logger } from '../../log/logger.js';
import type { ControllerCapability } from '../types.js';

/** A failure the plugin answers on purpose: a gRPC status code and the text the caller sees. */
class RpcFailure extends Error {
  constructor(
    readonly code: grpc.status,
    message: string,
  ) {
    super(message);
    this.name = 'RpcFailure';
  }
}

/** INVALID_ARGUMENT: `<field> is required` (CSI "Missing required field"). */
export const missing = (field: string) => new RpcFailure(grpc.status.INVALID_ARGUMENT, `${field} is required`);

/** INVALID_ARGUMENT with `message` (CSI "Invalid or unsupported field in the request"). */
export const invalid = (message: string) => new RpcFailure(grpc.status.INVALID_ARGUMENT, message);

/** NOT_FOUND: `<what> not found`, e.g. `volume "vol-…" not found`. */
export const notFound = (what: string) => new RpcFailure(grpc.status.NOT_FOUND, `${what} not found`);

/** A failure with any status. */
export const fail = (code: grpc.status, message: string) => new RpcFailure(code, message);

/**
 * UNIMPLEMENTED unless `capability` is on: the answer of an RPC whose controller
 * capability the plugin runs without (CSI "Call not implemented").
 * @throws {RpcFailure} UNIMPLEMENTED.
 */
export function requireCapability(caps: ReadonlySet<ControllerCapability>, capability: ControllerCapability, rpc: string): void {
  if (!caps.has(capability)) throw new RpcFailure(grpc.status.UNIMPLEMENTED, `${rpc} is not supported: the plugin runs without the ${capability} capability`);
}

/**
 * A grpc-js unary handler from `fn`. A thrown {@link RpcFailure} becomes its status and
 * text; any other error INTERNAL with its message, logged at error level. Requests are
 * never logged (they may hold secrets); the RPC name and outcome are, at debug level.
 */
export function unary<Req, Res>(rpc: string, log: Logger, fn: (req: Req) => Promise<Res>): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    fn(call.request).then(
      (res) => {
        log.debug({ rpc }, 'csi call');
        callback(null, res);
      },
      (err: unknown) => {
        if (err instanceof RpcFailure) {
          log.debug({ rpc, code: grpc.status[err.code], details: err.message }, 'csi call refused');
          callback({ code: err.code, details: err.message });
        } else {
          const message = err instanceof Error ? err.message : String(err);
          log.error({ rpc, err: message }, 'csi call failed');
          callback({ code: grpc.status.INTERNAL, details: message });
        }
      },
    );
  };
}
