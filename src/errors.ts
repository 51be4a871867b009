// One error type with stable codes; the code → HTTP status table lives in src/http/error-codes.ts.
// The codes are part of the wire format the client package shares.
import type { ErrorCode } from '@vaultkeeper/client/wire';

export type { ErrorCode };

export type ErrorDetails = Record<string, unknown>;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
  }
}

export interface ValidationIssue {
  path: string;
  message: string;
}

/** A VALIDATION_ERROR naming each offending input, as `details.issues`; the message names the first. */
export function validationError(issues: ValidationIssue[], message = describeIssue(issues[0])): AppError {
  return new AppError('VALIDATION_ERROR', message, { issues });
}

/**
 * `url: must be an https:// or mailto: URL`: the field as the client wrote it (without the request
 * part, `body.` / `query.` / `params.` / `headers.`), then what is wrong with it.
 */
export function describeIssue(issue: ValidationIssue | undefined): string {
  if (issue === undefined) return 'Invalid input';
  const field = issue.path.replace(/^(body|query|params|headers)\./, '');
  return `${field}: ${issue.message}`;
}
