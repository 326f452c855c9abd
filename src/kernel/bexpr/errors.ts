/**
 * A filter's syntax error (with 1-based `line`/`column`) or evaluation error; `message`
 * is safe to show a user. Services wrap it in their own wording (reference/sched.md §1.7:
 * `failed to read filter expression: …`; mesh.md §6.6: `Selector is invalid: …`).
 */
export class FilterError extends Error {
  override readonly name = 'FilterError';
  constructor(
    readonly kind: 'syntax' | 'evaluation',
    message: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(message);
  }
}

/** Shorthand for an evaluation error. */
export const evaluationError = (message: string): FilterError => new FilterError('evaluation', message);
