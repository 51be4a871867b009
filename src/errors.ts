// One error type with stable codes; the code → HTTP status table lives in src/http/error-codes.ts.

export type ErrorCode =
  | 'VALIDATION_ERROR'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'VAULT_NOT_FOUND'
  | 'TRANSACTION_NOT_FOUND'
  | 'OVERRIDE_NOT_FOUND'
  | 'WEBHOOK_NOT_FOUND'
  | 'DELIVERY_NOT_FOUND'
  | 'WEBHOOK_DISABLED'
  | 'WEBHOOK_NOT_VERIFIED'
  | 'OVERRIDE_NOT_PENDING'
  | 'OVERRIDE_EXPIRED'
  | 'REQUEST_TIMEOUT'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_LIMIT_EXCEEDED'
  | 'CHAIN_UNAVAILABLE'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL_ERROR';

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

/** A VALIDATION_ERROR naming each offending input, as `details.issues`. */
export function validationError(issues: ValidationIssue[], message = 'Invalid input'): AppError {
  return new AppError('VALIDATION_ERROR', message, { issues });
}
