// A failure the operator can fix: a one-line reason and what to do, printed without a stack trace.

export class StartError extends Error {
  /** What to do about it, one line. */
  readonly hint: string;

  constructor(message: string, hint: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartError';
    this.hint = hint;
  }
}
