/**
 * The scheduler's ACL auth errors: a {@link CairnError} carrying the reference's message
 * (reference/sched.md §2.3–§2.4) and the status the HTTP layer answers with. Validation
 * failures are 400 and missing objects 404; the reference answers some of these with 500,
 * a known defect not copied (reference/README.md rule 3).
 *
 * @module
 */
import { CairnError } from '../../../kernel/http/index.js';

/** A 400 or 404 whose `message` is the reference's text, sent as the plain-text body. */
export class SchedAuthError extends CairnError {
  constructor(code: 'bad_request' | 'not_found', message: string) {
    super(code, message);
    this.name = 'SchedAuthError';
  }
}

/** 400 with the reference's message. */
export const invalidRequest = (message: string) => new SchedAuthError('bad_request', message);

/** 404 with the reference's message, e.g. `ACL auth-method not found` (sched.md §2.1). */
export const notFoundError = (message: string) => new SchedAuthError('not_found', message);

/** The reference's 404 text for reading a missing auth method (sched.md §1.2, §2.1). */
export const AUTH_METHOD_NOT_FOUND = 'ACL auth-method not found';

/**
 * hashicorp/go-multierror's text, which the reference puts after `auth method <i> invalid: `
 * (sched.md §2.3): `1 error occurred:\n\t* <e>\n\n` or `N errors occurred:\n\t* …\n\n`.
 * Kept byte for byte because clients print it as it comes (the defect list of
 * reference/README.md names this format for the secrets service only).
 */
export function multiError(errors: readonly string[]): string {
  const head = errors.length === 1 ? '1 error occurred:' : `${errors.length} errors occurred:`;
  return `${head}\n${errors.map((e) => `\t* ${e}`).join('\n')}\n\n`;
}
