/**
 * A CSI plugin's failure as a scheduler HTTP error (plain text, reference/sched.md §1.2):
 * the gRPC status decides the class, the text says what was being done and keeps the
 * plugin's own words (`rpc error: code = … desc = …`, reference/sched.md §4.12).
 *
 * @module
 */
import { CsiError } from '../../../kernel/csi/index.js';
import { CairnError, type ErrorCode } from '../../../kernel/http/index.js';

/**
 * HTTP error class of each gRPC status a plugin may answer, by the status name in lower case
 * without underscores (the client names them as Go prints them, `NotFound`): the caller's
 * input (400), a missing object (404), a state conflict (409), an unreachable plugin (503);
 * anything else is the plugin's own failure (502).
 */
const CLASS_OF: Readonly<Record<string, ErrorCode>> = {
  invalidargument: 'bad_request',
  outofrange: 'bad_request',
  unimplemented: 'bad_request',
  notfound: 'not_found',
  alreadyexists: 'conflict',
  failedprecondition: 'conflict',
  aborted: 'conflict',
  resourceexhausted: 'conflict',
  unavailable: 'unavailable',
  deadlineexceeded: 'unavailable',
  canceled: 'unavailable',
  cancelled: 'unavailable',
};

/**
 * `err` from a plugin call as a {@link CairnError} with the text `<what>: <plugin error>`,
 * e.g. `plugin "hostpath" could not delete volume "v1": rpc error: code = NotFound desc = …`.
 * A {@link CairnError} passes unchanged; any other error (a timeout) is 503.
 */
function pluginError(what: string, err: unknown): CairnError {
  if (err instanceof CairnError) return err;
  if (err instanceof CsiError)
    return new CairnError(CLASS_OF[err.code.replaceAll('_', '').toLowerCase()] ?? 'bad_gateway', `${what}: ${err.message}`, { cause: err });
  return new CairnError('unavailable', `${what}: ${(err as Error)?.message ?? String(err)}`, { cause: err });
}

/** Runs a plugin call, turning its failure into {@link pluginError}`(what, …)`. */
export async function pluginCall<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw pluginError(what, err);
  }
}
